"""`python scripts/rebuild_index.py ARGS` is `lambdarag index ARGS`."""

import _bootstrap  # noqa: F401

from lambdarag.cli import run_script

if __name__ == "__main__":
    raise SystemExit(run_script("index"))
