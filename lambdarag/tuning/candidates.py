"""What the tuners learn from: each question run through the pipeline's front, and the learned stage's samples.

A Front is made by pipeline.run.retrieval_front with the learned stage off — the same condensation, intent,
expansion, channels, filters, boosts and gate as answer() — so the weight tuner re-fuses exactly the rankings
the pipeline fused, and the learned stage learns from exactly the pool it will re-order.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property

import numpy as np

from lambdarag.evaluation.dataset import EvalQuestion
from lambdarag.options import PipelineOptions
from lambdarag.records import Turn
from lambdarag.retrieval.features import candidate_features
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.retrieval.retrieve import Retrieval

MAX_PAIRS = 400  # (relevant, irrelevant) pairs kept per question
POOL_DEPTH = 30  # candidates the model re-orders (retrieve.RANKING_DEPTH keeps that many)
MRR_CUTOFF = 10


@dataclass(frozen=True)
class PoolSample:
    """One question's fused pool: candidate chunk ids and documents in fused order, features, relevance."""

    key: str
    intent: str
    chunk_ids: tuple[str, ...]
    docs: tuple[str, ...]
    rows: np.ndarray  # len(chunk_ids) × len(FEATURES)
    relevant_docs: frozenset[str]
    source: str = "label"  # label | rating

    @cached_property
    def pair_diffs(self) -> np.ndarray:
        """Feature differences of every (relevant, irrelevant) pair of candidates, MAX_PAIRS at most (a seeded
        sample by question key): what the pairwise learner is fit on."""
        good = np.array([d in self.relevant_docs for d in self.docs], dtype=bool)
        if not good.any() or good.all():
            return np.zeros((0, self.rows.shape[1] if self.rows.ndim == 2 else 0))
        diff = (self.rows[good][:, None, :] - self.rows[~good][None, :, :]).reshape(-1, self.rows.shape[1])
        if len(diff) > MAX_PAIRS:
            keep = random.Random(self.key).sample(range(len(diff)), MAX_PAIRS)
            diff = diff[sorted(keep)]
        return np.asarray(diff, dtype=np.float64)

    @property
    def learnable(self) -> bool:
        """A pool with a relevant and an irrelevant candidate: something to learn from."""
        hits = [d in self.relevant_docs for d in self.docs]
        return any(hits) and not all(hits)


@dataclass(frozen=True)
class Front:
    """One question as the pipeline's front saw it: its key, intent and retrieval (learned stage off)."""

    key: str
    intent: str
    retrieval: Retrieval
    relevant_docs: frozenset[str]
    source: str


def front(kb: KnowledgeBase, key: str, question: str, history: Sequence[Turn], today: date | None,
          relevant_docs: Iterable[str], source: str, use_llm: bool = True) -> Front:
    """Run the pipeline's front for a question (pipeline.run.retrieval_front), the learned stage off, no log."""
    from lambdarag.pipeline.run import retrieval_front

    options = PipelineOptions(log=False, learned=False, rerank=False, use_llm=use_llm, today=today)
    _condensed, intent, retrieval = retrieval_front(kb, question, history, options)
    return Front(key, intent, retrieval, frozenset(relevant_docs), source)


def question_fronts(kb: KnowledgeBase, questions: Sequence[EvalQuestion], use_llm: bool = True) -> list[Front]:
    """The front of every labelled question with gold documents."""
    return [front(kb, q.qid, q.question, q.history, q.as_of, q.gold_doc_ids, "label", use_llm)
            for q in questions if q.gold_doc_ids]


def pool_sample(kb: KnowledgeBase, f: Front) -> PoolSample:
    """The learned stage's sample: the first POOL_DEPTH fused candidates with the features rank() computes."""
    pool = f.retrieval.pool[:POOL_DEPTH]
    assert f.retrieval.expansion is not None
    rows = candidate_features(pool, f.retrieval.rankings, kb.chunks, f.retrieval.expansion, f.intent)
    return PoolSample(f.key, f.intent, tuple(x.chunk_id for x in pool), tuple(kb.doc_of(x.chunk_id) for x in pool),
                      rows, f.relevant_docs, f.source)


def order_mrr(docs: Sequence[str], relevant: frozenset[str], order: Sequence[int]) -> float:
    """MRR@10 of the documents in ``order`` (candidate indexes), each document counted at its first chunk."""
    seen: list[str] = []
    for i in order:
        if docs[i] in seen:
            continue
        seen.append(docs[i])
        if docs[i] in relevant:
            return 1.0 / len(seen) if len(seen) <= MRR_CUTOFF else 0.0
    return 0.0
