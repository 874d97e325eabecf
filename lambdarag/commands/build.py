"""`lambdarag extract` and `lambdarag build`: the build path extract → index → vectors → wiki."""

from __future__ import annotations

import argparse
from typing import Any

from lambdarag.build.steps import STEPS, build_domain, run_extract, timing_summary
from lambdarag.channels.buildlock import WAIT_ENV
from lambdarag.commands.domains import add_domain_args
from lambdarag.config.domain import open_domain


def register(sub: Any) -> None:
    e = sub.add_parser("extract", help="extract and chunk the documents in a domain's raw/ (incremental)")
    add_domain_args(e)
    add_wait_arg(e)
    e.set_defaults(handler=cmd_extract)
    b = sub.add_parser("build", help="extract, then build every index (bm25, vectors, graph + wiki)")
    add_domain_args(b)
    b.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated subset of {','.join(STEPS)}")
    add_wait_arg(b)
    b.set_defaults(handler=cmd_build)


def add_wait_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wait", type=float, default=None, metavar="SECONDS",
                        help=f"when another build of the domain is running, wait up to SECONDS for it "
                             f"(default: ${WAIT_ENV}, else 0: refuse at once)")


def cmd_extract(args: argparse.Namespace) -> int:
    report = run_extract(open_domain(args.domain, args.base_dir), wait_s=args.wait)
    print(report.summary())
    return 1 if report.failed else 0


def cmd_build(args: argparse.Namespace) -> int:
    domain = open_domain(args.domain, args.base_dir)
    outcomes = build_domain(domain, [s.strip() for s in args.steps.split(",") if s.strip()], wait_s=args.wait)
    print(timing_summary(outcomes))
    return 0 if all(o.ok for o in outcomes) else 1
