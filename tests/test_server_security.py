"""Security: API keys on the question routes, the admin token on its own, CORS, per-client rate limits, caps.

The real app over Flask's test client on a copy of the small built domain; each test writes the
instance.yml it needs and hands the environment to the factory. The log check with a real gunicorn is in
tests/test_server_secrets.py.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from server_fixtures import ADMIN_TOKEN, copy_domain
from test_server_errors import error_of

from lambdarag.config.domain import Domain, open_domain
from lambdarag.errors import ConfigError
from lambdarag.server import create_app
from lambdarag.server.ratelimit import RateLimiter

KEY_KB, KEY_OTHER, KEY_HASHED = "k-alpha-1234567890", "k-beta-0987654321", "k-gamma-5555555555"
KEYS_ENV = f"{KEY_KB} kb ; {KEY_OTHER} other,x\nsha256:{hashlib.sha256(KEY_HASHED.encode()).hexdigest()} *"
ASK = {"question": "教职工出差住宿费标准是多少？"}
CHAT = {"model": "kb", "messages": [{"role": "user", "content": "教职工出差住宿费标准是多少？"}]}
QUESTION_ROUTES: list[tuple[str, str, Any]] = [
    ("POST", "/api/ask", ASK), ("POST", "/api/search", ASK), ("POST", "/api/lookup_knowledge", ASK),
    ("POST", "/v1/chat/completions", CHAT), ("GET", "/v1/models", None),
    ("POST", "/api/feedback", {"request_id": "nope", "rating": "up"}),  # 404 once past the key: no such request
]
OK = {"/api/feedback": 404}
AppFactory = Callable[..., FlaskClient]


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def make_client(source: Domain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppFactory]:
    """A client of a fresh app on a copy of the built domain, with this instance.yml text and environment."""
    apps: list[Flask] = []

    def make(instance: str = "", env: dict[str, str] | None = None, files: dict[str, str] | None = None) -> FlaskClient:
        domain = copy_domain(source, tmp_path / f"k{len(apps)}")
        with domain.instance_file.open("a", encoding="utf-8") as out:
            out.write(instance)
        for name, text in (files or {}).items():  # into the domain folder
            (domain.root / name).write_text(text, encoding="utf-8")
        for name, value in {"LAMBDARAG_ADMIN_TOKEN": ADMIN_TOKEN, **(env or {})}.items():
            monkeypatch.setenv(name, value)
        apps.append(create_app(open_domain("kb", domain.root.parent)))
        return apps[-1].test_client()

    yield make
    for app in apps:
        app.extensions["lambdarag"].store.close()


def call(client: FlaskClient, method: str, path: str, body: Any, headers: dict[str, str] | None = None) -> Any:
    return client.open(path, method=method, json=body, headers=headers or {})


AUTH_ON = "server: {auth: {enabled: true}}\n"


def test_keys_are_off_by_default(make_client: AppFactory) -> None:
    client = make_client()
    for method, path, body in QUESTION_ROUTES:
        assert call(client, method, path, body).status_code == OK.get(path, 200), path


def test_with_keys_on_every_question_route_needs_a_key_for_this_domain(make_client: AppFactory) -> None:
    client = make_client(AUTH_ON, {"LAMBDARAG_API_KEYS": KEYS_ENV})
    for method, path, body in QUESTION_ROUTES:
        assert "API key missing" in error_of(call(client, method, path, body), 401, "unauthorized")
        response = call(client, method, path, body, bearer("k-wrong"))
        assert "not valid" in error_of(response, 401, "unauthorized")
        assert response.headers["WWW-Authenticate"] == "Bearer"
        assert "may not use domain 'kb'" in error_of(call(client, method, path, body, bearer(KEY_OTHER)), 403)
        for headers in (bearer(KEY_KB), {"X-API-Key": KEY_KB}, bearer(KEY_HASHED)):
            assert call(client, method, path, body, headers).status_code == OK.get(path, 200), (path, headers)
    # /v1/ errors keep OpenAI's type, so the official client raises AuthenticationError / PermissionDeniedError
    assert call(client, "POST", "/v1/chat/completions", CHAT).get_json()["error"]["type"] == "authentication_error"


def test_open_routes_stay_open_and_the_admin_token_is_separate(make_client: AppFactory) -> None:
    client = make_client(AUTH_ON, {"LAMBDARAG_API_KEYS": KEYS_ENV})
    for path in ("/healthz", "/readyz", "/", "/static/app.js"):
        response = client.get(path)
        assert response.status_code == 200, path
        response.close()
    assert error_of(client.post("/admin/reload", headers=bearer(KEY_KB)), 403, "forbidden") == "admin token is wrong"
    assert "not valid" in error_of(call(client, "POST", "/api/ask", ASK, bearer(ADMIN_TOKEN)), 401)
    assert client.post("/admin/reload", headers=bearer(ADMIN_TOKEN)).status_code == 200


def test_keys_on_but_none_configured_refuses_everything(make_client: AppFactory,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LAMBDARAG_API_KEYS", raising=False)
    client = make_client(AUTH_ON)
    message = error_of(call(client, "POST", "/api/ask", ASK, bearer(KEY_KB)), 403, "forbidden")
    assert "none are configured: set $LAMBDARAG_API_KEYS" in message


def test_a_file_of_hashed_keys_relative_to_the_domain_folder(make_client: AppFactory) -> None:
    lines = ["# issued 2025-06: finance office", f"sha256:{hashlib.sha256(KEY_KB.encode()).hexdigest()} kb,demo  # fin",
             "", f"sha256:{hashlib.sha256(KEY_OTHER.encode()).hexdigest().upper()} demo"]
    client = make_client("server: {auth: {enabled: true, api_keys_env: '', api_keys_file: keys.txt}}\n",
                         files={"keys.txt": "\n".join(lines) + "\n"})
    assert call(client, "POST", "/api/search", ASK, bearer(KEY_KB)).status_code == 200
    error_of(call(client, "POST", "/api/search", ASK, bearer(KEY_OTHER)), 403, "forbidden")
    error_of(call(client, "POST", "/api/search", ASK, bearer(KEY_HASHED)), 401, "unauthorized")


@pytest.mark.parametrize(("text", "fragment"), [
    (f"{KEY_KB} kb", "line 1: keys in the file must be hashed"),
    ("sha256:abc kb", "line 1: sha256: must be followed by 64 hex digits"),
    (f"# ok\nsha256:{'0' * 64}", "line 2: expected 'KEY DOMAINS'"),
    (f"sha256:{'0' * 64} ,", "line 1: no domains"),
])
def test_a_bad_key_file_fails_at_start_naming_the_line_never_the_key(make_client: AppFactory, tmp_path: Path,
                                                                      text: str, fragment: str) -> None:
    (tmp_path / "keys.txt").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=fragment) as caught:
        make_client(f"server: {{auth: {{enabled: true, api_keys_file: '{tmp_path}/keys.txt'}}}}\n")
    assert KEY_KB not in str(caught.value)


def test_a_bad_env_entry_fails_at_start_without_the_key(make_client: AppFactory) -> None:
    with pytest.raises(ConfigError, match=r"\$LAMBDARAG_API_KEYS: entry 2: expected 'KEY DOMAINS'") as caught:
        make_client(AUTH_ON, {"LAMBDARAG_API_KEYS": f"{KEY_KB} kb; {KEY_OTHER}"})
    assert KEY_OTHER not in str(caught.value) and KEY_KB not in str(caught.value)


# --- CORS ---------------------------------------------------------------------------------------------------

ORIGIN = "https://intranet.example.edu"


def test_cors_is_off_by_default(make_client: AppFactory) -> None:
    client = make_client()
    response = call(client, "POST", "/api/search", ASK, {"Origin": ORIGIN})
    assert response.status_code == 200 and "Access-Control-Allow-Origin" not in response.headers
    assert "Access-Control-Allow-Origin" not in client.options("/api/search", headers={"Origin": ORIGIN}).headers


def test_cors_for_listed_origins_with_preflight_that_needs_no_key(make_client: AppFactory) -> None:
    client = make_client(f"server: {{cors_origins: ['{ORIGIN}/'], auth: {{enabled: true}}}}\n",
                         {"LAMBDARAG_API_KEYS": KEYS_ENV})
    preflight = client.options("/api/ask", headers={"Origin": ORIGIN, "Access-Control-Request-Method": "POST",
                                                    "Access-Control-Request-Headers": "authorization,content-type"})
    assert preflight.status_code == 200 and preflight.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert "Authorization" in preflight.headers["Access-Control-Allow-Headers"]
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    answer = call(client, "POST", "/api/ask", ASK, {"Origin": ORIGIN, **bearer(KEY_KB)})
    assert answer.headers["Access-Control-Allow-Origin"] == ORIGIN and "Origin" in answer.headers["Vary"]
    assert "X-Request-Id" in answer.headers["Access-Control-Expose-Headers"]
    refused = call(client, "POST", "/api/ask", ASK, {"Origin": ORIGIN})  # errors carry CORS too: the page can read them
    assert refused.status_code == 401 and refused.headers["Access-Control-Allow-Origin"] == ORIGIN
    other = call(client, "POST", "/api/ask", ASK, {"Origin": "https://evil.example", **bearer(KEY_KB)})
    assert other.status_code == 200 and "Access-Control-Allow-Origin" not in other.headers


def test_a_bad_cors_origin_fails_at_start(make_client: AppFactory) -> None:
    with pytest.raises(ConfigError, match="is not an origin"):
        make_client("server: {cors_origins: ['https://intranet.example.edu/chat']}\n")


# --- rate limits ----------------------------------------------------------------------------------------------

def test_rate_limit_is_per_client_and_429_says_when_to_retry(make_client: AppFactory) -> None:
    client = make_client("server: {rate_limit: {requests_per_minute: 6, burst: 2}, auth: {enabled: true}}\n",
                         {"LAMBDARAG_API_KEYS": KEYS_ENV})
    for _ in range(2):
        assert call(client, "POST", "/api/search", ASK, bearer(KEY_KB)).status_code == 200
    for path, body in (("/api/search", ASK), ("/v1/chat/completions", CHAT)):
        limited = call(client, "POST", path, body, bearer(KEY_KB))
        assert "too many requests" in error_of(limited, 429, "too_many_requests")
        assert limited.headers["Retry-After"] == "10"  # 6 a minute: one token every 10 s
    assert call(client, "POST", "/api/search", ASK, bearer(KEY_HASHED)).status_code == 200  # another key, own bucket
    assert client.get("/healthz").status_code == 200  # probes are never limited
    # without a valid key the client is its address: wrong keys cannot mint fresh buckets
    statuses = [call(client, "POST", "/api/search", ASK, bearer(f"guess-{i}")).status_code for i in range(3)]
    assert statuses == [401, 401, 429]


def test_token_bucket_refills_at_the_rate_and_caps_at_the_burst() -> None:
    now = [0.0]
    limiter = RateLimiter(per_minute=60, burst=3, clock=lambda: now[0])
    assert [limiter.acquire("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.acquire("a") == pytest.approx(1.0)
    now[0] = 0.5
    assert limiter.acquire("a") == pytest.approx(0.5)
    now[0] = 1.0
    assert limiter.acquire("a") == 0.0
    now[0] = 1000.0  # a long pause refills to the burst, not beyond
    assert [limiter.acquire("a") for _ in range(4)][-1] == pytest.approx(1.0)
    assert RateLimiter(per_minute=0, burst=1).acquire("a") == 0.0  # 0 = off


def test_forgotten_clients_start_full_and_memory_stays_bounded() -> None:
    limiter = RateLimiter(per_minute=1, burst=1, clock=lambda: 0.0, max_clients=2)
    assert limiter.acquire("a") == 0.0 and limiter.acquire("a") > 0
    limiter.acquire("b")
    limiter.acquire("c")  # "a" is the least recently seen: forgotten
    assert len(limiter._buckets) == 2 and limiter.acquire("a") == 0.0


# --- caps -----------------------------------------------------------------------------------------------------

def test_question_length_cap_on_every_question_route(make_client: AppFactory) -> None:
    client = make_client("server: {max_question_chars: 20}\n")
    long = "住宿费" * 7
    for path in ("/api/ask", "/api/search", "/api/lookup_knowledge"):
        assert "the limit is 20" in error_of(call(client, "POST", path, {"question": long}), 400, "bad_request")
    chat = {"model": "kb", "messages": [{"role": "user", "content": long}]}
    assert "the limit is 20" in error_of(call(client, "POST", "/v1/chat/completions", chat), 400, "bad_request")
    assert call(client, "POST", "/api/search", {"question": long[:20]}).status_code == 200


def test_body_cap_is_configurable(make_client: AppFactory) -> None:
    client = make_client("server: {max_body_bytes: 2048}\n")
    response = client.post("/api/ask", data=b'{"question": "' + b"a" * 2100 + b'"}', content_type="application/json")
    error_of(response, 413, "payload_too_large")
