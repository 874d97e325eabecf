"""The `lambdarag` command: one subcommand per module in lambdarag/commands/."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Callable, Sequence

from lambdarag import __version__, commands
from lambdarag.errors import LambdaRAGError

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    """Parser with every subcommand found in lambdarag.commands (each module has register())."""
    parser = argparse.ArgumentParser(prog="lambdarag", description="Per-domain knowledge-base QA.")
    parser.add_argument("--version", action="version", version=f"lambdarag {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; expected failures print one actionable line and exit 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except LambdaRAGError as exc:
        print(f"lambdarag {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"lambdarag {args.command}: interrupted", file=sys.stderr)
        return 130


def run_script(command: str, argv: Sequence[str] | None = None) -> int:
    """Entry for scripts/*.py: `python scripts/X.py ARGS` is `lambdarag COMMAND ARGS`."""
    return main([command, *(sys.argv[1:] if argv is None else argv)])
