"""Subcommands of the `lambdarag` CLI: each module defines register(subparsers)."""
