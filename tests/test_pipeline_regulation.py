"""End to end on a domain of regulations: articles (第X条) with clauses listed one a line under their lead-in.

A measure's chapter "申请程序" is made of articles, not of a procedure guide's steps; a process question asked
of it must be answered by its articles as sentences, the clause list whole after its lead-in, never by "steps"
made of articles or by another document's numbered list. Real files, real extraction and indexes, answer().
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lexical_domain import lexical_kb

from lambdarag.answer.compose import first_sentence
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import answer
from lambdarag.retrieval.knowledge import KnowledgeBase

MEASURE = """某区小微商户经营补助办法

第一章 总则
第一条 为支持小微商户稳定经营，结合本区实际，制定本办法。
第二条 本办法所称经营补助，是指对在本区经营的小微商户给予的一次性补助。

第二章 补助对象和标准
第三条 补助对象为在本区登记经营满一年、从业人员不超过十人的小微商户。
第四条 补助标准为每户3000元，同一商户只能享受一次。
第五条 有下列情形之一的，不予补助：
（一）已享受其他经营补助的；
（二）有欠税记录的；
（三）提供虚假材料的。

第三章 申请程序
第六条 申请人应当在每年3月1日至3月31日期间，向区商务局提出申请。
第七条 申请时应当提交以下材料：
（一）《经营补助申请表》；
（二）营业执照复印件；
（三）上年度纳税证明。
第八条 区商务局自受理之日起10个工作日内完成审核，审核通过的，在5个工作日内发放补助。
"""

NOTICE = """关于开展青年创业扶持项目申报工作的通知

一、申报条件
（一）申报人年龄在18至35周岁之间。
（二）创办的企业成立时间不超过3年。

二、申报材料
1. 《青年创业扶持项目申报书》；
2. 申报人身份证复印件。

三、申报方式
申报人在线填报，并将纸质材料报送至所在区就业服务中心。

四、联系方式
联系人：王老师，联系电话：010-12345678。
"""

GUIDE = """某区证照办理指南

一、办理流程
1. 登录区政务服务网提交申请。
2. 窗口工作人员初审。
3. 领取证照。
"""


@pytest.fixture(scope="module")
def regulation_kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    def write(raw: Path) -> None:
        (raw / "经营补助办法.txt").write_text(MEASURE, encoding="utf-8")
        (raw / "证照办理指南.txt").write_text(GUIDE, encoding="utf-8")
        (raw / "申报通知.txt").write_text(NOTICE, encoding="utf-8")

    return lexical_kb(tmp_path_factory.mktemp("regulation_kb"), "rules", write)


def ask(kb: KnowledgeBase, question: str) -> str:
    result = answer(kb, question, options=PipelineOptions(log=False))
    assert result.found, question
    return result.answer


def test_the_materials_of_a_regulation_are_its_clause_list_whole(regulation_kb: KnowledgeBase) -> None:
    text = ask(regulation_kb, "申请经营补助需要提交哪些材料？")
    assert first_sentence(text).startswith("第七条 申请时应当提交以下材料：（一）《经营补助申请表》；"), text
    assert "办理步骤" not in text and "登录区政务服务网" not in text  # no steps of articles, none borrowed


def test_a_process_question_asked_of_a_regulation_is_answered_by_its_article(regulation_kb: KnowledgeBase) -> None:
    text = ask(regulation_kb, "经营补助应当什么时候申请？")
    assert "3月1日至3月31日" in first_sentence(text), text
    assert "办理步骤" not in text and "注意：" not in text


def test_a_case_listed_under_a_refusal_is_answered_no(regulation_kb: KnowledgeBase) -> None:
    text = ask(regulation_kb, "有欠税记录的商户可以申请经营补助吗？")
    assert text.startswith("不"), text
    assert "不予补助：（一）已享受其他经营补助的；（二）有欠税记录的" in text


def test_a_procedure_guide_still_gives_its_steps(regulation_kb: KnowledgeBase) -> None:
    text = ask(regulation_kb, "证照怎么办理？")
    assert "1. 登录区政务服务网提交申请" in text and "3. 领取证照" in text, text


def test_a_notice_answers_where_from_its_sentence_and_a_figure_outside_its_limit_with_no(
        regulation_kb: KnowledgeBase) -> None:
    where = ask(regulation_kb, "青年创业扶持项目的纸质材料交到哪里？")
    assert "所在区就业服务中心" in first_sentence(where), where
    assert ask(regulation_kb, "40岁可以申报青年创业扶持项目吗？").startswith("不可以")
    assert ask(regulation_kb, "成立5年的企业能申报青年创业扶持项目吗？").startswith("不能")
