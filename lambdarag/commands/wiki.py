"""`lambdarag wiki` (scripts/wiki_compile.py): build the entity graph, then compile and index the wiki pages."""

from __future__ import annotations

import argparse
from typing import Any

from lambdarag.commands.domains import add_step_parser
from lambdarag.config.domain import open_domain


def register(sub: Any) -> None:
    add_step_parser(sub, "wiki", "build the entity graph, then compile the wiki pages and index them", cmd_wiki)


def cmd_wiki(args: argparse.Namespace) -> int:
    from lambdarag.build.steps import domain_chunks
    from lambdarag.channels import graph, wiki

    domain = open_domain(args.domain, args.base_dir)
    chunks = domain_chunks(domain)  # raises with the extract command when there are none
    built = graph.build(domain, chunks, progress=args.progress)
    print(f"graph of {domain.name}: {built.detail} in {built.seconds:.1f} s -> {domain.index_dir / graph.NAME}")
    compiled = wiki.build(domain, chunks, progress=args.progress)
    print(f"wiki of {domain.name}: {compiled.detail} in {compiled.seconds:.1f} s -> {domain.wiki_dir}")
    return 0
