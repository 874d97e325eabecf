"""The chat page in real headless Chromium (Debian's package, driven by playwright) against a real gunicorn:
ask, watch the answer stream in, expand a citation, see the intent, rate the answer, ask a follow-up; and the hit
test page: one question through every retrieval stage, with top_k and filters."""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_fixtures import Gunicorn, copy_domain, gunicorn, http, shared_source

from lambdarag.config.domain import Domain

CHROMIUM = Path(os.environ.get("LAMBDARAG_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def domain(tmp_path_factory: pytest.TempPathFactory) -> Domain:
    return copy_domain(shared_source(tmp_path_factory), tmp_path_factory.mktemp("browser"))


@pytest.fixture(scope="module")
def server(domain: Domain) -> Iterator[Gunicorn]:
    with gunicorn(domain, workers=1, threads=4) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.skip(f"chromium not installed at {CHROMIUM}: apt-get install chromium (.ci/run does it as root)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed: pip install -e '.[test]'")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def test_ask_stream_cite_intent_rate_and_follow_up(browser: object, server: Gunicorn, domain: Domain,
                                                   tmp_path: Path) -> None:
    page = browser.new_page(locale="zh-CN")  # type: ignore[attr-defined]
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(server.base_url + "/")
    assert "知识库问答" in page.title()
    page.fill("#question", "教职工出差住宿费标准是多少？")
    page.keyboard.press("Enter")
    turn = page.locator("article.turn.done").first
    turn.wait_for(timeout=30_000)
    answer = turn.locator("[data-testid=answer]")
    assert "500元" in answer.inner_text()
    assert turn.locator("[data-testid=intent]").inner_text() == "意图：事实"
    assert turn.locator("a.cite").count() >= 1

    citation = turn.locator("[data-testid=citations] details").first
    assert not citation.evaluate("el => el.open")
    turn.locator("a.cite").first.click()  # a [n] marker opens its citation
    assert citation.evaluate("el => el.open")
    evidence = citation.inner_text()
    assert "住宿费标准" in evidence and "每人每天不超过500元" in evidence

    turn.locator("button.up").click()
    page.locator("article.turn .rated").first.filter(has_text="感谢反馈").wait_for(timeout=10_000)
    request_id = turn.get_attribute("data-request-id")
    ratings = (domain.feedback_dir / "ratings.jsonl").read_text(encoding="utf-8").splitlines()
    assert [(r["request_id"], r["rating"]) for r in map(json.loads, ratings)] == [(request_id, "up")]

    page.fill("#question", "预算科隶属于哪个部门？")
    page.click("#send")
    page.locator("article.turn.done").nth(1).wait_for(timeout=30_000)
    page.fill("#question", "它的联系人是谁？")
    page.click("#send")
    follow = page.locator("article.turn.done").nth(2)
    follow.wait_for(timeout=30_000)
    assert "李华" in follow.locator("[data-testid=answer]").inner_text()  # the session carried 预算科 over

    page.fill("#question", "火星基地的氧气配额是多少？")
    page.click("#send")
    missing = page.locator("article.turn.done").nth(3)
    missing.wait_for(timeout=30_000)
    assert "not-found" in (missing.get_attribute("class") or "")
    assert missing.locator("[data-testid=citations] li").count() == 0

    shot = tmp_path / "chat.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert all(url.startswith(server.base_url) for url in requests), "the page must not load anything external"
    page.close()


def test_error_is_shown_in_chinese(browser: object, server: Gunicorn) -> None:
    page = browser.new_page(locale="zh-CN")  # type: ignore[attr-defined]
    page.goto(server.base_url + "/")
    page.evaluate("document.getElementById('question').removeAttribute('maxlength')")
    page.fill("#question", "问" * 1200)
    page.click("#send")
    status = page.locator("article.turn.error .status")
    status.wait_for(timeout=10_000)
    assert status.inner_text().startswith("出错：") and "1000" in status.inner_text()
    page.close()


def test_hit_test_page_shows_every_stage(browser: object, server: Gunicorn, tmp_path: Path) -> None:
    question = "教职工出差住宿费标准是多少？"
    page = browser.new_page(locale="zh-CN")  # type: ignore[attr-defined]
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(server.base_url + "/hittest")
    assert "命中测试" in page.title()
    page.fill("#question", question)
    page.fill("#top_k", "3")
    page.click("#run")
    page.locator("#report:not([hidden])").wait_for(timeout=30_000)
    status, _, raw = http("GET", server.base_url + "/api/search?" + urllib.parse.urlencode(
        {"question": question, "explain": 1, "top_k": 3}))
    assert status == 200
    explain = json.loads(raw)["explain"]
    assert question in page.locator("[data-testid=query]").inner_text()
    assert explain["expanded"]["bm25_query"] in page.locator("[data-testid=query]").inner_text()
    assert f"意图：{explain['intent']['intent']}" in page.locator("#intent").inner_text()
    assert page.locator("#intent-scores tr").count() == len(explain["intent"]["scores"]) + 1
    bm25 = page.locator("[data-channel=bm25] tr")
    assert bm25.count() == len(next(c for c in explain["channels"] if c["name"] == "bm25")["hits"]) + 1
    kept = page.locator("#fused tr.kept td:nth-child(2)").all_inner_texts()
    assert kept == [f["chunk_id"] for f in explain["fused"][:3]] and len(kept) == 3  # the same run as the API's
    assert "bm25" in page.locator("#fused tr.kept").first.inner_text()  # its RRF contribution
    assert "重合度" in page.locator("#gate").inner_text() and "重排：off" in page.locator("#rerank").inner_text()
    assert {"condense", "intent", "expand", "retrieve"} <= set(page.locator("#stages td:first-child").all_inner_texts())
    assert "未过滤" in page.locator("#scope").inner_text()
    page.screenshot(path=str(tmp_path / "hittest.png"), full_page=True)

    page.fill("#doc_ids", "科研经费管理")
    page.click("#run")
    page.locator("#scope", has_text="1/3 篇文档").wait_for(timeout=30_000)
    fused = page.locator("#fused tr td:nth-child(2)").all_inner_texts()
    assert fused and all(c.startswith("科研经费管理#") for c in fused)

    page.fill("#doc_ids", "")
    page.fill("#date_from", "2024-13")
    page.click("#run")
    error = page.locator("#status.error")
    error.wait_for(timeout=10_000)
    assert error.inner_text().startswith("出错：") and "filters.date_from" in error.inner_text()
    assert page.locator("#report").is_hidden()
    assert all(url.startswith(server.base_url) for url in requests), "the page must not load anything external"
    page.close()
