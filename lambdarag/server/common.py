"""Helpers the blueprints share: sessions around a request, remembering an answer, server-sent events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Response, stream_with_context

from lambdarag.pipeline.result import Result
from lambdarag.records import Turn
from lambdarag.server.render import answer_trace
from lambdarag.server.sessions import check_session_id, new_session_id
from lambdarag.server.state import ServerState


def open_session(st: ServerState, session_id: str | None) -> tuple[str, tuple[Turn, ...]]:
    """The session id to use (a new one when none is given) and its recent turns."""
    if session_id is None:
        return new_session_id(), ()
    check_session_id(session_id)
    return session_id, st.store.history(session_id, st.config.server.max_history_turns)


def remember_answer(st: ServerState, result: Result, session_id: str, kind: str = "ask") -> None:
    """Store the turn in the session and the trace for the trace endpoints."""
    st.store.add_turn(session_id, result.request_id, result.question, result.condensed or result.question,
                      result.answer)
    st.store.save_trace(result.request_id, session_id, kind, result.question, answer_trace(result))


def sse(event: str, data: Any) -> str:
    """One server-sent event with a JSON payload."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def sse_response(events: Iterator[str]) -> Response:
    """A text/event-stream response that proxies do not buffer."""
    response = Response(stream_with_context(events), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass events through as they come
    return response
