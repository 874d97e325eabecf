"""Service faults through the real app: the LLM, embeddings and rerank endpoints down, slow past their time-out,
answering 500, answering malformed JSON, or (the LLM) cutting the connection midway.

Each endpoint is its own fake OpenAI-compatible server (real HTTP, the real openai client and urllib), as vLLM,
the embeddings server and the rerank server are in production. For every route × fault: a 200 with an answer
(extractive, without the vector channel, or in fused order), the stored trace's "degraded" naming the stage and
the reason, /readyz "degraded" (200) naming the part; then the endpoint comes back (a stopped server starts again
on the same port) and the next request is healthy and /readyz ready, without restarting anything. The last test
does the LLM part through a real gunicorn with two workers (each holds its own client, connection pool and breaker).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from flask import Flask
from flask.testing import FlaskClient
from server_fixtures import ADMIN_TOKEN, Gunicorn, copy_domain, gunicorn, http, shared_source
from test_pipeline_llm import role_chat

from lambdarag.answer.generate import CUT_SEPARATOR
from lambdarag.build.steps import build_domain
from lambdarag.config.domain import open_domain
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import search as run_search
from lambdarag.server import create_app

AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
QUESTION = "教职工出差住宿费标准是多少？"
LLM_REPLY = "根据规定，教职工出差住宿费每人每天不超过500元[1]。"  # not what the extractive answer says
COOLDOWN_S = 0.3  # llm.cooldown_s here: the breaker stays open this long after an LLM failure
LLM_FAULTS = {"down": "connection failed", "slow": "timed out", "500": "HTTP 500", "malformed": "malformed reply",
              "cut": "peer closed connection"}
EMBED_FAULTS = {"down": "connection failed", "slow": "timed out", "500": "HTTP 500", "malformed": "malformed reply"}
RERANK_FAULTS = {"down": ("error", "Connection refused"), "slow": ("timeout", "budget"), "500": ("error", "HTTP 500"),
                 "malformed": ("malformed", "non-JSON")}


def instance_yml(llm: FakeOpenAI, embed: FakeOpenAI, rerank: FakeOpenAI) -> str:
    return f"""
retrieval:
  channels:
    vector: {{enabled: true, timeout_s: 1.0}}
    graph: {{enabled: false}}
    wiki: {{enabled: false}}
embedding: {{backend: openai, base_url: '{embed.base_url}', model: fake-model, dim: 8, query_prefix: '',
             passage_prefix: '', timeout_s: 0.5, max_retries: 0}}
llm: {{enabled: true, base_url: '{llm.base_url}', model: fake-model, timeout_s: 0.5, max_retries: 1,
       cooldown_s: {COOLDOWN_S}}}
rerank: {{enabled: true, base_url: '{rerank.root_url}', timeout_s: 0.5, top_n: 4}}
"""


@dataclass
class Fakes:
    llm: FakeOpenAI
    embed: FakeOpenAI
    rerank: FakeOpenAI

    def all(self) -> tuple[FakeOpenAI, ...]:
        return self.llm, self.embed, self.rerank


@pytest.fixture(scope="module")
def fakes() -> Iterator[Fakes]:
    with (FakeOpenAI(chat=role_chat(reply=LLM_REPLY)) as llm, FakeOpenAI() as embed, FakeOpenAI() as rerank):
        llm.slow_s = embed.slow_s = 1.0  # twice the time-outs
        yield Fakes(llm, embed, rerank)


@pytest.fixture(scope="module")
def app(fakes: Fakes, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """The shared corpus with BM25 and vectors (embedded by the fake), the LLM and the reranker switched on."""
    source = copy_domain(shared_source(tmp_path_factory), tmp_path_factory.mktemp("faults") / "knowledge")
    source.instance_file.write_text(instance_yml(fakes.llm, fakes.embed, fakes.rerank), encoding="utf-8")
    domain = open_domain(source.name, source.root.parent)
    assert all(o.ok for o in build_domain(domain, ["vectors"], progress=False))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LAMBDARAG_ADMIN_TOKEN", ADMIN_TOKEN)
        served = create_app(domain)
        yield served
    served.extensions["lambdarag"].store.close()


@pytest.fixture
def client(app: Flask, fakes: Fakes, monkeypatch: pytest.MonkeyPatch) -> FlaskClient:
    """The app's test client, every endpoint good again and the service healthy (the breaker closed)."""
    monkeypatch.setenv("LAMBDARAG_ADMIN_TOKEN", ADMIN_TOKEN)
    restore(fakes)
    test_client = app.test_client()
    deadline = time.monotonic() + 5
    while degraded_of(test_client, ask(test_client)["request_id"]) and time.monotonic() < deadline:
        time.sleep(COOLDOWN_S)
    return test_client


def restore(fakes: Fakes) -> None:
    for fake in fakes.all():
        fake.chat_mode = fake.embed_mode = fake.rerank_mode = "good"
        fake.start()


def inject(fake: FakeOpenAI, mode_attr: str, fault: str) -> None:
    if fault == "down":
        fake.stop()  # the port refuses, open connections are closed: a dead process
    else:
        setattr(fake, mode_attr, fault)


def ask(client: FlaskClient, question: str = QUESTION, **extra: Any) -> dict[str, Any]:
    response = client.post("/api/ask", json={"question": question, **extra})
    assert response.status_code == 200, response.get_data(as_text=True)
    body: dict[str, Any] = response.get_json()
    return body


def events(text: str) -> list[tuple[str, Any]]:
    """(event, data) of an event stream: SSE ``event:`` blocks, or OpenAI's bare ``data:`` lines."""
    out = []
    for block in filter(str.strip, text.split("\n\n")):
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        data = fields["data"]
        out.append((fields.get("event", "data"), data if data == "[DONE]" else json.loads(data)))
    return out


def trace_of(client: FlaskClient, request_id: str) -> dict[str, Any]:
    stored = client.get(f"/api/trace/{request_id}", headers=AUTH)
    assert stored.status_code == 200
    trace: dict[str, Any] = stored.get_json()["trace"]
    return trace


def degraded_of(client: FlaskClient, request_id: str) -> dict[str, str]:
    return {d["stage"]: d["error"] for d in trace_of(client, request_id)["degraded"]}


def readyz(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/readyz")
    assert response.status_code == 200, response.get_data(as_text=True)  # degraded or ready, never not ready
    body: dict[str, Any] = response.get_json()
    return body


# ---- the LLM: one answer per route -----------------------------------------------------------------------------

Answer = tuple[str, str, str, str]  # (request id, the answer, how it was made: llm | extractive, the text streamed)


def via_ask(client: FlaskClient) -> Answer:
    body = ask(client)
    return body["request_id"], body["answer"], body["answer_method"], ""


def via_ask_stream(client: FlaskClient) -> Answer:
    response = client.post("/api/ask", json={"question": QUESTION, "stream": True})
    assert response.status_code == 200
    got = events(response.get_data(as_text=True))
    assert [kind for kind, _ in got][-2:] == ["citations", "result"] and "error" not in dict(got)
    result = got[-1][1]
    streamed = "".join(data["text"] for kind, data in got if kind == "delta")
    assert streamed.endswith(result["answer"])
    return result["request_id"], result["answer"], result["answer_method"], streamed


def via_v1(client: FlaskClient) -> Answer:
    body = client.post("/v1/chat/completions", json={"model": "kb", "messages": [
        {"role": "user", "content": QUESTION}]})
    assert body.status_code == 200
    reply = body.get_json()
    text = reply["choices"][0]["message"]["content"]
    return reply["request_id"], text, "llm" if text == LLM_REPLY else "extractive", ""


def via_v1_stream(client: FlaskClient) -> Answer:
    response = client.post("/v1/chat/completions", json={"model": "kb", "stream": True, "messages": [
        {"role": "user", "content": QUESTION}]})
    assert response.status_code == 200
    got = [data for _, data in events(response.get_data(as_text=True))]
    assert got[-1] == "[DONE]" and not any("error" in chunk for chunk in got[:-1])
    final = got[-2]
    assert final["choices"][0]["finish_reason"] == "stop" and final["references"]
    text = "".join(chunk["choices"][0]["delta"].get("content", "") for chunk in got[:-1])
    return final["request_id"], text, "llm" if text == LLM_REPLY else "extractive", text


LLM_ROUTES: dict[str, Callable[[FlaskClient], Answer]] = {
    "ask": via_ask, "ask_stream": via_ask_stream, "v1": via_v1, "v1_stream": via_v1_stream}


@pytest.mark.parametrize("fault", LLM_FAULTS)
@pytest.mark.parametrize("route", LLM_ROUTES)
def test_llm_fault_gives_an_extractive_answer_says_so_and_recovers(client: FlaskClient, fakes: Fakes, route: str,
                                                                   fault: str) -> None:
    call, reason = LLM_ROUTES[route], LLM_FAULTS[fault]
    inject(fakes.llm, "chat_mode", fault)
    request_id, text, method, streamed = call(client)
    assert method == "extractive" and "500元" in text
    if fault == "cut" and route.endswith("stream"):  # the pieces sent before the cut, then the extractive answer
        before, _, after = streamed.partition(CUT_SEPARATOR)
        assert before == LLM_REPLY[:8] and "500元" in after
    degraded = degraded_of(client, request_id)
    assert reason in degraded["generation"], degraded
    ready = readyz(client)
    part = ready["parts"]["llm"]
    assert ready["status"] == "degraded" and part["state"] == ("unreachable" if fault == "down" else "degraded")
    assert reason in part["calls"]["last"]["reason"] and part["breaker"]["state"] == "open"
    restore(fakes)
    time.sleep(COOLDOWN_S)  # the breaker lets the next call try the endpoint again
    request_id, text, method, _ = call(client)
    assert (method, text) == ("llm", LLM_REPLY) and degraded_of(client, request_id) == {}
    ready = readyz(client)
    assert ready["status"] == "ready" and ready["parts"]["llm"]["breaker"] == {"state": "closed"}


def test_a_hung_llm_costs_a_request_one_time_out_not_one_per_stage(client: FlaskClient, fakes: Fakes) -> None:
    """A follow-up asks the LLM to condense, classify, fill slots and answer: with the LLM hung, only the first call
    waits (its time-out and the one retry); the later stages skip the endpoint, naming the first failure."""
    first = ask(client, "预算科隶属于哪个部门？")
    fakes.llm.chat_mode = "slow"
    fakes.llm.requests.clear()
    started = time.monotonic()
    follow = ask(client, "它的联系人是谁？", session_id=first["session_id"])
    elapsed = time.monotonic() - started
    assert follow["answer_method"] == "extractive" and "李华" in follow["answer"]
    assert len(fakes.llm.requests_to("/v1/chat/completions")) == 2  # one call and its retry, then no more
    degraded = degraded_of(client, follow["request_id"])
    assert "timed out" in degraded["condense"] and {"slots", "generation"} <= set(degraded)
    assert all("skipped" in error and "timed out" in error for stage, error in degraded.items() if stage != "condense")
    assert elapsed < 2.5, elapsed  # two 0.5 s time-outs and the client's back-off; before: that for every stage


# ---- embeddings (the vector channel's query) and the reranker ---------------------------------------------------

def search(client: FlaskClient) -> dict[str, Any]:
    response = client.post("/api/search", json={"question": QUESTION})
    assert response.status_code == 200
    body: dict[str, Any] = response.get_json()
    assert body["hits"] and body["hits"][0]["doc_id"] == "差旅费报销办法"
    return body


def retrieve(client: FlaskClient, route: str) -> tuple[str, list[dict[str, Any]]]:
    """(request id, the fused hits) of a search, or of an answer (whose stored trace lists the fused hits)."""
    if route == "search":
        body = search(client)
        return body["request_id"], body["hits"]
    body = ask(client)
    assert body["found"] and body["answer_method"] == "llm" and "500元" in body["answer"]
    return body["request_id"], trace_of(client, body["request_id"])["fused"]


@pytest.mark.parametrize("fault", EMBED_FAULTS)
@pytest.mark.parametrize("route", ["search", "ask"])
def test_embeddings_fault_answers_without_the_vector_channel_and_recovers(client: FlaskClient, fakes: Fakes,
                                                                          route: str, fault: str) -> None:
    reason = EMBED_FAULTS[fault]
    # the vector channel keeps the vectors of questions it embedded (an earlier test's): this one must be embedded
    client.application.extensions["lambdarag"].holder.get().channels["vector"].queries().clear()
    inject(fakes.embed, "embed_mode", fault)
    request_id, _ = retrieve(client, route)
    trace = trace_of(client, request_id)
    assert reason in degraded_of(client, request_id)["channel:vector"]
    assert trace["channels"]["vector"]["candidates"] == 0
    ready = readyz(client)
    part = ready["parts"]["embedding"]
    assert ready["status"] == "degraded" and part["state"] == ("unreachable" if fault == "down" else "degraded")
    assert reason in part["calls"]["last"]["reason"]
    restore(fakes)
    request_id, _ = retrieve(client, route)
    assert degraded_of(client, request_id) == {} and trace_of(client, request_id)["channels"]["vector"]["candidates"]
    assert readyz(client)["status"] == "ready"


@pytest.mark.parametrize("fault", RERANK_FAULTS)
@pytest.mark.parametrize("route", ["search", "ask"])
def test_rerank_fault_keeps_the_fused_order_and_recovers(app: Flask, client: FlaskClient, fakes: Fakes, route: str,
                                                         fault: str) -> None:
    status, reason = RERANK_FAULTS[fault]
    unranked = run_search(app.extensions["lambdarag"].holder.get(), QUESTION, PipelineOptions(rerank=False, log=False))
    inject(fakes.rerank, "rerank_mode", fault)
    request_id, _ = retrieve(client, route)
    trace = trace_of(client, request_id)
    assert trace["rerank"]["status"] == status and reason in degraded_of(client, request_id)["rerank"]
    assert trace["ranking"] == unranked.trace["ranking"]  # exactly the fused order
    ready = readyz(client)
    assert ready["status"] == "degraded" and ready["parts"]["rerank"]["state"] == "degraded"
    assert ready["parts"]["rerank"]["last"]["status"] == status
    restore(fakes)
    request_id, _ = retrieve(client, route)
    assert trace_of(client, request_id)["rerank"]["status"] == "ok" and degraded_of(client, request_id) == {}
    assert readyz(client)["status"] == "ready"


def test_the_fault_matrix_covers_every_fault_of_the_fake() -> None:
    from fake_openai import CHAT_MODES, EMBED_MODES, RERANK_MODES

    assert set(LLM_FAULTS) == {*CHAT_MODES, "down"} - {"good"}
    assert set(EMBED_FAULTS) == {*EMBED_MODES, "down"} - {"good"}
    assert set(RERANK_FAULTS) == {*RERANK_MODES, "down"} - {"good", "wrong_count"}  # wrong_count: test_rerank.py


# ---- through a real gunicorn: a cut stream, then the LLM down and up again, on every worker ----------------------

def test_through_gunicorn_a_cut_stream_and_a_dead_llm_then_it_recovers(tmp_path: Path,
                                                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    with FakeOpenAI(chat=role_chat(reply=LLM_REPLY)) as llm:
        domain = copy_domain(shared_source(tmp_path_factory), tmp_path / "served")
        with open(domain.instance_file, "a", encoding="utf-8") as handle:
            handle.write(f"llm: {{enabled: true, base_url: '{llm.base_url}', model: fake-model, timeout_s: 1.0, "
                         f"max_retries: 1, cooldown_s: {COOLDOWN_S}}}\n")
        with gunicorn(open_domain(domain.name, domain.root.parent), workers=2, threads=2, ready_workers=2) as server:
            assert {body["answer_method"] for body in asks(server, 2)} == {"llm"}
            llm.chat_mode = "cut"
            status, _, raw = http("POST", server.base_url + "/api/ask", {"question": QUESTION, "stream": True})
            got = events(raw.decode("utf-8"))
            assert status == 200 and got[-1][0] == "result" and got[-1][1]["answer_method"] == "extractive"
            assert CUT_SEPARATOR in "".join(data["text"] for kind, data in got if kind == "delta")
            llm.chat_mode = "good"
            llm.stop()
            assert {body["answer_method"] for body in asks(server, 6)} == {"extractive"}
            status, _, raw = http("GET", server.base_url + "/readyz")
            ready = json.loads(raw)
            assert status == 200 and ready["status"] == "degraded" and ready["parts"]["llm"]["state"] == "unreachable"
            llm.start()
            time.sleep(COOLDOWN_S)
            answers = asks(server, 8, workers=2)
            assert {body["answer_method"] for body in answers} == {"llm"}  # no worker restarted, none stays broken
            assert len({body["pid"] for body in answers}) == 2
            assert all(json.loads(http("GET", server.base_url + "/readyz")[2])["status"] == "ready" for _ in range(4))


def asks(server: Gunicorn, n: int, workers: int = 1, most: int = 64) -> list[dict[str, Any]]:
    """``n`` answers, each on a fresh connection (so either worker may take it), with the worker's pid; more, up to
    ``most``, until ``workers`` workers have answered (on a busy machine one worker may take a run of requests)."""
    out: list[dict[str, Any]] = []
    while len(out) < n or (len({body["pid"] for body in out}) < workers and len(out) < most):
        status, headers, raw = http("POST", server.base_url + "/api/ask", {"question": QUESTION})
        assert status == 200, raw
        out.append({**json.loads(raw), "pid": headers["X-Worker-Pid"]})
    return out
