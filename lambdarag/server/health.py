"""GET /healthz (the process answers) and GET /readyz (every part it needs to answer well), each part reported.

The LLM, embeddings and rerank endpoints never make the server not ready: without them it still answers
(extractive, without the vector channel, in fused order), so a failing one makes it "degraded", with the part
named. The LLM and embeddings endpoints are probed (GET /models) and their last real call of this worker is
reported beside the probe, since an endpoint can list its models and still fail every call.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, jsonify

from lambdarag.config.load import secret
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.server.state import ServerState, state

bp = Blueprint("health", __name__)
PROBE_TIMEOUT_S = 2.0
DEGRADED_STATES = ("degraded", "unreachable", "error")  # of the llm, embedding and rerank parts


@bp.get("/healthz")
def healthz() -> Response:
    st = state()
    return jsonify({"status": "ok", "domain": st.domain.name, "pid": os.getpid()})


@bp.get("/readyz")
def readyz() -> tuple[Response, int]:
    st = state()
    kb = st.holder.get() if st.holder.status()["loaded"] else None
    parts = {
        "index": index_part(st),
        "llm": llm_part(st, kb),
        "embedding": embedding_part(st, kb),
        "rerank": rerank_part(st),
        "logs": writable_part(st.domain.feedback_dir),
        "sessions": sessions_part(st),
    }
    ready = all(p["ok"] for p in parts.values())
    services = (parts[name].get("state") in DEGRADED_STATES for name in ("llm", "embedding", "rerank"))
    degraded = parts["index"].get("degraded") or any(services)
    status = "not_ready" if not ready else "degraded" if degraded else "ready"
    body = {"status": status, "domain": st.domain.name, "pid": os.getpid(), "parts": parts}
    return jsonify(body), 200 if ready else 503


def index_part(st: ServerState) -> dict[str, Any]:
    """The index is loaded and some channel answers; channels whose manifest failed make it "degraded"."""
    status = st.holder.status()
    if not status["loaded"]:
        return {"ok": False, **status}
    try:
        health = st.holder.get().health()
    except Exception as exc:  # a broken health() must not hide the rest of the report
        return {"ok": False, **status, "error": f"health check failed: {type(exc).__name__}: {exc}"}
    ok = bool(health.get("ok", True))
    return {"ok": ok, "degraded": bool(health.get("degraded")), **status, "knowledge": health}


def rerank_part(st: ServerState) -> dict[str, Any]:
    """The reranker: off, or its last call's outcome in this worker (ok, or degraded with the reason and when).

    Not probed: a failing reranker costs an answer nothing (the fused order is kept), so it never makes the
    server not ready, and the last real call says more than a probe would.
    """
    cfg = st.config.rerank
    if not cfg.enabled:
        return {"ok": True, "state": "off"}
    base = {"ok": True, "api": cfg.api, "url": cfg.base_url.rstrip("/") + "/" + cfg.path.lstrip("/")}
    if not st.holder.status()["loaded"]:
        return {**base, "state": "unused", "last": None, "last_ok_at": None}
    reranker = st.holder.get().reranker
    if reranker is None:  # the loaded index predates a config that enables it
        return {**base, "state": "off"}
    return {**base, **reranker.outcome.report()}


def llm_part(st: ServerState, kb: KnowledgeBase | None) -> dict[str, Any]:
    """The LLM: disabled, or the probe, this worker's last call and its breaker (open: calls skip the endpoint)."""
    cfg = st.config.llm
    if not cfg.enabled:
        return {"ok": True, "state": "disabled"}
    part = service_part(cfg.base_url, cfg.api_key_env)
    if kb is not None and kb.llm is not None:
        part.update(calls=kb.llm.outcome.report(), breaker=kb.llm.breaker.state())
        failing = part["calls"]["state"] == "degraded" or part["breaker"]["state"] != "closed"
        if failing and part["state"] == "reachable":
            part["state"] = "degraded"
    return part


def embedding_part(st: ServerState, kb: KnowledgeBase | None) -> dict[str, Any]:
    """The embeddings backend: disabled, local, or the endpoint's probe and the vector channel's last query call."""
    cfg = st.config.embedding
    if cfg.backend == "none":
        return {"ok": True, "state": "disabled"}
    if cfg.backend == "local":
        from lambdarag.models.embeddings import local_available, local_unavailable_error

        if not local_available():
            return {"ok": False, "state": "unavailable", "error": str(local_unavailable_error())}
        return {"ok": True, "state": "local", "model": cfg.model}
    part = service_part(cfg.base_url, cfg.api_key_env)
    calls = getattr(kb.channels.get("vector"), "query_calls", None) if kb is not None else None
    report = calls() if callable(calls) else None
    if report is not None:
        part["calls"] = report
        if report["state"] == "degraded" and part["state"] == "reachable":
            part["state"] = "degraded"
    return part


def service_part(base_url: str, key_env: str) -> dict[str, Any]:
    """Whether an OpenAI-compatible service answers GET /models; "ok" either way (the server answers without it)."""
    url = base_url.rstrip("/") + "/models"
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {secret(key_env) or 'EMPTY'}"})
    try:
        with urllib.request.urlopen(req, timeout=PROBE_TIMEOUT_S) as resp:
            return {"ok": True, "state": "reachable", "url": url, "status": resp.status}
    except urllib.error.HTTPError as exc:
        return {"ok": True, "state": "error", "url": url, "error": f"HTTP {exc.code}"}
    except (urllib.error.URLError, OSError) as exc:
        return {"ok": True, "state": "unreachable", "url": url, "error": str(getattr(exc, "reason", exc))}


def writable_part(folder: Path) -> dict[str, Any]:
    """The log folder exists (or can be made) and accepts a new file."""
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".ready-", delete=True):
            pass
    except OSError as exc:
        return {"ok": False, "path": str(folder), "error": str(exc)}
    return {"ok": True, "path": str(folder)}


def sessions_part(st: ServerState) -> dict[str, Any]:
    try:
        st.store.check_writable()
    except sqlite3.Error as exc:
        return {"ok": False, "path": str(st.store.path), "error": str(exc)}
    return {"ok": True, "path": str(st.store.path)}
