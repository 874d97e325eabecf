"""Helpers the blueprints share: the pipeline module, sessions around a request, rendering a Result."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from flask import Response, stream_with_context

from lambdarag.records import Turn
from lambdarag.server.sessions import check_session_id, new_session_id
from lambdarag.server.state import ServerState

RESULT_KEYS = ("request_id", "session_id", "question", "condensed", "answer", "answer_method", "found", "citations",
               "intent", "intent_scores", "slots", "relevance", "grounding", "timings")
CITATION_KEYS = ("n", "doc_id", "title", "breadcrumb", "locator", "excerpt", "chunk_id")


def pipeline() -> ModuleType:
    """lambdarag.pipeline.run, imported on first use (the server module loads even while it is absent)."""
    import lambdarag.pipeline.run

    return lambdarag.pipeline.run


def open_session(st: ServerState, session_id: str | None) -> tuple[str, tuple[Turn, ...]]:
    """The session id to use (a new one when none is given) and its recent turns."""
    if session_id is None:
        return new_session_id(), ()
    check_session_id(session_id)
    return session_id, st.store.history(session_id, st.config.server.max_history_turns)


def as_dict(result: Any) -> dict[str, Any]:
    """A pipeline Result or SearchResult as plain JSON data."""
    data: dict[str, Any] = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    return data


def render_result(data: dict[str, Any], session_id: str | None) -> dict[str, Any]:
    """The API view of an answer: the result's fields without the trace and the packed context."""
    out = {key: data.get(key) for key in RESULT_KEYS}
    out["session_id"] = session_id if session_id is not None else data.get("session_id")
    out["citations"] = [render_citation(c) for c in data.get("citations") or []]
    return out


def render_citation(citation: Any) -> dict[str, Any]:
    """One citation with the documented keys (n, doc_id, title, breadcrumb, locator, excerpt, chunk_id)."""
    c = citation if isinstance(citation, dict) else as_dict(citation)
    return {key: c.get(key) for key in CITATION_KEYS}


def remember_answer(st: ServerState, data: dict[str, Any], session_id: str, kind: str = "ask") -> None:
    """Store the turn in the session and the trace for the trace endpoints."""
    request_id = str(data.get("request_id"))
    question = str(data.get("question") or "")
    st.store.add_turn(session_id, request_id, question, str(data.get("condensed") or question),
                      str(data.get("answer") or ""))
    st.store.save_trace(request_id, session_id, kind, question, trace_of(data))


def trace_of(data: dict[str, Any]) -> dict[str, Any]:
    """The stored trace: the pipeline's trace plus the outcome fields a reader wants next to it."""
    trace = data.get("trace")
    out: dict[str, Any] = dict(trace) if isinstance(trace, dict) else {}
    for key in ("condensed", "intent", "found", "relevance", "timings"):
        if key in data and key not in out:
            out[key] = data[key]
    return out


def sse(event: str, data: Any) -> str:
    """One server-sent event with a JSON payload."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def sse_response(events: Iterator[str]) -> Response:
    """A text/event-stream response that proxies do not buffer."""
    response = Response(stream_with_context(events), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass events through as they come
    return response

