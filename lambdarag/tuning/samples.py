"""Tuning samples: liked answers from the feedback logs, or labelled questions searched at full depth."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lambdarag.evaluation.dataset import EvalQuestion
from lambdarag.feedback.log import read_log_family
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.tuning.candidates import Front, question_fronts
from lambdarag.tuning.search import Sample, make_sample


def samples_from_logs(feedback_dir: Path) -> tuple[list[Sample], dict[str, int]]:
    """Samples from query_log.jsonl joined with ratings.jsonl by request id (latest rating wins)."""
    from lambdarag.feedback.log import QUERY_LOG, RATINGS_LOG

    ratings = {str(r.get("request_id")): r.get("rating") for r in read_log_family(feedback_dir / RATINGS_LOG)}
    queries = read_log_family(feedback_dir / QUERY_LOG)
    stats = {"requests": len(queries), "rated": 0, "liked": 0, "usable": 0}
    samples = []
    for record in queries:
        rating = ratings.get(str(record.get("request_id")))
        stats["rated"] += rating is not None
        if rating != "up":
            continue
        stats["liked"] += 1
        rankings = record.get("channels") or {}
        liked = [str(c) for c in record.get("citations") or []]
        if not liked or not isinstance(rankings, dict) or not rankings or not record.get("intent"):
            continue  # liked without citations says not which chunks were right; an FAQ answer ranked nothing
        spread = float(record.get("document_spread") or 0.0)  # a log from before the document channel: 0
        samples.append(make_sample(str(record["request_id"]), str(record["intent"]), rankings, liked, "rating", spread))
        stats["usable"] += 1
    return samples, stats


def samples_from_fronts(kb: KnowledgeBase, fronts: Sequence[Front]) -> list[Sample]:
    """Weight-tuning samples from the pipeline's fronts: the rankings it fused (the kept attempt's, after
    fusion_filter; the boosts are not searched over), the relevant documents' chunks among them."""
    samples = []
    for f in fronts:
        rankings = {name: [h.chunk_id for h in hits] for name, hits in f.retrieval.rankings.items()}
        relevant = [c for ids in rankings.values() for c in ids if kb.doc_of(c) in f.relevant_docs]
        samples.append(make_sample(f.key, f.intent, rankings, relevant, f.source, kb.document_spread))
    return samples


def samples_from_questions(kb: KnowledgeBase, questions: Sequence[EvalQuestion]) -> list[Sample]:
    """Weight-tuning samples for labelled questions (samples_from_fronts of their fronts)."""
    return samples_from_fronts(kb, question_fronts(kb, questions))
