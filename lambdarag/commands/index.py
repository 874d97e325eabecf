"""`lambdarag index`: build a domain's BM25 and document indexes from its extracted chunks."""

from __future__ import annotations

import argparse
import time
from typing import Any

from lambdarag.commands.domains import add_step_parser
from lambdarag.config.domain import open_domain


def register(sub: Any) -> None:
    add_step_parser(sub, "index", "build the BM25 and document indexes of a domain from its extracted chunks",
                    cmd_index)


def cmd_index(args: argparse.Namespace) -> int:
    """The build's index step alone: the chunk BM25 index, then the document index (both named by the same
    rebuild command when the server refuses them)."""
    from lambdarag.build.steps import domain_chunks
    from lambdarag.channels.base import channel_module

    domain = open_domain(args.domain, args.base_dir)
    start = time.perf_counter()
    chunks = domain_chunks(domain)  # raises with the extract command when there are none
    loaded = time.perf_counter() - start
    for name, unit in (("bm25", "chunks"), ("document", "documents")):
        module = channel_module(name, domain.config.retrieval.backend)
        result = module.build(domain, chunks, progress=args.progress)
        rate = result.items / result.seconds if result.seconds else 0.0
        print(
            f"{name} index of {domain.name}: {result.items} {unit}, {result.detail}; "
            f"built in {result.seconds:.2f} s ({rate:.0f} {unit}/s; chunks read in {loaded:.2f} s) "
            f"-> {domain.index_dir / name}"
        )
    return 0
