"""Query expansion: entity-enhanced BM25 query (not for compare), synonyms, temporal years with an injected today."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from lambdarag.config.load import load_config
from lambdarag.config.schema import Config
from lambdarag.graph.schema import Entity
from lambdarag.query.expand import entity_names, expand_query, find_synonyms, without_frame
from lambdarag.query.temporal import TimeScope, expand_years, time_scope
from lambdarag.text.tokenizer import Tokenizer

TODAY = date(2026, 3, 15)
TOKENIZER = Tokenizer()


@pytest.mark.parametrize(("question", "start", "end", "newest"), [
    ("近五年的录取分数线", 2022, 2026, False),
    ("最近三年的招生人数", 2024, 2026, False),
    ("近两年", 2025, 2026, False),
    ("过去十年", 2017, 2026, False),
    ("今年的住宿标准", 2026, 2026, False),
    ("去年的预算执行情况", 2025, 2025, False),
    ("前年", 2024, 2024, False),
    ("最新的差旅费管理办法", None, None, True),
    ("最近有什么通知", None, None, True),
    ("截至2023年底的人数", None, 2023, True),
    ("截至目前的累计金额", None, 2026, True),
    ("2020年以来的变化", 2020, 2026, False),
    ("2020-2023年的数据", 2020, 2023, False),
    ("2022至2024学年", 2022, 2024, False),
    ("２０２３年的标准", 2023, 2023, False),
    ("最新的近三年数据", 2024, 2026, True),
])
def test_time_scope_relative_to_today(question: str, start: int | None, end: int | None, newest: bool) -> None:
    scope = time_scope(question, TODAY)
    assert scope is not None
    assert (scope.start_year, scope.end_year, scope.newest) == (start, end, newest)
    assert scope.phrase and scope.phrase in question.replace("２０２３", "2023")


@pytest.mark.parametrize(("question", "start", "end", "newest"), [
    ("Is the company capital-intensive based on FY2022 data?", 2022, 2022, False),
    ("What acquisitions were done in FY2023, FY2022 and FY2021?", 2021, 2023, False),  # every year it names
    ("Was there any drop in cash between FY 2023 and Q2 of FY2024?", 2023, 2024, False),
    ("Revenue in FY22 against FY21", 2021, 2022, False),
    ("What was the margin in fiscal year 2020?", 2020, 2020, False),
    ("Net sales from 2019 through 2021", 2019, 2021, False),
    ("2019-2021 revenue", 2019, 2021, False),
    ("Is the operating margin improving as of 2022?", None, 2022, True),
    ("Net income since 2019", 2019, 2026, False),
    ("Debt issued before 2020", None, 2020, False),
    ("Revenue over the last three years", 2024, 2026, False),
    ("Revenue over the past 5 years", 2022, 2026, False),
    ("What was last year's dividend?", 2025, 2025, False),
    ("What is the latest guidance?", None, None, True),
])
def test_english_time_scope(question: str, start: int | None, end: int | None, newest: bool) -> None:
    scope = time_scope(question, TODAY)
    assert scope is not None and scope.phrase
    assert (scope.start_year, scope.end_year, scope.newest) == (start, end, newest)
    assert expand_years(scope) == []  # the question already names its years as it means them


@pytest.mark.parametrize("question", [
    "What is the current ratio?",  # "current" names no time here
    "Did it pay $2,022 in fees?", "Did margins grow 2022%?", "ISO 9001 certification scope",
    "How much protein per day",
])
def test_english_questions_without_a_time(question: str) -> None:
    assert time_scope(question, TODAY) is None


def test_no_time_phrase_and_another_today() -> None:
    assert time_scope("差旅费住宿标准是多少？", TODAY) is None
    assert time_scope("近五年", date(2030, 1, 1)) == TimeScope(2026, 2030, False, "近五年")


def test_expand_years() -> None:
    assert expand_years(time_scope("近五年", TODAY)) == ["2022年", "2023年", "2024年", "2025年", "2026年"]
    assert expand_years(TimeScope(None, 2023, True, "截至2023年")) == ["2023年"]
    assert expand_years(TimeScope(None, None, True, "最新")) == []
    assert expand_years(TimeScope(1900, 2026, False, "1900年以来")) == []  # too long to spell out
    assert expand_years(None) == []


def config_with(tmp_path: Path, yaml_text: str) -> Config:
    instance = tmp_path / "instance.yml"
    instance.write_text(yaml_text, encoding="utf-8")
    return load_config(instance)


def test_entities_enhance_the_bm25_query_only() -> None:
    exp = expand_query("计划财务处处长王建国的电话", "person", load_config(), TOKENIZER, TODAY)
    assert exp.bm25_query == "计划财务处处长王建国的电话 计划财务处 处长 王建国"
    assert exp.dense_query == exp.graph_query == exp.wiki_query == "计划财务处处长王建国的电话"
    assert [e.kind for e in exp.entities] == ["org", "role", "person"]
    assert "电话" in exp.keywords and exp.time_scope is None


def test_compare_and_ablation_skip_entity_expansion() -> None:
    question = "《差旅费管理办法》和《会议费管理办法》有什么区别？"
    assert expand_query(question, "compare", load_config(), TOKENIZER, TODAY).bm25_query == question
    off = expand_query("计划财务处的电话", "person", load_config(), TOKENIZER, TODAY, entity_expansion=False)
    assert off.bm25_query == "计划财务处的电话"
    assert [e.name for e in off.entities] == ["计划财务处"]  # still extracted for the trace and the graph


def test_temporal_years_join_the_bm25_query() -> None:
    exp = expand_query("近三年的录取分数线", "temporal", load_config(), TOKENIZER, TODAY)
    assert exp.bm25_query == "近三年的录取分数线 2024年 2025年 2026年"
    assert exp.dense_query == "近三年的录取分数线"
    assert "三年" not in exp.keywords and "分数线" in exp.keywords  # the relative phrase is no keyword
    same_year = expand_query("2023年的录取分数线", "temporal", load_config(), TOKENIZER, TODAY)
    assert same_year.bm25_query == "2023年的录取分数线"


def test_domain_synonyms_expand_both_ways(tmp_path: Path) -> None:
    cfg = config_with(tmp_path, "query:\n  synonyms:\n    差旅费: [出差费, 差旅费用]\n    报销: [报账]\n")
    exp = expand_query("出差费怎么报销？", "process", cfg, TOKENIZER, TODAY)
    assert exp.synonyms == {"出差费": ["差旅费", "差旅费用"], "报销": ["报账"]}
    assert exp.bm25_query == "出差费怎么报销？ 差旅费 差旅费用 报账"
    compare = expand_query("差旅费和会议费的区别", "compare", cfg, TOKENIZER, TODAY)
    assert compare.bm25_query == "差旅费和会议费的区别 出差费 差旅费用"  # compare keeps synonyms


def test_find_synonyms_ignores_unrelated_groups() -> None:
    assert find_synonyms("住宿标准", ["住宿", "标准"], {"差旅费": ("出差费",)}) == {}
    assert find_synonyms("差旅费和出差费", ["差旅费", "出差费"], {"差旅费": ("出差费",)}) == {}


def test_entity_expansion_adds_the_graph_names_the_question_does_not_say() -> None:
    entities = [Entity("人大文学院", "org", 0, 5), Entity("中国人民大学", "org", 6, 12)]
    aliases = {"人大文学院": ["中国人民大学文学院"], "中国人民大学": ["中国人民大学"]}
    question = "人大文学院和中国人民大学"
    # a name the question already says is not repeated: doubling it only weighs a common name up
    assert entity_names(question, entities, aliases) == ["中国人民大学文学院"]
    assert entity_names(question, entities, {}) == []
    assert entity_names(question, entities, None) == ["人大文学院", "中国人民大学"]  # no graph: the names


def test_the_frame_of_an_english_how_long_question_is_not_searched() -> None:
    expansion = expand_query("How long does reimbursement take?", "fact", load_config(), TOKENIZER, TODAY)
    assert expansion.keywords == ["reimbursement"]
    assert "take" not in expansion.bm25_query and "long" not in expansion.bm25_query
    assert expansion.dense_query == "How long does reimbursement take?"  # the vectors read the whole question
    assert without_frame("How far in advance must trips be approved?") == "How  in advance must trips be approved?"
    assert without_frame("What is long-term debt?") == "What is long-term debt?"


def test_the_noun_of_a_chinese_where_frame_is_not_searched() -> None:
    expansion = expand_query("星河图书馆在什么地方？", "fact", load_config(), TOKENIZER, TODAY)
    assert "地方" not in expansion.keywords and "地方" not in expansion.bm25_query
    assert expansion.dense_query == "星河图书馆在什么地方？"
    assert without_frame("哪些地方可以办理居住证？") == "哪些 可以办理居住证？"
    assert "地方" in expand_query("地方政府的补贴标准是多少？", "fact", load_config(), TOKENIZER, TODAY).keywords
