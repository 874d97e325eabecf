"""Curated answers (the admin token or a write-scoped API key): GET /api/faq,
POST /api/faq {question, answer, source?, citations?}, DELETE /api/faq/<id>. Every worker sees a change at its
next question (the file is re-read when it changes)."""

from __future__ import annotations

import re

from flask import Blueprint, Response, jsonify

from lambdarag.errors import NotFoundError
from lambdarag.faq.lookup import faq_path
from lambdarag.faq.store import (
    MAX_ANSWER_CHARS,
    MAX_QUESTION_CHARS,
    MAX_SOURCE_CHARS,
    DuplicateError,
    FaqStore,
    new_entry,
)
from lambdarag.server.state import require_writer, state
from lambdarag.server.validation import FieldError, get_str, json_body

bp = Blueprint("faq", __name__)
FAQ_FIELDS = ("question", "answer", "source", "citations")
ENTRY_ID = re.compile(r"[0-9a-zA-Z_-]{1,64}")


def _store() -> FaqStore:
    st = state()
    return FaqStore(faq_path(st.domain.root, st.config.faq))


@bp.get("/api/faq")
def list_faq() -> Response:
    require_writer()
    entries = _store().entries()
    return jsonify({"count": len(entries), "entries": [e.to_dict() for e in entries]})


@bp.post("/api/faq")
def add_faq() -> tuple[Response, int]:
    require_writer()
    data = json_body(FAQ_FIELDS)
    question = get_str(data, "question", required=True, max_chars=MAX_QUESTION_CHARS)
    answer = get_str(data, "answer", required=True, max_chars=MAX_ANSWER_CHARS)
    source = get_str(data, "source", max_chars=MAX_SOURCE_CHARS, allow_empty=True) or ""
    citations = data.get("citations", [])
    if not isinstance(citations, list):
        raise FieldError("citations", "must be a list of objects with a chunk_id")
    assert question is not None and answer is not None
    added, skipped = _store().add([new_entry(question, answer, source, citations)])
    if skipped:
        raise DuplicateError(f"an FAQ entry with this question exists: {question!r}",
                             "DELETE /api/faq/<id> first to replace it (GET /api/faq lists the ids)")
    return jsonify({"entry": added[0].to_dict()}), 201


@bp.delete("/api/faq/<entry_id>")
def remove_faq(entry_id: str) -> Response:
    require_writer()
    if not ENTRY_ID.fullmatch(entry_id):
        raise FieldError("id", f"is not an FAQ entry id: {entry_id[:80]!r}", "use an id from GET /api/faq")
    removed = _store().remove(entry_id)
    if removed is None:
        raise NotFoundError(f"no FAQ entry with id {entry_id!r}", "GET /api/faq lists the ids")
    return jsonify({"removed": removed.to_dict()})
