"""POST /api/ask: answer a question (optionally in a session), as JSON or as server-sent events.

Stream events, in order: ``meta`` (request_id, session_id, intent…), ``delta`` ({"text"}) for
each piece of the answer, ``citations`` ({"citations": [...]}), then ``result`` (the same object
the JSON response carries). A failure after the stream started arrives as an ``error`` event in
the one error shape.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from flask import Blueprint, Response, jsonify

from lambdarag.errors import LambdaRAGError
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import answer, answer_stream
from lambdarag.records import Turn
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.server.common import open_session, remember_answer, sse, sse_response
from lambdarag.server.render import render_answer, render_citation
from lambdarag.server.state import ServerState, state
from lambdarag.server.validation import (
    get_as_of,
    get_bool,
    get_filters,
    get_question,
    get_str,
    get_top_k,
    json_body,
)

log = logging.getLogger(__name__)
bp = Blueprint("ask", __name__)
ASK_FIELDS = ("question", "session_id", "stream", "as_of", "top_k", "filters", "explain")


@bp.post("/api/ask")
def ask() -> Response:
    st = state()
    st.maybe_purge()
    data = json_body(ASK_FIELDS)
    question = get_question(data, st.config.server.max_question_chars)
    stream = get_bool(data, "stream")
    options = PipelineOptions(today=get_as_of(data), top_k=get_top_k(data, st.config.server.max_top_k),
                              filters=get_filters(data), explain=get_bool(data, "explain"))
    session_id, history = open_session(st, get_str(data, "session_id", max_chars=64))
    kb = st.holder.get()  # taken once: a reload meanwhile does not change this request's index
    if stream:
        return sse_response(_stream(st, kb, question, history, session_id, options))
    result = answer(kb, question, history=history, session_id=session_id, options=options)
    remember_answer(st, result, session_id)
    response = jsonify(render_answer(result))
    response.headers["X-Request-Id"] = result.request_id
    return response


def _stream(st: ServerState, kb: KnowledgeBase, question: str, history: tuple[Turn, ...], session_id: str,
            options: PipelineOptions) -> Iterator[str]:
    try:
        for _, payload in answer_stream(kb, question, history=history, session_id=session_id, options=options):
            if isinstance(payload, dict):  # meta
                # the cited subset comes with the result; the packed candidates would only confuse a client
                meta = {k: v for k, v in payload.items() if k != "citations"}
                yield sse("meta", {**meta, "session_id": session_id})
            elif isinstance(payload, str):  # delta
                yield sse("delta", {"text": payload})
            else:
                remember_answer(st, payload, session_id)
                yield sse("citations", {"citations": [render_citation(c) for c in payload.citations]})
                yield sse("result", render_answer(payload))
    except LambdaRAGError as exc:
        yield sse("error", {"error": {"code": exc.code, "message": str(exc)}})
    except Exception:
        log.exception("streaming answer failed")
        yield sse("error", {"error": {"code": "internal_error",
                                      "message": "internal server error; details are in the server log"}})
