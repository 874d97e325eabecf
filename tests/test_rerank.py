"""The cross-encoder reranker after fusion: reply parsing, the pure reorder, and the pipeline against the fake
rerank routes (good, slow, 500, malformed, wrong count, down), where every failure keeps the fused order."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, char_overlap
from server_fixtures import copy_domain, free_port, shared_source

from lambdarag.config.domain import Domain, open_domain
from lambdarag.models.rerank import RerankClient, RerankError, parse_jina, parse_tei, reranker_from_config
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import answer, search
from lambdarag.records import Chunk
from lambdarag.retrieval.fusion import Fused
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.retrieval.rerank import candidate_text, reorder, rerank_pool
from lambdarag.server import create_app

QUESTION = "财务处报销流程和住宿费标准"  # six fused candidates on the shared corpus
TOP_N = 4
MAX_CHARS = 40
OFF = PipelineOptions(rerank=False, log=False)
ON = PipelineOptions(log=False)


def reverse_relevance(query: str, document: str) -> float:
    """The fake's score: the least overlapping candidate first, so a reranked order cannot pass for the fused one."""
    return -char_overlap(query, document)


def rerank_yml(fake: FakeOpenAI, **extra: Any) -> str:
    settings = {"enabled": "true", "base_url": f"'{fake.root_url}'", "top_n": TOP_N, "max_chars": MAX_CHARS,
                "timeout_s": 2.0, **extra}
    return "rerank:\n" + "".join(f"  {key}: {value}\n" for key, value in settings.items())


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(rerank=reverse_relevance) as server:
        yield server


@pytest.fixture(autouse=True)
def good_fake(fake: FakeOpenAI) -> Iterator[None]:
    yield
    fake.rerank_mode = "good"
    fake.requests.clear()


@pytest.fixture(scope="module")
def domain(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> Domain:
    """The shared small corpus with the reranker switched on in its instance.yml."""
    dom = copy_domain(shared_source(tmp_path_factory), tmp_path_factory.mktemp("rerank") / "knowledge")
    dom.instance_file.write_text(dom.instance_file.read_text(encoding="utf-8") + rerank_yml(fake), encoding="utf-8")
    return open_domain(dom.name, dom.root.parent)


@pytest.fixture(scope="module")
def kb(domain: Domain) -> KnowledgeBase:
    return KnowledgeBase.load(domain)


def with_rerank(kb: KnowledgeBase, **changes: Any) -> KnowledgeBase:
    """The same knowledge base with other rerank settings (and a client built from them)."""
    config = dataclasses.replace(kb.config, rerank=dataclasses.replace(kb.config.rerank, **changes))
    return dataclasses.replace(kb, config=config, reranker=reranker_from_config(config))


def hit_ids(kb: KnowledgeBase, options: PipelineOptions = ON) -> list[str]:
    return [h["chunk_id"] for h in search(kb, QUESTION, options=options).hits]


def expected_order(fused: list[str], documents: list[str]) -> list[str]:
    """What the fake's scores ask for: the sent candidates by score (ties in fused order), the rest after them."""
    sent = sorted(range(len(documents)), key=lambda i: (-reverse_relevance(QUESTION, documents[i]), i))
    return [fused[i] for i in sent] + fused[len(documents):]


# ---- reply parsing -----------------------------------------------------------------------------------------------

def test_jina_reply_in_any_order_gives_scores_by_index() -> None:
    payload = {"results": [{"index": 2, "relevance_score": 0.9, "document": {"text": "c"}},
                           {"index": 0, "relevance_score": 0.5}, {"index": 1, "relevance_score": -1}]}
    assert parse_jina(payload, count=3, top_n=3) == {2: 0.9, 0: 0.5, 1: -1.0}
    assert parse_jina({"results": [{"index": 1, "relevance_score": 2}]}, count=3, top_n=1) == {1: 2.0}


def test_tei_reply_gives_scores_by_index() -> None:
    assert parse_tei([{"index": 1, "score": 0.7}, {"index": 0, "score": 0.1}], count=2) == {1: 0.7, 0: 0.1}


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ([{"index": 0, "relevance_score": 1}], "not an object with a results list"),
        ({"data": []}, "not an object with a results list"),
        ({"results": [{"index": 0, "relevance_score": 1}]}, "scores 1 documents, expected 2 of 2"),
        ({"results": [{"index": 0, "relevance_score": 1}, {"index": 0, "relevance_score": 2}]}, "twice"),
        ({"results": [{"index": 0, "relevance_score": 1}, {"index": 2, "relevance_score": 2}]}, "bad index"),
        ({"results": [{"index": 0, "relevance_score": 1}, {"index": -1, "relevance_score": 2}]}, "bad index"),
        ({"results": [{"index": 0, "relevance_score": 1}, {"index": True, "relevance_score": 2}]}, "bad index"),
        ({"results": [{"index": 0, "relevance_score": 1}, {"index": "1", "relevance_score": 2}]}, "bad index"),
        ({"results": [{"index": 0, "relevance_score": 1}, {"index": 1, "relevance_score": "2"}]}, "bad relevance"),
        ({"results": [{"index": 0, "relevance_score": 1}, {"index": 1, "relevance_score": math.nan}]}, "finite"),
        ({"results": [{"index": 0, "relevance_score": 1}, {"index": 1, "relevance_score": math.inf}]}, "finite"),
        ({"results": [{"index": 0, "relevance_score": 1}, {"index": 1}]}, "bad relevance_score"),
        ({"results": [{"index": 0, "relevance_score": 1}, 7]}, "bad index"),
    ],
)
def test_bad_jina_replies_are_malformed(payload: Any, fragment: str) -> None:
    with pytest.raises(RerankError, match=fragment) as err:
        parse_jina(payload, count=2, top_n=2)
    assert err.value.kind == "malformed"


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ({"results": []}, "not a list"),
        ([{"index": 0, "score": 1}], "scores 1 documents, expected 2"),
        ([{"index": 0, "score": 1}, {"index": 0, "score": 1}], "twice"),
        ([{"index": 0, "score": 1}, {"index": 5, "score": 1}], "bad index"),
        ([{"index": 0, "score": 1}, {"index": 1, "score": None}], "bad score"),
    ],
)
def test_bad_tei_replies_are_malformed(payload: Any, fragment: str) -> None:
    with pytest.raises(RerankError, match=fragment) as err:
        parse_tei(payload, count=2)
    assert err.value.kind == "malformed"


def test_request_bodies_follow_each_shape() -> None:
    jina = RerankClient("http://h:1/", "/v1/rerank", "jina", "bge-reranker")
    tei = RerankClient("http://h:1", "rerank", "tei")
    assert jina.url == "http://h:1/v1/rerank" and tei.url == "http://h:1/rerank"
    assert jina.request_body("q", ["a", "b"]) == {"model": "bge-reranker", "query": "q", "documents": ["a", "b"],
                                                  "top_n": 2}
    assert tei.request_body("q", ["a"]) == {"query": "q", "texts": ["a"], "truncate": True}


# ---- the pure stage ----------------------------------------------------------------------------------------------

def fused(*ids: str) -> list[Fused]:
    return [Fused(cid, 1.0 / (i + 1), {"bm25": i + 1}) for i, cid in enumerate(ids)]


def test_reorder_by_score_ties_in_fused_order_the_rest_after() -> None:
    pool = fused("a", "b", "c", "d", "e")
    out = reorder(pool, {0: 0.1, 1: 0.9, 2: 0.1}, top_n=3)
    assert [f.chunk_id for f in out] == ["b", "a", "c", "d", "e"]
    assert [f.rerank for f in out] == [0.9, 0.1, 0.1, None, None]
    assert [f.score for f in out] == [pool[1].score, pool[0].score, pool[2].score, pool[3].score, pool[4].score]
    assert out[0].to_dict()["rerank"] == 0.9 and "rerank" not in out[3].to_dict()


def test_reorder_keeps_unscored_candidates_in_fused_order_after_the_scored() -> None:
    pool = fused("a", "b", "c", "d")
    assert [f.chunk_id for f in reorder(pool, {2: 1.0, 1: 2.0}, top_n=3)] == ["b", "c", "a", "d"]
    assert [f.chunk_id for f in reorder(pool, {3: 9.0}, top_n=3)] == ["a", "b", "c", "d"]  # beyond top_n: ignored
    assert reorder([], {}, top_n=3) == []


def test_candidate_text_is_the_header_then_the_text_cut_to_max_chars() -> None:
    chunk = Chunk(chunk_id="d#0000", doc_id="d", title="办法", breadcrumb="办法 > 总则", text="正文" * 50,
                  context="file: d.md")
    assert candidate_text(chunk, 1000) == "办法 > 总则\nfile: d.md\n" + "正文" * 50
    assert candidate_text(chunk, 13) == "办法 > 总则\nfile:"


def test_off_and_too_few_candidates_make_no_call(kb: KnowledgeBase, fake: FakeOpenAI) -> None:
    pool = [Fused(cid, 1.0) for cid in list(kb.chunks)[:3]]
    cfg = kb.config.rerank
    assert rerank_pool(kb.reranker, "q", pool, kb.chunks, cfg, False)[1].reason == "switched off for this request"
    out, decision = rerank_pool(None, "q", pool, kb.chunks, cfg, True)
    assert out == pool and (decision.status, decision.reason) == ("off", "rerank.enabled is false")
    out, decision = rerank_pool(kb.reranker, "q", pool[:1], kb.chunks, cfg)
    assert out == pool[:1] and (decision.status, decision.n) == ("skipped", 1)
    assert fake.requests_to("/v1/rerank") == []


# ---- the pipeline against the fake -------------------------------------------------------------------------------

def test_reranked_order_follows_the_scores_and_the_request_carries_the_candidates(
        kb: KnowledgeBase, fake: FakeOpenAI) -> None:
    fused_order = hit_ids(kb, OFF)
    assert len(fused_order) > TOP_N and fake.requests_to("/v1/rerank") == []
    result = search(kb, QUESTION, options=ON)
    [request] = fake.requests_to("/v1/rerank")
    body = request.body
    assert body["query"] == QUESTION and body["model"] == kb.config.rerank.model and body["top_n"] == TOP_N
    assert len(body["documents"]) == TOP_N
    for cid, text in zip(fused_order, body["documents"], strict=False):
        chunk = kb.chunks[cid]
        assert len(text) <= MAX_CHARS and text == chunk.index_text[:MAX_CHARS]
        assert text.startswith(chunk.head[:MAX_CHARS])
    expected = expected_order(fused_order, body["documents"])
    assert [h["chunk_id"] for h in result.hits] == expected != fused_order
    assert result.trace["ranking"][: len(expected)] == expected
    assert result.trace["rerank"]["status"] == "ok" and result.trace["rerank"]["n"] == TOP_N
    assert all(f.get("rerank") is not None for f in result.trace["fused"][:TOP_N])
    assert result.trace["degraded"] == [] and kb.reranker is not None
    assert kb.reranker.outcome.report()["state"] == "ok"


def test_tei_shape_reorders_the_same_way(kb: KnowledgeBase, fake: FakeOpenAI) -> None:
    tei = with_rerank(kb, api="tei", path="/rerank")
    fused_order = hit_ids(tei, OFF)
    reranked = hit_ids(tei)
    [request] = fake.requests_to("/rerank")
    assert set(request.body) == {"query", "texts", "truncate"} and len(request.body["texts"]) == TOP_N
    assert reranked == expected_order(fused_order, request.body["texts"])


def test_the_reranker_runs_once_on_candidates_deeper_than_final_top_k(kb: KnowledgeBase, fake: FakeOpenAI) -> None:
    narrow = with_rerank(kb, top_n=30)
    narrow = dataclasses.replace(narrow, config=dataclasses.replace(
        narrow.config, retrieval=dataclasses.replace(narrow.config.retrieval, final_top_k=2)))
    fused_order = search(narrow, QUESTION, options=OFF).trace["ranking"]
    result = search(narrow, QUESTION, options=ON)
    [request] = fake.requests_to("/v1/rerank")
    assert len(request.body["documents"]) == len(fused_order) > 2  # deeper than the cut
    expected = expected_order(fused_order, request.body["documents"])
    assert [h["chunk_id"] for h in result.hits] == expected[:2] and result.trace["ranking"] == expected


@pytest.mark.parametrize(
    ("mode", "status", "fragment"),
    [("slow", "timeout", "no reply within the 0.3s budget"), ("500", "error", "HTTP 500"),
     ("malformed", "malformed", "non-JSON"), ("wrong_count", "malformed", "scores 3 documents, expected 4")],
)
def test_every_failure_keeps_the_fused_order_and_says_so(kb: KnowledgeBase, fake: FakeOpenAI, mode: str,
                                                         status: str, fragment: str) -> None:
    failing = with_rerank(kb, timeout_s=0.3)
    fake.rerank_delay_s = 1.0
    plain = search(failing, QUESTION, options=OFF)
    fake.rerank_mode = mode
    result = search(failing, QUESTION, options=ON)
    assert result.hits == plain.hits and result.trace["ranking"] == plain.trace["ranking"]
    assert result.trace["fused"] == plain.trace["fused"]
    rerank = result.trace["rerank"]
    assert rerank["status"] == status and fragment in rerank["reason"] and rerank["n"] == TOP_N
    assert "the fused order is kept" in rerank["reason"]
    if mode == "slow":
        assert rerank["ms"] < 900  # the budget, not the server, ended the wait
    assert [d for d in result.trace["degraded"] if d["stage"] == "rerank"] == [
        {"stage": "rerank", "error": f"{status}: {rerank['reason']}"}]
    assert failing.reranker is not None
    report = failing.reranker.outcome.report()
    assert report["state"] == "degraded" and report["last"]["status"] == status and report["last_ok_at"] is None
    full = answer(failing, QUESTION, options=ON)
    unranked = answer(failing, QUESTION, options=OFF)
    assert full.found and full.answer == unranked.answer and full.citations == unranked.citations
    assert {"stage": "rerank", "error": f"{status}: {full.trace['rerank']['reason']}"} in full.trace["degraded"]
    fake.rerank_mode = "good"
    assert search(failing, QUESTION, options=ON).trace["rerank"]["status"] == "ok"
    recovered = failing.reranker.outcome.report()
    assert recovered["state"] == "ok" and recovered["last_ok_at"] is not None


def test_an_unreachable_endpoint_is_an_error_and_keeps_the_fused_order(kb: KnowledgeBase) -> None:
    down = with_rerank(kb, base_url=f"http://127.0.0.1:{free_port()}")
    result = search(down, QUESTION, options=ON)
    assert result.trace["rerank"]["status"] == "error" and "failed" in result.trace["rerank"]["reason"]
    assert [h["chunk_id"] for h in result.hits] == hit_ids(down, OFF)


def test_off_by_default_and_switchable_per_request(kb: KnowledgeBase, fake: FakeOpenAI) -> None:
    assert search(kb, QUESTION, options=OFF).trace["rerank"] == {
        "status": "off", "ms": 0.0, "n": 0, "reason": "switched off for this request"}
    assert search(kb, QUESTION, options=OFF).trace["options"]["rerank"] is False
    default = with_rerank(kb, enabled=False)
    assert default.reranker is None and default.health()["rerank"] == "disabled"
    assert search(default, QUESTION, options=PipelineOptions(rerank=True, log=False)).trace["rerank"]["reason"] == (
        "rerank.enabled is false")
    assert fake.requests_to("/v1/rerank") == []


# ---- /readyz -----------------------------------------------------------------------------------------------------

def test_readyz_reports_the_rerankers_last_outcome(domain: Domain, fake: FakeOpenAI, tmp_path: Path) -> None:
    dom = copy_domain(domain, tmp_path / "knowledge")
    app = create_app(dom)
    try:
        client = app.test_client()
        fake.requests.clear()  # the warm-up search may have reranked
        fake.rerank_mode = "500"
        asked = client.post("/api/ask", json={"question": QUESTION})
        assert asked.status_code == 200 and asked.get_json()["found"]
        calls = len(fake.requests_to("/v1/rerank"))
        ready = client.get("/readyz")
        body = ready.get_json()
        assert ready.status_code == 200 and body["status"] == "degraded"
        part = body["parts"]["rerank"]
        assert part["ok"] is True and part["state"] == "degraded" and part["api"] == "jina"
        assert part["url"] == fake.root_url + "/v1/rerank"
        assert part["last"]["status"] == "error" and "HTTP 500" in part["last"]["reason"] and part["last"]["at"]
        assert len(fake.requests_to("/v1/rerank")) == calls  # /readyz does not call the endpoint
        fake.rerank_mode = "good"
        assert client.post("/api/ask", json={"question": QUESTION}).status_code == 200
        body = client.get("/readyz").get_json()
        assert body["status"] == "ready" and body["parts"]["rerank"]["state"] == "ok"
        assert body["parts"]["index"]["knowledge"]["rerank"] == "configured"
    finally:
        app.extensions["lambdarag"].store.close()
