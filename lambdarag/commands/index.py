"""`lambdarag index`: build a domain's BM25 index from its extracted chunks."""

from __future__ import annotations

import argparse
import time
from typing import Any

from lambdarag.commands.domains import add_step_parser
from lambdarag.config.domain import open_domain


def register(sub: Any) -> None:
    add_step_parser(sub, "index", "build the BM25 index of a domain from its extracted chunks", cmd_index)


def cmd_index(args: argparse.Namespace) -> int:
    from lambdarag.build.steps import domain_chunks
    from lambdarag.channels import bm25

    domain = open_domain(args.domain, args.base_dir)
    start = time.perf_counter()
    chunks = domain_chunks(domain)  # raises with the extract command when there are none
    loaded = time.perf_counter() - start
    result = bm25.build(domain, chunks, progress=args.progress)
    rate = result.items / result.seconds if result.seconds else 0.0
    print(
        f"bm25 index of {domain.name}: {result.items} chunks, {result.detail}; "
        f"built in {result.seconds:.2f} s ({rate:.0f} chunks/s; chunks read in {loaded:.2f} s) "
        f"-> {domain.index_dir / bm25.NAME}"
    )
    return 0
