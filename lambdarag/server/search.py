"""POST /api/search: retrieval only — the fused evidence with each channel's rank and score, no answer step."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from lambdarag.config.schema import CHANNEL_NAMES
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import search as run_search
from lambdarag.server.render import render_search, search_trace
from lambdarag.server.state import state
from lambdarag.server.validation import get_bool, get_question, get_str_list, json_body

bp = Blueprint("search", __name__)
SEARCH_FIELDS = ("question", "channels", "uniform_weights", "gate")


@bp.post("/api/search")
def search() -> Response:
    st = state()
    data = json_body(SEARCH_FIELDS)
    question = get_question(data, st.config.server.max_question_chars)
    options = PipelineOptions(
        channels=get_str_list(data, "channels", CHANNEL_NAMES),
        uniform_weights=get_bool(data, "uniform_weights"),
        gate=get_bool(data, "gate", default=True),
    )
    kb = st.holder.get()
    result = run_search(kb, question, options=options)
    st.store.save_trace(result.request_id, None, "search", question, search_trace(result))
    response = jsonify(render_search(result))
    response.headers["X-Request-Id"] = result.request_id
    return response
