"""What every request passes before its route: the rate limit, the API key, and CORS on the way out.

Question routes (the ask, search, lookup, openai and feedback blueprints) need an API key when
``server.auth.enabled``; they and the admin routes are rate-limited per client (``server.rate_limit``:
the client is its valid API key, else its address). Health probes, the web page and static files are
never limited or keyed. CORS is off unless ``server.cors_origins`` lists origins: then a listed Origin
gets the Access-Control headers, on preflight (OPTIONS, which needs no key) and on every answer.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from flask import Flask, Response, request

from lambdarag.config.schema import ServerConfig
from lambdarag.errors import ConfigError, LambdaRAGError
from lambdarag.server.auth import KeyRing, presented_key
from lambdarag.server.ratelimit import RateLimiter

API_BLUEPRINTS = frozenset({"ask", "search", "lookup", "openai", "feedback"})
LIMITED_BLUEPRINTS = API_BLUEPRINTS | {"admin", "documents", "faq"}  # documents: keyed in its routes (write scope)
GUARD_KEY = "lambdarag.guard"
ORIGIN = re.compile(r"^https?://[^/\s]+$")
CORS_ALLOW_HEADERS = "Authorization, Content-Type, X-API-Key"
CORS_EXPOSE_HEADERS = "X-Request-Id, X-Worker-Pid, Retry-After"
CORS_MAX_AGE_S = 600


class TooManyRequests(LambdaRAGError):
    """A client over its rate (429, with Retry-After)."""

    code = "too_many_requests"
    status = 429

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"too many requests from this client: retry in {retry_after_s} s",
                         "slow down (the limit is server.rate_limit)")
        self.headers = {"Retry-After": str(retry_after_s)}


def cors_origins(origins: tuple[str, ...], file: str = "server.cors_origins") -> frozenset[str]:
    """The allowed origins, lower-cased; each is "*" or scheme://host[:port] (no path)."""
    for origin in origins:
        if origin != "*" and not ORIGIN.match(origin.rstrip("/")):
            raise ConfigError(file, "server.cors_origins", f"{origin!r} is not an origin like https://host[:port]")
    return frozenset(o.rstrip("/").lower() for o in origins)


@dataclass(frozen=True)
class Guard:
    """The checks of one worker: its keys, its buckets, its CORS origins."""

    domain: str
    keys: KeyRing
    limiter: RateLimiter
    origins: frozenset[str]

    @classmethod
    def from_config(cls, server: ServerConfig, domain: str, domain_root: Path) -> Guard:
        limit = server.rate_limit
        return cls(domain, KeyRing.from_config(server.auth, domain_root),
                   RateLimiter(limit.requests_per_minute, limit.burst), cors_origins(server.cors_origins))

    def before(self) -> None:
        """Rate limit, then API key; preflight requests and unguarded routes pass."""
        if request.method == "OPTIONS" or request.blueprint not in LIMITED_BLUEPRINTS:
            return
        api = request.blueprint in API_BLUEPRINTS and self.keys.enabled
        presented = presented_key(request.headers) if api else None
        key = self.keys.match(presented) if presented is not None else None
        wait = self.limiter.acquire(key.client_id if key else f"addr:{request.remote_addr}")
        if wait > 0:
            raise TooManyRequests(max(1, math.ceil(wait)))
        if api:
            self.keys.require(presented, key, self.domain)

    def after(self, response: Response) -> Response:
        """CORS headers for an allowed Origin (none at all when CORS is off)."""
        origin = request.headers.get("Origin", "")
        if not origin or not self.origins or ("*" not in self.origins and origin.lower() not in self.origins):
            return response
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Access-Control-Expose-Headers"] = CORS_EXPOSE_HEADERS
        response.vary.add("Origin")
        if request.method == "OPTIONS":
            response.headers["Access-Control-Allow-Methods"] = "GET, POST, DELETE, OPTIONS"  # DELETE: documents API
            response.headers["Access-Control-Allow-Headers"] = CORS_ALLOW_HEADERS
            response.headers["Access-Control-Max-Age"] = str(CORS_MAX_AGE_S)
        return response


def install_guard(app: Flask, server: ServerConfig, domain: str, domain_root: Path) -> Guard:
    """Hook the guard into ``app`` (before every request, after every response)."""
    guard = Guard.from_config(server, domain, domain_root)
    app.extensions[GUARD_KEY] = guard  # the documents routes check the write scope with its keys
    app.before_request(guard.before)
    app.after_request(guard.after)
    return guard
