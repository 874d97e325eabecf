"""How an external endpoint has been doing, for /readyz and for callers that should stop waiting on it.

``Outcome`` keeps the last call's status (every client has one; /readyz reports it without calling anyone).
``Breaker`` keeps a failing endpoint from costing every call its full time-out: after a call fails for the
endpoint's sake (time-out, connection, 5xx, a reply that is not JSON), calls are refused at once for
``cooldown_s``; then one call at a time tries the endpoint again, and the first success closes the breaker.
"""

from __future__ import annotations

import threading
import time
from typing import Any


class Outcome:
    """The last call's status for /readyz (thread-safe): ok, or degraded with the reason, and when."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: dict[str, Any] | None = None
        self._last_ok: float | None = None

    def record(self, status: str, reason: str = "", ms: float = 0.0) -> None:
        """Remember one call's status (ok, timeout, error, malformed)."""
        now = time.time()
        with self._lock:
            self._last = {"status": status, "reason": reason, "ms": round(ms, 2), "at": now}
            if status == "ok":
                self._last_ok = now

    def report(self) -> dict[str, Any]:
        """{"state": "unused" | "ok" | "degraded", "last": the last call, "last_ok_at": when one last succeeded}."""
        with self._lock:
            last = dict(self._last) if self._last else None
            last_ok = self._last_ok
        state = "unused" if last is None else "ok" if last["status"] == "ok" else "degraded"
        return {"state": state, "last": last, "last_ok_at": last_ok}


class Breaker:
    """Refuse calls for ``cooldown_s`` after an endpoint failure, then let one call at a time try it again."""

    def __init__(self, cooldown_s: float) -> None:
        self.cooldown_s = cooldown_s
        self._lock = threading.Lock()
        self._failed_at: float | None = None
        self._reason = ""
        self._trying = False  # a call is trying the endpoint again (half-open)

    def admit(self) -> tuple[str | None, bool]:
        """(why the call must not go ahead, or None; whether it is the one trying the endpoint again)."""
        with self._lock:
            if self._failed_at is None:
                return None, False
            age = time.monotonic() - self._failed_at
            if age < self.cooldown_s:
                return (f"it failed {age:.1f} s ago ({self._reason}); tried again in "
                        f"{self.cooldown_s - age:.1f} s"), False
            if self._trying:
                return f"another call is trying it again (it failed: {self._reason})", False
            self._trying = True
            return None, True

    def succeeded(self) -> None:
        with self._lock:
            self._failed_at, self._trying = None, False

    def failed(self, reason: str) -> None:
        with self._lock:
            self._failed_at, self._reason, self._trying = time.monotonic(), reason, False

    def release(self, trying: bool) -> None:
        """A call ended saying nothing about the endpoint (its caller gave up, or it was a bad request)."""
        if trying:
            with self._lock:
                self._trying = False

    def state(self) -> dict[str, Any]:
        """{"state": "closed" | "open" | "trying", "reason", "retry_in_s"} for /readyz."""
        with self._lock:
            if self._failed_at is None:
                return {"state": "closed"}
            wait = max(0.0, self.cooldown_s - (time.monotonic() - self._failed_at))
            state = "trying" if self._trying else "open"
            return {"state": state, "reason": self._reason, "retry_in_s": round(wait, 2)}
