"""Against a real gunicorn (2 gthread workers) on loopback: the official openai client, log integrity under
concurrent requests, and sessions that continue on another worker."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import openai
import pytest
from server_fixtures import Gunicorn, copy_domain, gunicorn, http, shared_source

from lambdarag.config.domain import Domain, open_domain

CONCURRENT_REQUESTS = 48
PARALLEL_CLIENTS = 12
QUESTIONS = ("教职工出差住宿费标准是多少？", "报账大厅的联系电话是多少？", "科研劳务费发放标准是多少？",
             "设备采购需要招标吗？", "火星基地的氧气配额是多少？", "预算科的联系人是谁？")


@pytest.fixture(scope="module")
def domain(tmp_path_factory: pytest.TempPathFactory) -> Domain:
    served = copy_domain(shared_source(tmp_path_factory), tmp_path_factory.mktemp("served"))
    with open(served.instance_file, "a", encoding="utf-8") as handle:
        # rotate after a couple of lines, keeping every file: rotation races would lose or split lines
        handle.write("feedback: {rotate_mb: 0.002, keep_rotated: 500}\n")
    return open_domain(served.name, served.root.parent)


def log_lines(folder: Path, name: str) -> list[str]:
    """Every line of a log and its rotated files (name, name.1, name.2, ...)."""
    return [line for path in sorted(folder.glob(f"{name}*")) if not path.name.endswith(".lock")
            for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def server(domain: Domain) -> Iterator[Gunicorn]:
    with gunicorn(domain, workers=2, threads=4, ready_workers=2) as running:
        yield running


def post(server: Gunicorn, path: str, body: Any) -> tuple[int, dict[str, str], Any]:
    """One request on a fresh connection (so the kernel may hand it to either worker)."""
    status, headers, raw = http("POST", server.base_url + path, body)
    return status, headers, json.loads(raw)


def test_official_openai_client_works_unchanged(server: Gunicorn) -> None:
    client = openai.OpenAI(base_url=server.base_url + "/v1", api_key="unused", max_retries=0, timeout=60)
    assert [m.id for m in client.models.list()] == ["kb"]
    question = {"role": "user", "content": "教职工出差住宿费标准是多少？"}
    reply = client.chat.completions.create(model="kb", messages=[question])
    text = reply.choices[0].message.content or ""
    assert "500元" in text and "[1]" in text
    references = (reply.model_extra or {})["references"]
    assert references[0]["n"] == 1 and references[0]["doc_id"] == "差旅费报销办法"
    stream = client.chat.completions.create(
        model="kb", stream=True,
        messages=[{"role": "user", "content": "预算科隶属于哪个部门？"},
                  {"role": "assistant", "content": "财务处[1]。"},
                  {"role": "user", "content": "它的联系人是谁？"}],
    )
    chunks = list(stream)
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "李华" in streamed
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert (chunks[-1].model_extra or {})["references"]
    with pytest.raises(openai.NotFoundError) as info:
        client.chat.completions.create(model="other", messages=[{"role": "user", "content": "q"}])
    assert info.value.status_code == 404 and "does not exist" in str(info.value)
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="kb", messages=[{"role": "assistant", "content": "q"}])


def test_concurrent_requests_leave_exactly_n_log_lines(server: Gunicorn, domain: Domain) -> None:
    before = {json.loads(line)["request_id"] for line in log_lines(domain.feedback_dir, "query_log.jsonl")}

    def one(i: int) -> tuple[int, str, str]:
        status, headers, body = post(server, "/api/ask", {"question": QUESTIONS[i % len(QUESTIONS)]})
        return status, str(body.get("request_id")), headers.get("X-Worker-Pid", "")

    with ThreadPoolExecutor(PARALLEL_CLIENTS) as pool:
        results = list(pool.map(one, range(CONCURRENT_REQUESTS)))
    assert all(status == 200 for status, _, _ in results)
    assert len({pid for _, _, pid in results}) == 2, "both workers should have answered"
    every = [json.loads(line) for line in log_lines(domain.feedback_dir, "query_log.jsonl")]  # whole objects
    records = [r for r in every if r["request_id"] not in before]
    assert len(records) == CONCURRENT_REQUESTS
    assert sorted(r["request_id"] for r in records) == sorted(rid for _, rid, _ in results)
    assert all(r["query"] in QUESTIONS for r in records)
    assert len(list(domain.feedback_dir.glob("query_log.jsonl.*"))) > 2, "the log should have rotated"
    missing = [json.loads(line) for line in log_lines(domain.feedback_dir, "missing_queries.jsonl")]
    assert {m["request_id"] for m in missing} >= {r["request_id"] for r in records if not r["found"]}


def test_session_continues_on_another_worker(server: Gunicorn) -> None:
    status, headers, first = post(server, "/api/ask", {"question": "预算科隶属于哪个部门？"})
    assert status == 200
    first_pid, session_id = headers["X-Worker-Pid"], first["session_id"]

    def follow(_: int) -> tuple[str, dict[str, Any]]:
        _, h, body = post(server, "/api/ask", {"question": "它的联系人是谁？", "session_id": session_id})
        return h["X-Worker-Pid"], body

    other: list[dict[str, Any]] = []
    with ThreadPoolExecutor(4) as pool:
        for _ in range(10):  # bounded: batches of concurrent requests spread over both workers
            other = [body for pid, body in pool.map(follow, range(4)) if pid != first_pid]
            if other:
                break
    assert other, "no follow-up landed on the second worker"
    assert other[0]["session_id"] == session_id
    assert other[0]["condensed"].startswith("预算科") and "李华" in other[0]["answer"]


def test_health_and_readiness_through_gunicorn(server: Gunicorn) -> None:
    status, _, body = http("GET", server.base_url + "/readyz")
    assert status == 200
    parts = json.loads(body)["parts"]
    assert parts["index"]["ok"] and parts["index"]["knowledge"]["channels"] == {"bm25": "loaded", "document": "loaded"}
    status, headers, _ = http("GET", server.base_url + "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")


def test_body_over_the_cap_is_413_through_gunicorn(server: Gunicorn, domain: Domain) -> None:
    big = {"question": "a" * (domain.config.server.max_body_bytes + 1)}
    status, _, raw = http("POST", server.base_url + "/api/ask", big)
    assert status == 413 and json.loads(raw)["error"]["code"] == "payload_too_large"
