"""GET /: the Chinese chat page (one template, static JS and CSS, no external resources)."""

from __future__ import annotations

from flask import Blueprint, render_template

from lambdarag.server.state import state

bp = Blueprint("web", __name__)


@bp.get("/")
def index() -> str:
    st = state()
    return render_template("index.html", domain=st.domain.name,
                           max_question_chars=st.config.server.max_question_chars)
