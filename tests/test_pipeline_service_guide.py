"""End to end on a service guide (办事指南) written as a Word form, and an FAQ written as 问/答 paragraphs.

A form is a two-column table of fields with no header row ("| 办理时限 | 受理之日起10个工作日 |"); read as a table
its first field became the header and every answer came out as "事项名称：申请条件，…". Each question must be
answered by the field it asks for, an FAQ's conditions question by its own answer. Real .docx files written with
python-docx, real extraction and indexes, answer().
"""

from __future__ import annotations

from pathlib import Path

import pytest
from docx import Document
from lexical_domain import lexical_kb

from lambdarag.answer.compose import first_sentence
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import answer
from lambdarag.retrieval.knowledge import KnowledgeBase

FIELDS = [
    ("事项名称", "创业担保贷款贴息申领"),
    ("适用对象", "在本市登记注册不满3年、吸纳就业5人以上的小微企业"),
    ("申请条件", "1.按时还款付息；2.无不良信用记录；3.未享受其他贴息政策。"),
    ("申请材料", "1.营业执照复印件；2.贷款合同；3.还款付息凭证。"),
    ("办理时限", "受理之日起15个工作日"),
    ("受理地点", "区政务服务中心人社窗口"),
    ("收费标准", "不收费"),
    ("咨询电话", "0571-12333"),  # a service hotline after its area code
]
ENGLISH_FORM = [
    ("Service", "Annual staff parking permit"),
    ("Eligibility", "Full-time staff with a contract of at least 12 months."),
    ("Fee", "120 dollars per year, deducted from salary in 12 instalments."),
    ("Processing time", "5 working days after the application is complete."),
    ("Contact", "Phone 555-0142, estates@example.edu"),
]
NUMBERED_FAQ = [  # numbered questions, each answered on the next line without "答："
    ("1.什么是灵活就业人员？", "灵活就业人员是指以非全日制、临时性、季节性等灵活形式就业的人员。"),
    ("2.缴费有困难的可以暂停缴费吗？", "可以申请暂停缴费，暂停期间不计算缴费年限，恢复缴费后可以补缴。"),
    ("3.在哪里办理参保登记？", "可通过当地社保经办机构窗口或者网上服务大厅办理参保登记。"),
]
FAQ = [
    ("办理居住证需要满足什么条件？", "在本市居住半年以上，并有合法稳定住所的，可以申领居住证。"),
    ("居住证丢了怎么办？", "应当及时到居住地公安派出所申请补领，补领时需提交身份证。"),
]


def _form(path: Path, title: str, fields: list[tuple[str, str]]) -> None:
    doc = Document()
    doc.add_heading(title, 1)
    table = doc.add_table(rows=0, cols=2)
    for label, value in fields:
        cells = table.add_row().cells
        cells[0].text, cells[1].text = label, value
    doc.save(str(path))


def _faq(path: Path, title: str, pairs: list[tuple[str, str]]) -> None:
    doc = Document()
    doc.add_heading(title, 1)
    for question, reply in pairs:
        doc.add_paragraph(question)
        doc.add_paragraph(reply)
    doc.save(str(path))


@pytest.fixture(scope="module")
def guide_kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    def write(raw: Path) -> None:
        _form(raw / "贴息办事指南.docx", "创业担保贷款贴息办事指南", FIELDS)
        _form(raw / "parking_permit_guide.docx", "Parking Permit Service Guide", ENGLISH_FORM)
        _faq(raw / "居住证常见问题.docx", "居住证常见问题", [("问：" + q, "答：" + a) for q, a in FAQ])
        _faq(raw / "灵活就业政策问答.docx", "灵活就业政策问答", NUMBERED_FAQ)

    return lexical_kb(tmp_path_factory.mktemp("guide_kb"), "guide", write)


def _ask(kb: KnowledgeBase, question: str) -> str:
    return answer(kb, question, options=PipelineOptions(use_llm=False, log=False)).answer


@pytest.mark.parametrize(("question", "field"), [
    ("创业担保贷款贴息的申请条件是什么？", "申请条件：1.按时还款付息"),
    ("申请创业担保贷款贴息需要哪些材料？", "申请材料：1.营业执照复印件"),
    ("创业担保贷款贴息多久能办好？", "办理时限：受理之日起15个工作日"),
    ("创业担保贷款贴息到哪里申请？", "受理地点：区政务服务中心人社窗口"),
    ("创业担保贷款贴息的咨询电话是多少？", "咨询电话：0571-12333"),  # not the English guide's e-mail
    ("How much does the staff parking permit cost?", "Fee: 120 dollars per year"),
    ("How long does it take to get a parking permit?", "Processing time: 5 working days"),
])
def test_each_field_of_a_form_answers_the_question_asking_for_it(guide_kb: KnowledgeBase, question: str,
                                                                 field: str) -> None:
    text = _ask(guide_kb, question)
    assert first_sentence(text).startswith(field), text
    assert "事项名称：申请条件" not in text and "的创业担保贷款贴息申领为" not in text  # no field read "of" the first


def test_asked_whether_a_form_charges_the_answer_is_no(guide_kb: KnowledgeBase) -> None:
    text = _ask(guide_kb, "申请创业担保贷款贴息要收费吗？")
    assert text.startswith("不需要[1]。收费标准：不收费"), text


def test_an_faq_question_is_answered_by_its_own_answer_not_by_a_rule_read_across_answers(
        guide_kb: KnowledgeBase) -> None:
    text = _ask(guide_kb, "办理居住证需要什么条件？")
    assert text.startswith("在本市居住半年以上"), text
    assert "问：" not in text and "答：" not in text and "申请补领" not in first_sentence(text)


def test_numbered_questions_are_no_steps_and_each_is_answered_by_the_line_after_it(guide_kb: KnowledgeBase) -> None:
    text = _ask(guide_kb, "灵活就业人员在哪里办理参保登记？")
    assert text.startswith("可通过当地社保经办机构窗口或者网上服务大厅办理参保登记"), text
    assert "什么是灵活就业人员" not in text and "办理步骤" not in text  # its numbered questions are not steps
