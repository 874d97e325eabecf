"""The JSON the routes return for the pipeline's results, one function per shape; no Flask here.

Blueprints keep Result, SearchResult and Citation objects and call these only when they build the
response (or the trace they store), so a field's JSON form is decided in one place.
"""

from __future__ import annotations

from typing import Any

from lambdarag.pipeline.result import Result, SearchResult
from lambdarag.records import Citation, json_safe


def render_citation(citation: Citation) -> dict[str, Any]:
    """One citation with the documented keys (n, doc_id, title, breadcrumb, locator, excerpt, chunk_id)."""
    return {"n": citation.n, "doc_id": citation.doc_id, "title": citation.title, "breadcrumb": citation.breadcrumb,
            "locator": citation.locator, "excerpt": citation.excerpt, "chunk_id": citation.chunk_id}


def render_answer(result: Result) -> dict[str, Any]:
    """The API view of an answer (/api/ask, its stream's citations and result events): no trace, no packed context
    (with explain on, the hit test's view of the run as ``explain``)."""
    return with_explain(result.trace, {
        "request_id": result.request_id,
        "session_id": result.session_id,
        "question": result.question,
        "condensed": result.condensed,
        "answer": result.answer,
        "answer_method": result.answer_method,
        "found": result.found,
        "citations": [render_citation(c) for c in result.citations],
        "intent": result.intent,
        "intent_scores": dict(result.intent_scores),
        "slots": json_safe(result.slots),
        "relevance": result.relevance,
        "grounding": json_safe(result.grounding),
        "timings": rounded_timings(result.timings),
    })


def render_search(result: SearchResult) -> dict[str, Any]:
    """The /api/search body: the SearchResult's JSON form without the trace (with explain on, ``explain``)."""
    return with_explain(result.trace, result.to_dict(include_trace=False))


def with_explain(trace: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with the trace's hit test view as ``explain``, when the request asked for it."""
    if "explain" in trace:
        body["explain"] = json_safe(trace["explain"])
    return body


def rounded_timings(timings: dict[str, float]) -> dict[str, float]:
    """Stage durations in ms, to two decimals, as an answer reports them."""
    return {stage: round(ms, 2) for stage, ms in timings.items()}


def answer_trace(result: Result) -> dict[str, Any]:
    """The trace stored for an answer: the pipeline's trace plus the outcome fields a reader wants next to it."""
    return stored_trace(json_safe(result.trace), {
        "condensed": result.condensed, "intent": result.intent, "found": result.found,
        "relevance": result.relevance, "timings": rounded_timings(result.timings),
    })


def search_trace(result: SearchResult) -> dict[str, Any]:
    """The trace stored for a search (a search has no found/relevance of its own outside the trace)."""
    return stored_trace(json_safe(result.trace), {
        "condensed": result.condensed, "intent": result.intent, "timings": json_safe(result.timings),
    })


def stored_trace(trace: dict[str, Any], outcome: dict[str, Any]) -> dict[str, Any]:
    """``trace`` with the ``outcome`` fields it does not hold already (the trace's own entries win)."""
    out = dict(trace)
    for key, value in outcome.items():
        out.setdefault(key, value)
    return out
