"""Tuning samples: liked answers from the feedback logs, or labelled questions searched at full depth."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

from lambdarag.config.domain import Domain
from lambdarag.evaluation.dataset import EvalQuestion
from lambdarag.feedback.log import read_log_family
from lambdarag.retrieval.knowledge import KnowledgeBase
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
        if not liked or not isinstance(rankings, dict) or not record.get("intent"):
            continue  # an answer liked without citations does not say which chunks were right
        spread = float(record.get("document_spread") or 0.0)  # a log from before the document channel: 0
        samples.append(make_sample(str(record["request_id"]), str(record["intent"]), rankings, liked, "rating", spread))
        stats["usable"] += 1
    return samples, stats


def samples_from_questions(kb: KnowledgeBase, questions: Sequence[EvalQuestion]) -> list[Sample]:
    """Samples for labelled questions: each channel searched at its full depth, gold documents' chunks relevant."""
    from lambdarag.options import PipelineOptions
    from lambdarag.query.condense import condense
    from lambdarag.query.expand import expand_query
    from lambdarag.query.intent import classify
    from lambdarag.retrieval.channel_run import run_channels
    from lambdarag.retrieval.retrieve import fusion_filter

    cfg = kb.config
    samples = []
    for q in questions:
        condensed = condense(q.question, q.history, None, cfg.prompts.condense).question
        intent = classify(condensed, cfg.intents, None).intent
        expansion = expand_query(condensed, intent, cfg, kb.tokenizer, q.as_of or date.today(),
                                 cfg.query.entity_expansion, kb.entity_aliases())
        runs = run_channels(kb, expansion, PipelineOptions(log=False))
        # what fusion would see: the same filters as the pipeline (the proximity boost is not searched over)
        filtered, _notes = fusion_filter(kb, runs, intent)
        rankings = {name: [h.chunk_id for h in hits] for name, hits in filtered.items()}
        gold = set(q.gold_doc_ids)
        relevant = [c for ids in rankings.values() for c in ids if c in kb.chunks and kb.chunks[c].doc_id in gold]
        if gold:
            samples.append(make_sample(q.qid, intent, rankings, relevant, "label", kb.document_spread))
    return samples


def collect_samples(domain: Domain, questions: Path | None) -> tuple[list[Sample], list[str]]:
    """Samples from the logs (and labelled questions), with lines describing where they came from."""
    samples, stats = samples_from_logs(domain.feedback_dir)
    notes = [f"feedback: {stats['requests']} requests, {stats['rated']} rated, {stats['liked']} liked, "
             f"{stats['usable']} usable (liked with citations and channel rankings)"]
    if questions is not None:
        from lambdarag.evaluation.dataset import load_questions

        labelled = samples_from_questions(KnowledgeBase.load(domain), load_questions(questions))
        notes.append(f"labelled: {len(labelled)} questions from {questions}")
        samples += labelled
    return samples, notes
