"""Per-client rate limiting: one token bucket per client, in this worker process.

A client may make ``burst`` requests at once, then ``requests_per_minute`` a minute. The buckets live in
memory per gunicorn worker, so with N workers a client that spreads its requests over all of them gets up to
N times the rate: set the rate per worker (or limit at the proxy in front when it must be exact).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

MAX_CLIENTS = 10_000  # buckets kept; the least recently seen client is forgotten first (it starts full again)


class RateLimiter:
    """Token buckets by client name; ``acquire`` says how long to wait (0 = go ahead)."""

    def __init__(self, per_minute: int, burst: int, clock: Callable[[], float] = time.monotonic,
                 max_clients: int = MAX_CLIENTS) -> None:
        self.rate = per_minute / 60.0  # tokens per second
        self.burst = float(burst)
        self.clock = clock
        self.max_clients = max_clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (tokens, when)
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def acquire(self, client: str) -> float:
        """Take one token for ``client``: 0.0 when it had one, else the seconds until it will."""
        if not self.enabled:
            return 0.0
        with self._lock:
            now = self.clock()
            tokens, then = self._buckets.pop(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            wait = 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate
            self._buckets[client] = (tokens - 1.0 if wait == 0.0 else tokens, now)
            while len(self._buckets) > self.max_clients:
                self._buckets.popitem(last=False)
            return wait
