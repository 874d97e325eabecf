"""`lambdarag vectors` (scripts/build_vector_index.py): embed a domain's chunks and publish the vector index."""

from __future__ import annotations

import argparse
from typing import Any

from lambdarag.commands.domains import add_step_parser
from lambdarag.config.domain import open_domain


def register(sub: Any) -> None:
    add_step_parser(sub, "vectors", "embed a domain's chunks (and with embedding.sentences their sentences; "
                    "incremental, resumable) and publish the vector index", cmd_vectors)


def cmd_vectors(args: argparse.Namespace) -> int:
    from lambdarag.build.steps import domain_chunks
    from lambdarag.channels import vector

    domain = open_domain(args.domain, args.base_dir)
    emb = domain.config.embedding
    if emb.backend == "none":
        print(f"vector channel of {domain.name} is disabled (embedding.backend: none); nothing to build")
        return 0
    chunks = domain_chunks(domain)  # raises with the extract command when there are none
    result = vector.build(domain, chunks, progress=args.progress)
    embedded = result.items - result.reused
    rate = f", {embedded / result.seconds:.1f} passages/s" if embedded and result.seconds else ""
    print(f"vector index of {domain.name}: {result.items} vectors ({result.detail}) "
          f"in {result.seconds:.1f} s{rate} -> {domain.index_dir / vector.NAME}")
    if emb.sentences:
        from lambdarag.build.steps import build_sentences
        from lambdarag.channels import sentence_vectors

        made = build_sentences(domain, chunks, args.progress)
        print(f"sentence vectors of {domain.name}: {made.detail} in {made.seconds:.1f} s "
              f"-> {domain.index_dir / sentence_vectors.NAME}")
    if not domain.config.retrieval.channels[vector.NAME].enabled:
        print("note: retrieval.channels.vector.enabled is false, so queries will not use this index")
    return 0
