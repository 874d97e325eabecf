"""The request path end to end on a tiny real domain (real extraction, real BM25): answer, stream, search, logs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from lambdarag.build.steps import build_domain
from lambdarag.cli import main
from lambdarag.commands.ask import render
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.feedback.log import MISSING_LOG, QUERY_LOG
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.result import Result
from lambdarag.pipeline.run import answer, answer_stream, search
from lambdarag.pipeline.trace import STAGES
from lambdarag.records import Turn
from lambdarag.retrieval.knowledge import KnowledgeBase

INSTANCE = """
retrieval:
  channels:
    vector: {enabled: false}
    graph: {enabled: false}
    wiki: {enabled: false}
embedding:
  backend: none
"""
DOCS = {
    "travel.md": "# 差旅费管理办法\n\n## 住宿费\n\n教职工出差住宿费标准为每人每天不超过500元，超出部分由个人承担。\n\n"
                 "## 报销流程\n\n1. 出差结束后30天内登录网上报销系统填写差旅费报销单。\n"
                 "2. 经部门负责人审批。\n3. 将报销单和发票交至报账大厅2号窗口。\n4. 会计人员5个工作日内完成审核。\n",
    "contacts.md": "# 财务处通讯录\n\n| 姓名 | 职务 | 部门 | 办公电话 | 电子邮箱 |\n| --- | --- | --- | --- | --- |\n"
                   "| 张明 | 主管 | 报账大厅 | 027-88886666 | zhangming@example.edu.cn |\n"
                   "| 李华 | 科长 | 预算科 | 027-88887777 | lihua@example.edu.cn |\n",
    "fees.md": "# 学费标准\n\n| 专业 | 学费（元/年） | 住宿费（元/年） |\n| --- | --- | --- |\n"
               "| 软件工程 | 6800 | 1200 |\n| 会计学 | 5200 | 1200 |\n",
}
# Unrelated documents: BM25 idf needs a term to be rarer than in half the corpus to count at all.
OTHER = ["图书馆借阅规则：本科生最多借书10册，借期30天。", "校园卡可在圈存机充值，单次上限1000元。",
         "体育馆开放时间为每天8:00至21:00。", "学生宿舍每晚23:00熄灯。", "食堂早餐供应时间为6:30至9:00。"]
for i, topic in enumerate(OTHER):
    DOCS[f"other{i}.md"] = f"# 校园服务{i}\n\n{topic}\n"
TODAY = PipelineOptions(today=date(2025, 6, 30))


@pytest.fixture(scope="module")
def domain(tmp_path_factory: pytest.TempPathFactory) -> Domain:
    base = tmp_path_factory.mktemp("kb")
    dom = init_domain("tiny", base)
    dom.instance_file.write_text(INSTANCE, encoding="utf-8")
    for name, text in DOCS.items():
        (dom.raw_dir / name).write_text(text, encoding="utf-8")
    dom = open_domain("tiny", base)
    outcomes = build_domain(dom, ["extract", "index"], progress=False)
    assert all(o.ok for o in outcomes), [o.summary for o in outcomes]
    return dom


@pytest.fixture(scope="module")
def kb(domain: Domain) -> KnowledgeBase:
    return KnowledgeBase.load(domain)


@pytest.fixture(autouse=True)
def clean_logs(domain: Domain) -> Iterator[None]:
    yield
    for path in domain.feedback_dir.glob("*.jsonl*"):
        path.unlink()


def test_fact_question_is_answered_with_citations_and_a_full_trace(kb: KnowledgeBase) -> None:
    result = answer(kb, "出差住宿费标准是多少？", options=TODAY)
    assert result.found and result.relevance in ("PRECISE", "REFERENCE")
    assert "500元" in result.answer and "[1]" in result.answer
    assert result.citations and result.citations[0].doc_id == "travel"
    assert result.intent == "fact" and set(result.intent_scores) >= {"fact", "person", "data"}
    assert list(result.timings) == list(STAGES) and list(result.trace["stages"]) == list(STAGES)
    trace = result.trace
    assert trace["channels"]["bm25"]["candidates"] > 0 and trace["channels"]["bm25"]["error"] is None
    assert trace["fused"][0]["chunk_id"] == result.citations[0].chunk_id or trace["fused"]
    assert trace["gate"]["passed"] and trace["weights"]["bm25"] == 1.0
    assert trace["context"]["included"] and trace["generation"]["method"] == "extractive"
    assert trace["condense"]["method"] == "none" and trace["intent"]["method"] == "rules"
    assert not any(d["stage"].startswith("channel:bm25") for d in trace["degraded"])
    # evidence beyond the fused top-k and the documents ranked after their current version are on record
    assert isinstance(trace["evidence"]["added"], list) and trace["versions"] == {"demoted": {}, "demoted_documents": 0}


def test_citations_are_the_cited_context_numbers(kb: KnowledgeBase) -> None:
    result = answer(kb, "出差住宿费标准是多少？", options=TODAY)
    cited = {int(n) for n in __import__("re").findall(r"\[(\d+)\]", result.answer)}
    assert {c.n for c in result.citations} == cited
    assert set(result.trace["context"]["citations"]) >= cited


def test_person_question_fills_slots_and_answers_from_them(kb: KnowledgeBase) -> None:
    result = answer(kb, "预算科科长是谁？电话多少？", options=TODAY)
    assert result.intent == "person" and result.slots["name"] == "李华"
    assert "027-88887777" in result.answer and result.citations[0].doc_id == "contacts"
    assert result.trace["slots"]["method"] == "rules"


def test_data_question_reads_the_table_cell(kb: KnowledgeBase) -> None:
    result = answer(kb, "学费标准表里软件工程专业学费是多少？", options=TODAY)
    assert "6800" in result.answer and result.citations[0].doc_id == "fees"


def test_off_topic_question_is_not_found_and_logged_as_missing(kb: KnowledgeBase, domain: Domain) -> None:
    result = answer(kb, "火星上的天气怎么样？", session_id="s1", options=TODAY)
    assert not result.found and result.citations == [] and result.relevance == "none"
    assert result.answer == kb.config.prompts.not_found.format(question="火星上的天气怎么样？")
    assert result.answer_method == "not_found" and result.slots == {}
    (missing,) = [json.loads(x) for x in (domain.feedback_dir / MISSING_LOG).read_text("utf-8").splitlines()]
    assert missing["query"] == "火星上的天气怎么样？" and missing["request_id"] == result.request_id
    (logged,) = [json.loads(x) for x in (domain.feedback_dir / QUERY_LOG).read_text("utf-8").splitlines()]
    assert logged["found"] is False and logged["session_id"] == "s1"


def test_query_log_line_summarises_the_request(kb: KnowledgeBase, domain: Domain) -> None:
    result = answer(kb, "差旅费怎么报销？", options=TODAY)
    (line,) = [json.loads(x) for x in (domain.feedback_dir / QUERY_LOG).read_text("utf-8").splitlines()]
    assert line["request_id"] == result.request_id and line["intent"] == "process"
    assert line["channels"]["bm25"] and line["fused"] and line["gate"]["threshold"] == 0.3
    assert set(line["latency_ms"]) >= {"retrieve", "generate"} and line["answer_chars"] == len(result.answer)
    assert not (domain.feedback_dir / MISSING_LOG).exists()


def test_log_false_writes_nothing(kb: KnowledgeBase, domain: Domain) -> None:
    answer(kb, "差旅费怎么报销？", options=PipelineOptions(log=False))
    assert not list(domain.feedback_dir.glob("*.jsonl"))


def test_process_answer_lists_steps_and_where(kb: KnowledgeBase) -> None:
    result = answer(kb, "差旅费报销流程是怎样的？", options=TODAY)
    assert result.intent == "process"
    assert result.slots["steps"][0].startswith("出差结束后30天内") and "2号窗口" in result.answer


def test_history_condenses_a_follow_up(kb: KnowledgeBase) -> None:
    history = [Turn("预算科科长是谁？", "预算科科长是李华。")]
    result = answer(kb, "他的邮箱是什么？", history=history, options=TODAY)
    assert result.condensed != "他的邮箱是什么？" and "李华" in result.condensed
    assert "lihua@example.edu.cn" in result.answer


def test_stream_yields_meta_then_deltas_then_the_result(kb: KnowledgeBase) -> None:
    events = list(answer_stream(kb, "出差住宿费标准是多少？", options=TODAY))
    kinds = [e.kind for e in events]
    assert kinds[0] == "meta" and kinds[-1] == "result" and set(kinds[1:-1]) == {"delta"}
    meta, result = events[0].data, events[-1].data
    assert isinstance(result, Result) and meta["request_id"] == result.request_id and meta["intent"] == "fact"
    assert "".join(e.data for e in events[1:-1]) == result.answer


def test_stream_of_a_not_found_question(kb: KnowledgeBase) -> None:
    events = list(answer_stream(kb, "火星上的天气怎么样？", options=PipelineOptions(log=False)))
    assert events[0].data["found"] is False and events[-1].data.found is False
    assert "".join(e.data for e in events[1:-1]) == events[-1].data.answer


def test_search_returns_fused_evidence_with_channel_ranks(kb: KnowledgeBase) -> None:
    # "出差": the bare 住宿费标准 also names the title 学费标准, whose table has a 住宿费 (dormitory) column
    found = search(kb, "出差住宿费标准", options=TODAY)
    assert found.hits and found.hits[0]["doc_id"] == "travel"
    assert found.hits[0]["ranks"]["bm25"] >= 1 and "bm25" in found.hits[0]["scores"]
    assert found.gate["passed"] and "retrieve" in found.timings and json.dumps(found.to_dict(), ensure_ascii=False)


def test_options_without_llm_and_with_only_some_channels(kb: KnowledgeBase) -> None:
    result = answer(kb, "出差住宿费标准是多少？",
                    options=PipelineOptions(channels=("bm25", "vector"), use_llm=False, log=False))
    assert result.found and result.trace["channels"]["vector"]["error"]
    assert {"stage": "channel:vector", "error": result.trace["channels"]["vector"]["error"]} in result.trace["degraded"]


def test_result_to_dict_is_json(kb: KnowledgeBase) -> None:
    data = answer(kb, "差旅费怎么报销？", options=PipelineOptions(log=False)).to_dict()
    again = json.loads(json.dumps(data, ensure_ascii=False))
    assert again["citations"][0]["n"] >= 1 and again["trace"]["stages"] and again["intent"] == "process"
    assert set(again) >= {"request_id", "answer", "citations", "intent", "intent_scores", "slots", "relevance",
                          "found", "timings", "trace", "condensed"}


def test_cli_ask_prints_answer_citations_and_intent(domain: Domain, capsys: pytest.CaptureFixture[str]) -> None:
    base = str(domain.root.parent)
    assert main(["ask", "--domain", "tiny", "--base-dir", base, "--no-log", "出差住宿费标准是多少？"]) == 0
    out = capsys.readouterr().out
    assert "500元" in out and "来源：" in out and "[1]" in out and "意图：fact" in out
    assert main(["ask", "--domain", "tiny", "--base-dir", base, "--json", "--today", "2025-06-30", "--no-log",
                 "火星上的天气怎么样？"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["found"] is False and data["citations"] == []
    assert main(["ask", "--domain", "tiny", "--base-dir", base, "--today", "30/06/2025", "问题"]) == 2
    assert "YYYY-MM-DD" in capsys.readouterr().err


def test_follow_up_without_intent_keywords_inherits_the_previous_intent(kb: KnowledgeBase) -> None:
    history = [Turn("预算科科长是谁？", "预算科科长是李华。")]
    result = answer(kb, "那报账大厅呢？", history=history, options=PipelineOptions(log=False))
    assert result.intent == "person" and result.trace["intent"]["method"] == "history"
    assert "_inherited" in result.trace["intent"]["matched"]


def test_follow_up_asking_its_own_question_keeps_the_default_intent(kb: KnowledgeBase) -> None:
    history = [Turn("预算科科长是谁？", "预算科科长是李华。")]
    result = answer(kb, "报账大厅有什么特点？", history=history, options=PipelineOptions(log=False))
    assert result.intent == kb.config.intents.default and result.trace["intent"]["method"] == "default"


def test_an_english_question_reads_english_locators_and_a_chinese_one_the_stored_form(tmp_path: Path) -> None:
    dom = init_domain("filings", tmp_path)
    dom.instance_file.write_text(INSTANCE, encoding="utf-8")
    pages = ["[page 1]\nContoso Ltd annual report for fiscal year 2023.",
             "[page 2]\nContoso Ltd reported net sales of $275 million in fiscal year 2023, up 4 percent.",
             "[page 3]\nContoso Ltd employs 1,200 people in three countries."]
    (dom.raw_dir / "contoso_2023.txt").write_text("\n\n".join(pages) + "\n", encoding="utf-8")
    for name, text in DOCS.items():
        (dom.raw_dir / name).write_text(text, encoding="utf-8")
    dom = open_domain("filings", tmp_path)
    assert all(o.ok for o in build_domain(dom, ["extract", "index"], progress=False))
    kb = KnowledgeBase.load(dom)
    english = answer(kb, "What were Contoso's net sales in fiscal year 2023?", options=PipelineOptions(log=False))
    assert english.found and "$275 million" in english.answer
    cited = next(c for c in english.citations if "net sales" in c.excerpt)
    stored = kb.chunks[cited.chunk_id].locator  # the three short pages are one chunk: "第1-3页"
    assert stored == "第1-3页" and cited.locator == "pp. 1-3"
    assert "(pp. 1-3)" in english.context and "第1-3页" not in english.context
    chinese = answer(kb, "Contoso 2023财年的净销售额是多少？", options=PipelineOptions(log=False))
    assert any(c.locator == "第1-3页" for c in chinese.citations) and "（第1-3页）" in chinese.context
    shown = render(english)  # the CLI's labels follow the question too
    assert "Sources:" in shown and "pp. 1-3" in shown and "Intent: " in shown and "来源" not in shown
    assert "来源：" in render(chinese) and "意图：" in render(chinese)
