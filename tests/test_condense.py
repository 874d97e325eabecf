"""Condensation: rule rewrites of pronouns and elliptical follow-ups, the LLM path and its fallback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI

from lambdarag.config.load import load_config
from lambdarag.models.llm import LLMClient
from lambdarag.query.condense import condense, main_entity, parallel_span, subject_phrase
from lambdarag.query.expand import expand_query
from lambdarag.records import Turn
from lambdarag.text.tokenizer import Tokenizer

EVALDATA = Path(__file__).resolve().parents[2] / "shared" / "evaldata"

_OPEN: list[LLMClient] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    """Close every client a test made: open sockets would warn later (and warnings are errors)."""
    yield
    while _OPEN:
        _OPEN.pop().close()


def llm_at(fake: FakeOpenAI, timeout_s: float = 5.0) -> LLMClient:
    _OPEN.append(LLMClient(fake.base_url, "m", timeout_s=timeout_s, max_retries=0))
    return _OPEN[-1]


def turns(*pairs: tuple[str, str]) -> list[Turn]:
    return [Turn(q, a) for q, a in pairs]


@pytest.mark.parametrize(("history", "question", "expected", "entity"), [
    ([("财务处报账大厅的负责人是谁？", "张敏")], "她的联系电话是多少？", "张敏的联系电话是多少？", "张敏"),
    ([("什么是差旅费？", "差旅费是出差期间的交通、住宿等费用。")], "它和交通费有什么区别？",
     "差旅费和交通费有什么区别？", "差旅费"),
    ([("财务处报账大厅的负责人是谁？", "张敏")], "那它的联系电话呢？", "财务处报账大厅的联系电话呢？",
     "财务处报账大厅"),
    ([("计划财务处处长是谁", "王建国")], "他的办公室在哪", "王建国的办公室在哪", "王建国"),
    ([("《江城大学差旅费管理办法》什么时候施行？", "2023年1月1日起施行。")], "该办法的适用范围是什么？",
     "《江城大学差旅费管理办法》的适用范围是什么？", "《江城大学差旅费管理办法》"),
    ([("差旅费的住宿标准是多少？", "每晚400元")], "那报销期限呢？", "差旅费的报销期限呢？", "差旅费"),
    ([("创业补贴的补贴标准和办理时限分别是什么？", "每月300元；10个工作日")], "那咨询电话呢？",
     "创业补贴的咨询电话呢？", "创业补贴"),
    ([("差旅费的住宿标准是多少？", "每晚400元")], "是否需要发票？", "差旅费是否需要发票？", "差旅费"),
    ([("中国人民大学文学院前身是什么", "华北联合大学文艺学院")], "它成立于哪一年", "中国人民大学文学院成立于哪一年",
     "中国人民大学文学院"),
    ([("高瓴人工智能学院是什么时候成立的", "2019年")], "学院的院长是谁", "高瓴人工智能学院的院长是谁",
     "高瓴人工智能学院"),
    ([("国学院有哪些下设系别", "国学系")], "该院人才培养有哪些特色", "国学院人才培养有哪些特色", "国学院"),
    ([("科研经费借款怎么办理？", "填借款单")], "那需要哪些材料？", "科研经费借款需要哪些材料？", "科研经费借款"),
    ([("学费缓交怎么申请？", "在缴费平台申请")], "申请截止到什么时候？", "学费缓交的申请截止到什么时候？", "学费缓交"),
    ([("软件工程专业每学年学费是多少？", "6800元")], "那人工智能专业呢？", "人工智能专业每学年学费是多少？",
     "人工智能专业"),
    ([("横向科研经费的管理费比例是多少？", "5%")], "纵向的呢？", "纵向科研经费的管理费比例是多少？", "纵向"),
])
def test_rules_resolve_follow_ups(history: list[tuple[str, str]], question: str, expected: str, entity: str) -> None:
    result = condense(question, turns(*history), None)
    assert (result.question, result.entity, result.method) == (expected, entity, "rules")
    assert result.original == question and result.error is None


def test_a_generic_head_is_the_entitys_only_when_it_is_a_word_of_its_own() -> None:
    history = turns(("高瓴人工智能学院是什么时候成立的", "2019年"))
    assert condense("学院奖学金怎么申请", history, None).question == "高瓴人工智能学院奖学金怎么申请"
    # 学院路 and 学院派 are other words: a street and a school of painting, not the institute again
    assert condense("学院路校区在哪", history, None).question == "学院路校区在哪"
    assert condense("学院派画家有哪些", history, None).question == "学院派画家有哪些"


def test_chain_of_follow_ups_keeps_the_entity() -> None:
    history = turns(("中国人民大学文学院前身是什么", "华北联合大学文艺学院"), ("它成立于哪一年", "1939年"))
    assert condense("有哪些专业", history, None).question == "中国人民大学文学院有哪些专业"


@pytest.mark.parametrize("question", [
    "其他费用怎么报销？", "什么是交通费？", "差旅费标准是多少？", "应该找谁审批？", "差旅费报销需要什么材料？",
])
def test_self_contained_questions_stay(question: str) -> None:
    result = condense(question, turns(("差旅费的住宿标准是多少？需要什么材料", "每晚400元")), None)
    assert (result.question, result.method, result.entity) == (question, "none", None)


def test_a_follow_up_naming_no_entity_keeps_its_words_and_searches_with_the_sessions_topic() -> None:
    history = turns(("中国人民大学国学院有哪些下设系别", "国学系等"), ("它的人才培养有哪些主要特色", "文史哲贯通"))
    result = condense("保研率是多少", history, None)
    assert (result.question, result.method, result.topic) == ("保研率是多少", "none", "中国人民大学国学院")
    exp = expand_query(result.question, "fact", load_config(), Tokenizer(), date(2026, 1, 1), topic=result.topic)
    assert exp.bm25_query.endswith(" 中国人民大学国学院") and exp.dense_query == "保研率是多少"
    assert "国学院" not in "".join(exp.keywords)  # the gate and "not found" still judge the question's own words
    # a question naming an entity of its own, or a rewritten one, has no topic
    assert condense("中国人民大学商学院有哪些专业", history, None).topic is None
    assert condense("它的保研率是多少", history, None).topic is None
    assert condense("保研率是多少", (), None).topic is None


def test_no_history_is_untouched_and_makes_no_llm_call() -> None:
    with FakeOpenAI() as fake:
        result = condense("它是什么？", [], llm_at(fake))
        assert fake.requests == []
    assert (result.question, result.method) == ("它是什么？", "none")


def test_parallel_span_prefers_the_longest_shared_ending() -> None:
    text = "软件工程专业每学年学费是多少"
    assert parallel_span(text, "人工智能专业") == (0, 6)
    assert parallel_span("横向科研经费", "纵向") == (0, 2)
    assert parallel_span(text, "软件工程专业") is None  # already there: nothing to swap
    assert parallel_span(text, "报销期限") is None
    assert parallel_span("甲，乙专业", "人工智能专业") is None  # never across punctuation


def test_subject_and_main_entity_heuristics() -> None:
    assert subject_phrase("什么是差旅费？") == "差旅费"
    assert subject_phrase("住宿费的标准是多少") == "住宿费"
    assert subject_phrase("谁负责报销") is None
    assert subject_phrase("科研经费借款怎么办理") == "科研经费借款"
    assert subject_phrase("是否需要发票") is None
    assert main_entity(Turn("报账大厅在哪里", "在行政楼一楼")) == "报账大厅"
    assert main_entity(Turn("负责人是谁", "张敏"), person=True) == "张敏"


def test_llm_rewrites_with_history_in_the_prompt() -> None:
    seen: list[list[dict[str, Any]]] = []

    def chat(messages: list[dict[str, Any]]) -> str:
        seen.append(messages)
        return "改写后的问题：“张敏的联系电话是多少？”"

    with FakeOpenAI(chat=chat) as fake:
        llm = llm_at(fake)
        history = turns(("报账大厅负责人是谁？", "张敏"))
        result = condense("她的电话呢？", history, llm, prompt="历史{history}|追问{question}")
    assert (result.question, result.method, result.error) == ("张敏的联系电话是多少？", "llm", None)
    prompt = seen[0][-1]["content"]
    assert "用户：报账大厅负责人是谁？" in prompt and "助手：张敏" in prompt and prompt.endswith("追问她的电话呢？")


@pytest.mark.parametrize("failure", ["timeout", "status", "empty"])
def test_llm_failure_falls_back_to_rules(failure: str) -> None:
    with FakeOpenAI(chat=lambda m: "   ") as fake:
        if failure == "timeout":
            fake.delay_s = 1.0
        elif failure == "status":
            fake.fail_next = [500]
        llm = llm_at(fake, timeout_s=0.2)
        result = condense("她的联系电话是多少？", turns(("财务处报账大厅的负责人是谁？", "张敏")), llm)
    assert (result.question, result.method) == ("张敏的联系电话是多少？", "rules")
    assert result.error is not None and result.error.startswith("llm failed")


@pytest.mark.eval
def test_rules_on_domainrag_conversations() -> None:
    """Rule condensation puts the first turn's subject into pronoun follow-ups of the real conversations."""
    path = EVALDATA / "domainrag_ruc" / "questions.jsonl"
    if not path.exists():
        pytest.skip("evaldata not present")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    follow_ups = [r for r in rows if r["type"] == "conversation" and r.get("history") and "它" in r["question"]]
    assert follow_ups
    rewritten = 0
    for row in follow_ups:
        history = [Turn(t["question"], (t.get("answers") or [""])[0]) for t in row["history"]]
        result = condense(row["question"], history, None)
        rewritten += "它" not in result.question
    assert rewritten / len(follow_ups) >= 0.8


def test_a_long_chain_keeps_the_organisation_it_started_with() -> None:
    # named four turns back: the rules resolve the session (up to RULE_TURNS), not only the last three turns
    history = turns(("高瓴人工智能学院是什么时候成立的", "2019年"), ("学院的院长是谁", "文继荣"),
                    ("学院的学科建设在2022年取得了哪些成就", "…"), ("学院的核心课程有哪些", "…"))
    assert condense("学院与哪些机构有合作项目？", history, None).question == "高瓴人工智能学院与哪些机构有合作项目？"
