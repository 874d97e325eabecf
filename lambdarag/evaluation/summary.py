"""Aggregates of an eval run (pure): means per variant, breakdowns by intent and type, latency, ablation deltas."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lambdarag.evaluation.metrics import mean, percentile
from lambdarag.evaluation.runner import FULL, QuestionRecord

HEADLINE = ("recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10", "answer_in_context", "extractive_hit",
            "first_sentence_hit", "not_found", "gate_triggered")
LEAD = "lead"  # the first evidence sentences up to the answer budget: the extractive answer's reference
LOWER_IS_BETTER = frozenset({"not_found", "not_found_far", "answer_chars_p50", "answer_chars_p95"})


def metric_names(records: Iterable[QuestionRecord]) -> list[str]:
    """Headline metrics first, then any other metric that occurs, in first-seen order."""
    seen: dict[str, None] = dict.fromkeys(HEADLINE)
    for record in records:
        seen.update(dict.fromkeys(record.metrics))
    return list(seen)


def aggregate(records: Sequence[QuestionRecord]) -> dict[str, Any]:
    """Mean of every metric over the records that define it, the question count and the error count."""
    out: dict[str, Any] = {"n": len(records), "errors": sum(1 for r in records if r.error)}
    for name in metric_names(records):
        values = [v for r in records if (v := r.metrics.get(name)) is not None]
        out[name] = round(mean(values), 4) if values else None
    # AIC over the questions whose gold documents hold the answer: free-text references never match verbatim
    checkable = [r.metrics.get("answer_in_context") or 0.0 for r in records if r.metrics.get("answer_in_gold") == 1.0]
    out["aic_checkable"] = round(mean(checkable), 4) if checkable else None
    lengths = [v for r in records if (v := r.metrics.get("answer_chars")) is not None]
    if lengths:
        out["answer_chars_p50"] = round(percentile(lengths, 50), 1)
        out["answer_chars_p95"] = round(percentile(lengths, 95), 1)
    return out


def lead_summary(records: Sequence[QuestionRecord]) -> dict[str, Any] | None:
    """The lead reference as a variant of its own: its hit is the extractive_hit a target can name ("lead")."""
    hits = [v for r in records if (v := r.metrics.get("lead_hit")) is not None]
    return {"n": len(hits), "errors": 0, "extractive_hit": round(mean(hits), 4)} if hits else None


def by_variant(records: Iterable[QuestionRecord]) -> dict[str, list[QuestionRecord]]:
    """Records grouped by variant, in first-seen order."""
    groups: dict[str, list[QuestionRecord]] = defaultdict(list)
    for record in records:
        groups[record.variant].append(record)
    return dict(groups)


def breakdown(records: Sequence[QuestionRecord], key: str, intents: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Aggregates per value of ``key`` ("type" or "intent"); ``intents`` (qid → intent) groups every variant alike."""
    groups: dict[str, list[QuestionRecord]] = defaultdict(list)
    for record in records:
        value = intents.get(record.qid, record.intent) if key == "intent" and intents else getattr(record, key)
        groups[value or "(none)"].append(record)
    return {name: aggregate(groups[name]) for name in sorted(groups)}


def latency(records: Sequence[QuestionRecord]) -> dict[str, dict[str, float]]:
    """p50, p95 and mean milliseconds per stage over the records that timed it."""
    stages: dict[str, list[float]] = defaultdict(list)
    for record in records:
        for stage, ms in record.timings.items():
            stages[stage].append(ms)
    return {stage: {"p50": round(percentile(v, 50), 2), "p95": round(percentile(v, 95), 2),
                    "mean": round(mean(v), 2), "n": len(v)} for stage, v in stages.items()}


def deltas(summary: Mapping[str, Any], reference: Mapping[str, Any]) -> dict[str, float | None]:
    """summary − reference for every numeric metric both define."""
    out: dict[str, float | None] = {}
    for name, value in summary.items():
        if name in ("n", "errors"):
            continue
        ref = reference.get(name)
        out[name] = round(value - ref, 4) if isinstance(value, float | int) and isinstance(ref, float | int) else None
    return out


def ablation_table(summaries: Mapping[str, Mapping[str, Any]], reference: str = FULL) -> list[dict[str, Any]]:
    """One row per variant with its metrics and its deltas against the reference (the full system)."""
    ref = summaries.get(reference, {})
    return [{"variant": name, "metrics": dict(summary), "delta": deltas(summary, ref)}
            for name, summary in summaries.items()]


def misses(records: Sequence[QuestionRecord], metric: str = "recall@5", limit: int = 25) -> list[QuestionRecord]:
    """Records where ``metric`` scored 0, for the report's "where it fails" list."""
    return [r for r in records if r.metrics.get(metric) == 0.0][:limit]


def summarize(records: Sequence[QuestionRecord]) -> dict[str, Any]:
    """Everything the report shows, computed from the per-question records."""
    variants = by_variant(records)
    intents = {r.qid: r.intent for r in variants.get(FULL, [])}
    summaries = {name: aggregate(rs) for name, rs in variants.items()}
    if (lead := lead_summary(variants.get(FULL, []))) is not None:
        summaries[LEAD] = lead
    return {
        "summary": summaries,
        "by_type": {name: breakdown(rs, "type") for name, rs in variants.items()},
        "by_intent": {name: breakdown(rs, "intent", intents) for name, rs in variants.items()},
        "latency_ms": {name: latency(rs) for name, rs in variants.items()},
        "ablation": ablation_table(summaries),
    }
