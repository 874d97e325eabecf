"""`python -m lambdarag` is the `lambdarag` command."""

from lambdarag.cli import main

raise SystemExit(main())
