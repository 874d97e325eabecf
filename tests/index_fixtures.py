"""A small domain built with every channel (bm25, document, vector, graph, wiki), for the index-fault tests.

Vectors come from the fake OpenAI-compatible server (deterministic character-bag embeddings over loopback HTTP),
so a build subprocess can embed too; the LLM is off (graph and wiki by rules).
"""

from __future__ import annotations

from pathlib import Path

from server_fixtures import write_corpus
from test_channel_vector import DIM

from lambdarag.build.steps import build_domain
from lambdarag.config.domain import Domain, init_domain, open_domain

CHANNELS = ("bm25", "document", "vector", "graph", "wiki")
OLD_QUESTION = "教职工出差住宿费标准是多少？"  # answered by the first build's corpus
NEW_QUESTION = "校园卡单次充值上限是多少？"  # answered only once NEW_DOC is built


def full_instance(base_url: str, batch_size: int = 8) -> str:
    return (
        "llm: {enabled: false}\n"
        "embedding:\n"
        f"  backend: openai\n  base_url: '{base_url}'\n  model: fake-embed\n  dim: {DIM}\n"
        f"  batch_size: {batch_size}\n  max_retries: 0\n  timeout_s: 5\n  query_prefix: ''\n  passage_prefix: ''\n"
    )


def full_domain(base: Path, base_url: str, name: str = "kb") -> Domain:
    """A domain with the small Chinese corpus, built with every step; each step must succeed."""
    domain = init_domain(name, base)
    domain.instance_file.write_text(full_instance(base_url), encoding="utf-8")
    domain = open_domain(name, base)
    write_corpus(domain.raw_dir)
    outcomes = build_domain(domain, progress=False)
    assert all(o.ok for o in outcomes), outcomes
    return domain


def index_files(domain: Domain, channel: str) -> list[str]:
    """The files of a channel's published index folder, manifest included."""
    folder = (domain.index_dir / channel).resolve()
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
