"""POST /api/feedback {request_id, rating: up|down, comment?}: a rating, joined to the query log by request id."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from lambdarag.errors import NotFoundError
from lambdarag.server.state import state
from lambdarag.server.validation import get_choice, get_str, json_body

bp = Blueprint("feedback", __name__)
FEEDBACK_FIELDS = ("request_id", "rating", "comment")
RATINGS = ("up", "down")
MAX_COMMENT_CHARS = 2000


@bp.post("/api/feedback")
def feedback() -> Response:
    st = state()
    data = json_body(FEEDBACK_FIELDS)
    request_id = get_str(data, "request_id", required=True, max_chars=128)
    assert request_id is not None
    rating = get_choice(data, "rating", RATINGS)
    comment = get_str(data, "comment", max_chars=MAX_COMMENT_CHARS, allow_empty=True) or ""
    if not st.store.has_request(request_id):
        raise NotFoundError(f"no request with request_id {request_id!r}",
                            "rate a request_id returned by /api/ask or /v1/chat/completions")
    st.feedback().log_rating(request_id, rating, comment)
    return jsonify({"ok": True, "request_id": request_id, "rating": rating})
