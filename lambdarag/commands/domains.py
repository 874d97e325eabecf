"""`lambdarag init` and `lambdarag config`: create a domain, show its effective configuration."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from typing import Any

import yaml

from lambdarag.config.domain import domain_overrides, init_domain, open_domain
from lambdarag.config.env import env_settings
from lambdarag.config.load import to_plain


def add_domain_args(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """--domain NAME and --base-dir DIR, shared by every per-domain subcommand."""
    parser.add_argument("--domain", required=required, help="domain name (folder under the knowledge base)")
    parser.add_argument("--base-dir", default=None, help="knowledge base directory (default: config / env)")


def add_progress_args(parser: argparse.ArgumentParser) -> None:
    """--progress / --no-progress (default: a progress bar only on a terminal)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--progress", dest="progress", action="store_true", default=None, help="show a progress bar")
    group.add_argument("--no-progress", dest="progress", action="store_false", help="never show a progress bar")


def add_step_parser(sub: Any, name: str, help: str, handler: Callable[[argparse.Namespace], int]) -> None:
    """A build subcommand of one domain: --domain, --base-dir and --progress / --no-progress."""
    p = sub.add_parser(name, help=help)
    add_domain_args(p)
    add_progress_args(p)
    p.set_defaults(handler=handler)


def register(sub: Any) -> None:
    p = sub.add_parser("init", help="create a domain from knowledge-template/")
    p.add_argument("name", help="domain name: lowercase letters, digits, '-', '_'")
    p.add_argument("--base-dir", default=None, help="knowledge base directory (default: config / env)")
    p.add_argument("--force", action="store_true", help="refresh an existing domain (raw/ is kept)")
    p.set_defaults(handler=cmd_init)
    c = sub.add_parser("config", help="print the effective configuration of a domain")
    add_domain_args(c)
    c.set_defaults(handler=cmd_config)


def cmd_init(args: argparse.Namespace) -> int:
    domain = init_domain(args.name, args.base_dir, force=args.force)
    print(f"domain {domain.name} ready at {domain.root}; put documents into {domain.raw_dir}")
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    domain = open_domain(args.domain, args.base_dir)
    print(render_config(to_plain(domain.config), domain_overrides(domain), env_settings(os.environ)[1]))
    return 0


def render_config(plain: dict[str, Any], overridden: set[str], env_vars: Mapping[str, str] | None = None) -> str:
    """YAML of the effective config; lines whose key the domain overrides end in '# <- instance.yml', those an
    environment variable sets in '# <- $LAMBDARAG__...' (that one wins)."""
    marks = {path: "  # <- instance.yml" for path in overridden}
    marks.update({path: f"  # <- ${var}" for path, var in (env_vars or {}).items()})
    lines: list[str] = []
    _render(plain, marks, "", 0, lines)
    return "\n".join(lines)


def _render(node: dict[str, Any], marks: Mapping[str, str], prefix: str, depth: int, out: list[str]) -> None:
    pad = "  " * depth
    for key, value in node.items():
        path = f"{prefix}.{key}" if prefix else key
        mark = marks.get(path, "")
        if isinstance(value, dict) and value:
            out.append(f"{pad}{key}:{mark}")
            _render(value, marks, path, depth + 1, out)
        else:
            dumped = yaml.safe_dump(value, allow_unicode=True, default_flow_style=True, width=10_000).strip()
            dumped = dumped.removesuffix("\n...").removesuffix("...").strip()
            out.append(f"{pad}{key}: {dumped}{mark}")
