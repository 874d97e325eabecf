"""A small domain built from real files without vectors (bm25, document, graph, wiki), for end-to-end answer tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lambdarag.build.steps import build_domain
from lambdarag.config.domain import init_domain, open_domain
from lambdarag.retrieval.knowledge import KnowledgeBase


def lexical_kb(base: Path, name: str, write_raw: Callable[[Path], None]) -> KnowledgeBase:
    """Create domain ``name`` in ``base``, let ``write_raw`` put its files in raw/, build it and load it."""
    dom = init_domain(name, base)
    dom.instance_file.write_text(dom.instance_file.read_text(encoding="utf-8") + "\nembedding:\n  backend: none\n",
                                 "utf-8")
    dom = open_domain(name, base)
    write_raw(dom.raw_dir)
    outcomes = build_domain(dom, ["extract", "index", "vectors", "wiki"], progress=False)
    assert all(o.ok for o in outcomes), [o.summary for o in outcomes]
    return KnowledgeBase.load(dom)
