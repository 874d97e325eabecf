"""POST /api/lookup_knowledge: evidence for agents (found, evidence blocks, relevance, completeness, message).

It runs the request path without the LLM (agents bring their own model to write the answer), and
within a session hands out each chunk once; see lambdarag.server.evidence_view for the view.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Response, jsonify

from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import answer
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.server.common import open_session, remember_answer
from lambdarag.server.evidence_view import lookup_view
from lambdarag.server.state import state
from lambdarag.server.validation import get_filters, get_question, get_str, get_top_k, json_body

bp = Blueprint("lookup", __name__)
LOOKUP_FIELDS = ("question", "session_id", "top_k", "filters")


@bp.post("/api/lookup_knowledge")
def lookup_knowledge() -> Response:
    st = state()
    data = json_body(LOOKUP_FIELDS)
    question = get_question(data, st.config.server.max_question_chars)
    options = PipelineOptions(use_llm=False, top_k=get_top_k(data, st.config.server.max_top_k),
                              filters=get_filters(data))
    session_id, history = open_session(st, get_str(data, "session_id", max_chars=64))
    kb = st.holder.get()
    result = answer(kb, question, history=history, session_id=session_id, options=options)
    remember_answer(st, result, session_id, kind="lookup")
    cited = [c.chunk_id for c in result.citations] if result.found else []
    fresh, withheld = st.store.claim_evidence(session_id, result.request_id, cited)
    response = jsonify(lookup_view(result, fresh, withheld, chunk_text_lookup(kb)))
    response.headers["X-Request-Id"] = result.request_id
    return response


def chunk_text_lookup(kb: KnowledgeBase) -> Callable[[str], str | None]:
    """Full chunk text by id from the loaded KnowledgeBase (None for an id it does not hold)."""
    chunks = kb.chunks

    def text_of(chunk_id: str) -> str | None:
        chunk = chunks.get(chunk_id)
        return None if chunk is None else chunk.text

    return text_of
