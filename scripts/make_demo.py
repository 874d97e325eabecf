"""`python scripts/make_demo.py [--out DIR]` writes the demo domain's documents."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from lambdarag.demo.generate import main  # noqa: E402

raise SystemExit(main())
