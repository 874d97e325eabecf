"""`python scripts/extract_docs.py ARGS` is `lambdarag extract ARGS`."""

import _bootstrap  # noqa: F401

from lambdarag.cli import run_script

if __name__ == "__main__":
    raise SystemExit(run_script("extract"))
