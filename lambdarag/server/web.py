"""GET /: the Chinese chat page; GET /hittest: the hit test page (each a template with static JS and CSS, no external
resources)."""

from __future__ import annotations

from flask import Blueprint, render_template

from lambdarag.server.state import state

bp = Blueprint("web", __name__)


@bp.get("/")
def index() -> str:
    st = state()
    return render_template("index.html", domain=st.domain.name,
                           max_question_chars=st.config.server.max_question_chars)


@bp.get("/hittest")
def hittest() -> str:
    """The hit test page: one question through every retrieval stage (GET /api/search?explain=1)."""
    st = state()
    return render_template("hittest.html", domain=st.domain.name,
                           max_question_chars=st.config.server.max_question_chars,
                           max_top_k=st.config.server.max_top_k, default_top_k=st.config.retrieval.final_top_k)
