"""`python scripts/rebuild_index.py ARGS` is `lambdarag index ARGS`."""

import _bootstrap  # noqa: F401

from lambdarag.cli import run_script

raise SystemExit(run_script("index"))
