"""`lambdarag config-reference`: write docs/CONFIG.md from agent-config.yml (or --check that it is current)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lambdarag.config.load import PROJECT_ROOT, default_config_file
from lambdarag.config.reference import render

DEFAULT_OUTPUT = PROJECT_ROOT / "docs" / "CONFIG.md"


def register(sub: Any) -> None:
    p = sub.add_parser("config-reference", help="write the configuration reference (docs/CONFIG.md)")
    p.add_argument("--config", type=Path, default=None, help="the agent-config.yml to read (default: the project's)")
    p.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="where to write it (default: docs/CONFIG.md)")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 when the file is not current")
    p.set_defaults(handler=cmd_reference)


def cmd_reference(args: argparse.Namespace) -> int:
    source = args.config or default_config_file()
    text = render(source.read_text(encoding="utf-8"))
    current = args.output.read_text(encoding="utf-8") if args.output.exists() else None
    if args.check:
        if current != text:
            print(f"{args.output} is not current with {source}: run lambdarag config-reference", file=sys.stderr)
            return 1
        return 0
    if current != text:
        args.output.write_text(text, encoding="utf-8")
    print(f"{args.output}: {len(text.splitlines())} lines from {source}")
    return 0
