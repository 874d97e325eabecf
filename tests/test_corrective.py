"""The corrective gate's pure parts: keyword overlap with the top-3 chunks, the core rewrite, the reason line."""

from __future__ import annotations

from datetime import date

import pytest

from lambdarag.config.load import load_config
from lambdarag.query.expand import expand_query
from lambdarag.retrieval.gate import GateDecision, core_rewrite, core_terms, gate_reason, overlap_score
from lambdarag.text.tokenizer import Tokenizer

TOKENIZER = Tokenizer()


def test_overlap_counts_keywords_found_in_the_top_three_texts() -> None:
    keywords = ["差旅费", "住宿", "标准", "发票"]
    texts = ["差旅费管理办法", "住宿费每晚五百元", "其他", "发票须真实"]  # the 4th text is beyond the top 3
    assert overlap_score(keywords, texts) == pytest.approx(2 / 4)
    assert overlap_score(keywords, texts[:1]) == pytest.approx(1 / 4)
    assert overlap_score([], texts) == 0.0
    assert overlap_score(keywords, []) == 0.0
    assert overlap_score(["GB/T"], ["依据 gb/t 7714"]) == 1.0  # normalised on both sides


def test_an_english_keyword_overlaps_in_any_form_of_its_word() -> None:
    # "hotels" asked, "hotel rate" written: the top chunk answers, the gate must not call it a miss
    assert overlap_score(["hotels"], ["The maximum nightly hotel rate is $180."]) == 1.0
    assert overlap_score(["reimbursement", "alcohol"], ["Claims are reimbursed within 10 days."]) == 0.5
    assert overlap_score(["hotels"], ["Hotelier training"]) == 0.0  # another word, not a form of it


def test_core_rewrite_keeps_entities_and_content_words() -> None:
    question = "请问一下计划财务处处长王建国的办公电话是多少呢？"
    expansion = expand_query(question, "person", load_config(), TOKENIZER, date(2026, 1, 1))
    terms = core_terms(question, expansion, TOKENIZER)
    assert terms[:3] == ["计划财务处", "处长", "王建国"]
    assert "电话" in " ".join(terms)
    assert not {"请问", "一下", "多少", "呢", "是"} & set(terms)
    assert "财务处" not in terms  # already inside the entity 计划财务处
    assert core_rewrite(question, expansion, TOKENIZER) == " ".join(terms)


def test_core_rewrite_of_pure_question_words_is_empty() -> None:
    question = "是什么？"
    expansion = expand_query(question, "fact", load_config(), TOKENIZER, date(2026, 1, 1))
    assert core_rewrite(question, expansion, TOKENIZER) == ""


def test_gate_reason_lines() -> None:
    assert "first attempt kept" in gate_reason(0.5, 0.3, None, None)
    assert "no retry" in gate_reason(0.1, 0.3, None, None)
    assert "better (0.60), kept" in gate_reason(0.1, 0.3, 0.6, "差旅费 标准")
    assert "not better (0.05), first kept" in gate_reason(0.1, 0.3, 0.05, "差旅费 标准")


def test_gate_decision_to_dict_rounds() -> None:
    gate = GateDecision(overlap=1 / 3, passed=False, threshold=0.3, rewritten="a b", retry_overlap=2 / 3,
                        kept="retry", reason="r", attempts=[{"query": "q"}])
    data = gate.to_dict()
    assert data["overlap"] == 0.3333 and data["retry_overlap"] == 0.6667
    assert data["kept"] == "retry" and data["attempts"] == [{"query": "q"}]
