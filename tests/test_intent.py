"""Scored intent: weighted keywords of all eight classes, longest match, domain additions, the LLM path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI

from lambdarag.answer.needs import question_need
from lambdarag.config.load import load_config
from lambdarag.config.schema import INTENT_NAMES, IntentsConfig
from lambdarag.models.llm import LLMClient
from lambdarag.query.intent import classify, find_matches, score_intents

INTENTS = load_config().intents

_OPEN: list[LLMClient] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    """Close every client a test made: open sockets would warn later (and warnings are errors)."""
    yield
    while _OPEN:
        _OPEN.pop().close()


def test_every_class_is_scored_and_longest_match_counts_once() -> None:
    scores, matched = score_intents("财务处的联系电话是多少？", INTENTS)
    assert set(scores) == set(INTENT_NAMES)
    assert scores["person"] == 2.0  # 联系电话 only: the 联系 and 电话 inside it do not count again
    assert matched["person"] == ["联系电话"]
    assert (scores["fact"], matched["fact"]) == (1.5, ["多少"])
    assert all(scores[n] == 0.0 for n in INTENT_NAMES if n not in {"person", "fact"})


def test_find_matches_keeps_partial_overlaps_and_whole_latin_words() -> None:
    found = [m.keyword for m in find_matches("最近三年的数据", ["最近", "近三年", "三年"])]
    assert found == ["最近", "近三年"]
    assert [m.keyword for m in find_matches("show me how", ["how", "me"])] == ["me", "how"]
    assert find_matches("shower", ["how"]) == []


@pytest.mark.parametrize(("question", "intent"), [
    ("报账大厅的负责人是谁？", "person"),
    ("差旅费报销流程是怎样的？需要什么材料？", "process"),
    ("各学院的录取分数线排名", "data"),
    ("住宿费标准上限是多少？", "fact"),
    ("差旅费和交通费有什么区别？", "compare"),
    ("预算科隶属于哪个部门？", "relation"),
    ("请总结一下财务管理制度体系", "synthesis"),
    ("差旅费管理办法最新修订是什么时候？", "temporal"),
    ("Who is the contact for reimbursement?", "person"),
    # how something is, not how to do it: 如何 and 怎么 are process words
    ("报账大厅的办理情况如何？", "fact"), ("宿舍条件怎么样？", "fact"), ("怎么样申请助学金？", "process"),
    ("如何办理报销？", "process"),
    ("How soon are claims reimbursed?", "fact"), ("How many staff work there?", "fact"),
    ("How do I file a claim?", "process"),
])
def test_rules_pick_the_highest_score(question: str, intent: str) -> None:
    result = classify(question, INTENTS, None)
    assert (result.intent, result.method, result.error) == (intent, "rules", None)
    assert result.scores[intent] == max(result.scores.values())
    assert result.margin == pytest.approx(sorted(result.scores.values())[-1] - sorted(result.scores.values())[-2])


def test_nothing_matched_without_llm_is_the_default() -> None:
    result = classify("江城大学", INTENTS, None)
    assert (result.intent, result.method, result.matched) == ("fact", "default", {})
    assert set(result.scores.values()) == {0.0}


def test_domain_keywords_come_through_the_config_merge(tmp_path: Path) -> None:
    instance = tmp_path / "instance.yml"
    instance.write_text("intents:\n  classes:\n    person:\n      keywords:\n        经办人: 3.0\n", encoding="utf-8")
    intents = load_config(instance).intents
    assert classify("这笔款的经办人", intents, None).intent == "person"
    assert classify("这笔款的经办人", INTENTS, None).intent == "fact"  # default: no keyword in the base config


def llm_with(fake: FakeOpenAI, timeout_s: float = 5.0) -> LLMClient:
    _OPEN.append(LLMClient(fake.base_url, "m", timeout_s=timeout_s, max_retries=0))
    return _OPEN[-1]


def test_confident_rules_make_no_llm_call() -> None:
    with FakeOpenAI(chat=lambda m: '{"intent": "compare"}') as fake:
        result = classify("报账大厅的负责人是谁？", INTENTS, llm_with(fake))
        assert fake.requests == []
    assert (result.intent, result.method) == ("person", "rules")


def test_small_margin_asks_the_llm() -> None:
    with FakeOpenAI(chat=lambda m: '```json\n{"intent": "compare"}\n```') as fake:
        result = classify("差旅费和住宿费", INTENTS, llm_with(fake), prompt="{labels}|{question}")
        prompt = fake.requests_to("/v1/chat/completions")[0].body["messages"][0]["content"]
    assert (result.intent, result.method, result.error) == ("compare", "llm", None)
    assert result.margin < INTENTS.llm_margin
    assert prompt.endswith("|差旅费和住宿费") and "temporal" in prompt
    assert result.scores["compare"] == 0.3  # rule scores stay in the result for the trace


def test_no_match_asks_the_llm() -> None:
    with FakeOpenAI(chat=lambda m: '{"intent": "synthesis"}') as fake:
        result = classify("江城大学", INTENTS, llm_with(fake))
    assert (result.intent, result.method) == ("synthesis", "llm")


@pytest.mark.parametrize("reply", ['{"intent": "weather"}', "不是JSON", '{"intent": '])
def test_malformed_llm_reply_falls_back_to_rules(reply: str) -> None:
    with FakeOpenAI(chat=lambda m: reply) as fake:
        result = classify("差旅费和住宿费", INTENTS, llm_with(fake))
        assert len(fake.requests) == 2  # the question and one repair request
    assert (result.intent, result.method) == ("compare", "rules")
    assert result.error is not None and "llm failed" in result.error


def test_llm_timeout_falls_back_to_default() -> None:
    with FakeOpenAI(chat=lambda m: '{"intent": "person"}') as fake:
        fake.delay_s = 1.0
        result = classify("江城大学", INTENTS, llm_with(fake, timeout_s=0.2))
    assert (result.intent, result.method) == ("fact", "default")
    assert result.error is not None and "timed out" in result.error


def test_ties_resolve_in_class_order() -> None:
    intents = IntentsConfig(default="fact", llm_margin=0.0, classes=INTENTS.classes)
    result = classify("对比", intents, None)  # compare 2.0 alone
    assert result.intent == "compare"
    scores, _ = score_intents("谁 流程", INTENTS)  # person 1.0 (谁) vs process 2.0 (流程)
    assert max(scores, key=lambda n: scores[n]) == "process"


@pytest.mark.parametrize(("question", "asks"), [
    ("When was the company incorporated?", True),
    ("Until when can I apply?", True),
    ("If my flight is cancelled, when must I rebook?", True),
    ("Can you tell me when the office opens?", True),
    ("Which exception is raised when an assertion fails?", False),
    ("What happens to my laptop when I leave the organisation?", False),
    ("Do I need MFA when working from home?", False),
])
def test_an_english_when_asks_a_time_only_where_it_opens_a_clause(question: str, asks: bool) -> None:
    scores, _ = score_intents(question, INTENTS)
    assert (scores["temporal"] > 0) is asks
    assert (question_need(question).kind == "date") is asks


@pytest.mark.parametrize(("question", "compares"), [
    ("比较本科生和研究生的培养方式。", True),  # the verb, opening the question
    ("本科和研究生比较，哪个学费高？", True),  # closing the comparison 和 opened
    ("请比较一下两种报销方式", True),
    ("图书馆什么时候去人比较少？", False),  # the adverb "rather"
    ("这种鸟比较喜欢在哪里筑巢？", False),
])
def test_bijiao_compares_only_as_the_verb(question: str, compares: bool) -> None:
    _, matched = score_intents(question, INTENTS)
    assert ("比较" in matched.get("compare", [])) is compares
    assert (question_need(question).kind == "compare") is compares
