"""`lambdarag index`: build a domain's BM25 index from its extracted chunks."""

from __future__ import annotations

import argparse
import time
from typing import Any

from lambdarag.commands.domains import add_domain_args
from lambdarag.domain import open_domain


def register(sub: Any) -> None:
    p = sub.add_parser("index", help="build the BM25 index of a domain from its extracted chunks")
    add_domain_args(p)
    progress = p.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None, help="show a progress bar")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show a progress bar")
    p.set_defaults(handler=cmd_index)


def cmd_index(args: argparse.Namespace) -> int:
    from lambdarag.channels import bm25
    from lambdarag.commands.build import domain_chunks

    domain = open_domain(args.domain, args.base_dir)
    start = time.perf_counter()
    chunks = domain_chunks(domain)  # raises with the extract command when there are none
    loaded = time.perf_counter() - start
    result = bm25.build(domain, chunks, progress=args.progress)
    rate = result.items / result.seconds if result.seconds else 0.0
    print(
        f"bm25 index of {domain.name}: {result.items} chunks, {result.detail}; "
        f"built in {result.seconds:.2f} s ({rate:.0f} chunks/s, chunks loaded in {loaded:.2f} s) "
        f"-> {domain.index_dir / bm25.NAME}"
    )
    return 0
