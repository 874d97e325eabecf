"""Answer generation: extractive answers (table lookups, slots, sentences), the LLM path, streaming and fallbacks."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from llm_clients import client

from lambdarag.answer.context import Repealed, pack
from lambdarag.answer.generate import CUT_SEPARATOR, AnswerStream, generate, llm_messages, not_found_answer
from lambdarag.config.load import load_config
from lambdarag.config.schema import Config
from lambdarag.models.llm import LLMClient
from lambdarag.records import Chunk
from lambdarag.text.fence import FENCE_BEGIN, FENCE_END
from lambdarag.text.tokenizer import Tokenizer

CHUNKS = {
    "rules#1": Chunk("rules#1", "rules", "差旅费管理办法", "差旅费管理办法 > 住宿费",
                     "住宿费实行限额标准。副处长级人员出差北京，住宿费标准为每人每天500元。超出部分由个人自理。"),
    "rules#2": Chunk("rules#2", "rules", "差旅费管理办法", "差旅费管理办法 > 伙食补助",
                     "伙食补助费按出差天数计算，每人每天100元。"),
    "fees#1": Chunk("fees#1", "fees", "学费标准", "学费标准",
                    "| 专业类别 | 学费（元/年） |\n| 文史类 | 4680 |\n| 理工类 | 5200 |", is_table=True),
}


@pytest.fixture(scope="module")
def config() -> Config:
    return load_config()


def packed(ids: list[str], slots: dict[str, Any] | None = None) -> Any:
    return pack(slots or {}, ids, [], CHUNKS, max_chars=3500)


def test_extractive_answer_picks_the_best_sentences_with_markers(config: Config) -> None:
    p = packed(["rules#2", "rules#1"])
    gen = generate("副处长出差北京住宿费标准是多少？", p, "fact", {}, None, config,
                   keywords=["副处长", "出差", "北京", "住宿费", "标准"])
    assert gen.method == "extractive" and gen.error is None
    assert gen.text.startswith("副处长级人员出差北京，住宿费标准为每人每天500元[2]。")
    assert set(re.findall(r"\[(\d+)\]", gen.text)) <= {"1", "2"}


def test_extractive_without_keywords_uses_bigrams(config: Config) -> None:
    gen = generate("伙食补助每天多少钱", packed(["rules#1", "rules#2"]), "fact", {}, None, config)
    assert "每人每天100元[2]" in gen.text


def test_extractive_table_row_is_written_with_headers(config: Config) -> None:
    gen = generate("理工类学费多少", packed(["fees#1"]), "fact", {}, None, config)
    assert gen.text == "学费标准中，理工类的学费（元/年）为5200[1]。"


def test_extractive_from_slots(config: Config) -> None:
    person = {"name": "赵磊", "title": "科长", "department": "预算科", "phone": "027-87651020",
              "email": "zhaolei@jcu.edu.cn", "duties": "预算编制", "sources": {"name": "rules#1", "duties": "rules#1"}}
    text = generate("预算科科长是谁", packed(["rules#1"], person), "person", person, None, config).text
    assert text == "预算科科长赵磊，办公电话027-87651020，电子邮箱zhaolei@jcu.edu.cn[1]。主要职责：预算编制[1]。"
    data = {"table": "学费标准", "row": "理工类", "column": "学费（元/年）", "value": "5200",
            "sources": {"value": "fees#1"}}
    assert generate("理工类学费", packed(["fees#1"], data), "data", data, None, config).text == \
        "学费标准中，理工类的学费（元/年）为5200[1]。"
    process = {"steps": ["填写申请", "提交审核"], "basis": ["《差旅费管理办法》"],
               "sources": {"steps": "rules#1", "basis": "rules#1"}}
    text = generate("怎么办理", packed(["rules#1"], process), "process", process, None, config).text
    assert text == "办理步骤：1. 填写申请；2. 提交审核[1]。依据：《差旅费管理办法》[1]。"


def test_not_found_answer_uses_the_configured_text(config: Config) -> None:
    gen = not_found_answer("火星上的天气怎么样？", config)
    assert gen.method == "not_found" and "火星上的天气怎么样？" in gen.text and "未找到" in gen.text


def _llm(config: Config, base_url: str, timeout: float = 3.0) -> tuple[Config, LLMClient]:
    cfg = dataclasses.replace(config, llm=dataclasses.replace(config.llm, enabled=True, base_url=base_url,
                                                               timeout_s=timeout, max_retries=0))
    return cfg, client(cfg)


def test_llm_answer_gets_the_domain_system_prompt_and_numbered_context(config: Config) -> None:
    with FakeOpenAI(chat=lambda messages: "住宿费标准为每人每天500元[1]。") as fake:
        cfg, llm = _llm(config, fake.base_url)
        gen = generate("住宿费标准？", packed(["rules#1"]), "fact", {}, llm, cfg, domain="finance")
        messages = fake.requests_to("/v1/chat/completions")[0].body["messages"]
    assert gen.method == "llm" and gen.text == "住宿费标准为每人每天500元[1]。"
    assert messages[0]["role"] == "system" and "finance" in messages[0]["content"]
    assert "[1] 差旅费管理办法 > 住宿费" in messages[1]["content"] and "住宿费标准？" in messages[1]["content"]


def test_llm_streaming_yields_deltas(config: Config) -> None:
    with FakeOpenAI(chat=lambda messages: "伙食补助每人每天100元[1]。") as fake:
        cfg, llm = _llm(config, fake.base_url)
        stream = generate("伙食补助？", packed(["rules#2"]), "fact", {}, llm, cfg, True)
        assert isinstance(stream, AnswerStream)
        deltas = list(stream)
    assert len(deltas) > 1 and "".join(deltas) == "伙食补助每人每天100元[1]。"
    assert stream.method == "llm" and stream.text == "".join(deltas)


def test_llm_failure_falls_back_to_extractive_with_the_error(config: Config) -> None:
    with FakeOpenAI() as fake:
        fake.fail_next = [500, 500]
        cfg, llm = _llm(config, fake.base_url)
        gen = generate("伙食补助每天多少钱", packed(["rules#2"]), "fact", {}, llm, cfg)
    assert gen.method == "extractive" and gen.error and "500" in gen.error
    assert "100元[1]" in gen.text


def test_llm_timeout_while_streaming_falls_back_before_the_first_delta(config: Config) -> None:
    with FakeOpenAI(chat=lambda messages: "太慢了") as fake:
        fake.delay_s = 1.0
        cfg, llm = _llm(config, fake.base_url, timeout=0.2)
        stream = generate("伙食补助每天多少钱", packed(["rules#2"]), "fact", {}, llm, cfg, True)
        text = "".join(stream)
    assert stream.method == "extractive" and stream.error and "timed out" in stream.error
    assert "100元[1]" in text


def test_a_stream_cut_midway_is_followed_by_the_extractive_answer(config: Config) -> None:
    with FakeOpenAI(chat=lambda messages: "伙食补助每人每天100元[1]，另有补贴。") as fake:
        fake.chat_mode, fake.cut_after = "cut", 2
        cfg, llm = _llm(config, fake.base_url)
        stream = generate("伙食补助每天多少钱", packed(["rules#2"]), "fact", {}, llm, cfg, True)
        deltas = list(stream)
    assert deltas[:3] == ["伙食补助", "每人每天", CUT_SEPARATOR]  # what was sent cannot be taken back
    assert stream.method == "extractive" and "100元[1]" in stream.text
    assert "".join(deltas[3:]) == stream.text  # the answer kept is the extractive one alone
    assert stream.error and "after 8 characters; the extractive answer follows" in stream.error


def _c(cid: str, title: str, text: str, section: str = "", table: bool = False) -> Chunk:
    return Chunk(cid, cid.split("#")[0], title, f"{title} > {section}" if section else title, text, is_table=table)


MORE = {
    "lodging#1": _c("lodging#1", "差旅办法",
                    "住宿费按人员类别限额管理：A类人员为正高级职称人员；B类人员为副高级职称人员。", "住宿费"),
    "lodging#2": _c("lodging#2", "差旅办法",
                    "| 城市类别 | 城市 | A类人员 | B类人员 |\n| 一类 | 北京 | 900元 | 650元 |\n"
                    "| 一类 | 上海 | 900元 | 650元 |\n| 二类 | 广州 | 850元 | 600元 |", "住宿费", table=True),
    "old#2": _c("old#2", "旧差旅办法", "| 城市类别 | 城市 | A类人员 | B类人员 |\n| 一类 | 北京 | 800元 | 600元 |\n"
                "| 二类 | 广州 | 750元 | 550元 |", "住宿费", table=True),
    "months#1": _c("months#1", "月度统计", "| 月份 | 受理单数（笔） |\n| 1月 | 2150 |\n| 12月 | 8202 |\n"
                   "| 全年合计 | 48562 |", "月度业务量", table=True),
    "faq#1": _c("faq#1", "常见问题", "问1：报账大厅在哪里？\n答：报账大厅位于致远楼一楼101室。\n"
                "问2：发票丢了怎么报销？\n答：请取得发票记账联复印件，附书面说明后报销。"),
    "budget#1": _c("budget#1", "预算办法",
                   "学校财经工作领导小组是预算管理的决策机构。\n预算科是预算管理的日常办事机构。\n"
                   "本办法由财务处负责解释。", "总则"),
    "report#1": _c("report#1", "年度总结", "财务处 2024年1月15日\n全年受理报账单48562笔，平均审核时长2.6天。"),
}


def _more(ids: list[str], slots: dict[str, Any] | None = None) -> Any:
    return pack(slots or {}, ids, [], MORE, max_chars=3500)


def test_a_named_table_row_answers_any_intent_with_its_headers(config: Config) -> None:
    question = "差旅住宿费在北京每晚的限额是多少？"
    text = generate(question, _more(["lodging#1", "lodging#2"]), "fact", {}, None, config).text
    assert text.startswith("差旅办法 > 住宿费中，北京的城市类别为一类，A类人员为900元，B类人员为650元[2]。")
    # the column the question names: only its cell
    text = generate("去广州出差A类人员住宿标准多少？", _more(["lodging#2"]), "fact", {}, None, config).text
    assert text == "差旅办法 > 住宿费中，二类、广州的A类人员为850元[1]。"


def test_a_column_named_by_its_definition_is_answered_and_the_definition_cited(config: Config) -> None:
    text = generate("副高职称去广州住宿费每晚多少？", _more(["lodging#1", "lodging#2"]), "fact", {}, None, config).text
    assert "广州的B类人员为600元（B类人员为副高级职称人员[1]）[2]。" in text


def test_a_comparison_shows_the_same_row_of_both_tables(config: Config) -> None:
    text = generate("新旧两版北京A类人员住宿标准有什么变化？", _more(["lodging#2", "old#2"]), "compare", {}, None,
                    config).text
    assert "北京的A类人员为900元[1]" in text and "北京的A类人员为800元[2]" in text


def test_which_row_holds_the_most_excludes_totals_and_a_limit_is_no_superlative(config: Config) -> None:
    text = generate("哪个月受理的报账单最多？有多少笔？", _more(["months#1"]), "data", {}, None, config).text
    assert "12月的受理单数（笔）为8202[1]" in text and "48562" not in text
    assert "8202" not in generate("单笔最多能借多少？", _more(["months#1"]), "fact", {}, None, config).text


def test_an_faq_answer_is_shown_for_its_question(config: Config) -> None:
    text = generate("发票丢了怎么报销？", _more(["faq#1"]), "fact", {}, None, config).text
    assert text.startswith("请取得发票记账联复印件，附书面说明后报销[1]。") and "问2" not in text


def test_each_sub_question_gets_its_sentence_and_signature_lines_never_answer(config: Config) -> None:
    text = generate("预算管理的决策机构是哪个？日常办事机构又是哪个？", _more(["budget#1"]), "relation", {}, None,
                    config).text
    assert "领导小组是预算管理的决策机构[1]" in text and "预算科是预算管理的日常办事机构[1]" in text
    text = generate("总结一下年度报账情况", _more(["report#1"]), "synthesis", {}, None, config).text
    assert text == "全年受理报账单48562笔，平均审核时长2.6天[1]。"


def test_a_better_matching_sentence_elsewhere_leads_a_procedure(config: Config) -> None:
    process = {"steps": ["填写申请", "提交审核"], "sources": {"steps": "rules#1"}}
    chunks = {**CHUNKS, **MORE}
    p = pack(process, ["rules#1", "faq#1"], [], chunks, max_chars=3500)
    text = generate("发票丢了怎么报销？", p, "process", process, None, config).text
    assert text.startswith("请取得发票记账联复印件，附书面说明后报销[2]。办理步骤：1. 填写申请；2. 提交审核[1]。")


def test_a_fact_repeated_by_another_chunk_is_said_once_with_both_sources(config: Config) -> None:
    chunks = {
        "rule#1": _c("rule#1", "借款办法", "个人借款单笔不超过5万元。"),
        "slide#1": _c("slide#1", "培训课件", "均可按借款办法办理借款，个人借款单笔不超过5万元。"),
    }
    p = pack({}, ["slide#1", "rule#1"], [], chunks, max_chars=3500)
    text = generate("个人借款单笔最多能借多少？", p, "fact", {}, None, config).text
    assert text == "均可按借款办法办理借款，个人借款单笔不超过5万元[1][2]。"


def test_a_cited_document_the_context_says_was_repealed_gets_a_note(config: Config) -> None:
    chunks = {**MORE, "registry#1": _c("registry#1", "制度一览", "《旧差旅办法》自2024年7月1日起废止。")}
    p = pack({}, ["old#2", "registry#1"], [], chunks, max_chars=3500)
    p = dataclasses.replace(p, repealed={"old": Repealed("旧差旅办法", "2024-07-01", "registry#1")})
    text = generate("旧差旅办法北京A类人员住宿标准多少？", p, "fact", {}, None, config).text
    assert text.endswith("北京的A类人员为800元[1]。注：《旧差旅办法》已于2024年7月1日废止[2]。")


def test_an_english_answer_citing_a_repealed_document_gets_an_english_note(config: Config) -> None:
    chunks = {"old#1": _c("old#1", "Travel Policy 2019", "The hotel limit in Boston is $250 a night."),
              "registry#1": _c("registry#1", "Policy register", "The Travel Policy 2019 was repealed on July 1, 2024.")}
    p = pack({}, ["old#1", "registry#1"], [], chunks, max_chars=3500)
    p = dataclasses.replace(p, repealed={"old": Repealed("Travel Policy 2019", "2024-07-01", "registry#1")})
    text = generate("What is the hotel limit in Boston?", p, "fact", {}, None, config).text
    assert text.startswith("The hotel limit in Boston is $250 a night[1].")
    assert text.endswith(" Note: Travel Policy 2019 was repealed on 2024-07-01[2].") and "注" not in text


def test_an_english_question_reads_a_table_row_in_english(config: Config) -> None:
    rows = "| City | Class A | Class B |\n| --- | --- | --- |\n| Boston | $300 | $220 |\n| Denver | $250 | $180 |"
    table = _c("rates#1", "Travel Policy", rows, "Lodging", table=True)
    p = pack({}, ["rates#1"], [], {"rates#1": table}, max_chars=3500)
    text = generate("What is the Class A lodging rate in Boston?", p, "fact", {}, None, config).text
    assert text.startswith("In Travel Policy > Lodging, Boston: Class A $300[1].")
    assert not re.search(r"[\u4e00-\u9fff。，：]", text)


def test_the_llm_prompt_and_the_not_found_reply_follow_the_questions_language(config: Config) -> None:
    p = pack({}, ["rates#1"], [], {"rates#1": _c("rates#1", "Travel Policy", "The Boston rate is $300.")},
             max_chars=3500)
    system, user = llm_messages("What is the Boston rate?", p, config, "Contoso")
    assert system["content"].startswith("You are the knowledge-base assistant of Contoso.")
    assert f"between {FENCE_BEGIN} and {FENCE_END}" in system["content"]  # the data rule, in English
    assert "Answer concisely in English" in user["content"] and user["content"].count(FENCE_BEGIN) == 1
    system, user = llm_messages("波士顿的标准是多少？", p, config, "Contoso")
    assert system["content"].startswith(config.prompts.system.format(domain="Contoso"))
    assert "请用中文简洁回答" in user["content"]
    assert not_found_answer("What is the weather on Mars?", config).text.startswith("Sorry, the knowledge base")
    assert not_found_answer("火星上的天气怎么样？", config).text.startswith("抱歉")


def test_a_list_question_reads_the_items_of_one_chunk_beyond_two_sentences(config: Config) -> None:
    text = ("图书馆为读者提供以下服务。馆际互借服务为读者从外馆借书。文献传递服务为读者提供论文全文。"
            "参考咨询服务为读者解答检索问题。科技查新服务为读者出具查新报告。")
    p = pack({}, ["lib#1"], [], {"lib#1": _c("lib#1", "图书馆服务介绍", text)}, max_chars=3500)
    answer = generate("图书馆有哪些服务？", p, "synthesis", {}, None, config).text
    for service in ("馆际互借", "文献传递", "参考咨询", "科技查新"):
        assert service in answer, answer
    one = generate("图书馆为读者提供文献传递吗？", p, "fact", {}, None, config).text
    assert "科技查新" not in one  # not a list question: at most two sentences of one chunk


def test_sentences_tied_by_the_page_heading_are_ranked_by_the_words_they_echo(config: Config) -> None:
    text = ("青檀是榆科青檀属的落叶乔木。青檀多生于石灰岩山地。青檀的树皮纤维被用于制造宣纸。"
            "青檀的木材坚硬细致。")  # every sentence names the subject, none says 用途
    p = pack({}, ["tree#1"], [], {"tree#1": _c("tree#1", "青檀", text)}, max_chars=3500)
    question = "青檀有什么用途？"
    answer = generate(question, p, "fact", {}, None, config, keywords=Tokenizer().keywords(question)).text
    assert answer.startswith("青檀的树皮纤维被用于制造宣纸[1]。"), answer  # 用途 ~ 用于: it leads the tie
