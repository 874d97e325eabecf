"""Every error path answers in the one shape {"error": {"code", "message"}} with the right status.

These run on a domain without an index: validation, auth and routing come before the pipeline.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from server_fixtures import ADMIN_TOKEN, bare_domain

from lambdarag.config.domain import Domain
from lambdarag.errors import DomainError
from lambdarag.server import create_app

AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
def domain(tmp_path: Path) -> Domain:
    return bare_domain(tmp_path / "knowledge")


@pytest.fixture
def app(domain: Domain) -> Iterator[Flask]:
    app = create_app(domain)
    yield app
    app.extensions["lambdarag"].store.close()


def error_of(response: Any, status: int, code: str | None = None) -> str:
    """Assert the one error shape and return the message."""
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert set(body) == {"error"}
    assert {"code", "message"} <= set(body["error"])
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if code:
        assert body["error"]["code"] == code
    message: str = body["error"]["message"]
    return message


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"{not json", "not valid JSON"),
        (b"", "empty request body"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"question": 3}', "must be a string"),
        (b'{"question": "   "}', "must not be empty"),
        (b'{"session": "x", "question": "q"}', "unknown field"),
        (b'{"question": "q", "stream": "yes"}', "true or false"),
        (b'{"question": "q", "session_id": "../etc"}', "invalid session_id"),
        (b'{"question": "q", "as_of": "last year"}', "'as_of': is not a date"),
        (b'{"question": "q", "as_of": "2023-13"}', "'as_of': is not a date"),
        (b'{}', "is required"),
        (b"\xff\xfe", "not valid JSON"),
    ],
)
def test_ask_bad_requests(client: FlaskClient, body: bytes, fragment: str) -> None:
    response = client.post("/api/ask", data=body, content_type="application/json")
    assert fragment in error_of(response, 400, "bad_request")


def test_question_length_and_body_cap(client: FlaskClient, domain: Domain) -> None:
    limit = domain.config.server.max_question_chars
    message = error_of(client.post("/api/ask", json={"question": "问" * (limit + 1)}), 400, "bad_request")
    assert str(limit) in message
    big = b'{"question": "' + b"a" * (domain.config.server.max_body_bytes + 10) + b'"}'
    error_of(client.post("/api/ask", data=big, content_type="application/json"), 413, "payload_too_large")


def test_routing_errors(client: FlaskClient) -> None:
    error_of(client.get("/api/nothing"), 404, "not_found")
    response = client.get("/api/ask")
    error_of(response, 405, "method_not_allowed")
    assert "POST" in response.headers["Allow"]


def test_unbuilt_index_is_503_with_the_build_command(client: FlaskClient) -> None:
    for path in ("/api/ask", "/api/search", "/api/lookup_knowledge"):
        message = error_of(client.post(path, json={"question": "住宿费标准是多少？"}), 503, "index_mismatch")
        assert "lambdarag build --domain kb" in message


def test_search_and_lookup_validation(client: FlaskClient) -> None:
    assert "unknown or empty" in error_of(client.post("/api/search", json={"question": "q", "channels": ["x"]}), 400)
    error_of(client.post("/api/search", json={"question": "q", "gate": 1}), 400, "bad_request")
    error_of(client.post("/api/lookup_knowledge", json={"question": "q", "stream": True}), 400, "bad_request")


def test_feedback_errors(client: FlaskClient) -> None:
    error_of(client.post("/api/feedback", json={"request_id": "r1", "rating": "meh"}), 400, "bad_request")
    error_of(client.post("/api/feedback", json={"rating": "up"}), 400, "bad_request")
    error_of(client.post("/api/feedback", json={"request_id": "r1", "rating": "up", "comment": 5}), 400)
    assert "no request" in error_of(client.post("/api/feedback", json={"request_id": "nope", "rating": "up"}), 404)


def test_admin_routes_without_configured_token(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LAMBDARAG_ADMIN_TOKEN", raising=False)
    for method, path in (("GET", "/api/trace/x"), ("GET", "/api/sessions/s/trace"), ("POST", "/admin/reload")):
        message = error_of(client.open(path, method=method, headers=AUTH), 403, "forbidden")
        assert "admin token not configured" in message


def test_admin_routes_token_checks(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAMBDARAG_ADMIN_TOKEN", ADMIN_TOKEN)
    for method, path in (("GET", "/api/trace/x"), ("GET", "/api/sessions/s/trace"), ("POST", "/admin/reload")):
        error_of(client.open(path, method=method), 401, "unauthorized")
        error_of(client.open(path, method=method, headers={"Authorization": "Basic abc"}), 401, "unauthorized")
        error_of(client.open(path, method=method, headers={"Authorization": "Bearer wrong"}), 403, "forbidden")
    error_of(client.get("/api/trace/unknown", headers=AUTH), 404, "not_found")
    error_of(client.get("/api/sessions/unknown/trace", headers=AUTH), 404, "not_found")
    error_of(client.get("/api/sessions/bad%20id/trace", headers=AUTH), 400, "bad_request")
    # reloading an index that cannot load keeps serving what there was and says why
    assert "reloading the index" in error_of(client.post("/admin/reload", headers=AUTH), 503, "index_mismatch")


def test_openai_errors_keep_our_shape_plus_openai_keys(client: FlaskClient) -> None:
    response = client.post("/v1/chat/completions", json={"model": "other", "messages": [{"role": "user",
                                                                                          "content": "q"}]})
    error_of(response, 404, "model_not_found")
    assert response.get_json()["error"]["type"] == "invalid_request_error"
    assert response.get_json()["error"]["param"] == "model"
    cases: list[Any] = [
        {"model": "kb"},
        {"model": "kb", "messages": []},
        {"model": "kb", "messages": [{"role": "assistant", "content": "hi"}]},
        {"model": "kb", "messages": [{"role": "robot", "content": "hi"}]},
        {"model": "kb", "messages": [{"role": "user", "content": 3}]},
        {"model": "kb", "messages": ["hi"]},
        {"messages": [{"role": "user", "content": "q"}]},
    ]
    for body in cases:
        error_of(client.post("/v1/chat/completions", json=body), 400, "bad_request")
    error_of(client.get("/v1/models/other"), 404, "model_not_found")


def test_health_and_readiness_report_each_part(client: FlaskClient) -> None:
    alive = client.get("/healthz")
    assert alive.status_code == 200 and alive.get_json()["status"] == "ok"
    assert alive.headers["X-Worker-Pid"].isdigit()
    ready = client.get("/readyz")
    assert ready.status_code == 503
    body = ready.get_json()
    assert body["status"] == "not_ready"
    parts = body["parts"]
    assert set(parts) == {"index", "llm", "embedding", "rerank", "logs", "sessions"}
    assert parts["index"]["ok"] is False and "no extracted chunks" in parts["index"]["error"]
    assert parts["llm"] == {"ok": True, "state": "disabled"}
    assert parts["embedding"] == {"ok": True, "state": "disabled"}
    assert parts["rerank"] == {"ok": True, "state": "off"}
    assert parts["logs"]["ok"] and parts["sessions"]["ok"]


def test_readiness_reports_unwritable_logs(tmp_path: Path) -> None:
    domain = bare_domain(tmp_path / "knowledge")
    (domain.root / "feedback").rmdir()
    (domain.root / "feedback").write_text("a file where the log folder should be", encoding="utf-8")
    app = create_app(domain)
    parts = app.test_client().get("/readyz").get_json()["parts"]
    assert parts["logs"]["ok"] is False and parts["logs"]["error"]
    app.extensions["lambdarag"].store.close()


def test_readiness_probes_a_configured_llm(tmp_path: Path) -> None:
    from fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        domain = bare_domain(tmp_path / "knowledge")
        domain.instance_file.write_text(domain.instance_file.read_text(encoding="utf-8")
                                        + f"llm: {{enabled: true, base_url: '{fake.base_url}'}}\n", encoding="utf-8")
        from lambdarag.config.domain import open_domain

        app = create_app(open_domain("kb", tmp_path / "knowledge"))
        llm = app.test_client().get("/readyz").get_json()["parts"]["llm"]
        assert llm["ok"] and llm["state"] == "reachable"
        app.extensions["lambdarag"].store.close()
    unreachable = app.test_client().get("/readyz").get_json()["parts"]["llm"]
    # answers go on without the LLM (extractive): a down LLM makes the server degraded, not unready
    assert unreachable["ok"] is True and unreachable["state"] == "unreachable" and unreachable["error"]


def test_factory_needs_a_domain(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("LAMBDARAG_DOMAIN", raising=False)
    with pytest.raises(DomainError, match="LAMBDARAG_DOMAIN"):
        create_app()
    bare_domain(tmp_path / "knowledge", "envdomain")
    monkeypatch.setenv("LAMBDARAG_DOMAIN", "envdomain")
    monkeypatch.setenv("LAMBDARAG_KNOWLEDGE_DIR", str(tmp_path / "knowledge"))
    app = create_app()
    assert app.test_client().get("/healthz").get_json()["domain"] == "envdomain"
    app.extensions["lambdarag"].store.close()


def test_web_page_is_chinese_and_self_contained(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'lang="zh-CN"' in html and "知识库问答" in html and "发送" in html
    assert "http://" not in html and "https://" not in html  # no CDN: the page works offline
    for asset in ("/static/app.js", "/static/style.css"):
        response = client.get(asset)
        assert response.status_code == 200
        text = response.get_data(as_text=True)
        assert "http://" not in text and "https://" not in text
        response.close()
