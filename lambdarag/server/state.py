"""What one worker holds for its domain (the KnowledgeBase holder, the session store, the feedback log), and who
may call its admin routes (require_admin) and its write routes (require_writer: documents, FAQ)."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

from flask import current_app, request

from lambdarag.config.domain import Domain
from lambdarag.config.schema import Config
from lambdarag.errors import AuthError
from lambdarag.feedback.log import FeedbackLog
from lambdarag.server.auth import KEY_HINT, presented_key, same_secret
from lambdarag.server.guard import GUARD_KEY, Guard
from lambdarag.server.holder import KnowledgeHolder
from lambdarag.server.sessions import SessionStore

EXTENSION_KEY = "lambdarag"
SESSIONS_FILE = "sessions.sqlite3"
PURGE_EVERY_S = 3600.0  # expired sessions are swept at most hourly, by whichever request comes first


@dataclass
class ServerState:
    """Per-worker state shared by the blueprints."""

    domain: Domain
    holder: KnowledgeHolder
    store: SessionStore
    _feedback: FeedbackLog | None = None
    _feedback_lock: threading.Lock = field(default_factory=threading.Lock)
    _last_purge: float = field(default_factory=time.monotonic)

    @property
    def config(self) -> Config:
        return self.domain.config

    def feedback(self) -> FeedbackLog:
        """The domain's FeedbackLog (ratings); created on first use."""
        with self._feedback_lock:
            if self._feedback is None:
                self._feedback = FeedbackLog(self.domain.feedback_dir, self.config.feedback)
            return self._feedback

    def maybe_purge(self) -> None:
        """Forget expired sessions now and then (cheap check on every request)."""
        now = time.monotonic()
        if now - self._last_purge >= PURGE_EVERY_S:
            self._last_purge = now
            self.store.purge()


def state() -> ServerState:
    """The ServerState of the running app."""
    value: ServerState = current_app.extensions[EXTENSION_KEY]
    return value


def require_admin() -> None:
    """Admin routes need `Authorization: Bearer <token>` matching the env var the config names."""
    env_name = state().config.server.admin_token_env
    expected = os.environ.get(env_name, "")
    if not expected:
        raise AuthError(f"admin token not configured: set the environment variable {env_name}", forbidden=True)
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError("admin token missing: send the header 'Authorization: Bearer <token>'")
    if not same_secret(token.strip(), expected):  # constant time over digests: not even the length leaks
        raise AuthError("admin token is wrong", forbidden=True)


WRITE_HINT = "send 'Authorization: Bearer <token>' with the admin token or an API key that has the write scope"


def require_writer() -> None:
    """The admin token, or an API key of this domain with the write scope (401 missing or unknown, 403 not allowed)."""
    st = state()
    presented = presented_key(request.headers)
    admin = os.environ.get(st.config.server.admin_token_env, "")
    if presented is not None and admin and same_secret(presented, admin):
        return
    guard: Guard = current_app.extensions[GUARD_KEY]
    if not guard.keys.enabled:
        if not admin:
            raise AuthError(f"admin token not configured: set the environment variable "
                            f"{st.config.server.admin_token_env}", forbidden=True)
        raise AuthError(f"admin token missing: {WRITE_HINT}" if presented is None else "admin token is wrong",
                        forbidden=presented is not None)
    key = guard.keys.match(presented) if presented is not None else None
    if presented is not None and key is None:
        raise AuthError(f"neither the admin token nor a valid API key: {KEY_HINT}")
    guard.keys.require(presented, key, st.domain.name, scope="write")
