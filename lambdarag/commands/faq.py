"""`lambdarag faq list|add|remove|promote`: a domain's curated answers (lambdarag/faq/)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from lambdarag.commands.domains import add_domain_args
from lambdarag.config.domain import Domain, open_domain
from lambdarag.errors import NotFoundError


def register(sub: Any) -> None:
    p = sub.add_parser("faq", help="a domain's curated answers: list, add, remove, promote liked answers")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    ls = actions.add_parser("list", help="print the entries")
    add_domain_args(ls)
    ls.add_argument("--json", action="store_true", help="one JSON object a line")
    ls.set_defaults(handler=cmd_list)
    add = actions.add_parser("add", help="add one question and its answer")
    add_domain_args(add)
    add.add_argument("--question", required=True)
    add.add_argument("--answer", required=True)
    add.add_argument("--source", default="", help="where the answer comes from (shown as its citation)")
    add.set_defaults(handler=cmd_add)
    rm = actions.add_parser("remove", help="remove an entry by id")
    add_domain_args(rm)
    rm.add_argument("id")
    rm.set_defaults(handler=cmd_remove)
    pr = actions.add_parser("promote", help="add the liked answers of the feedback logs (duplicates skipped)")
    add_domain_args(pr)
    pr.add_argument("--since", default=None, help="only answers asked from this date/time on (YYYY-MM-DD[THH:MM])")
    pr.add_argument("--min-rating", type=int, default=1, help="net rating (ups minus downs) needed (default 1)")
    pr.add_argument("--dry-run", action="store_true", help="print what would be added, change nothing")
    pr.set_defaults(handler=cmd_promote)


def _store(domain: Domain) -> Any:
    from lambdarag.faq.lookup import faq_path
    from lambdarag.faq.store import FaqStore

    return FaqStore(faq_path(domain.root, domain.config.faq))


def cmd_list(args: argparse.Namespace) -> int:
    for entry in _store(open_domain(args.domain, args.base_dir)).entries():
        if args.json:
            print(json.dumps(entry.to_dict(), ensure_ascii=False))
        else:
            print(f"{entry.id}  {entry.origin:<8}  {entry.question}  →  {entry.answer[:60]}")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from lambdarag.faq.store import DuplicateError, new_entry

    added, _ = _store(open_domain(args.domain, args.base_dir)).add([new_entry(args.question, args.answer,
                                                                               args.source)])
    if not added:
        raise DuplicateError("an entry with this question exists", "lambdarag faq list shows it; remove it first")
    print(f"added {added[0].id}")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    if _store(open_domain(args.domain, args.base_dir)).remove(args.id) is None:
        raise NotFoundError(f"no FAQ entry with id {args.id!r}", "lambdarag faq list shows the ids")
    print(f"removed {args.id}")
    return 0


def cmd_promote(args: argparse.Namespace) -> int:
    from lambdarag.faq.promote import parse_since, promote
    from lambdarag.ingest.store import ChunksMissingError, load_chunks

    domain = open_domain(args.domain, args.base_dir)
    try:
        chunks = {c.chunk_id: c for c in load_chunks(domain.processed_dir)}
    except ChunksMissingError:  # the citations then keep the ids the log has, without titles
        chunks = {}
    found = promote(domain.feedback_dir, chunks, parse_since(args.since), args.min_rating)
    for rid, reason in found.left_out.items():
        print(f"left out {rid}: {reason}", file=sys.stderr)
    if args.dry_run:
        for entry in found.entries:
            print(f"would add  {entry.question}  →  {entry.answer[:60]}")
        return 0
    added, skipped = _store(domain).add(found.entries)
    for entry in added:
        print(f"added {entry.id}  {entry.question}")
    print(f"{len(added)} added, {len(skipped)} already there, {len(found.left_out)} left out", file=sys.stderr)
    return 0
