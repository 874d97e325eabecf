"""`python scripts/build_vector_index.py ARGS` is `lambdarag vectors ARGS`."""

import _bootstrap  # noqa: F401

from lambdarag.cli import run_script

raise SystemExit(run_script("vectors"))
