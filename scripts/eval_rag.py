"""`python scripts/eval_rag.py ARGS` is `lambdarag eval ARGS`."""

import _bootstrap  # noqa: F401

from lambdarag.cli import run_script

raise SystemExit(run_script("eval"))
