"""The LLM paths through the whole pipeline against the fake OpenAI-compatible server (real HTTP, real client)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from test_pipeline import DOCS, INSTANCE  # the same tiny real domain

from lambdarag.answer.grounding import FLAG_MARK
from lambdarag.build.steps import build_domain
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.models.llm import LLMClient
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.result import Result
from lambdarag.pipeline.run import answer, answer_stream
from lambdarag.records import Turn
from lambdarag.retrieval.knowledge import KnowledgeBase

OPTIONS = PipelineOptions(today=date(2025, 6, 30), log=False)
ANSWER = "教职工出差住宿费标准为每人每天不超过500元[1]。"


@pytest.fixture(scope="module")
def base_kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    base = tmp_path_factory.mktemp("kb_llm")
    dom: Domain = init_domain("tiny", base)
    dom.instance_file.write_text(INSTANCE, encoding="utf-8")
    for name, text in DOCS.items():
        (dom.raw_dir / name).write_text(text, encoding="utf-8")
    dom = open_domain("tiny", base)
    assert all(o.ok for o in build_domain(dom, ["extract", "index"], progress=False))
    return KnowledgeBase.load(dom)


def role_chat(slots: str = "{}", intent: str = "fact", reply: str = ANSWER) -> Callable[[list[dict[str, Any]]], str]:
    """A fake model that answers each prompt kind of the pipeline."""

    def chat(messages: list[dict[str, Any]]) -> str:
        last = messages[-1]["content"]
        if "对话历史" in last:
            return "预算科科长李华的邮箱是什么？"
        if "归入以下类别" in last:
            return json.dumps({"intent": intent})
        if "抽取字段" in last or last == "只输出JSON":
            return slots
        return reply

    return chat


@pytest.fixture
def llm_kb(base_kb: KnowledgeBase) -> Iterator[Callable[..., tuple[KnowledgeBase, FakeOpenAI]]]:
    servers: list[FakeOpenAI] = []
    clients: list[LLMClient] = []

    def make(chat: Callable[[list[dict[str, Any]]], str], timeout: float = 5.0,
             ungrounded: str = "flag") -> tuple[KnowledgeBase, FakeOpenAI]:
        fake = FakeOpenAI(chat=chat).__enter__()
        servers.append(fake)
        llm_cfg = dataclasses.replace(base_kb.config.llm, enabled=True, base_url=fake.base_url, timeout_s=timeout,
                                      max_retries=0, ungrounded=ungrounded)
        config = dataclasses.replace(base_kb.config, llm=llm_cfg)
        clients.append(LLMClient.from_settings(llm_cfg))
        return dataclasses.replace(base_kb, config=config, llm=clients[-1]), fake

    yield make
    for client in clients:  # close pooled connections (timed-out ones included) before the servers go
        client.close()
    for fake in servers:
        fake.__exit__(None, None, None)


def prompts(fake: FakeOpenAI) -> list[str]:
    return [r.body["messages"][-1]["content"] for r in fake.requests_to("/v1/chat/completions")]


def test_llm_answer_with_citations_and_llm_intent_when_rules_are_unsure(llm_kb: Any) -> None:
    kb, fake = llm_kb(role_chat(intent="fact"))
    result = answer(kb, "住宿费", options=OPTIONS)  # no intent keyword: the rules cannot decide
    assert result.trace["intent"]["method"] == "llm" and result.intent == "fact"
    assert result.answer_method == "llm" and result.answer == ANSWER
    assert [c.doc_id for c in result.citations] == ["travel"] and result.trace["degraded"] == []
    assert any("资料：" in p and "[1]" in p for p in prompts(fake))
    system = fake.requests_to("/v1/chat/completions")[-1].body["messages"][0]
    assert system["role"] == "system" and "tiny" in system["content"]


def test_slot_json_from_the_llm_fills_the_person_slots(llm_kb: Any) -> None:
    slots = json.dumps({"name": "李华", "title": "科长", "phone": "027-88887777"}, ensure_ascii=False)
    kb, _ = llm_kb(role_chat(slots=slots, reply="预算科科长是李华，电话027-88887777[1]。"))
    result = answer(kb, "预算科科长是谁？电话多少？", options=OPTIONS)
    assert result.intent == "person" and result.trace["slots"]["method"] == "llm"
    assert result.slots["name"] == "李华" and result.slots["sources"]["name"].startswith("contacts#")
    assert "【要点】" in result.context and "姓名：李华[" in result.context


def test_malformed_slot_json_is_repaired_once_then_rules_fill_the_slots(llm_kb: Any) -> None:
    kb, fake = llm_kb(role_chat(slots="抱歉，我无法输出JSON", reply="李华[1]。"))
    result = answer(kb, "预算科科长是谁？电话多少？", options=OPTIONS)
    asked = prompts(fake)
    assert sum(1 for p in asked if "抽取字段" in p) == 1 and asked.count("只输出JSON") == 1
    assert result.trace["slots"]["method"] == "rules" and result.slots["name"] == "李华"
    assert any(d["stage"] == "slots" and "JSON" in d["error"] for d in result.trace["degraded"])


def test_timeout_degrades_every_llm_stage_and_the_trace_says_so(llm_kb: Any) -> None:
    kb, fake = llm_kb(role_chat(), timeout=0.3)
    fake.delay_s = 2.0
    history = [Turn("预算科科长是谁？", "预算科科长是李华。")]
    result = answer(kb, "他的邮箱是什么？", history=history, options=OPTIONS)
    degraded = {d["stage"]: d["error"] for d in result.trace["degraded"]}
    assert {"condense", "slots", "generation"} <= set(degraded)
    assert all("timed out" in error for stage, error in degraded.items() if not stage.startswith("channel:"))
    assert result.trace["condense"]["method"] == "rules" and result.answer_method == "extractive"
    assert result.found and "lihua@example.edu.cn" in result.answer


def test_streaming_answer_arrives_in_deltas(llm_kb: Any) -> None:
    kb, fake = llm_kb(role_chat())
    events = list(answer_stream(kb, "出差住宿费标准是多少？", options=OPTIONS))
    deltas = [e.data for e in events if e.kind == "delta"]
    result = events[-1].data
    assert events[0].kind == "meta" and isinstance(result, Result)
    assert len(deltas) > 3 and "".join(deltas) == ANSWER == result.answer
    assert any(r.body.get("stream") for r in fake.requests_to("/v1/chat/completions"))


def test_unsupported_llm_sentences_are_flagged_or_dropped(llm_kb: Any) -> None:
    reply = ANSWER + "超出部分可以由学校全额报销并另发补贴[1]。"
    kb, _ = llm_kb(role_chat(reply=reply))
    flagged = answer(kb, "出差住宿费标准是多少？", options=OPTIONS)
    assert FLAG_MARK in flagged.answer and flagged.answer.startswith(ANSWER)
    assert [g["supported"] for g in flagged.grounding] == [True, False]
    kb, _ = llm_kb(role_chat(reply=reply), ungrounded="drop")
    dropped = answer(kb, "出差住宿费标准是多少？", options=OPTIONS)
    assert dropped.answer == ANSWER and dropped.trace["grounding"]["unsupported"] == 1


def test_use_llm_false_never_calls_the_server(llm_kb: Any) -> None:
    kb, fake = llm_kb(role_chat())
    result = answer(kb, "出差住宿费标准是多少？", options=dataclasses.replace(OPTIONS, use_llm=False))
    assert fake.requests_to("/v1/chat/completions") == [] and result.answer_method == "extractive"
    assert result.trace["llm"] is False
