"""Admin routes (Bearer token): stored traces by request and by session, and hot reload of the index."""

from __future__ import annotations

import os
from dataclasses import asdict

from flask import Blueprint, Response, jsonify

from lambdarag.server.sessions import check_session_id
from lambdarag.server.state import require_admin, state

bp = Blueprint("admin", __name__)


@bp.get("/api/trace/<request_id>")
def trace(request_id: str) -> Response:
    require_admin()
    return jsonify(state().store.trace(request_id))


@bp.get("/api/sessions/<session_id>/trace")
def session_trace(session_id: str) -> Response:
    require_admin()
    st = state()
    check_session_id(session_id)
    traces = st.store.session_traces(session_id)
    turns = [asdict(t) for t in st.store.turns(session_id)]
    return jsonify({"session_id": session_id, "turns": turns, "traces": traces})


@bp.post("/admin/reload")
def reload() -> Response:
    require_admin()
    holder = state().holder
    generation = holder.reload()
    return jsonify({"reloaded": True, "generation": generation, "pid": os.getpid(), "index": holder.status()})
