"""`lambdarag demo`: create (or refresh) the bundled demo domain and build it."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lambdarag.build.steps import build_domain, timing_summary
from lambdarag.config.domain import ensure_domain

DEMO_DOMAIN = "demo"


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="generate the bundled demo domain's documents and build it (incremental)")
    p.add_argument("--name", default=DEMO_DOMAIN, help="domain name to build the demo into")
    p.add_argument("--base-dir", default=None, help="knowledge base directory (default: config / env)")
    p.set_defaults(handler=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from lambdarag.demo.generate import generate

    domain = ensure_domain(args.name, args.base_dir)
    written = generate(domain.raw_dir)
    print(f"demo documents: {len(written)} files in {domain.raw_dir}", file=sys.stderr)
    outcomes = build_domain(domain)
    print(timing_summary(outcomes))
    return 0 if all(o.ok for o in outcomes) else 1
