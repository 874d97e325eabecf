"""`python scripts/tune_weights.py ARGS` is `lambdarag tune ARGS`."""

import _bootstrap  # noqa: F401

from lambdarag.cli import run_script

raise SystemExit(run_script("tune"))
