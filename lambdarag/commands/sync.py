"""`lambdarag sync` (raw/ mirrors a source folder, then a build) and `lambdarag jobs` (the documents API's
background builds): argument parsing only, the work is in lambdarag.build.sync and lambdarag.build.jobs."""

from __future__ import annotations

import argparse
import json
from typing import Any

from lambdarag.commands.build import add_wait_arg
from lambdarag.commands.domains import add_domain_args, add_progress_args
from lambdarag.config.domain import open_domain


def register(sub: Any) -> None:
    s = sub.add_parser("sync", help="make a domain's raw/ mirror a source folder (added, changed, removed), "
                                    "then build")
    add_domain_args(s)
    s.add_argument("--from", dest="source", default=None, metavar="DIR",
                   help="the folder to mirror (default: the config's sync.from)")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    add_wait_arg(s)
    add_progress_args(s)
    s.set_defaults(handler=cmd_sync)
    j = sub.add_parser("jobs", help="the documents API's background builds: list them, or work the queue")
    add_domain_args(j)
    j.add_argument("action", nargs="?", choices=("list", "work"), default="list",
                   help="list: print the job records (default); work: run the queued jobs (what the server starts)")
    j.set_defaults(handler=cmd_jobs)


def cmd_sync(args: argparse.Namespace) -> int:
    from lambdarag.build.sync import sync_domain, sync_source

    domain = open_domain(args.domain, args.base_dir)
    report = sync_domain(domain, sync_source(domain, args.source), wait_s=args.wait, progress=args.progress)
    print(json.dumps(report.to_dict(), ensure_ascii=False, indent=1) if args.json else report.summary())
    return 0 if report.ok else 1


def cmd_jobs(args: argparse.Namespace) -> int:
    from lambdarag.build.jobs import JobStore, work

    domain = open_domain(args.domain, args.base_dir)
    if args.action == "work":
        work(domain)
        return 0
    for job in JobStore(domain.root).all():
        print(json.dumps(job.to_dict(), ensure_ascii=False))
    return 0
