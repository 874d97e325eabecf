"""Eval tier: the Milvus backend ranks a development set like the local backend (issue 16's parity figures).

A DomainRAG subset (7 questions of every type, their gold passages and 300 distractors) is built twice, with
retrieval.backend local and milvus (milvus-lite, in-process); every question is searched through the whole
pipeline on both. The fused top-10 documents of the milvus backend overlap the local backend's by at least 80%
on average and its MRR@10 is within 0.02. Vectors come from the fake server's deterministic character-bag
embedder, the same for both backends (parity is about the backends, not the model). Run with
`pytest -m eval tests/test_milvus_parity.py -s` to see the figures; skipped when ../shared/evaldata is absent.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from index_fixtures import full_instance
from test_channel_vector import DIM, char_bag
from test_eval_real import per_type, subset

from lambdarag.build.steps import build_domain
from lambdarag.channels.milvus_store import forget_client, target
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.evaluation.dataset import EvalQuestion, load_questions
from lambdarag.evaluation.metrics import doc_ranking, mean, mrr_at_k
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import search
from lambdarag.retrieval.knowledge import KnowledgeBase

pytest.importorskip("pymilvus", reason="the milvus extra is not installed: pip install -e '.[milvus]'")
pytest.importorskip("milvus_lite", reason="the milvus extra is not installed: pip install -e '.[milvus]'")
pytestmark = pytest.mark.eval
TOP = 10


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return subset("domainrag_ruc", tmp_path_factory.mktemp("parity"), lambda rows: per_type(rows, 7), 300)


def built(base: Path, dataset: Path, base_url: str, backend: str) -> Domain:
    domain = init_domain(backend, base)
    domain.instance_file.write_text(
        full_instance(base_url, batch_size=64) + f"retrieval:\n  backend: {backend}\n  final_top_k: {TOP}\n", "utf-8")
    domain = open_domain(backend, base)
    shutil.copyfile(dataset / "corpus.jsonl", domain.raw_dir / "corpus.jsonl")
    outcomes = build_domain(domain, progress=False)
    assert all(o.ok for o in outcomes), outcomes
    return domain


def rankings(kb: KnowledgeBase, questions: list[EvalQuestion], channels: tuple[str, ...] | None) -> list[list[str]]:
    options = PipelineOptions(use_llm=False, channels=channels)
    out = []
    for q in questions:
        hits = search(kb, q.question, options).hits
        out.append(doc_ranking((h["chunk_id"] for h in hits), kb.doc_of)[:TOP])
    return out


@pytest.fixture(scope="module")
def both(dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Each backend's document rankings (fused, and BM25 alone) for every question of the subset."""
    questions = load_questions(dataset / "questions.jsonl")
    out: dict[str, Any] = {"questions": questions}
    with FakeOpenAI(embed=char_bag, dim=DIM) as fake:
        for backend in ("local", "milvus"):
            domain = built(tmp_path_factory.mktemp(backend), dataset, fake.base_url, backend)
            kb = KnowledgeBase.load(domain)
            assert kb.channel_errors == {}, kb.channel_errors
            out[backend] = {"fused": rankings(kb, questions, None), "bm25": rankings(kb, questions, ("bm25",)),
                            "vector": rankings(kb, questions, ("vector",))}
            if backend == "milvus":
                forget_client(target(domain))
    yield out


def overlap(a: list[str], b: list[str]) -> float:
    """Share of the local top-k documents the milvus top-k also holds (1.0 when both are empty)."""
    return len(set(a) & set(b)) / len(a) if a else float(not b)


def figures(both: dict[str, Any], ranking: str) -> tuple[float, float, float]:
    questions = both["questions"]
    local, milvus = both["local"][ranking], both["milvus"][ranking]
    shared = mean([overlap(a, b) for a, b in zip(local, milvus, strict=True)])
    mrr = [mean([mrr_at_k(r, q.gold_doc_ids, TOP) for r, q in zip(runs, questions, strict=True)])
           for runs in (local, milvus)]
    print(f"\n{ranking}: top-{TOP} document overlap {shared:.3f}, MRR@{TOP} local {mrr[0]:.4f} milvus {mrr[1]:.4f}")
    return shared, mrr[0], mrr[1]


def test_fused_top10_overlaps_by_80_percent_and_mrr_is_within_0_02(both: dict[str, Any]) -> None:
    shared, local_mrr, milvus_mrr = figures(both, "fused")
    assert len(both["questions"]) >= 40
    assert shared >= 0.80
    assert abs(milvus_mrr - local_mrr) <= 0.02
    assert local_mrr > 0.3  # a broken build on both sides would agree too


def test_each_milvus_channel_ranks_close_to_its_local_twin(both: dict[str, Any]) -> None:
    for channel in ("bm25", "vector"):
        shared, local_mrr, milvus_mrr = figures(both, channel)
        assert shared >= 0.80, channel
        assert abs(milvus_mrr - local_mrr) <= 0.05, channel
