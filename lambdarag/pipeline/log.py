"""What one answered request leaves in the feedback logs: the query_log and missing_queries records."""

from __future__ import annotations

from datetime import date
from typing import Any

from lambdarag.feedback.log import FeedbackLog, now_iso
from lambdarag.pipeline.result import Result
from lambdarag.retrieval.knowledge import KnowledgeBase


def log_result(kb: KnowledgeBase, result: Result) -> None:
    """Append to the feedback logs; a full disk or unwritable folder degrades logging, never the answer."""
    log = FeedbackLog(kb.domain.feedback_dir, kb.config.feedback)
    try:
        log.log_query(query_record(result))
        if not result.found:
            log.log_missing(missing_record(result))
    except OSError as exc:
        result.trace["log_error"] = f"{type(exc).__name__}: {exc}"


def missing_record(result: Result) -> dict[str, Any]:
    """The missing_queries line: what was asked and what retrieval found instead."""
    gate = result.trace.get("gate") or {}
    return {"time": now_iso(), "request_id": result.request_id, "session_id": result.session_id,
            "query": result.question, "condensed": result.condensed, "intent": result.intent,
            "overlap": gate.get("overlap"), "gate_reason": gate.get("reason"),
            "fused": [f.get("chunk_id") for f in result.trace.get("fused", [])][:5]}


def query_record(result: Result) -> dict[str, Any]:
    """The query_log line for one answered request (before the privacy option is applied)."""
    trace = result.trace
    channels = trace.get("channels") or {}
    return {
        "time": now_iso(),
        "request_id": result.request_id,
        "session_id": result.session_id,
        "query": result.question,
        "condensed": result.condensed,
        "as_of": (trace.get("options") or {}).get("today") or date.today().isoformat(),  # the date it was asked as of
        "intent": result.intent,
        "intent_scores": result.intent_scores,
        "weights": trace.get("weights", {}),
        "document_spread": trace.get("document_spread", 0.0),
        "channels": {name: [h.get("chunk_id") for h in run.get("top", [])] for name, run in channels.items()},
        "channel_errors": {name: run["error"] for name, run in channels.items() if run.get("error")},
        "fused": [f.get("chunk_id") for f in trace.get("fused", [])],
        "gate": trace.get("gate", {}),
        "found": result.found,
        "relevance": result.relevance,
        "answer_method": result.answer_method,
        "answer_chars": len(result.answer),
        "answer": result.answer,  # what `lambdarag faq promote` turns into a curated answer when it is liked
        "citations": [c.chunk_id for c in result.citations],
        "citation_numbers": [c.n for c in result.citations],  # the [n] of each citation in the answer
        "latency_ms": {k: round(v, 2) for k, v in result.timings.items()},
    }
