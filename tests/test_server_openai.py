"""The OpenAI-compatible routes through Flask's test client (the official client runs in test_server_gunicorn.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from server_fixtures import copy_domain

from lambdarag.config.domain import Domain
from lambdarag.server import create_app


@pytest.fixture
def app(source: Domain, tmp_path: Path) -> Iterator[Flask]:
    app = create_app(copy_domain(source, tmp_path / "knowledge"))
    yield app
    app.extensions["lambdarag"].store.close()


def chat(client: FlaskClient, messages: list[dict[str, Any]], **extra: Any) -> Any:
    return client.post("/v1/chat/completions", json={"model": "kb", "messages": messages, **extra})


def data_lines(text: str) -> list[str]:
    return [block.removeprefix("data: ") for block in text.split("\n\n") if block.startswith("data: ")]


def test_models_lists_the_domain(client: FlaskClient) -> None:
    body = client.get("/v1/models").get_json()
    assert body["object"] == "list" and [m["id"] for m in body["data"]] == ["kb"]
    assert client.get("/v1/models/kb").get_json()["id"] == "kb"


def test_completion_keeps_citations_and_references(client: FlaskClient) -> None:
    response = chat(client, [{"role": "system", "content": "ignored"},
                             {"role": "user", "content": "教职工出差住宿费标准是多少？"}], temperature=0.3)
    assert response.status_code == 200
    body = response.get_json()
    assert body["object"] == "chat.completion" and body["model"] == "kb"
    choice = body["choices"][0]
    assert choice["message"]["role"] == "assistant" and choice["finish_reason"] == "stop"
    assert "500元" in choice["message"]["content"] and "[1]" in choice["message"]["content"]
    assert body["references"][0]["n"] == 1 and body["references"][0]["doc_id"] == "差旅费报销办法"
    assert body["usage"]["total_tokens"] > 0 and body["id"] == f"chatcmpl-{body['request_id']}"


def test_messages_give_the_history(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAMBDARAG_ADMIN_TOKEN", "tok")
    messages = [
        {"role": "user", "content": "预算科隶属于哪个部门？"},
        {"role": "assistant", "content": "预算科隶属财务处[1]。"},
        {"role": "user", "content": [{"type": "text", "text": "它的联系人是谁？"}]},
    ]
    body = chat(client, messages).get_json()
    assert "李华" in body["choices"][0]["message"]["content"]

    def condensed(request_id: str) -> str:
        trace = client.get(f"/api/trace/{request_id}", headers={"Authorization": "Bearer tok"}).get_json()
        return str(trace["trace"]["condensed"])

    assert condensed(body["request_id"]).startswith("预算科")
    alone = chat(client, messages[-1:]).get_json()
    assert condensed(alone["request_id"]) == "它的联系人是谁？"


def test_stream_sends_chunks_then_references_then_done(client: FlaskClient) -> None:
    response = chat(client, [{"role": "user", "content": "教职工出差住宿费标准是多少？"}], stream=True)
    assert response.mimetype == "text/event-stream"
    lines = data_lines(response.get_data(as_text=True))
    assert lines[-1] == "[DONE]"
    chunks = [json.loads(line) for line in lines[:-1]]
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == "kb" for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    assert "500元" in text and "[1]" in text
    last = chunks[-1]
    assert last["choices"][0]["finish_reason"] == "stop" and last["references"][0]["n"] == 1
    assert len({c["id"] for c in chunks}) == 1


def test_openai_route_stores_a_trace(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAMBDARAG_ADMIN_TOKEN", "tok")
    body = chat(client, [{"role": "user", "content": "报账大厅在哪里？"}]).get_json()
    trace = client.get(f"/api/trace/{body['request_id']}", headers={"Authorization": "Bearer tok"}).get_json()
    assert trace["kind"] == "openai" and trace["session_id"] is None
