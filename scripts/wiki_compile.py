"""`python scripts/wiki_compile.py ARGS` is `lambdarag wiki ARGS`."""

import _bootstrap  # noqa: F401

from lambdarag.cli import run_script

raise SystemExit(run_script("wiki"))
