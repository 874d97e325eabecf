"""/api/search: retrieval only — the fused evidence with each channel's rank and score, no answer step.

POST takes a JSON body (question, channels, uniform_weights, gate, top_k, filters, explain); GET the same
question, top_k, filters (JSON text) and explain as query parameters, for links and the hit test page
(``GET /api/search?question=...&explain=1``). With explain the response carries ``explain``: the hit test's view
of the run (pipeline/explain.py).
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, jsonify, request

from lambdarag.config.schema import CHANNEL_NAMES
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import search as run_search
from lambdarag.server.render import render_search, search_trace
from lambdarag.server.state import state
from lambdarag.server.validation import (
    FieldError,
    get_bool,
    get_filters,
    get_question,
    get_str_list,
    get_top_k,
    json_body,
)

bp = Blueprint("search", __name__)
SEARCH_FIELDS = ("question", "channels", "uniform_weights", "gate", "top_k", "filters", "explain")
QUERY_PARAMS = ("question", "top_k", "filters", "explain")
TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


@bp.post("/api/search")
def search() -> Response:
    return _search(json_body(SEARCH_FIELDS))


@bp.get("/api/search")
def search_get() -> Response:
    return _search(query_fields(request.args.to_dict(flat=False)))


def query_fields(args: dict[str, list[str]]) -> dict[str, Any]:
    """The query parameters as the JSON body's fields: each once, top_k a number, filters JSON, explain a flag."""
    unknown = sorted(set(args) - set(QUERY_PARAMS))
    if unknown:
        raise FieldError(unknown[0], "unknown query parameter", f"allowed: {', '.join(QUERY_PARAMS)}")
    repeated = sorted(k for k, v in args.items() if len(v) > 1)
    if repeated:
        raise FieldError(repeated[0], "given more than once", "give each query parameter once")
    data: dict[str, Any] = {k: v[0] for k, v in args.items()}
    if "top_k" in data:
        text = data["top_k"].strip()
        data["top_k"] = int(text) if text.isascii() and text.isdigit() else text
    if "filters" in data:
        try:
            data["filters"] = json.loads(data["filters"])
        except ValueError as exc:
            raise FieldError("filters", "is not JSON", 'send e.g. filters={"tags":["policy"]} URL-encoded') from exc
    if "explain" in data:
        flag = data["explain"].strip().lower()
        if flag not in TRUE + FALSE:
            raise FieldError("explain", f"must be 1 or 0, got {data['explain'][:20]!r}")
        data["explain"] = flag in TRUE
    return data


def _search(data: dict[str, Any]) -> Response:
    st = state()
    question = get_question(data, st.config.server.max_question_chars)
    options = PipelineOptions(
        channels=get_str_list(data, "channels", CHANNEL_NAMES),
        uniform_weights=get_bool(data, "uniform_weights"),
        gate=None if data.get("gate") is None else get_bool(data, "gate"),  # absent: corrective.max_retries
        top_k=get_top_k(data, st.config.server.max_top_k),
        filters=get_filters(data),
        explain=get_bool(data, "explain"),
    )
    kb = st.holder.get()
    result = run_search(kb, question, options=options)
    st.store.save_trace(result.request_id, None, "search", question, search_trace(result))
    response = jsonify(render_search(result))
    response.headers["X-Request-Id"] = result.request_id
    return response
