"""`python scripts/make_demo.py [--out DIR]` writes the demo domain's documents."""

import _bootstrap  # noqa: F401

from lambdarag.demo.generate import main

if __name__ == "__main__":
    raise SystemExit(main())
