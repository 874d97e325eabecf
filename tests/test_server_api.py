"""The JSON API on a real built domain through Flask's test client: ask (JSON and SSE), search, lookup, feedback,
traces, sessions and the logs each request leaves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from server_fixtures import ADMIN_TOKEN, copy_domain

from lambdarag.config.domain import Domain, open_domain
from lambdarag.pipeline.result import Result
from lambdarag.records import Citation
from lambdarag.server import create_app

AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
CITATION_KEYS = {"n", "doc_id", "title", "breadcrumb", "locator", "excerpt", "chunk_id"}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def parse_sse(text: str) -> list[tuple[str, Any]]:
    """(event, data) pairs of a server-sent event stream."""
    events = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        events.append((lines.get("event", "message"), json.loads(lines["data"])))
    return events


def test_ask_returns_cited_answer_with_intent_and_timings(client: FlaskClient, domain: Domain) -> None:
    response = client.post("/api/ask", json={"question": "教职工出差住宿费标准是多少？"})
    assert response.status_code == 200
    body = response.get_json()
    assert body["found"] is True and "500元" in body["answer"] and "[1]" in body["answer"]
    assert body["intent"] == "fact" and body["intent_scores"]["fact"] > 0
    assert body["citations"] and set(body["citations"][0]) == CITATION_KEYS
    assert body["citations"][0]["doc_id"] == "差旅费报销办法"
    assert "住宿费标准" in body["citations"][0]["breadcrumb"]
    assert {"retrieve", "generate"} <= set(body["timings"])
    assert body["session_id"] and body["request_id"] == response.headers["X-Request-Id"]
    assert "trace" not in body and "context" not in body
    assert isinstance(body["slots"], dict)


def test_follow_up_uses_the_session(client: FlaskClient) -> None:
    first = client.post("/api/ask", json={"question": "预算科隶属于哪个部门？"}).get_json()
    follow = client.post("/api/ask", json={"question": "它的联系人是谁？", "session_id": first["session_id"]})
    body = follow.get_json()
    assert body["session_id"] == first["session_id"]
    assert "预算科" in body["condensed"] and "李华" in body["answer"]
    alone = client.post("/api/ask", json={"question": "它的联系人是谁？"}).get_json()
    assert alone["session_id"] != first["session_id"] and alone["condensed"] == "它的联系人是谁？"


def test_ask_as_of_a_date_reaches_the_pipeline(client: FlaskClient) -> None:
    body = client.post("/api/ask", json={"question": "住宿费标准是多少？", "as_of": "2021-06"}).get_json()
    assert body["found"] is True
    trace = client.get(f"/api/trace/{body['request_id']}", headers=AUTH).get_json()
    assert trace["trace"]["options"]["today"] == "2021-06-30"


def test_unknown_session_id_starts_a_session_under_that_id(client: FlaskClient) -> None:
    body = client.post("/api/ask", json={"question": "住宿费标准是多少？", "session_id": "client-made-1"}).get_json()
    assert body["session_id"] == "client-made-1"
    traces = client.get("/api/sessions/client-made-1/trace", headers=AUTH).get_json()
    assert [t["question"] for t in traces["turns"]] == ["住宿费标准是多少？"]


def test_ask_streams_answer_then_citations(client: FlaskClient) -> None:
    response = client.post("/api/ask", json={"question": "教职工出差住宿费标准是多少？", "stream": True})
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    events = parse_sse(response.get_data(as_text=True))
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "meta" and kinds[-2:] == ["citations", "result"] and "delta" in kinds
    assert set(kinds) == {"meta", "delta", "citations", "result"}
    meta, result = events[0][1], events[-1][1]
    assert meta["intent"] == "fact" and meta["request_id"] == result["request_id"]
    assert meta["session_id"] == result["session_id"]
    assert "".join(data["text"] for kind, data in events if kind == "delta") == result["answer"]
    assert events[-2][1]["citations"] == result["citations"] and result["citations"]
    follow = client.post("/api/ask", json={"question": "超出部分谁承担？", "session_id": result["session_id"],
                                           "stream": True})
    assert parse_sse(follow.get_data(as_text=True))[-1][1]["session_id"] == result["session_id"]


def test_not_found_answer_has_no_citations(client: FlaskClient, domain: Domain) -> None:
    body = client.post("/api/ask", json={"question": "火星基地的氧气配额是多少？"}).get_json()
    assert body["found"] is False and body["citations"] == [] and body["relevance"] == "none"
    missing = read_jsonl(domain.feedback_dir / "missing_queries.jsonl")
    assert [m["request_id"] for m in missing] == [body["request_id"]]


def test_search_returns_fused_hits_with_channel_ranks(client: FlaskClient) -> None:
    response = client.post("/api/search", json={"question": "科研劳务费发放标准"})
    assert response.status_code == 200
    body = response.get_json()
    assert "answer" not in body and "trace" not in body
    top = body["hits"][0]
    assert top["doc_id"] == "科研经费管理"
    assert top["ranks"]["bm25"] == 1 and top["scores"]["bm25"] > 0 and top["score"] > 0
    assert "gate" in body and body["intent"]
    only = client.post("/api/search", json={"question": "科研劳务费发放标准", "channels": ["bm25"]}).get_json()
    assert all(set(hit["ranks"]) <= {"bm25"} for hit in only["hits"])


def test_lookup_knowledge_hands_out_evidence_once_per_session(client: FlaskClient) -> None:
    first = client.post("/api/lookup_knowledge", json={"question": "教职工出差住宿费标准是多少？"}).get_json()
    assert first["found"] is True and first["evidence"] and first["already_returned"] is False
    assert first["completeness"] in {"sufficient", "partial"} and first["message"]
    block = first["evidence"][0]
    assert "500元" in block["text"] and block["chunk_id"] and block["breadcrumb"]
    again = client.post("/api/lookup_knowledge", json={"question": "教职工出差住宿费标准是多少？",
                                                        "session_id": first["session_id"]}).get_json()
    assert again["already_returned"] is True and again["evidence"] == []
    assert again["completeness"] == "already_returned"
    assert set(again["withheld"]) == {b["chunk_id"] for b in first["evidence"]}
    assert "已在本会话中返回" in again["message"]
    other = client.post("/api/lookup_knowledge", json={"question": "教职工出差住宿费标准是多少？"}).get_json()
    assert other["evidence"] == first["evidence"]  # another session gets it again


def test_lookup_knowledge_not_found_carries_no_evidence(client: FlaskClient) -> None:
    body = client.post("/api/lookup_knowledge", json={"question": "火星基地的氧气配额是多少？"}).get_json()
    assert body["found"] is False and body["evidence"] == [] and body["completeness"] == "none"
    assert body["relevance"] == "none" and "未找到" in body["message"]


def test_feedback_is_joined_by_request_id(client: FlaskClient, domain: Domain) -> None:
    asked = client.post("/api/ask", json={"question": "报账大厅的联系电话是多少？"}).get_json()
    response = client.post("/api/feedback", json={"request_id": asked["request_id"], "rating": "down",
                                                  "comment": "电话不对"})
    assert response.status_code == 200 and response.get_json()["ok"] is True
    ratings = read_jsonl(domain.feedback_dir / "ratings.jsonl")
    assert [(r["request_id"], r["rating"], r["comment"]) for r in ratings] == [(asked["request_id"], "down",
                                                                               "电话不对")]
    queries = {q["request_id"] for q in read_jsonl(domain.feedback_dir / "query_log.jsonl")}
    assert asked["request_id"] in queries


def test_query_log_line_has_the_documented_fields(client: FlaskClient, domain: Domain) -> None:
    asked = client.post("/api/ask", json={"question": "教职工出差住宿费标准是多少？"}).get_json()
    (line,) = read_jsonl(domain.feedback_dir / "query_log.jsonl")
    assert line["request_id"] == asked["request_id"] and line["session_id"] == asked["session_id"]
    assert line["query"] == "教职工出差住宿费标准是多少？" and line["condensed"]
    for key in ("time", "intent", "intent_scores", "weights", "channels", "fused", "gate", "found",
                "answer_chars", "latency_ms"):
        assert key in line, key
    assert line["channels"]["bm25"] and line["fused"][0] == asked["citations"][0]["chunk_id"]


@pytest.mark.parametrize("mode", ["hash", "drop"])
def test_query_text_can_be_hashed_or_dropped(source: Domain, tmp_path: Path, mode: str) -> None:
    domain = copy_domain(source, tmp_path / "knowledge")
    with open(domain.instance_file, "a", encoding="utf-8") as handle:
        handle.write(f"feedback: {{query_text: {mode}}}\n")
    app = create_app(open_domain(domain.name, tmp_path / "knowledge"))
    app.test_client().post("/api/ask", json={"question": "教职工出差住宿费标准是多少？"})
    (line,) = read_jsonl(domain.feedback_dir / "query_log.jsonl")
    for key in ("query", "condensed"):
        assert (line[key] or "").startswith("sha256:") if mode == "hash" else line[key] is None
    app.extensions["lambdarag"].store.close()


def test_query_log_hides_the_text_everywhere_and_has_latencies(source: Domain, tmp_path: Path) -> None:
    domain = copy_domain(source, tmp_path / "knowledge")
    with open(domain.instance_file, "a", encoding="utf-8") as handle:
        handle.write("feedback: {query_text: drop}\n")
    app = create_app(open_domain(domain.name, tmp_path / "knowledge"))
    app.test_client().post("/api/ask", json={"question": "教职工出差住宿费标准是多少？"})
    app.extensions["lambdarag"].store.close()
    (line,) = read_jsonl(domain.feedback_dir / "query_log.jsonl")
    assert line["latency_ms"] and "retrieve" in line["latency_ms"]
    assert "住宿费" not in json.dumps(line, ensure_ascii=False)


def test_traces_by_request_and_by_session(client: FlaskClient) -> None:
    first = client.post("/api/ask", json={"question": "预算科隶属于哪个部门？"}).get_json()
    second = client.post("/api/ask", json={"question": "它的联系人是谁？", "session_id": first["session_id"]})
    trace = client.get(f"/api/trace/{first['request_id']}", headers=AUTH).get_json()
    assert trace["request_id"] == first["request_id"] and trace["kind"] == "ask"
    assert {"stages", "gate", "intent"} <= set(trace["trace"])
    session = client.get(f"/api/sessions/{first['session_id']}/trace", headers=AUTH).get_json()
    assert [t["request_id"] for t in session["traces"]] == [first["request_id"], second.get_json()["request_id"]]
    assert [t["condensed"] for t in session["turns"]][1].startswith("预算科")
    searched = client.post("/api/search", json={"question": "住宿费"}).get_json()
    assert client.get(f"/api/trace/{searched['request_id']}", headers=AUTH).get_json()["kind"] == "search"


def test_each_response_shape_keeps_its_keys_in_order(client: FlaskClient) -> None:
    question = {"question": "教职工出差住宿费标准是多少？"}
    ask = client.post("/api/ask", json=question).get_json()
    assert list(ask) == ["request_id", "session_id", "question", "condensed", "answer", "answer_method", "found",
                         "citations", "intent", "intent_scores", "slots", "relevance", "grounding", "timings"]
    assert list(ask["citations"][0]) == ["n", "doc_id", "title", "breadcrumb", "locator", "excerpt", "chunk_id"]
    search = client.post("/api/search", json=question).get_json()
    assert list(search) == ["request_id", "question", "condensed", "intent", "intent_scores", "hits", "gate", "timings"]
    lookup = client.post("/api/lookup_knowledge", json=question).get_json()
    assert list(lookup) == ["request_id", "session_id", "found", "evidence", "relevance", "completeness",
                            "already_returned", "withheld", "message", "intent", "condensed"]
    assert list(lookup["evidence"][0]) == ["n", "chunk_id", "doc_id", "title", "breadcrumb", "locator", "text"]
    messages = [{"role": "user", "content": question["question"]}]
    chat = client.post("/v1/chat/completions", json={"model": "kb", "messages": messages}).get_json()
    assert list(chat) == ["id", "object", "created", "model", "choices", "usage", "references", "request_id",
                          "found", "intent"]
    assert chat["references"] == ask["citations"]
    for body in (ask, search, lookup, chat):  # the stored trace ends with the outcome fields it lacked
        stored = client.get(f"/api/trace/{body['request_id']}", headers=AUTH).get_json()["trace"]
        assert list(stored)[-2:] == ["condensed", "timings"] and stored["condensed"] == question["question"]


def lookup_result(found: bool = True) -> Result:
    """A lookup's Result with two citations, a#1 and b#1."""
    citations = [Citation(n=n, chunk_id=chunk_id, doc_id=chunk_id[0], title="标题", breadcrumb="标题 > 节", locator="",
                          excerpt=excerpt) for n, chunk_id, excerpt in ((1, "a#1", "摘"), (2, "b#1", "录"))]
    return Result(request_id="r", session_id="s", question="问", condensed="问", found=found, answer="",
                  citations=citations, intent="fact", intent_scores={}, slots={}, relevance="REFERENCE", context="")


def test_lookup_view_hands_out_only_new_chunks() -> None:
    from lambdarag.server.evidence_view import lookup_view

    result = lookup_result()
    view = lookup_view(result, ["b#1"], ["a#1"], lambda chunk_id: None if chunk_id == "x" else f"全文 {chunk_id}")
    assert [(e["n"], e["text"]) for e in view["evidence"]] == [(2, "全文 b#1")]
    assert view["withheld"] == ["a#1"] and view["already_returned"] is False
    assert view["completeness"] == "partial" and "1条" in view["message"]
    not_found = lookup_view(lookup_result(found=False), ["a#1", "b#1"], [], lambda _: "t")
    assert not_found["evidence"] == [] and not_found["relevance"] == "none" and not_found["completeness"] == "none"
    excerpt = lookup_view(result, ["a#1"], [], lambda _: None)
    assert [e["text"] for e in excerpt["evidence"]] == ["摘"]  # the excerpt stands in for an unknown chunk


def test_llm_answer_streams_in_pieces(source: Domain, tmp_path: Path) -> None:
    from fake_openai import FakeOpenAI

    reply = "教职工出差住宿费标准为每人每天不超过500元[1]。"
    with FakeOpenAI(chat=lambda messages: reply) as fake:
        domain = copy_domain(source, tmp_path / "knowledge")
        with open(domain.instance_file, "a", encoding="utf-8") as handle:
            handle.write(f"llm: {{enabled: true, base_url: '{fake.base_url}', model: fake-model}}\n")
        app = create_app(open_domain(domain.name, tmp_path / "knowledge"))
        client = app.test_client()
        events = parse_sse(client.post("/api/ask", json={"question": "教职工出差住宿费标准是多少？",
                                                         "stream": True}).get_data(as_text=True))
        deltas = [data["text"] for kind, data in events if kind == "delta"]
        assert len(deltas) > 3 and "".join(deltas) == events[-1][1]["answer"]
        assert events[-1][1]["answer_method"] == "llm" and events[-1][1]["citations"][0]["n"] == 1
        chunks = client.post("/v1/chat/completions", json={"model": "kb", "stream": True, "messages": [
            {"role": "user", "content": "教职工出差住宿费标准是多少？"}]}).get_data(as_text=True)
        pieces = [json.loads(b[6:]) for b in chunks.split("\n\n") if b.startswith("data: {")]
        assert sum(1 for p in pieces if p["choices"][0]["delta"].get("content")) > 3
        app.extensions["lambdarag"].store.close()
