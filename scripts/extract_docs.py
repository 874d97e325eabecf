"""`python scripts/extract_docs.py ARGS` is `lambdarag extract ARGS`."""

import _bootstrap  # noqa: F401

from lambdarag.cli import run_script

raise SystemExit(run_script("extract"))
