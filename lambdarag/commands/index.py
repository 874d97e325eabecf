"""`lambdarag index`: build a domain's BM25 index from its extracted chunks."""

from __future__ import annotations

import argparse
import time
from typing import Any

from lambdarag.commands.domains import add_domain_args, add_progress_args
from lambdarag.config.domain import Domain, open_domain
from lambdarag.errors import IndexMismatchError
from lambdarag.records import Chunk


def register(sub: Any) -> None:
    p = sub.add_parser("index", help="build the BM25 index of a domain from its extracted chunks")
    add_domain_args(p)
    add_progress_args(p)
    p.set_defaults(handler=cmd_index)


def extracted_chunks(domain: Domain) -> list[Chunk]:
    """The domain's chunks; none (or no chunks file) means extraction has to run first."""
    from lambdarag.ingest.store import load_chunks

    extract = f"run first: python scripts/extract_docs.py --domain {domain.name}"
    try:
        chunks = load_chunks(domain.processed_dir)
    except IndexMismatchError as exc:
        raise IndexMismatchError(f"cannot read the chunks of domain {domain.name!r} ({exc.message})", extract) from exc
    if not chunks:
        raise IndexMismatchError(f"domain {domain.name!r} has no extracted chunks in {domain.processed_dir}", extract)
    return chunks


def cmd_index(args: argparse.Namespace) -> int:
    from lambdarag.channels import bm25

    domain = open_domain(args.domain, args.base_dir)
    start = time.perf_counter()
    chunks = extracted_chunks(domain)
    loaded = time.perf_counter() - start
    result = bm25.build(domain, chunks, progress=args.progress)
    rate = result.items / result.seconds if result.seconds else 0.0
    print(
        f"bm25 index of {domain.name}: {result.items} chunks, {result.detail}; "
        f"built in {result.seconds:.2f} s ({rate:.0f} chunks/s; chunks read in {loaded:.2f} s) "
        f"-> {domain.index_dir / bm25.NAME}"
    )
    return 0
