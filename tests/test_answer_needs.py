"""The extractive answer built for the question's need: what is asked, the yes/no lead, the budget, English."""

from __future__ import annotations

import re
from typing import Any

import pytest

from lambdarag.answer.asked_page import asked_pages, page_title
from lambdarag.answer.compose import first_sentence, fit_budget, lead_text, plain_length, shorten, yes_no_lead
from lambdarag.answer.context import pack
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.needs import Need, asks_something, evidence_bonus, is_english, question_need
from lambdarag.answer.roles import asked_role, next_to
from lambdarag.answer.sentences import Scored
from lambdarag.answer.table_text import grams, parse_table, question_grams
from lambdarag.answer.units import candidate_units
from lambdarag.answer.window_ends import cut_by_window, opens_document
from lambdarag.records import Chunk
from lambdarag.text.dates import mentions_date
from lambdarag.text.tokenizer import Tokenizer

CHUNKS = {
    "travel#1": Chunk("travel#1", "travel", "出差报销指南", "出差报销指南 > 办理",
                      "出差返回后在系统中填写报销单。报销单由部门负责人签字后提交审核。"),
    "travel#2": Chunk("travel#2", "travel", "出差报销指南", "出差报销指南 > 票据",
                      "票据遗失的，可凭开票单位出具的证明和本人书面说明报销。"),
    "travel#3": Chunk("travel#3", "travel", "出差报销指南", "出差报销指南 > 限制",
                      "个人消费的票据不得报销。"),
    "memo#1": Chunk("memo#1", "memo", "Quarterly report", "Quarterly report > Results",
                    "Net revenue rose to $4.2 million in the third quarter of 2024. The board approved a dividend of "
                    "$0.10 per share. Offices are located in Denver."),
}
CHUNKS["list#1"] = Chunk("list#1", "list", "合作单位名单", "合作单位名单",
                         "| 序号 | 单位名称 |\n" + "\n".join(f"| {i} | 第{i}合作单位 |" for i in range(1, 13)),
                         is_table=True)
PROCESS = {
    "steps": ["- 填写报销单；", "- 部门负责人签字；", "- 提交审核。"],
    "materials": ["报销单", "发票原件", "情况说明"],
    "where": "财务大厅3号窗口",
    "sources": {"steps": "travel#1", "materials": "travel#1", "where": "travel#1"},
}


def packed(ids: list[str], slots: dict[str, Any] | None = None) -> Any:
    return pack(slots or {}, ids, [], CHUNKS, max_chars=3500)


def one_doc(title: str, text: str, chunk_id: str = "doc#1") -> Any:
    """The packed context of one chunk (a document of that title)."""
    return pack({}, [chunk_id], [], {chunk_id: Chunk(chunk_id, chunk_id.split("#")[0], title, title, text)},
                max_chars=3500)


def answered(question: str, title: str, text: str) -> str:
    """The extractive answer to ``question`` from one document, with the question's own keywords."""
    return answered_in(question, one_doc(title, text))


def chunked(doc: str, title: str, sections: list[tuple[str, str]]) -> Any:
    """The packed context of one document's chunks, one per (heading, text), in that order."""
    chunks = {f"{doc}#{n}": Chunk(f"{doc}#{n}", doc, title, heading, text)
              for n, (heading, text) in enumerate(sections, 1)}
    return pack({}, list(chunks), [], chunks, max_chars=3500)


def answered_in(question: str, context: Any) -> str:
    """The extractive answer to ``question`` from a packed ``context``, with the question's own keywords."""
    return extractive_answer(question, context, "fact", {}, Tokenizer().keywords(question))


@pytest.mark.parametrize(("question", "kind"), [
    ("出差报销需要哪些材料？", "materials"),
    ("那它的办理流程呢？", "steps"),
    ("发票丢了可以报销吗？", "yesno"),
    ("是否需要部门负责人签字？", "yesno"),
    ("能不能用个人银行卡？", "yesno"),
    ("住宿费标准是多少？", "amount"),
    ("报销截止时间是什么时候？", "date"),
    ("该中心于何年成立？", "date"),
    ("这种植物又叫做什么？", "definition"),  # asks for its other name
    ("这座桥的别名是什么？", "definition"),
    ("协会的官网网址是多少？", "contact"),  # a web address, reached as a phone is ("多少" asks no amount)
    ("What's the official website of the league?", "contact"),
    ("副馆长负责哪些工作？", "duties"),  # what someone is in charge of, not a list
    ("What is the treasurer responsible for?", "duties"),
    ("财务处的电话是多少？", "contact"),
    ("财务大厅在哪里？", "place"),
    ("这座桥在哪一年建成？", "date"),  # 在哪 before a word of time asks when
    ("新馆在哪天开放？", "date"),
    ("这本书在哪个城市出版？", "place"),
    ("这位运动员是哪国人？", "place"),
    ("为什么要提交情况说明？", "reason"),
    ("这种方法又被称为什么？", "definition"),  # 称为什么 asks for a name, not why
    ("这座城市后来成为什么样的中心？", "general"),
    ("两个版本有什么区别？", "compare"),
    ("报销范围包括哪些？", "list"),
    ("财务处处长是谁？", "person"),
    ("谁负责报销审核？", "contact"),
    ("Is the company profitable in 2024?", "yesno"),
    ("Has revenue improved or declined since 2023?", "general"),
    ("Did wages as a percent of net sales increase or decrease in FY2023?", "general"),
    # an "or" inside a preposition's object names what the yes or no is asked of
    ("Can I charge a fee for warranty or support under the licence?", "yesno"),
    ("Is the office open on the Saturday or Sunday?", "yesno"),
    ("Is it a loan or a grant?", "general"),
    # the other way round asked as a clause of its own: a yes or no to the first clause still answers
    ("Do I have to book a slot, or can I just show up?", "yesno"),
    ("Does the grant cover a laptop, or is it only for the monthly bill?", "yesno"),
    # the asking clause after a dash that sets it up
    ("I'm 17 — am I allowed to join the club?", "yesno"),
    ("My niece is 17 - could she work as staff?", "yesno"),
    ("How much did net revenue rise?", "amount"),
    ("Where are the offices located?", "place"),
    ("Why did margins fall?", "reason"),
    ("Who signed the annual report?", "person"),
    # 什么 after a modal asked both ways is "any"; 几 after 那/这/前/好/十 is "a few"; a 手续费 is a fee, no procedure
    ("申请查阅档案，要不要交什么手续费？", "yesno"),
    ("有没有什么限制？", "yesno"),
    ("婚假能不能先休一半，过几个月再休剩下的？", "yesno"),  # 几, 哪, 谁 as well: "a few", "some", "anyone"
    ("有没有哪个窗口能办？", "yesno"),
    ("是不是谁都能申请？", "yesno"),
    ("能不能告诉我哪个窗口能办？", "place"),  # a request asks for what follows its verb
    ("请年假那几天工资能照发吗？", "yesno"),
    ("前几天交的材料还有效吗？", "yesno"),
    ("办证要几天？", "amount"),
    ("挂失的手续费是多少？", "amount"),
    ("补办需要什么手续？", "steps"),
    ("明天再来取件，行不行？", "yesno"),
    ("单位不给缴社保，我能找哪个部门反映？", "authority"),  # which body one turns to, not a place or a phone
    ("Which office handles transcript requests?", "authority"),
    ("我下周一再交，行吗？", "yesno"),
    ("银行卡能办吗？", "yesno"),
    # the sentence that asks decides, not what the asker tells before it; "how soon" asks how long
    ("I reported an incident and left my contact info. How soon should I hear back?", "amount"),
    ("我的电话已经登记过了。申请什么时候能审完？", "date"),
    ("I need the office's email address. What is it?", "contact"),  # nothing asked in the last: the whole decides
    ("What mileage rate do they reimburse?", "amount"),  # a rate asked, as 税率 asks
])
def test_the_need_of_a_question(question: str, kind: str) -> None:
    assert question_need(question).kind == kind


def test_yes_no_modals_and_language() -> None:
    assert question_need("发票丢了可以报销吗？").modal == "可以"
    assert question_need("能不能用个人银行卡？").modal == "能"
    assert question_need("有没有补助？").modal == "有"
    # an 有 / 是 of the subject does not ask: the auxiliary before the verb does; one inside a word is no auxiliary
    assert question_need("有欠税记录的商户可以申请补助吗？").modal == "可以"
    assert question_need("有发票吗？").modal == "有" and question_need("有可能被拒绝吗？").modal == "有"
    assert question_need("哪些票据可以报销吗？").kind != "yesno"  # an open word makes it an open question
    assert question_need("明天再来取件，行不行？").modal == "可以" and question_need("周一交，行吗？").modal == "可以"
    assert is_english("Can I claim a lost receipt?") and not is_english("发票丢了可以报销吗？")
    assert question_need("Can I claim a lost receipt?") == Need("yesno", "can", True)


@pytest.mark.parametrize(("question", "kind", "modal"), [
    ("能告诉我财务大厅的电话吗？", "contact", ""),  # a request: what it asks for decides
    ("住宿费标准能告诉我吗？", "amount", ""),
    ("能否告知是否需要部门负责人签字？", "yesno", "需要"),  # the request asks a yes/no question
    ("能帮我报销吗？", "yesno", "能"),  # asking for the thing itself, not to be told
    ("Can you tell me where the offices are?", "place", ""),
    ("Could you explain why margins fell?", "reason", ""),
    ("Is the list of documents complete?", "yesno", "is"),  # "list" as a noun requests nothing
])
def test_a_request_to_be_told_is_not_a_yes_no_question(question: str, kind: str, modal: str) -> None:
    need = question_need(question)
    assert (need.kind, need.modal) == (kind, modal)


@pytest.mark.parametrize(("question", "asks"), [
    ("那报账大厅呢？", False), ("And the year before?", False), ("What about 2021?", False),
    ("报账大厅有什么特点？", True), ("需要带发票吗", True), ("为何延期", True), ("How did revenue change?", True),
    ("哪年开始的？", True), ("宿舍条件怎样？", True), ("要多久？", True),
    ("Is the report audited?", True),
])
def test_a_question_asks_in_words_of_its_own_or_continues_the_turn_before(question: str, asks: bool) -> None:
    assert asks_something(question) is asks


def test_budget_keeps_the_first_line_cut_and_later_lines_only_whole() -> None:
    long = "甲" * 50 + "，" + "乙" * 50 + "，" + "丙" * 50 + "[1]。"
    assert plain_length("文字[1][2]。") == 3
    cut = shorten(long, 120)
    assert cut.endswith("…[1]。") and plain_length(cut) <= 120 and "乙" * 50 in cut and "丙" not in cut
    assert fit_budget([long, "短句[2]。"], 120) == [cut]
    assert fit_budget(["一句话[1]。", "乙" * 200 + "[2]。", "再一句[3]。"], 30) == ["一句话[1]。", "再一句[3]。"]
    # an answer is never longer than its budget, the full stop after a cut line's citations counted
    assert plain_length(shorten("甲" * 300 + "[1]。", 300)) <= 300
    assert shorten("甲" * 299 + "[1]。", 300) == "甲" * 299 + "[1]。"


def test_a_long_line_after_the_first_is_quoted_in_part_when_enough_budget_is_left() -> None:
    """The best matching sentence after the top chunk's is often the long one: the part of it that fits is read
    rather than the short lines after it; the evaluation's first-sentences reference keeps whole lines only."""
    first, long = "一句话[1]。", "甲" * 100 + "，" + "乙" * 150 + "[2]。"
    lines = fit_budget([first, long, "再一句[3]。"], 200)
    assert lines[0] == first and lines[1].startswith("甲" * 100) and lines[1].endswith("…[2]。")
    assert len(lines) == 2 and sum(plain_length(line) for line in lines) <= 200
    assert fit_budget([first, long, "再一句[3]。"], 200, parts=False) == [first, "再一句[3]。"]


def test_yes_no_lead_reads_the_supporting_sentence() -> None:
    need = question_need("发票丢了可以报销吗？")
    assert yes_no_lead(need, "可凭证明报销[1]。", True) == "可以"
    assert yes_no_lead(need, "个人消费的票据不得报销[1]。", True) == "不可以"
    assert yes_no_lead(question_need("有没有补助？"), "出差期间没有补助[1]。", True) == "没有"
    assert yes_no_lead(need, "", False) == "资料中未明确说明。"
    english = question_need("Can I claim a lost receipt?")
    assert yes_no_lead(english, "Lost receipts cannot be claimed[1].", True) == "No."
    assert yes_no_lead(english, "", False) == "Not stated in the documents. "
    # the alternatives of a choice refuse nothing
    price = question_need("Can I charge for copies?")
    assert yes_no_lead(price, "You may charge any price or no price for each copy that you convey[1].", True) == "Yes."
    assert yes_no_lead(price, "You may convey copies, whether or not you charge for them[1].", True) == "Yes."
    assert yes_no_lead(price, "You may not charge for copies, or for support[1].", True) == "No."


def test_materials_question_leads_with_the_materials_and_a_steps_follow_up_with_the_steps() -> None:
    p = packed(["travel#1"], PROCESS)
    materials = extractive_answer("出差报销需要哪些材料？", p, "process", PROCESS)
    steps = extractive_answer("出差报销的办理流程呢？", p, "process", PROCESS)
    assert materials.startswith("所需材料：报销单、发票原件、情况说明[1]。")
    assert steps.startswith("办理步骤：1. 填写报销单；2. 部门负责人签字；3. 提交审核[1]。")
    assert materials != steps
    place = extractive_answer("出差报销在哪里办理？", p, "process", PROCESS)
    assert place.startswith("办理地点：财务大厅3号窗口[1]。")
    # a sentence of another document matching better does not push the steps asked for out of the budget
    rules = Chunk("rules#1", "rules", "制度汇编", "制度汇编", "出差报销的办理流程由财务处制定并公布。")
    both = pack(PROCESS, ["rules#1", "travel#1"], [], {**CHUNKS, "rules#1": rules}, max_chars=3500)
    flow = extractive_answer("出差报销的办理流程呢？", both, "process", PROCESS, ["出差", "报销", "办理", "流程"])
    assert flow.startswith("办理步骤："), flow
    # a why-question is not answered by the procedure's steps: the sentences answer it
    why = extractive_answer("票据遗失为什么可以报销？", packed(["travel#1", "travel#2"], PROCESS), "process", PROCESS,
                            ["票据", "遗失", "报销"])
    assert not why.startswith("办理步骤") and "可凭开票单位出具的证明" in why, why


def test_yes_no_answers_start_with_the_answer_then_the_sentence() -> None:
    yes = extractive_answer("票据遗失可以报销吗？", packed(["travel#2", "travel#1"]), "fact", {},
                            ["票据", "遗失", "报销"])
    assert yes.startswith("可以[1]。票据遗失的，可凭开票单位出具的证明和本人书面说明报销[1]。")
    no = extractive_answer("个人消费的票据可以报销吗？", packed(["travel#3", "travel#1"]), "fact", {},
                           ["个人", "消费", "票据", "报销"])
    assert no.startswith("不可以[1]。个人消费的票据不得报销[1]。")
    unknown = extractive_answer("出差可以带家属吗？", packed(["travel#1"]), "fact", {}, ["出差", "家属"])
    assert unknown.startswith("资料中未明确说明。")
    short = extractive_answer("票据遗失可以报销吗？", packed(["travel#2", "travel#1"]), "fact", {},
                              ["票据", "遗失", "报销"], budget=20)
    assert short.startswith("可以。票据遗失的") and short.endswith("…[1]。")  # the support cut, not dropped


def test_english_questions_get_english_answers_with_their_figures() -> None:
    text = extractive_answer("How much did net revenue rise in the third quarter?", packed(["memo#1"]), "fact",
                             {}, ["net", "revenue", "third", "quarter"])
    assert text.startswith("Net revenue rose to $4.2 million in the third quarter of 2024[1].")
    assert "。" not in text
    process = {"steps": ["Fill in the form", "Ask for a signature"], "sources": {"steps": "memo#1"}}
    steps = extractive_answer("How do I file a claim?", packed(["memo#1"], process), "process", process)
    assert steps.startswith("Steps: 1. Fill in the form; 2. Ask for a signature[1].")


def test_the_answer_stays_within_its_budget() -> None:
    p = packed(["travel#1", "travel#2", "travel#3"])
    for budget in (40, 80, 300):
        text = extractive_answer("出差报销怎么办理？", p, "fact", {}, ["出差", "报销", "办理"], budget)
        assert 0 < plain_length(text) <= budget
        assert all(re.search(r"\[\d+\][。.]?$", s) for s in re.split(r"(?<=[。])", text) if s)


def test_need_evidence_and_the_lead_reference() -> None:
    assert evidence_bonus(question_need("在哪里办理？"), "地点在行政楼201室") > 0
    assert evidence_bonus(question_need("在哪里办理？"), "请按时办理") == 0
    assert evidence_bonus(question_need("电话是多少？"), "联系电话027-87654321") > 0
    p = packed(["travel#1", "travel#2"])
    lead = lead_text(p.pieces, 40)
    assert lead.startswith("出差返回后在系统中填写报销单。") and plain_length(lead) <= 40
    assert first_sentence("可以[1]。票据遗失的，可凭证明报销[1]。") == "可以。"
    # a numbered item's "1. " does not end the first sentence; a figure's decimal point never did
    assert first_sentence("办理步骤：1. 填写报销单；2. 提交审核[1]。") == "办理步骤：1. 填写报销单；"
    assert first_sentence("Revenue was 4.2 million. Costs rose.") == "Revenue was 4.2 million."
    # a quotation is whole
    assert first_sentence("他说「先审核；后付款」[1]。然后离开[1]。") == "他说「先审核；后付款」。"


def test_english_words_match_by_stem_and_without_stopwords() -> None:
    assert grams("The Revenues of the company") == grams("revenue company")
    assert "the" not in grams("What is the effective tax rate?")


def test_a_sentence_the_window_cut_is_known_as_cut() -> None:
    body = "negatively impacted organic growth by 4.5 points. Sales rose in every segment. Overall, the impact of the"
    assert cut_by_window("negatively impacted organic growth by 4.5 points.", body)
    longer = body.replace("Overall,", "Overall, we expect that")
    assert cut_by_window("Overall, we expect that the impact of the", longer)
    assert not cut_by_window("Sales rose in every segment.", body)
    # a bulleted item needs no full stop: the last of a list is whole; a numbered one reads as a sentence
    items = "Attributes:\n- sl      sepal length in centimetres\n- pw      petal width, measured at its widest part"
    assert not cut_by_window("- pw      petal width, measured at its widest part", items)
    numbered = "网上报名：\n1.《报名申请表》：网上报名时，请按报名系统的提示逐项填写个人信息与联系方式以及"
    assert cut_by_window("1.《报名申请表》：网上报名时，请按报名系统的提示逐项填写个人信息与联系方式以及", numbered)
    assert not cut_by_window("出差返回后填写报销单。", "出差返回后填写报销单。报销单由负责人签字后提交")
    quoted = "处长在会上强调，报销须在返回后三十天内办理完毕，他说「逾期不再受理」"  # a closing quote ends a sentence
    assert not cut_by_window(quoted, f"出差返回后填写报销单。{quoted}")
    # a document's first chunk starts where the document does: "nonlocal_stmt ::= …" is no piece of a sentence
    grammar = 'nonlocal_stmt ::= "nonlocal" identifier. The statement rebinds names.'
    assert cut_by_window('nonlocal_stmt ::= "nonlocal" identifier.', grammar)
    assert not cut_by_window('nonlocal_stmt ::= "nonlocal" identifier.', grammar, opens_document("nonlocal#0000"))
    assert not opens_document("nonlocal#0001")


def test_a_short_sentence_closed_by_its_full_stop_is_a_candidate_a_fragment_is_not() -> None:
    shown = [u.shown for u in candidate_units("王建国，湖北人。已退休。财务处\n处长。", set())]
    assert "已退休。" in shown and "王建国，湖北人。" in shown
    assert "财务处" not in shown and "处长。" not in shown


def test_a_who_question_is_answered_by_a_sentence_naming_someone_it_does_not_name() -> None:
    need = question_need("财务处处长是谁？")
    assert evidence_bonus(need, "财务处处长由王建国同志担任。", "财务处处长是谁？") > 0
    assert evidence_bonus(need, "财务处负责全校的报销审核工作。", "财务处处长是谁？") == 0
    assert evidence_bonus(need, "王建国是财务处处长。", "王建国是谁？") == 0  # the question's own name answers nothing
    english = question_need("Who is the chief financial officer?")
    assert evidence_bonus(english, "Jane Smith, our Chief Financial Officer, signed the report.", "") > 0
    p = one_doc("财务处简介", "财务处处长的职责是统筹全校财务工作。"
                 "财务处处长由王建国担任，分管预算与报销。")
    assert "王建国" in first_sentence(extractive_answer("财务处处长是谁？", p, "person", {}, ["财务处", "处长"]))


def test_a_who_question_is_not_answered_by_a_phone_number_alone() -> None:
    p = one_doc("某中心简介", "咨询电话：13800001111。某中心主任由陈晓东担任。", "org#1")
    phone_only = {"phone": "13800001111", "mention": "13800001111",
                  "sources": {"phone": "org#1", "mention": "org#1"}}
    answer = extractive_answer("某中心主任是谁？", p, "person", phone_only, ["某中心", "主任"])
    assert "陈晓东" in first_sentence(answer), answer
    asked = extractive_answer("某中心的咨询电话是多少？", p, "person", phone_only, ["某中心", "咨询", "电话"])
    assert asked.startswith("13800001111"), asked  # a contact question is


@pytest.mark.parametrize(("question", "role"), [
    ("图书馆的馆长是谁？", "馆长"),
    ("谁是这部小说的作者？", "作者"),
    ("该协会是由谁发起的？", ""),  # names no role: any name answers
    ("Who is the chief financial officer of the company?", "chief financial officer"),
    ("Who signed the annual report?", "sign"),  # the verb's stem: "signed by", "Signature:" fill it
    ("这位作家是谁的学生？", ""),  # asks whose student, not who fills a role
])
def test_the_role_a_who_question_asks_to_fill(question: str, role: str) -> None:
    assert asked_role(question).name == role


def test_a_role_is_filled_in_a_sentence_about_whose_role_it_is() -> None:
    role = asked_role("某图书馆的馆长是谁？")
    assert role.filled_by("某图书馆馆长陈晓东出席。", "陈晓东")
    assert not role.filled_by("另一所学校的馆长陈晓东出席。", "陈晓东")  # a librarian, not this library's


def test_a_role_is_filled_under_a_heading_naming_whose_role_it_is() -> None:
    role = asked_role("某图书馆的馆长是谁？")
    assert role.filled_by("现任馆长为陈晓东研究员。", "陈晓东", "某图书馆 > 概况")  # the page says whose
    assert not role.filled_by("现任馆长为陈晓东研究员。", "陈晓东", "另一所学校 > 概况")
    need = question_need("某图书馆的馆长是谁？")
    assert evidence_bonus(need, "现任馆长为陈晓东研究员。", "某图书馆的馆长是谁？", "某图书馆") > \
        evidence_bonus(need, "现任馆长为陈晓东研究员。", "某图书馆的馆长是谁？")


@pytest.mark.parametrize(("head", "title"), [
    ("西土城站 (北京市)", "西土城站"),  # a disambiguation is not part of the name asked
    ("出差报销指南 > 办理", "出差报销指南"),
    ("某学会征文通知 · 2021-01-20", "某学会征文通知"),
    ("年度报告（第3页）", "年度报告"),
])
def test_the_title_of_a_pieces_head_line(head: str, title: str) -> None:
    assert page_title(head) == title


def test_the_pages_a_question_names() -> None:
    heads = [("a", "张三"), ("b", "李四 > 生平"), ("c", "张"), ("d", "Quarterly report · FY2024")]
    assert asked_pages("张三从事什么职业？", heads) == {"a"}  # a one-character title names nothing
    assert asked_pages("What does the quarterly report say about revenue?", heads) == {"d"}
    assert asked_pages("王五是谁？", heads) == frozenset()
    assert asked_pages("How is syntax checked?", [("t", "Tax")]) == frozenset()  # a Latin title as whole words
    assert asked_pages("What is the tax rate?", [("t", "Tax")]) == {"t"}


def test_the_page_a_question_names_answers_before_another_documents_echo() -> None:
    # the other document's sentence echoes the question's predicate (从事…职业) about someone else
    chunks = {"zhang#1": Chunk("zhang#1", "zhang", "张三", "张三", "张三，京剧琴师，曾为名家操琴。他自幼学习京胡。"),
              "li#1": Chunk("li#1", "li", "李四", "李四", "李四是一名教师。他的儿子从事职业治疗，在医院工作。")}
    p = pack({}, ["zhang#1", "li#1"], [], chunks, max_chars=3500)
    answer = extractive_answer("张三从事什么职业？", p, "fact", {}, ["张三", "从事", "职业"])
    assert first_sentence(answer).startswith("张三，京剧琴师"), answer


def test_a_who_answer_names_someone_next_to_the_role_asked() -> None:
    question = "图书馆的馆长是谁？"
    need = question_need(question)
    beside = evidence_bonus(need, "开幕式由图书馆馆长陈晓东主持。", question)
    elsewhere = evidence_bonus(need, "图书馆馆长出席了开幕式，读者代表张海峰发言。", question)
    assert beside > elsewhere > 0
    assert next_to("陈晓东馆长致辞", "馆长", "陈晓东")
    assert not next_to("馆长致辞后，读者代表陈晓东发言", "馆长", "陈晓东")
    p = one_doc("图书馆新闻", "图书馆馆长出席了图书馆的读书节开幕式，"
                 "读者代表张海峰在图书馆发言。本届读书节由图书馆馆长陈晓东主持。")
    assert "陈晓东" in first_sentence(extractive_answer(question, p, "person", {}, ["图书馆", "馆长"]))


def test_a_foreign_name_written_with_a_middle_dot_is_one_person() -> None:
    from lambdarag.text.people import person_names

    assert person_names("主演为莱昂纳多·迪卡普里奥和凯特·温斯莱特。")[:2] == ("莱昂纳多·迪卡普里奥", "凯特·温斯莱特")
    assert person_names("约翰·菲茨杰拉德·肯尼迪，美国第35任总统。")[0] == "约翰·菲茨杰拉德·肯尼迪"
    assert not any("·" in n for n in person_names("·开头，甲·。"))  # a dot no part follows joins nothing
    # the spouse asked is named next to the role even where the tagger reads her name in pieces ("杜邦" is asked)
    question = "雅克·杜邦的妻子是谁？"
    need = question_need(question)
    assert evidence_bonus(need, "2005年，杜邦遇上车祸，妻子苏珊·杜邦不幸身亡。", question) > evidence_bonus(
        need, "雅克·杜邦与总理罗卡尔共事多年。", question) > 0


def test_one_page_may_give_every_sentence_of_the_answer() -> None:
    # the third best sentence answers; it is on the same page as the two before it, and the budget has room
    p = one_doc("林小雨", "林小雨出身于某省某市，某高级中学毕业。林小雨高中毕业后，入读某市的艺术专门学校。"
                "林小雨，歌手、舞台剧演员。她也曾在地方电视台主持节目。")
    answer = extractive_answer("林小雨的职业是什么？", p, "fact", {}, ["林小雨", "职业"])
    assert "歌手、舞台剧演员" in answer, answer


def test_a_question_for_someones_duties_is_answered_by_the_duties_first() -> None:
    person = {"name": "陈晓东", "title": "馆长", "department": "某图书馆", "phone": "027-1000",
              "duties": "主持全面工作，分管流通部", "sources": {k: "travel#1" for k in ("name", "phone", "duties")}}
    p = packed(["travel#1"], person)
    duties = extractive_answer("陈晓东负责哪些工作？", p, "person", person, ["陈晓东", "负责", "工作"])
    assert duties.startswith("主要职责：主持全面工作"), duties
    phone = extractive_answer("陈晓东的电话是多少？", p, "person", person, ["陈晓东", "电话"])
    assert phone.startswith("某图书馆馆长陈晓东，办公电话027-1000"), phone


def test_a_heading_naming_someone_next_to_the_role_asked_answers_who() -> None:
    # a line without punctuation is a heading and never answers, unless it names who fills the role asked
    p = one_doc("建馆八十周年", "建馆八十周年纪念\n本馆的创建者——陈晓东先生\n"
                "他一生致力于本馆的创建与藏书建设，是本馆历史上最重要的人物之一。")
    answer = extractive_answer("谁是本馆的创建者？", p, "person", {}, ["本馆", "创建者"])
    assert "陈晓东" in first_sentence(answer), answer
    p = one_doc("建馆八十周年", "建馆八十周年纪念\n陈晓东先生\n他一生致力于本馆的藏书建设。")
    assert "陈晓东先生[" not in extractive_answer("谁是本馆的创建者？", p, "person", {}, ["本馆", "创建者"])


@pytest.mark.parametrize(("text", "dated"), [
    ("报名：即日起至3月8日，逾期不再受理。", True),
    ("材料须于十月九日前寄出。", True),
    ("Applications close on March 8.", True),
    ("Payment is due by the 8th of March.", True),
    ("更新时间：2021-01-20", True),
    ("本次活动共有12位同学参加。", False),
    ("May we submit it twice?", False),
])
def test_a_date_is_seen_without_its_year(text: str, dated: bool) -> None:
    assert mentions_date(text) is dated


def test_a_deadline_is_answered_by_the_span_it_is_given_in() -> None:
    assert mentions_date("须在出差返回后30天内报销。", within=True)
    assert mentions_date("Claims are paid within 5 business days.", within=True)
    assert not mentions_date("须在出差返回后30天内报销。")  # a span is a date only for a deadline
    # …or the hour a thing is due by
    assert mentions_date("Forms must be submitted by 11:59 pm (UK time) on the day after the exam.", within=True)
    assert not mentions_date("Open by appointment only.", within=True)
    p = one_doc("某单位差旅规定", "本规定自2021年1月1日起施行。报销时限：出差返回后30天内。")
    answer = extractive_answer("某单位报销的截止时间是什么时候？", p, "fact", {}, ["某单位", "报销", "截止"])
    assert first_sentence(answer).startswith("报销时限：出差返回后30天内"), answer


def test_a_when_question_is_answered_by_a_deadline_written_without_its_year() -> None:
    p = one_doc("某学会2021年征文通知", "某学会2021年征文通知 · 2021-01-20\n"
                 "征文须使用《某学会2021年征文报名表》填写作者信息。\n"
                 "投稿：即日起至3月8日，请通过电子邮箱提交全文。")
    answer = extractive_answer("某学会2021年征文的投稿截止日期是什么时候？", p, "temporal", {},
                               ["某学会", "2021年", "征文", "投稿", "截止", "日期"])
    assert "3月8日" in first_sentence(answer), answer


def test_a_list_question_over_a_table_shows_its_rows_in_order() -> None:
    p = packed(["list#1"])
    listed = extractive_answer("合作单位名单包括哪些单位？", p, "fact", {}, ["合作", "单位", "名单"])
    assert all(f"第{i}合作单位" in listed for i in (1, 2, 3, 12)), listed
    second = extractive_answer("合作单位名单中排在第二的单位是哪个？", p, "fact", {}, ["合作", "单位", "名单"])
    assert "第2合作单位" in second, second


def test_the_words_naming_a_table_pick_none_of_its_rows() -> None:
    # the question names the table ("舞蹈表演专业招生计划") and the row ("民族舞"); the first row's label repeats the
    # table's name, which must not make it the answer
    table = ("| 专业名称 | 专业方向 | 学制 |\n| 舞蹈表演计划20人 | 芭蕾 | 四年制 |\n| 民族舞 | 五年制 |\n"
             "| 现代舞 | 四年制 |\n| 国标舞 | 四年制 |\n| 古典舞 | 四年制 |\n| 编导 | 四年制 |\n"
             "| 街舞 | 四年制 |\n| 踢踏舞 | 四年制 |")
    title = "2024年舞蹈表演专业招生计划"
    chunks = {"t#1": Chunk("t#1", "t", title, title, table, is_table=True)}
    p = pack({}, ["t#1"], [], chunks, max_chars=3500)
    answer = extractive_answer("根据2024年舞蹈表演专业招生计划，民族舞方向的学制是几年？", p, "fact", {},
                               ["2024年", "舞蹈表演", "专业", "招生", "计划", "民族舞", "学制"])
    assert first_sentence(answer).startswith("专业名称：民族舞"), answer


def test_the_rest_of_a_table_without_its_header_is_read_as_data() -> None:
    # a table continued from the chunk before: its first row starts with a serial number as the others do, so it
    # is data, and no cell of it is shown as a column's name
    table = ("| 7 | 法学类 | 法学院 | 法学 |\n| 8 | 外语类 | 外国语学院 | 英语、日语 |\n"
             "| 9 | 新闻类 | 新闻学院 | 新闻学 |\n| 10 | 艺术类 | 艺术学院 | 音乐学 |")
    chunks = {"t#2": Chunk("t#2", "t", "某校招生简章", "某校招生简章", table, is_table=True)}
    p = pack({}, ["t#2"], [], chunks, max_chars=3500)
    answer = extractive_answer("外语类专业由哪个学院培养？", p, "fact", {}, ["外语类", "专业", "学院", "培养"])
    assert "外国语学院" in answer and "7：" not in answer and "法学类：" not in answer, answer


def test_a_list_question_is_answered_by_a_line_enumerating_its_items() -> None:
    # a table flattened one cell a line: the line of items has no punctuation, like a heading, and still answers
    p = one_doc("2024年招生专业目录", "序号\n招生专业名称\n分流专业\n1\n新闻传播学类\n新闻学、广播电视学、广告学\n"
                "2\n社会学类\n社会学、社会工作、人口学\n3\n法学\n法学")
    answer = extractive_answer("2024年社会学类招收哪些专业？", p, "fact", {}, ["2024年", "社会学类", "招收", "专业"])
    assert "社会学、社会工作、人口学" in answer, answer


def test_a_list_written_one_item_a_line_is_read_whole_after_its_label() -> None:
    from lambdarag.answer.lines import listed_items

    lines = ["化学系", "http://chem.example.edu/", "化学系成立于1950年，设有两个本科专业。", "本科专业：", "化学",
             "应用化学", "物理系", "http://phys.example.edu/", "物理系设有物理学专业。", "答：", "联系电话"]
    assert listed_items(lines) == [
        ("化学系", ""), ("http://chem.example.edu/", ""), ("化学系成立于1950年，设有两个本科专业。", ""),
        ("本科专业：化学、应用化学。", "化学系成立于1950年，设有两个本科专业。"),  # 物理系 heads the next block
        ("物理系", ""), ("http://phys.example.edu/", ""), ("物理系设有物理学专业。", ""),
        ("答：", ""), ("联系电话", "")]
    p = one_doc("院系介绍", "\n".join([
                 "化学系", "化学系成立于1950年，历史悠久。", "本科专业：", "化学", "应用化学", "材料化学",
                 "物理系", "物理系成立于1952年，历史悠久。", "本科专业：", "物理学", "天文学"]))
    answer = extractive_answer("化学系有哪些本科专业？", p, "fact", {}, ["化学系", "本科专业"])
    assert first_sentence(answer).startswith("本科专业：化学、应用化学、材料化学"), answer


def test_a_list_questions_lead_in_is_followed_by_its_items() -> None:
    from lambdarag.answer.follow_on import enumerates

    assert enumerates("课时安排是：导言—诗律、诗韵—对仗—绝句。") and not enumerates("这门课非常受学生欢迎。")
    p = one_doc("某学院课程介绍", "某学院开设的写作课非常受学生欢迎。课时安排是：导言—诗律、诗韵—对仗—绝句。"
                 "课后同学们交作业。")
    keywords = ["某学院", "开设", "写作课", "讲授"]
    answer = extractive_answer("某学院开设的写作课主要讲授哪些内容？", p, "fact", {}, keywords)
    assert "导言—诗律、诗韵—对仗—绝句" in answer, answer


def test_a_why_questions_statement_is_followed_by_its_reason() -> None:
    p = one_doc("某蛛", "某蛛的雄蛛体型细小。雄蛛交配时会很小心地走近雌蛛。"
                 "若不小心，就会被雌蛛吃下。雌蛛每年产卵一次。")
    keywords = ["某蛛", "雄蛛", "交配", "雌蛛"]
    answer = extractive_answer("某蛛的雄蛛交配时为什么要很小心地走近雌蛛？", p, "fact", {}, keywords)
    assert "若不小心，就会被雌蛛吃下" in answer, answer


def test_an_english_sentence_is_not_cut_at_an_abbreviation() -> None:
    from lambdarag.text.english import rejoin_abbreviations
    from lambdarag.text.tokenizer import split_sentences

    text = ("We work with the U.S. Government on several programs. Acme Holdings Inc. reported results. "
            "Sales rose 3%. 本句不变。")
    assert rejoin_abbreviations(split_sentences(text)) == [
        "We work with the U.S. Government on several programs.", "Acme Holdings Inc. reported results.",
        "Sales rose 3%.", "本句不变。"]
    chunks = {"k#1": Chunk("k#1", "k", "Annual report", "Annual report",
                           "Our revenue depends on contracts with the U.S. Government, which may end them at will.")}
    p = pack({}, ["k#1"], [], chunks, max_chars=3500)
    answer = extractive_answer("What does our revenue depend on?", p, "fact", {}, ["revenue", "depend"])
    assert "U.S. Government, which may end them" in answer, answer


def test_hard_wrapped_lines_are_one_sentence_again() -> None:
    from lambdarag.answer.lines import unwrapped_lines

    body = ("Net revenue for the year increased primarily due to the opening\nof 47 new stores and higher sales.\n"
            "Results\n- first item\n- second item")
    assert unwrapped_lines(body) == [
        "Net revenue for the year increased primarily due to the opening of 47 new stores and higher sales.",
        "Results", "- first item", "- second item"]
    wrapped = "这是一段在页面宽度处被提取程序硬换行的很长的中文句子，它的后半\n部分在下一行。\n\n新段落"
    assert unwrapped_lines(wrapped) == [
        "这是一段在页面宽度处被提取程序硬换行的很长的中文句子，它的后半部分在下一行。", "新段落"]
    # broken around a link or emphasis: a comma opens the sentence, which runs on until it closes
    broken = "近日，\n化学系某研究团队\n在可降解材料领域取得重要进展，\n成果已发表。\n三、日程安排\n1、报名：即日起"
    assert unwrapped_lines(broken) == ["近日，化学系某研究团队在可降解材料领域取得重要进展，成果已发表。",
                                       "三、日程安排", "1、报名：即日起"]
    # inside an opened sentence, short bare lines are a list written one item a line: they stay lines
    assert unwrapped_lines("主要课程包括，\n微积分\n线性代数\n概率论") == ["主要课程包括，微积分", "线性代数", "概率论"]
    # punctuation on a line of its own belongs to the line before; English keeps its space after a comma
    assert unwrapped_lines("因此\n,\n毕业后选择广泛\n:\n- 工程师") == ["因此,毕业后选择广泛:", "- 工程师"]
    assert unwrapped_lines("on a consolidated basis,\nunless stated otherwise.") == [
        "on a consolidated basis, unless stated otherwise."]


def test_slot_lines_without_a_core_aspect_leave_the_answer_to_the_sentences() -> None:
    incidental = {"where": "档案室", "sources": {"where": "travel#1"}}
    p = packed(["travel#1"], incidental)
    how = extractive_answer("报销单是怎么提交审核的？", p, "process", incidental, ["报销单", "提交", "审核"])
    assert not how.startswith("办理地点"), how
    assert "签字后提交审核" in how
    where = extractive_answer("报销单在哪里提交？", p, "process", incidental, ["报销单", "提交"])
    assert where.startswith("办理地点：档案室[1]。")


@pytest.mark.parametrize(("text", "amount"), [
    ("水深0至12公尺。", True),
    ("全长36.8公里，设车站26座。", True),
    ("成鱼重约3公斤。", True),
    ("Revenue grew to $4.2 billion.", True),
    ("The rate fell by 3 percent.", True),
    ("It opened in 2016.", False),
    ("编号L5。", False),
])
def test_an_amount_is_a_figure_with_its_unit(text: str, amount: bool) -> None:
    from lambdarag.answer.asked_values import AMOUNT

    assert bool(AMOUNT.search(text)) is amount


def test_a_how_much_question_is_answered_by_a_figure_in_a_unit_of_measure() -> None:
    p = one_doc("某湖", "某湖水深较浅的区域位于东岸，适合游泳。"
                 "某湖水深最大处约42米。")
    answer = extractive_answer("某湖的水深是多少？", p, "fact", {}, ["某湖", "水深"])
    assert "42米" in first_sentence(answer), answer


def test_a_where_from_question_is_answered_by_a_birthplace() -> None:
    need = question_need("张某的出生地是哪里？")
    assert evidence_bonus(need, "张某（1901年－1980年），生于江城，是一位画家。") > 0
    assert evidence_bonus(need, "张某祖籍江城。") > 0
    assert evidence_bonus(need, "每名学生于入学时编入一个学社。") == 0  # 学生于… says no place


def test_a_sentence_echoing_the_questions_predicate_outscores_one_that_only_shares_its_subject() -> None:
    from lambdarag.answer.sentences import scored_sentences

    p = one_doc("某鸟", "某鸟主要分布在北岛的中部。某鸟主要猎食蝉和蜘蛛。")
    keywords = ["某鸟", "主要", "食物"]
    scored = {s.sentence: s.score for s in scored_sentences("某鸟主要的食物是什么？", p.pieces, keywords, "fact")}
    assert scored["某鸟主要猎食蝉和蜘蛛。"] > scored["某鸟主要分布在北岛的中部。"], scored


def test_a_one_character_word_the_question_asks_about_is_echoed_though_no_keyword() -> None:
    from lambdarag.answer.sentences import scored_sentences
    from lambdarag.answer.unsaid import lone_characters

    assert lone_characters("某鸟的蛋有什么特征？", ["某鸟", "特征"]) == ["蛋"]
    assert lone_characters("某鸟以什么为食？", ["某鸟"]) == ["食"]
    assert lone_characters("某鸟在外形上有什么特征？", ["某鸟", "外形", "特征"]) == []  # 上 places, asks nothing
    assert lone_characters("司马晏为什么被抓？", ["司马"]) == ["抓"]  # 晏 next to 司马: part of the name
    p = one_doc("某鸟", "某鸟是一种大型的鸟类，体长约80厘米。雌鸟每次产2枚，蛋表面粗糙，呈白色。")
    scored = {s.sentence: s.score for s in scored_sentences("某鸟的蛋有什么特征？", p.pieces, ["某鸟", "特征"], "fact")}
    assert scored["雌鸟每次产2枚，蛋表面粗糙，呈白色。"] > scored["某鸟是一种大型的鸟类，体长约80厘米。"], scored


def test_a_where_answer_states_where_more_than_it_names_a_place() -> None:
    need = question_need("某车站在什么地方？")
    named = evidence_bonus(need, "某车站是江城区的一个换乘站。", "某车站在什么地方？")
    stated = evidence_bonus(need, "某车站位于江城区东路与西路交叉口。", "某车站在什么地方？")
    assert stated > named > 0
    origin = question_need("张某是哪里人？")
    assert evidence_bonus(origin, "张某，字子石，江城人。", "张某是哪里人？") > evidence_bonus(
        origin, "张某曾在江城区任职。", "张某是哪里人？")
    # a note in brackets between the place and 人 ("江城县东镇（今东区）人")
    assert evidence_bonus(origin, "江城县东镇（今东区）人。", "张某是哪里人？") == evidence_bonus(
        origin, "张某，字子石，江城人。", "张某是哪里人？")
    for asked in ("张某是什么地方的人？", "张某的籍贯是哪里？", "张某出身于什么地方？"):  # where from, in other words
        assert evidence_bonus(question_need(asked), "张某，字子石，江城人。", asked) > evidence_bonus(
            question_need(asked), "张某曾在江城区任职。", asked), asked
    assert evidence_bonus(question_need("Where is the plant?"), "The plant is located in Ohio.") > evidence_bonus(
        question_need("Where is the plant?"), "The plant makes steel.")


def test_a_clause_opening_with_yin_states_a_reason() -> None:
    need = question_need("他号“白石翁”的原因是什么？")
    assert evidence_bonus(need, "他字子石，因须发早白，又号白石翁。") > 0
    assert evidence_bonus(need, "他字子石，又号白石翁。") == 0
    assert evidence_bonus(need, "此书因此流传甚广。") > 0  # 因此 was a mark already
    assert evidence_bonus(need, "这是一项基因研究。") == 0  # 因 inside a word states nothing


def test_a_count_question_is_answered_by_a_number_in_the_measure_it_asks_for() -> None:
    from lambdarag.answer.asked_values import asked_measure, counted_in

    assert [asked_measure(q) for q in ("联盟有多少家成员单位？", "录取前多少名？", "有几所学校？", "学费是多少？",
                                        "要多少钱？")] == ["家", "名", "所", "", ""]
    # the measure before the 数 a question asks for: 人数 is counted in 人; 总数 or 指数 name no measure
    assert [asked_measure(q) for q in ("招生人数是多少？", "参赛队数有几？", "学生总数是多少？", "指数为多少？")] == \
        ["人", "队", "", ""]
    assert counted_in("家").search("成员单位已达60家") and counted_in("册").search("藏书412万册")
    assert counted_in("年").search("学制四年") and not counted_in("年").search("2014年招生")
    # days asked in 天 are stated in 日 too, not as the day of a date
    assert counted_in("天").search("1000千米为2日") and counted_in("日").search("三天内办结")
    assert not counted_in("天").search("自5月2日起") and counted_in("周").search("两个星期")
    assert not counted_in("家").search("70余人参加会议")
    # people asked with the general classifier (几个人) are counted in 人, 名 or 位, not in another measure
    assert asked_measure("一支队伍要几个人？") == "人" and asked_measure("有几个学院？") == "个"
    assert all(counted_in("人").search(s) for s in ("每组3人", "招收10名研究生", "3位老师", "三个人一组"))
    assert not counted_in("人").search("每组会出现3支队伍")
    # English: the noun counted after "of the", a number in words
    assert asked_measure("How many of the principal authors must be listed?") == "principal"
    assert counted_in("principal").search("together with at least five of the principal authors")
    assert counted_in("members").search("The board has twelve members") and not counted_in("members").search(
        "Members meet twice a year")
    p = one_doc("联盟成立大会", "联盟成立大会召开，联盟成员单位负责同志等70余人参加会议。"
                 "联盟成员单位共有60家，覆盖全国各地。")
    answer = extractive_answer("联盟成员单位有多少家？", p, "fact", {}, ["联盟", "成员", "单位"])
    assert "60家" in first_sentence(answer), answer


def test_a_named_row_empty_under_the_asked_column_gives_no_empty_table_line() -> None:
    from lambdarag.answer.extractive import table_lines

    table = ("2022年录取分数线\n| 专业名称 | 文史类 最高 | 文史类 最低 | 理工类 最高 | 理工类 最低 |\n"
             "| 经济学 | 651 | 650 | 677 | 675 |\n| 法学 | 655 | 652 |  |  |\n| 国际政治 | 648 | 646 |  |  |")
    chunks = {"t#1": Chunk("t#1", "t", "2022年录取分数线", "2022年录取分数线", table, is_table=True)}
    p = pack({}, ["t#1"], [], chunks, max_chars=3500)
    question = "2022年的理工专业中，法学专业的高考最低录取分数线能告诉我吗？"
    assert table_lines(question, p, "data") == []  # before: "2022年录取分数线中，[1]。"
    answer = extractive_answer(question, p, "data", {}, ["理工", "专业", "法学", "最低", "录取", "分数线"])
    assert "中，[" not in answer and "652" in answer, answer


def test_asked_as_of_a_date_the_figure_of_the_latest_year_up_to_it_answers_first() -> None:
    import dataclasses
    from datetime import date

    from lambdarag.answer.as_of import as_of_scores, sentence_years, years_in_turn
    from lambdarag.answer.sentences import scored_sentences

    exam = Chunk("exam#1", "exam", "考试成绩", "考试成绩",
                 "在2021年专业四级考试中，本院学生通过率达93%。在2018年专业四级考试中，本院学生通过率达100%。"
                 "在2019年专业四级考试中，本院学生通过率达96%。")
    p = pack({}, ["exam#1"], [], {"exam#1": exam}, max_chars=3500)
    question, keywords = "本院学生专业四级考试的通过率是多少？", ["本院", "专业", "四级", "考试", "通过率"]
    assert sentence_years("在2019年专业四级考试中，2020年公布") == [2019, 2020]
    # asked without a date, the scores are left as they are
    plain = scored_sentences(question, p.pieces, keywords, "fact")
    assert as_of_scores([[2019]] * len(plain), [s.score for s in plain], None) == [s.score for s in plain]
    # a sentence naming no year is read with the year of the sentence before it in the same chunk
    carried = years_in_turn(["在2019年考试中通过率达96%。", "平均分为74分。", "另一段。"], [1, 1, 2])
    assert carried == [[2019], [2019], []]
    # as of the end of 2019: 2019 answers first, 2021 was not yet, 2018 is a year behind
    as_of = dataclasses.replace(p, as_of=date(2019, 12, 31))
    answer = extractive_answer(question, as_of, "fact", {}, keywords)
    assert answer.startswith("在2019年"), answer
    scores = {s.sentence[:6]: s.score for s in scored_sentences(question, as_of.pieces, keywords, "fact",
                                                                 as_of.as_of)}
    assert scores["在2019年"] > scores["在2018年"] > scores["在2021年"]


def test_a_sentence_saying_the_event_asked_in_other_words_answers() -> None:
    from lambdarag.answer.asked_values import asked_event

    assert asked_event("王某卒于哪一年？") is not None and asked_event("王某卒于哪一年？") is asked_event("何时去世")
    assert asked_event("该校何时创办？") is asked_event("When was the company founded?")
    assert asked_event("王某是哪里人？") is None
    diet = asked_event("这种鱼主要吃什么？")
    assert diet is not None and diet is asked_event("这种鱼以什么为食？") and diet.search("以藻类与小型甲壳类为食。")
    death = asked_event("王某卒于哪一年？")
    assert death is not None and death.search("1994年病逝于江城。") and not death.search("率领士卒渡江。")
    life = Chunk("life#1", "life", "王某", "王某",
                 "1962年，王某被推荐出任江城大学校长。1930年，任江城学院教务长。1994年病逝于江城。")
    p = pack({}, ["life#1"], [], {"life#1": life}, max_chars=3500)
    answer = extractive_answer("王某卒于哪一年？", p, "temporal", {}, ["王某"])
    assert answer.startswith("1994年病逝于江城"), answer


def test_the_number_of_sentences_an_answer_quotes_is_the_operators_setting() -> None:
    rules = Chunk("rules#1", "rules", "报销规定", "报销规定",
                  "报销单须由经办人填写。报销单须由负责人签字。报销单须附发票原件。报销单须在三十天内提交。"
                  "报销单须经财务处审核。")
    p = pack({}, ["rules#1"], [], {"rules#1": rules}, max_chars=3500)
    question, keywords = "报销单的规定是什么？", ["报销单", "规定"]
    assert extractive_answer(question, p, "fact", {}, keywords, sentences=2).count("[1]") == 2
    assert extractive_answer(question, p, "fact", {}, keywords).count("[1]") == 4  # the default: 4
    assert extractive_answer(question, p, "fact", {}, keywords, budget=40, sentences=4).count("[1]") < 4


def test_a_list_a_colon_opens_is_quoted_whole_not_its_first_item() -> None:
    text = ("评审共设三项标准：一是选题有现实意义；二是方法规范可靠；三是结论有数据支撑。"
            "评审由专家组负责。评审结果在学院网站公示。")
    answer = extractive_answer("评审标准有哪些？", one_doc("评审办法", text), "fact", {})
    assert first_sentence(answer).endswith("三是结论有数据支撑。")


ARTICLES = ("第四条 本办法适用于本区登记的个体工商户。\n第五条 申请人应当具备下列条件：\n（一）在本区经营满一年；\n"
            "（二）上年营业额不超过100万元；\n（三）无欠税记录。\n第六条 补助标准为每户一次性3000元。\n"
            "第七条 申请人应当提交下列材料：\n（一）申请表；\n（二）营业执照复印件；\n（三）经营场所证明。\n"
            "第八条 有下列情形之一的，不予补助：\n（一）已领取其他补助的；\n（二）提供虚假材料的。")


def test_a_list_of_clauses_one_a_line_answers_a_question_for_the_list_whole_and_in_order() -> None:
    from lambdarag.answer.lines import clause_lists

    lines = ["申请须提交：", "1. 申请表", "2. 身份证明", "其他事项另行通知。"]
    assert clause_lists(lines) == [("申请须提交：1. 申请表；2. 身份证明。", True), ("其他事项另行通知。", False)]
    assert clause_lists(lines, most=10) == [(line, False) for line in lines]
    answered = ["答：", "1. 申请表", "2. 身份证明"]  # an FAQ's answer label leads no list
    assert clause_lists(answered) == [(line, False) for line in answered]
    english = ["Applicants must provide:", "• a signed form;", "• proof of address.", "Forms are online."]
    assert clause_lists(english)[0] == ("Applicants must provide: • a signed form; • proof of address.", True)
    # a bullet wrapped at the page's width ends the run at its unmarked continuation: no list is made of pieces
    wrapped = ["It holds:", "• that the directors are in control of the", "company;", "• that they act."]
    assert clause_lists(wrapped) == [(line, False) for line in wrapped]
    p = one_doc("个体工商户补助办法", ARTICLES)
    conditions = extractive_answer("申请补助应当具备什么条件？", p, "fact", {})
    assert first_sentence(conditions) == ("第五条 申请人应当具备下列条件：（一）在本区经营满一年；"
                                          "（二）上年营业额不超过100万元；（三）无欠税记录。")
    materials = extractive_answer("申请补助需要提交哪些材料？", p, "fact", {})
    assert first_sentence(materials).startswith("第七条 申请人应当提交下列材料：（一）申请表；（二）营业执照复印件；")
    # a question for one item is answered by that item, not the whole list
    assert first_sentence(extractive_answer("营业额上限是多少？", p, "fact", {})) == "（二）上年营业额不超过100万元。"


def test_an_item_is_read_with_its_lead_in_when_asked_yes_or_no_or_in_which_case() -> None:
    # the item "已领取其他补助的" says nothing of its own polarity: its lead-in "…不予补助：" does
    p = one_doc("个体工商户补助办法", ARTICLES)
    answer = extractive_answer("已领取其他补助的还能申请补助吗？", p, "fact", {})
    assert answer.startswith("不能") and "不予补助：（一）已领取其他补助的" in answer, answer
    assert question_need("什么情况下不予补助？").kind == "conditions"
    which_case = extractive_answer("什么情况下不予补助？", p, "fact", {})
    assert first_sentence(which_case).startswith("第八条 有下列情形之一的")


def test_asked_when_a_thing_is_done_a_rule_giving_within_how_long_answers() -> None:
    p = one_doc("个体工商户补助办法", "第二条 本办法自2025年1月1日起施行。第三条 补助对象为在本区经营满一年的商户。"
                "第四条 审核通过后，补助在10个工作日内发放至申请人账户。")
    assert first_sentence(extractive_answer("补助什么时候发放？", p, "fact", {})).startswith("第四条")
    english = one_doc("Grant rules", "The rules took effect on 1 March 2024. Grants are paid within 10 business days "
                      "of approval. Applicants must run a shop in the district.")
    assert first_sentence(extractive_answer("When are grants paid?", english, "fact", {})).startswith("Grants are paid")


def test_who_may_apply_is_asked_of_the_conditions_and_answered_by_who_is_eligible() -> None:
    assert question_need("哪些人可以申请补助？").kind == "conditions"
    assert question_need("需要满足哪些条件？").kind == "conditions"
    p = one_doc("个体工商户补助办法", "第三条 补助对象为在本区经营满一年的商户。"
                "第六条 申请人应当在每年3月向区商务局提出申请。第九条 骗取补助的，三年内不得再次申请。")
    assert first_sentence(extractive_answer("哪些人可以申请补助？", p, "fact", {})).startswith("第三条")


def test_a_contact_mention_ending_in_a_full_stop_is_closed_once() -> None:
    slots = {"email": "desk@example.com", "mention": "Write to the desk at desk@example.com.",
             "sources": {"email": "doc#1", "mention": "doc#1"}}
    p = one_doc("Travel policy", "Write to the desk at desk@example.com.")
    answer = extractive_answer("Who do I contact about travel?", p, "person", slots)
    assert answer.startswith("Write to the desk at desk@example.com[1]."), answer


NOTICE_TITLE = "关于申报创业补助的通知"
NOTICE = {f"notice#{i}": Chunk(f"notice#{i}", "notice", NOTICE_TITLE, f"{NOTICE_TITLE} > {head}", text)
          for i, (head, text) in enumerate([
              ("一、申报条件", "（一）申报人年龄在18至35周岁之间。\n（二）企业成立不超过3年。"),
              ("二、申报材料", "1. 申报书；\n2. 身份证复印件。"),
              ("三、申报方式", "申报人在线填报，并将纸质材料报送至所在区就业服务中心。"),
              ("四、联系方式", "联系人：王老师，联系电话：010-12345678。"),
          ])}


def test_a_section_headed_by_what_is_asked_answers_it() -> None:
    # "怎么申报" asks how to apply; the section "三、申报方式" says how, the conditions only share the word 申报
    assert question_need("创业补助怎么申报？").kind == "steps"
    p = pack({}, list(NOTICE), [], NOTICE, max_chars=3500)
    answer = extractive_answer("创业补助怎么申报？", p, "process", {})
    # the section saying how leads, before the top chunk's best sentence (retrieval's consensus otherwise leads)
    assert first_sentence(answer).startswith("申报人在线填报"), answer


def test_asked_where_the_materials_go_the_sentence_saying_where_answers_not_the_materials_slot() -> None:
    assert question_need("纸质材料交到哪里？").kind == "place"
    assert question_need("财务处处长是谁？办公室在哪？").kind == "person"  # who, then where: the person's line
    slots = {"materials": ["申报书", "身份证复印件"], "sources": {"materials": "notice#1"}}
    p = pack(slots, list(NOTICE), [], NOTICE, max_chars=3500)
    answer = extractive_answer("纸质材料交到哪里？", p, "process", slots)
    assert first_sentence(answer).startswith("申报人在线填报，并将纸质材料报送至所在区就业服务中心"), answer


@pytest.mark.parametrize(("question", "sentence", "outside"), [
    ("40岁可以申报吗？", "申报人年龄在18至35周岁之间。", True),
    ("30岁可以申报吗？", "申报人年龄在18至35周岁之间。", False),
    ("成立5年的企业能申报吗？", "企业成立时间不超过3年。", True),
    ("成立2年的企业能申报吗？", "企业成立时间不超过3年。", False),  # "超过" inside "不超过" bounds nothing below
    ("26岁可以报名吗？", "未满25周岁的青年均可报名。", True),
    ("研发投入占比2%可以申请吗？", "研发投入比例不低于3%。", True),
    ("Can I apply after 8 years of service?", "Applicants need at least 10 years of service.", True),
    ("6个月内能办完吗？", "2024年5月1日至5月31日受理。", False),  # dates are no limits
    ("成立5年可以吗？", "2020年至2024年成立的企业。", False),
    # the question names the limit, the sentence the figure
    ("Was the offer acceptance rate above 90% in 2022?", "We had an offer acceptance rate of 78%.", True),
    ("Did it employ more than 300,000 people?", "We employed approximately 315,000 people.", False),
    # one of the sentence's figures meets the limit: not refuted
    ("Did it employ more than 300,000 people?", "We employed 315,000 people, including 132,000 in the US.", False),
    ("员工人数超过100人吗？", "公司共有员工80人。", True),
    ("补贴期限超过1年吗？", "补贴期限不超过2年。", False),  # a bound stated is no figure
    # an English figure's measure is the noun it counts
    ("Does the dam supply more than 50,000 homes?", "It supplies electricity to about 40,000 homes.", True),
    ("Does the dam supply more than 30,000 homes?", "It supplies electricity to about 40,000 homes.", False),
    ("Did it open more than 10 stores?", "The company opened 47 new stores.", False),  # "47 new" counts no stores
    # counts in Chinese numerals, a short verb between a bound and its figure
    ("补贴可以领三年吗？", "补贴期限最长不超过两年。", True),
    ("补贴可以领1年吗？", "补贴期限最长不超过两年。", False),
    ("45岁可以申请吗？", "申请人年龄在十八至三十五周岁之间。", True),
    ("一个家庭可以办三张停车证吗？", "每户最多办理两张停车证。", True),
    ("一个家庭可以办两张停车证吗？", "每户最多办理两张停车证。", False),
    ("一年级学生可以申请吗？", "工作满3年的可以申请。", False),  # 一年级 is a school year, not a year's count
    ("二〇二三年毕业的可以申请吗？", "毕业不超过两年。", False),  # a year written digit by digit is a date
])
def test_a_figure_outside_the_stated_limit(question: str, sentence: str, outside: bool) -> None:
    from lambdarag.answer.limits import figure_outside

    assert figure_outside(question, sentence) is outside


def test_asked_yes_or_no_with_a_figure_outside_the_limit_the_answer_is_no() -> None:
    p = one_doc("创业扶持申报通知", "申报创业扶持的，申报人年龄应在18至35周岁之间。扶持资金为10万元。")
    keywords = ["申报", "创业扶持"]
    assert extractive_answer("40岁可以申报创业扶持吗？", p, "fact", {}, keywords).startswith("不可以")
    assert extractive_answer("30岁可以申报创业扶持吗？", p, "fact", {}, keywords).startswith("可以")


def test_a_yes_no_question_whose_predicate_no_sentence_says_is_not_stated() -> None:
    # every sentence shares the page's subject (its title); none says anything of paying in instalments
    p = one_doc("创业补贴实施办法", "创业补贴对象为毕业两年内的高校毕业生。创业补贴标准为每人5000元。")
    keywords = ["创业补贴", "分期", "领取"]
    assert extractive_answer("创业补贴可以分期领取吗？", p, "fact", {}, keywords).startswith("资料中未明确说明")
    assert extractive_answer("创业补贴可以领取吗？", p, "fact", {}, ["创业补贴", "领取"]).startswith("资料中未明确说明")
    p2 = one_doc("创业补贴实施办法", "创业补贴按季度分期领取。创业补贴标准为每人5000元。")
    assert extractive_answer("创业补贴可以分期领取吗？", p2, "fact", {}, keywords).startswith("可以")


def test_a_yes_no_answer_needs_a_sentence_saying_what_is_asked_of_the_subject() -> None:
    # the best sentence shares the question's words (申请) but says nothing of paying
    p = one_doc("仲裁办理指南", "当事人可以向人民法院申请强制执行。仲裁委员会受理申请后五日内通知当事人。")
    keywords = ["申请", "仲裁", "交费"]
    assert extractive_answer("申请仲裁需要交费吗？", p, "fact", {}, keywords).startswith("资料中未明确说明")
    free = one_doc("仲裁办理指南", "申请仲裁不收费。仲裁委员会受理申请后五日内通知当事人。")
    assert extractive_answer("申请仲裁需要交费吗？", free, "fact", {}, keywords).startswith("不需要")


def test_a_bound_the_question_states_is_no_figure_outside_the_same_bound() -> None:
    from lambdarag.answer.limits import figure_outside

    p = one_doc("居住证办理", "未满16周岁的未成年人，可以由其监护人代为申领居住证。")
    keywords = ["孩子", "家长", "申领", "居住证"]
    answer = extractive_answer("孩子还不到16岁，家长可以替他申领居住证吗？", p, "fact", {}, keywords)
    assert answer.startswith("可以"), answer
    assert figure_outside("孩子已经18岁，家长可以替他申领吗？", "未满16周岁的，可以由其监护人代为申领。")


@pytest.mark.parametrize(("question", "text", "keywords", "lead"), [
    ("所有课程都可以线上选修吗？", "部分课程可以线上选修，其余课程须到教务处现场办理。", ["课程", "线上", "选修"],
     "不可以"),
    ("Are all the rooms in the library accessible by wheelchair?",
     "Some of the rooms are accessible by wheelchair, while others can only be reached by stairs.",
     ["rooms", "library", "accessible", "wheelchair"], "No"),
    ("Are all the rooms in the library open to visitors?", "All the rooms are open to visitors.",
     ["rooms", "library", "open", "visitors"], "Yes"),
])
def test_asked_whether_all_of_a_kind_do_a_sentence_saying_some_do_answers_no(
        question: str, text: str, keywords: list[str], lead: str) -> None:
    assert extractive_answer(question, one_doc("Library", text), "fact", {}, keywords).startswith(lead)


def test_an_item_of_a_list_of_forbidden_things_answers_no() -> None:
    kinds = ["800W以上的超功率电器", "无自动断电保护装置的电器", "无国家3C认证的电器",
             "电炉、电热毯等容易引发火灾的电器，电饭锅、微波炉、电磁炉等炊具", "洗衣机、电冰箱等", "含大电池的电器设备",
             "其他存在安全隐患的电器"]
    items = "".join(f"（{n}）{kind}；\n" for n, kind in zip("一二三四五六七", kinds, strict=True))
    text = f"第三十条 用电安全。\n学生公寓内的违章电器包括：\n{items}违章电器将由管理人员收缴代管。"
    p = one_doc("学生公寓管理办法", text)
    assert extractive_answer("学生公寓里可以用电饭锅吗？", p, "fact", {}, ["学生公寓", "电饭锅"]).startswith("不可以")


@pytest.mark.parametrize(("question", "sentence"), [
    ("第一次办居住证需要交工本费吗？", "首次申领居住证，免收证件工本费。"),
    ("学生用校园网需要自己付网费吗？", "学生无需为校园网服务付费。"),
    ("参加培训需要缴纳报名费吗？", "培训不收取报名费。"),
])
def test_a_fee_asked_in_its_own_words_and_waived_in_others_is_no(question: str, sentence: str) -> None:
    from lambdarag.answer.opposites import says_opposite

    assert says_opposite(question, sentence)
    assert not says_opposite("可以报销交通费吗？", "交通费按实际发生额报销。")


def test_asked_how_long_a_procedures_conditions_do_not_answer_a_sentence_does() -> None:
    text = "第二条 在本市居住半年以上的，可以申领居住证。第五条 公安机关应当自受理之日起15日内制作发放居住证。"
    chunks = {"rule#1": Chunk("rule#1", "rule", "居住证条例", "居住证条例", text)}
    slots = {"conditions": ["公安机关应当自受理之日起15日内制作发放居住证"], "sources": {"conditions": "rule#1"}}
    question, keywords = "要在本市住满多长时间才能申领居住证？", ["本市", "住满", "申领", "居住证"]
    p = pack(slots, ["rule#1"], [], chunks, max_chars=3500)
    answer = extractive_answer(question, p, "process", slots, keywords)
    assert answer.startswith("第二条"), answer


def test_an_item_of_a_refusal_never_pads_an_answer_without_its_lead_in() -> None:
    from lambdarag.answer.lines import refused_items

    lines = ["有下列情形之一的，不予补助：", "（一）已领取其他补助的；", "（二）提供虚假材料的。",
             "申请人应当提交下列材料：", "（一）申请表；", "（二）营业执照复印件。"]
    assert refused_items(lines) == {"（一）已领取其他补助的；", "（二）提供虚假材料的。"}
    p = one_doc("就业补贴办法", "第三条 补贴对象为毕业2年内的高校毕业生。\n第四条 补贴标准为每人5000元。\n"
                "第五条 有下列情形之一的，不予补贴：\n（一）在机关事业单位就业的；\n（二）已享受其他就业补贴的。")
    answer = extractive_answer("就业补贴的标准是多少？", p, "fact", {}, ["就业补贴", "标准"])
    assert answer.startswith("第四条 补贴标准为每人5000元") and "已享受其他就业补贴的[" not in answer, answer


FORM = ("| 事项名称 | 居住登记补贴申领 |\n| 申请条件 | 在本区登记居住满6个月 |\n| 补贴标准 | 每月300元，补贴最长2年 |\n"
        "| 办理时限 | 受理之日起10个工作日 |\n| 受理地点 | 街道社区服务中心 |\n| 收费标准 | 不收费 |\n"
        "| 咨询电话 | 010-12345 |")


def test_a_form_is_read_as_its_fields_and_a_field_labelled_with_the_need_answers() -> None:
    from lambdarag.answer.table_text import form_text, parse_table

    # a two-column form has no header row: its first field is a field, not a column label the others are "of"
    assert parse_table(FORM) is None
    assert form_text("办事指南\n" + FORM) == ("办事指南\n事项名称：居住登记补贴申领\n申请条件：在本区登记居住满6个月\n"
                                          "补贴标准：每月300元，补贴最长2年\n办理时限：受理之日起10个工作日\n受理地点：街道社区服务中心\n收费标准：不收费\n"
                                          "咨询电话：010-12345")
    # a table of figures with its header, and rows of more than two cells, are tables
    assert form_text("| 项目 | 金额 |\n| 学费 | 5000 |\n| 住宿费 | 1200 |\n| 教材费 | 300 |") is None
    assert form_text("| 姓名 | 职务 | 电话 |\n| 张三 | 处长 | 123 |\n| 李四 | 科长 | 456 |") is None
    assert form_text("| Field | Value |\n| Deadline | within 30 days of the decision |\n| Office | Room 2 |") == (
        "Field: Value\nDeadline: within 30 days of the decision\nOffice: Room 2")
    # a list under its header names one thing a cell: "| 姓名 | 职务 |" over names and titles is a table
    assert form_text("| 姓名 | 职务 |\n| 张三 | 处长 |\n| 李四 | 科长 |") is None
    assert form_text("| Name | Title |\n| Ann Lee | Chief Financial Officer |\n| Bo Li | Treasurer |") is None
    p = one_doc("居住登记补贴办事指南", FORM)
    keywords = ["居住登记", "补贴", "申请"]
    how_long = extractive_answer("居住登记补贴多久能办好？", p, "fact", {}, ["居住登记", "补贴"])
    # asked how long it takes: the duration's field, not the amount's that also names a duration and the subject
    assert how_long.startswith("办理时限：受理之日起10个工作日"), how_long
    where = extractive_answer("居住登记补贴到哪里申请？", p, "process", {}, keywords)
    assert where.startswith("受理地点：街道社区服务中心"), where  # not the 申请条件 field the question's 申请 matches


def test_a_field_the_question_names_is_its_subject_not_another_aspect() -> None:
    from lambdarag.answer.needs import field_factor

    amount = question_need("评审流程分为几个阶段？")
    assert field_factor(amount, "评审流程：初审、复审与决审三个阶段", "评审流程分为几个阶段？") == 1.0
    assert field_factor(amount, "申请流程：网上提交", "补贴标准是多少？") < 1.0
    assert field_factor(amount, "（三）申请流程：网上提交", "补贴标准是多少？") == 1.0  # a numbered item, no field


def test_a_condition_a_window_cut_is_not_listed_beside_the_whole_one() -> None:
    from lambdarag.answer.procedure_rules import process_slots

    first = Chunk("rule#0000", "rule", "居住证办法", "居住证办法",
                  "第五条 申领居住证须在本市居住半年以上。第六条 县级以上人民政府有关部门应当做好居住证的服务工作。")
    second = Chunk("rule#0001", "rule", "居住证办法", "居住证办法",
                   "上人民政府有关部门应当做好居住证的服务工作。第七条 申领人须提交本人居民身份证。")
    conditions = process_slots("办理居住证需要什么条件？", [first, second]).get("conditions", [])
    assert not any(c.startswith("上人民政府") for c in conditions), conditions


def test_an_faq_gives_no_procedure_slots_its_answers_answer_their_own_questions() -> None:
    from lambdarag.answer.procedure_rules import process_slots

    faq = Chunk("faq#1", "faq", "居住证常见问题", "居住证常见问题",
                "问：办理居住证需要满足什么条件？\n答：在本市居住半年以上，符合有合法稳定住所条件的，可以申领居住证。\n"
                "问：居住证丢了怎么办？\n答：应当及时到居住地派出所申请补领。")
    assert "conditions" not in process_slots("办理居住证需要什么条件？", [faq])
    rule = Chunk("rule#1", "rule", "居住证办法", "居住证办法", "申领居住证须在本市居住半年以上。")
    assert process_slots("办理居住证需要什么条件？", [rule])["conditions"] == ["申领居住证须在本市居住半年以上"]


def test_asked_how_long_a_duration_answers_not_any_amount() -> None:
    from lambdarag.answer.asked_values import AskedValues

    asked = AskedValues.of("居住证多久能办下来？", "fact")
    assert asked.value_bonus("公安派出所自受理之日起15日内制证发放。") > 0
    assert asked.value_bonus("遗失补领的，收取工本费20元。") == 0  # an amount, not a duration
    assert asked.value_bonus("未满16周岁的未成年人由监护人代为申领。") == 0  # an age
    assert asked.value_bonus("该馆于一九九八年开放。") == 0  # a year written in numerals
    english = AskedValues.of("How long does the review take?", "fact")
    assert english.value_bonus("The review is completed within 30 days.") > 0
    assert english.value_bonus("The fee is $20.") == 0
    # "多少钱", "多少天" keep their measures
    assert AskedValues.of("补领要交多少钱？", "fact").value_bonus("收取工本费20元。") > 0


def test_asked_the_year_a_day_of_a_month_without_one_is_no_date_answering_it() -> None:
    from lambdarag.answer.asked_values import AskedValues

    year = AskedValues.of("图书馆新馆于哪一年开放？", "temporal")
    assert year.value_bonus("新馆于2009年9月正式开放。") > 0
    assert year.value_bonus("开放时间：9月1日8:00-22:00。") == 0  # a day and an hour, no year
    assert AskedValues.of("In what year did the library open?", "temporal").value_bonus("Open daily from March 1.") == 0
    # asked when, a day of a month still answers
    assert AskedValues.of("图书馆什么时候开放？", "temporal").value_bonus("开放时间：9月1日8:00-22:00。") > 0
    answer = extractive_answer("图书馆新馆于哪一年开放？", pack({}, ["news#1", "lib#1"], [], {
        "news#1": Chunk("news#1", "news", "图书馆讲座", "图书馆讲座", "新馆讲座时间：11月4日19:00-20:00。"),
        "lib#1": Chunk("lib#1", "lib", "图书馆概况", "图书馆概况", "图书馆藏书丰富，服务周到。新馆于2009年9月开放。")},
        max_chars=3500), "temporal", {}, ["图书馆", "新馆", "开放"])
    assert "2009" in first_sentence(answer)


def test_a_multiple_of_another_figure_answers_how_much_below_an_amount_stated_outright() -> None:
    from lambdarag.answer.asked_values import AskedValues

    asked = AskedValues.of("这只花瓶的高度是多少？", "fact")
    outright, relative = asked.value_bonus("高度约38公分。"), asked.value_bonus("高度为瓶口直径的2.5倍。")
    assert outright > relative > 0
    assert AskedValues.of("赔偿金额是多少？", "fact").value_bonus("按月工资的两倍支付。") > 0
    # a counted noun quoted or emphasised is still the one counted
    assert AskedValues.of("How many levels are there?", "fact").value_bonus('It has 3 "levels" of files.') > 0
    # English asks a share as 比例 does
    share = AskedValues.of("What proportion of the loans were repaid early?", "fact")
    assert share.value_bonus("Most loans, about 80.1% of them, were repaid early.") > 0
    assert AskedValues.of("What percent of staff work remotely?", "fact").value_bonus("Staff: 12% remote.") > 0
    # asked how many times, the multiple is the amount asked
    times = AskedValues.of("高度是瓶口直径的多少倍？", "fact")
    assert times.value_bonus("高度为瓶口直径的2.5倍。") > times.value_bonus("高度约38公分。")


def test_an_overview_is_made_of_figures_unless_the_question_names_the_kind_it_asks() -> None:
    from lambdarag.answer.asked_values import AskedValues

    assert AskedValues.of("介绍一下这种树的整体情况", "synthesis").value_bonus("树高可达12米。") > 0
    assert AskedValues.of("这种树的叶子是什么颜色？", "synthesis").value_bonus("树高可达12米。") == 0
    assert AskedValues.of("Give an overview of the tree.", "synthesis").value_bonus("It grows to 12 metres.") > 0
    rate = AskedValues.of("What mileage rate do they reimburse?", "fact")
    assert rate.value_bonus("The reimbursement rate is 57.5 cents per mile.") > 0
    assert rate.value_bonus("Mileage is documented with Google Maps.") == 0
    # a currency sign after the figure, as price lists write it ("0.08 ￥/L")
    shower = AskedValues.of("洗澡具体多少钱？", "fact")
    assert shower.value_bonus("标准价格为 0.08 ￥/L。") > 0 and shower.value_bonus("浴室位置较少，请错峰洗澡。") == 0
    assert AskedValues.of("What colour are the tree's leaves?", "synthesis").value_bonus("It grows to 12 metres.") == 0


def test_a_yes_no_answer_reads_the_sentence_saying_the_verb_asked_and_its_denial() -> None:
    from lambdarag.answer.needs import denies, yes_no_predicate

    assert yes_no_predicate("申请社保补贴要收费吗？", "要") == "收费"
    assert yes_no_predicate("退休了可以提取公积金吗？", "可以") == "提取公积金"
    assert denies("收费标准：不收费", "收费") and denies("本项服务免收费用", "收费")
    assert not denies("收费标准：每件20元", "收费")
    # every field shares the question's words; the one saying the verb asked answers, and says no
    p = one_doc("社保补贴办事指南", "申请条件：在本市缴纳社保满3个月。\n申请材料：身份证、缴费凭证。\n"
                "收费标准：不收费。")
    answer = extractive_answer("申请社保补贴要收费吗？", p, "process", {}, ["申请", "社保", "补贴", "收费"])
    assert answer.startswith("不需要[1]。收费标准：不收费"), answer


@pytest.mark.parametrize(("text", "month"), [
    ("该市的雨季在每年3月开始。", True),
    ("最热的月份是三月到六月。", True),
    ("Our fiscal year ends on the Saturday nearest the end of January.", True),
    ("合同期为3个月。", False),  # a span, not a month
    ("这是他任职的第三个月。", False),
    ("May we submit it twice?", False),  # a modal
])
def test_asked_when_a_month_alone_answers_a_yearly_time(text: str, month: bool) -> None:
    assert mentions_date(text, month=True) is month
    assert not mentions_date("该市的雨季在每年3月开始。")  # a date only as an answer to when


def test_a_yearly_time_said_by_its_month_answers_when() -> None:
    p = one_doc("某市气候", "2004年某市雨季的降水量创下纪录。某市的雨季一般在每年5月。")
    answer = extractive_answer("某市的雨季在什么时候？", p, "temporal", {}, ["某市", "雨季"])
    assert first_sentence(answer).startswith("某市的雨季一般在每年5月"), answer


def test_an_english_heading_or_column_header_is_no_answer() -> None:
    text = ("The retailer operates stores in the United States and Canada and sells online in both countries too.\n"
            "Fiscal Year Opened Closed Fiscal Year Opened Closed Fiscal Year\n"
            "Our fiscal year ends on the Saturday nearest the end of January.")
    p = one_doc("Retailer annual report", text)
    keywords = ["fiscal", "year", "end"]
    answer = extractive_answer("When does the retailer's fiscal year end?", p, "temporal", {}, keywords)
    assert answer.startswith("Our fiscal year ends on the Saturday nearest the end of January"), answer
    assert "Opened Closed" not in answer


def test_the_line_after_a_question_is_its_answer_matched_with_it() -> None:
    body = "1.在哪里办理参保登记？\n可通过社保经办机构窗口办理。\n2.每月最低缴多少钱？\n每月最低缴费800元。"
    units = {u.shown: u.matched for u in candidate_units(body, set())}
    assert units["可通过社保经办机构窗口办理。"].strip() == "1.在哪里办理参保登记？ 可通过社保经办机构窗口办理。"
    assert "1.在哪里办理参保登记？" not in units  # a question never answers
    assert units["每月最低缴费800元。"].strip().startswith("2.每月最低缴多少钱？")


def test_the_sentences_after_a_question_inside_a_line_answer_it_and_a_yes_no_is_read_from_them() -> None:
    faq = ("If I rent a locker for the term, can my roommate use the same locker? No, each locker is assigned to a "
           "single member. Lockers are emptied at the end of each term.\n\nCan guests enter the studio? Yes, with a "
           "member who signs them in at the desk.")
    units = {u.shown: u.matched for u in candidate_units(faq, set())}
    assert units["No, each locker is assigned to a single member."].strip().startswith("If I rent a locker for")
    assert units["Lockers are emptied at the end of each term."].strip().startswith("If I rent a locker")
    assert "can my roommate use the same locker?" in " ".join(units)  # still a sentence: a statement may end with ?
    # the question the document asks repeats the reader's words, yet says neither yes nor no: its answer does
    answer = answered("My roommate and I want to share one locker this term, can we use the same locker?",
                      "Studio FAQ", faq)
    assert answer.startswith("No, each locker is assigned to a single member"), answer


def test_a_yes_no_support_is_not_repeated_when_another_chunk_says_it_too() -> None:
    # the first chunk's window starts inside a sentence ("Paul, Minnesota."): its copy of the answer is cut, the
    # second chunk's is whole; the answer cites both once
    texts = ["Paul, Minnesota. The Company operates 61 manufacturing\nfacilities in 29 states. Internationally, the "
             "Company operates 83 manufacturing facilities in 28 countries.",
             "Item 2. Properties.\nIn the U.S., general offices are located in St. Paul, Minnesota. The Company "
             "operates 61 manufacturing\nfacilities in 29 states."]
    chunks = {f"r#{i}": Chunk(f"r#{i}", "r", "Annual report", "Annual report", t) for i, t in enumerate(texts)}
    p = pack({}, list(chunks), [], chunks, max_chars=3500)
    answer = extractive_answer("Does the company operate manufacturing facilities in 29 states?", p, "fact", {},
                               ["company", "operate", "manufacturing", "facilities", "states"])
    assert answer.startswith("Yes") and answer.count("61 manufacturing facilities in 29 states") == 1, answer


def test_an_english_length_or_sum_in_its_units_answers_how_long_or_how_much() -> None:
    from lambdarag.answer.asked_values import AskedValues

    asked = AskedValues.of("How long is the river?", "fact")
    assert asked.value_bonus("It flows south for 214 kilometres before joining the sea.") > 0
    assert asked.value_bonus("Its towers rise 148 metres above the water.") > 0
    assert asked.value_bonus("The river was named in 1821.") == 0
    p = one_doc("Red Fox River", "The Red Fox River is a river in the highlands. The river was named by surveyors "
                "in 1821. It rises in Lake Ormond and flows south for 214 kilometres before joining the Calder.")
    answer = extractive_answer("How long is the Red Fox River?", p, "fact", {}, ["red", "fox", "river"])
    assert first_sentence(answer).startswith("It rises in Lake Ormond and flows south for 214 kilometres"), answer


def test_asked_why_a_name_is_given_the_sentence_saying_what_it_is_named_after_answers() -> None:
    p = one_doc("Red Fox River", "The Red Fox River is a river in the highlands. The river was named by surveyors "
                "in 1821 after the foxes they saw along its banks. It rises in Lake Ormond.")
    answer = extractive_answer("Why is it called the Red Fox River?", p, "fact", {}, ["called", "red", "fox", "river"])
    assert answer.startswith("The river was named by surveyors in 1821 after the foxes"), answer


def test_a_form_of_two_fields_a_row_and_a_value_merged_across_cells_is_read_field_by_field() -> None:
    from lambdarag.answer.table_text import form_text

    text = ("| 事项名称 | 创业补贴申领 | 事项类型 | 行政给付 |\n"
            "| 受理机构 | 区人社局 | 办理时限 | 10个工作日 |\n"
            "| 申请条件 | 在本区登记注册，正常经营满1年 | 在本区登记注册，正常经营满1年 "
            "| 在本区登记注册，正常经营满1年 |")
    assert form_text(text) == ("事项名称：创业补贴申领\n事项类型：行政给付\n受理机构：区人社局\n办理时限：10个工作日\n"
                               "申请条件：在本区登记注册，正常经营满1年")
    # a table of four columns under its header repeats its values down a column: not a form
    table = ("| 人员类别 | 火车（含高铁、动车） | 轮船 | 飞机 |\n| 校领导 | 高铁一等座，火车软卧 | 二等舱 | 经济舱 |\n"
             "| 其他人员 | 高铁二等座，火车硬卧 | 三等舱 | 经济舱 |")
    assert form_text(table) is None
    # one field a row may say the same value twice ("无")
    guide = ("| 事项名称 | 补贴申领 |\n| 申请条件 | 在本区登记注册，正常经营满1年 |\n"
             "| 中介服务 | 无 |\n| 特别程序 | 无 |")
    assert form_text(guide) is not None and "特别程序：无" in str(form_text(guide))


def test_an_english_yes_no_question_whose_predicate_no_sentence_says_is_not_stated() -> None:
    text = "| Service | Annual staff parking permit |\n| Fee | 120 dollars per year, deducted from salary |\n" \
           "| Processing time | 5 working days after the application is complete |"
    p = one_doc("Parking Permit Service Guide", text)
    keywords = ["parking", "permit", "free"]
    assert extractive_answer("Is the parking permit free?", p, "fact", {}, keywords).startswith("Not stated")
    answer = extractive_answer("Is there a fee for the parking permit?", p, "fact", {}, ["fee", "parking", "permit"])
    assert answer.startswith("Yes") and "Fee: 120 dollars per year" in answer, answer


def test_a_yes_no_question_without_a_modal_is_answered_yes_or_no() -> None:
    assert question_need("首次申领身份证收费吗？").kind == "yesno"
    assert question_need("你知道报账大厅的电话吗？").kind == "contact"  # a request for the number
    assert question_need("能告诉我报账大厅的电话吗？").kind == "contact"
    p = one_doc("居住证办事指南", "事项名称：居住证申领\n收费标准：不收费\n办理时限：15个工作日")
    answer = extractive_answer("办理居住证收费吗？", p, "fact", {}, ["居住证", "收费"])
    assert answer.startswith("否[1]。收费标准：不收费"), answer
    p2 = one_doc("居住证办事指南", "事项名称：居住证申领\n收费标准：每证20元\n办理时限：15个工作日")
    assert extractive_answer("办理居住证收费吗？", p2, "fact", {}, ["居住证", "收费"]).startswith("是[1]。收费标准")


def test_a_yes_no_support_is_not_repeated_by_a_piece_of_it_a_window_cut() -> None:
    texts = ["is open from Tuesday to Sunday, and admission is free for children under 12.",
             "The Varden museum of glass is a museum. The museum is open from Tuesday to Sunday, and admission is free "
             "for children under 12."]
    chunks = {f"m#{i}": Chunk(f"m#{i}", "m", "Varden Museum", "Varden Museum", t) for i, t in enumerate(texts)}
    p = pack({}, list(chunks), [], chunks, max_chars=3500)
    answer = extractive_answer("Is admission free for children under 12?", p, "fact", {},
                               ["admission", "free", "children"])
    assert answer.startswith("Yes") and answer.count("free for children under 12") == 1, answer


def test_a_where_question_in_words_leads_with_the_place_not_with_a_sentence_saying_its_noun() -> None:
    text = ("星河图书馆是全市藏书最多的公共图书馆，馆藏图书三百余万册。文化中心为各地方图书馆提供业务指导和培训服务。"
            "星河图书馆位于人民路28号，临近中心广场。星河图书馆每周一闭馆。")
    chunk = Chunk("lib#1", "lib", "星河图书馆", "星河图书馆", text)
    packed = pack({}, ["lib#1"], [], {"lib#1": chunk}, max_chars=3500)
    for question in ("星河图书馆在什么地方？", "星河图书馆位于哪些地方？"):
        answer = extractive_answer(question, packed, "fact", {}, ["星河", "图书馆"])  # the keywords expand gives
        assert answer.startswith("星河图书馆位于人民路28号"), answer
    assert "地方" not in question_grams("星河图书馆在什么地方？")
    assert "地方" in question_grams("地方政府的补贴标准是多少？")


def test_a_cited_sentence_ends_in_its_own_script_without_the_space_or_comma_left_before_its_stop() -> None:
    def cited(sentence: str) -> str:
        return Scored(1.0, 1, 0, sentence).cited()

    assert cited("该奖项得主包括略萨(Mario Vargas Llosa)") == "该奖项得主包括略萨(Mario Vargas Llosa)[1]。"
    assert cited("丈夫从事音响工作，比她大一年 。") == "丈夫从事音响工作，比她大一年[1]。"
    assert cited("在前方加设一道板甲， ") == "在前方加设一道板甲[1]。"
    assert cited("The office is in Room 5 of 江城大学") == "The office is in Room 5 of 江城大学[1]. "
    assert cited("Fees are due within 30 days.") == "Fees are due within 30 days[1]. "


@pytest.mark.parametrize(("question", "text", "keywords", "reason"), [
    ("为什么管理委员会在2006年决定兴建通往墓园的新路？",
     "墓园位于山上。每年清明都会实施道路管制，令大批市民须徒步上山，为人诟病。"
     "因此管理委员会于2006年决定兴建一条由车站通往墓园的新路，新路于2012年启用。",
     ["管理", "委员会", "2006年", "决定", "兴建", "墓园", "新路"], "每年清明都会实施道路管制"),
    ("Why did the council decide to build a new road to the cemetery?",
     "The cemetery stands on a hill. Every spring the road is closed to cars and visitors must walk up the hill. "
     "Therefore the council decided in 2006 to build a new road to the cemetery from the station.",
     ["council", "decide", "build", "new", "road", "cemetery"], "Every spring the road is closed"),
])
def test_a_why_answer_opening_with_therefore_is_led_by_the_sentence_it_concludes_from(
        question: str, text: str, keywords: list[str], reason: str) -> None:
    answer = extractive_answer(question, one_doc("Cemetery", text), "fact", {}, keywords)
    assert answer.startswith(reason), answer


@pytest.mark.parametrize(("question", "text", "keywords", "lead"), [
    ("两座书院在哪一年合并为江城学院？",
     "江城书院创办于1921年。1950年3月，东山书院迁入新址。同年9月，江城书院和东山书院合并为江城学院。",
     ["书院", "合并", "江城学院"], "1950年3月"),
    ("校队在哪场比赛中首次夺冠？",
     "2015年的省运会决赛中，校队对阵市一中，以3比1获胜。校队在这场比赛中首次夺冠，创造了校史。",
     ["校队", "比赛", "首次", "夺冠"], "2015年的省运会决赛中"),
    ("In which match did the team win its first title?",
     "The 2015 county final was played against Hill School and ended 3-1. The team won its first title in this "
     "match, a first for the school.",
     ["team", "win", "first", "title", "match"], "The 2015 county final"),
])
def test_a_first_sentence_pointing_back_at_what_is_asked_is_led_by_the_sentence_naming_it(
        question: str, text: str, keywords: list[str], lead: str) -> None:
    answer = extractive_answer(question, one_doc("Records", text), "fact", {}, keywords)
    assert answer.startswith(lead), answer


def test_a_sentence_naming_what_it_points_back_to_needs_none_before_it() -> None:
    text = "游戏共有五关。普通模式按顺序过关，挑战模式可以选择顺序，其中森林、沙漠和雪山为必须，即最少只打这三关。"
    answer = extractive_answer("挑战模式必须打通的是哪三关？", one_doc("Guide", text), "fact", {},
                               ["挑战模式", "必须", "打通"])
    assert answer.startswith("普通模式按顺序过关"), answer


def test_a_piece_of_a_sentence_a_window_cut_gives_way_to_the_whole_sentence_another_chunk_holds() -> None:
    whole = "根据协议，学院将为会计、审计、税务、金融等4类专业提供200个实习岗位，同时开放30个研究助理名额。"
    chunks = {
        "plan#0001": Chunk("plan#0001", "plan", "校企合作协议", "校企合作协议",
                           "审计、税务、金融等4类专业提供200个实习岗位，同时开放30个研究助理名额。协议为期三年。"),
        "plan#0000": Chunk("plan#0000", "plan", "校企合作协议", "校企合作协议",
                           "学院与本市五家企业签署合作协议。" + whole),
    }
    answer = extractive_answer("学院将为哪4类专业提供实习岗位？", pack({}, list(chunks), [], chunks, max_chars=3500),
                               "fact", {}, ["学院", "专业", "提供", "实习岗位"])
    assert answer.startswith(whole.removesuffix("。")), answer


def test_a_bar_inside_a_line_of_text_is_no_table_cell() -> None:
    grammar = ("augmented_assignment_stmt ::= augtarget augop (expression_list | yield_expression)\n"
               "augtarget ::= identifier | attributeref | subscription\n"
               "Augmented assignment is the combination of a binary operation and an assignment statement.")
    assert parse_table(grammar) is None
    units = [u.shown for u in candidate_units(grammar, set())]
    assert "Augmented assignment is the combination of a binary operation and an assignment statement." in units
    # a Markdown table with its rule keeps rows without outer bars; rendered rows are fenced
    assert parse_table("name | fee\n---|---\nA | 1") is not None
    assert parse_table("| name | fee |\n| A | 1 |") is not None
    assert parse_table("标题\t\n正文\t") is None  # a line's trailing tab makes no one-cell row


@pytest.mark.parametrize(("question", "asks"), [
    ("基层就业补贴何时发放", True), ("材料交到何处", True),
    ("不需要任何人手调整", False), ("无论何时都受理", False), ("任何地方都可以办理", False),
])
def test_any_is_no_question_word(question: str, asks: bool) -> None:
    """何 asks ("何时", "何处") except as "any": "任何人", "无论何时" ask nothing."""
    assert asks_something(question) is asks


def test_a_figure_after_the_full_width_yuan_sign_is_an_amount() -> None:
    """Chinese text writes ￥ (full width) before a price: the line carrying it answers "多少" as "125000元" would."""
    from lambdarag.answer.asked_values import AMOUNT

    assert AMOUNT.search("固定总价￥125000") and AMOUNT.search("总价¥300") and AMOUNT.search("fee $40")
    p = one_doc("采购合同", "本合同按照双方约定的条款履行，甲乙双方应当诚实守信。\n无税固定总价￥125000")
    answer = extractive_answer("无税固定总价是多少？", p, "fact", {}, ["无税", "固定", "总价"])
    assert answer.startswith("无税固定总价￥125000")


def test_clauses_a_semicolon_joins_in_the_text_are_shown_joined() -> None:
    text = "这些故事大多来自作者亲友的口述；一小部分来自官方的公文。书成于1788年以前。"
    answer = extractive_answer("这些故事来自哪里？", one_doc("故事集", text), "fact", {}, ["故事", "来自"])
    assert answer.startswith("这些故事大多来自作者亲友的口述；一小部分来自官方的公文[1]。"), answer


def test_another_section_of_the_procedures_page_matching_better_leads_its_steps() -> None:
    chunks = {
        "faq#0000": Chunk("faq#0000", "faq", "软件常见问题", "软件常见问题 > 1. 如何显示内存利用率？",
                          "在主窗口点击右键弹出菜单，勾选“显示内存利用率”即可。"),
        "faq#0004": Chunk("faq#0004", "faq", "软件常见问题", "软件常见问题 > 4. 程序无法保存设置",
                          "可以通过以下步骤解决：\n1. 退出程序，以管理员身份重新启动。\n"
                          "2. 在选项中选择保存到用户目录。\n3. 重新启动程序。"),
    }
    slots = {"steps": ["退出程序，以管理员身份重新启动。", "在选项中选择保存到用户目录。", "重新启动程序。"],
             "sources": {"steps": "faq#0004"}}
    p = pack(slots, list(chunks), [], chunks, max_chars=3500)
    keywords = ["主窗口", "显示", "内存", "利用率"]
    answer = extractive_answer("怎么让主窗口显示内存利用率？", p, "process", slots, keywords)
    assert answer.startswith("在主窗口点击右键弹出菜单"), answer


MEMBERSHIP = ("会员须知\n会员卡开卡后可在各门店通用。会员卡开卡满30日的，不适用无理由退卡。"
              "会员可每年冻结会员卡一次，冻结期不超过60日。门店营业时间为每日7:00至22:00。")


def test_a_yes_no_told_at_length_is_answered_by_the_rule_saying_its_predicate() -> None:
    # the scene the question sets (两个月前…搬家了) is in no rule; the rule says the predicate asked, and 不适用 refuses
    question = "我两个月前在门店办的会员卡，最近搬家了，能不能无理由退卡？"
    answer = extractive_answer(question, one_doc("会员须知", MEMBERSHIP), "fact", {}, Tokenizer().keywords(question))
    assert answer.startswith("不能[1]。会员卡开卡满30日的，不适用无理由退卡[1]。"), answer
    question = "搬家以后我能不能带朋友进门店？"  # no rule says it
    answer = extractive_answer(question, one_doc("会员须知", MEMBERSHIP), "fact", {}, Tokenizer().keywords(question))
    assert answer.startswith("资料中未明确说明。"), answer


@pytest.mark.parametrize(("question", "modal"), [
    ("会员卡可以冻结吗？", "可以"), ("技能培训可以报销吗？", "可以"), ("社会实践要盖章吗？", "要"),
    ("明天会下雨吗？", "会"),
])
def test_a_modal_inside_a_noun_is_not_the_one_asked(question: str, modal: str) -> None:
    assert question_need(question).modal == modal


def test_of_a_pages_procedures_the_one_asked_gives_the_steps_and_a_notes_label_is_no_step() -> None:
    from lambdarag.answer.procedure_rules import process_slots

    page = "云主机合约 > 合约操作"
    note = Chunk("vm#0001", "vm", "云主机合约", page, "说明：\n以下操作以云主机为例，硬盘合约的操作类似。")
    resize = Chunk("vm#0002", "vm", "云主机合约", f"{page} > 调整配置操作",
                   "1. 在合约列表中点击调整配置。\n2. 更改配置参数。\n3. 点击提交配置更改申请。")
    cancel = Chunk("vm#0003", "vm", "云主机合约", f"{page} > 退订 > 用户退订流程",
                   "1. 在我的配额页面查看退订配额是否充足。\n2. 在合约详情页点击更多操作 > 合约退订。")
    assert "steps" not in process_slots("合约怎么操作？", [note])  # a label and one line: no procedure
    slots = process_slots("合约想退订的话怎么操作？", [note, resize, cancel])
    assert slots["steps"][1] == "在合约详情页点击更多操作 > 合约退订。" and slots["sources"]["steps"] == "vm#0003"
    slots = process_slots("合约怎么调整配置？", [note, resize, cancel])
    assert slots["sources"]["steps"] == "vm#0002"


def test_asked_what_kind_of_applicant_may_apply_the_conditions_answer_and_a_lead_in_is_none() -> None:
    from lambdarag.answer.procedure_rules import process_slots

    assert question_need("什么样的账号才能申请云主机合约？").kind == "conditions"
    assert question_need("哪些人可以报名？").kind == "conditions"
    chunk = Chunk("vm#0001", "vm", "云主机合约", "云主机合约 > 申请合约",
                  "合约计费方式适合以下业务场景：\n通过个人或企业认证的用户才可申请合约。")
    conditions = process_slots("什么样的账号才能申请合约？", [chunk])["conditions"]
    assert conditions == ["通过个人或企业认证的用户才可申请合约"]


def test_cards_listed_with_others_are_materials() -> None:
    need = question_need("办住院需要带哪些证件和材料？")
    sentence = "持医生开具的住院证、身份证、医保卡、门诊就诊记录册到四楼出入院处办理入院手续。"
    assert evidence_bonus(need, sentence) > 0
    assert evidence_bonus(need, "入院后请保证、配合医生查房。") == 0  # 保证 is no card


def test_where_one_does_it_named_as_a_kind_of_place_states_where() -> None:
    need = question_need("满分学习可以在哪些地方参加？")
    stated = "驾驶人可以在驾驶证核发地或者违法行为发生地、处理地参加学习。"
    assert evidence_bonus(need, stated) > evidence_bonus(need, "驾驶人应当参加为期七天的道路交通安全学习。")


def test_a_road_word_inside_another_word_is_no_place() -> None:
    need = question_need("满分学习在什么地方参加？")
    assert evidence_bonus(need, "参加道路交通安全法律知识学习七天。") == 0  # 道路 names no road
    assert evidence_bonus(need, "学习地点在人民路88号。") > 0


def test_a_line_pointing_at_a_source_never_answers_the_quote_under_it_does() -> None:
    from lambdarag.answer.captions import furniture

    assert furniture("- 参考 《关于助学贷款的管理规定（试行）》 from 中国政府网：", "")
    assert furniture("See [the act](https://example.org):", "")
    assert not furniture("出处：《论语·颜渊》", "")  # a field naming where a text comes from answers that
    assert not furniture("详见《财务报销办法》第三条。", "")  # a sentence that says where, not a pointer line
    assert not furniture("See https://example.org for the rules.", "")
    text = ("- 参考 《关于助学贷款的管理规定（试行）》 from 中国政府网：\n"
            "助学贷款适用于高等学校中经济确实困难的全日制本、专科学生。")
    question = "按《关于助学贷款的管理规定（试行）》，助学贷款是给哪些学生用的？"
    answer = extractive_answer(question, one_doc("助学贷款问答", text), "fact", {}, Tokenizer().keywords(question))
    assert answer.startswith("助学贷款适用于"), answer


def test_a_yes_no_is_read_from_the_rule_not_from_a_worked_example_saying_the_same_words() -> None:
    text = ("举例说明：用户甲购买了一张12个月的年卡，购买时未使用代金券，使用三个月后退卡。\n"
            "年卡只能使用账户余额购买，不支持代金券购买。")
    question = "体育馆的年卡能不能用代金券来买？"
    answer = answered(question, "体育馆年卡说明", text)
    assert answer.startswith("不能[1]。年卡只能使用账户余额购买"), answer
    text = ("例如：您于3月1日开通按小时计费的场地，计费周期为一小时，系统每小时预扣下一小时的费用。\n"
            "按小时计费的用户可自主变更计费方式为月付或者年付。")
    question = "按小时计费的场地，之后可不可以改成按月或者按年付费？"
    answer = answered(question, "场地计费说明", text)
    assert answer.startswith("可以[1]。按小时计费的用户可自主变更"), answer


def test_a_rule_saying_a_thing_cannot_be_done_answers_no() -> None:
    text = "已注销的账号无法进行实名认证变更，如需变更请先恢复账号。"
    question = "我的账号已经注销了，还能变更实名认证吗？"
    answer = answered(question, "账号说明", text)
    assert answer.startswith("不能[1]。已注销的账号无法"), answer


def test_asked_which_body_the_sentence_sending_one_to_a_body_answers() -> None:
    need = question_need("单位不给缴社保，我能找哪个部门反映？")
    assert evidence_bonus(need, "用人单位未按时足额缴纳的，职工可以向社会保险行政部门投诉、举报。") > 0
    assert evidence_bonus(need, "由社会保险经办机构负责受理。") > 0 and evidence_bonus(need, "社保每月缴纳一次。") == 0
    assert evidence_bonus(need, "他所负责的工作包括社保缴纳。") == 0  # 所 of "所负责的" is no body
    english = question_need("Which office handles transcript requests?")
    assert evidence_bonus(english, "Transcript requests are handled by the Registrar's office.") > 0
    text = ("用人单位应当按时足额缴纳社会保险费。\n社会保险费缴费基数每年调整一次。\n"
            "用人单位未按时足额缴纳的，职工可以向社会保险行政部门投诉、举报。")
    question = "单位不给缴社保，我能找哪个部门反映？"
    answer = answered(question, "社会保险办事指南", text)
    assert answer.startswith("用人单位未按时足额缴纳的，职工可以向社会保险行政部门投诉"), answer


def test_a_one_character_predicate_is_said_by_a_rule_holding_it() -> None:
    text = ("东校区与西校区之间有班车，每日往返四次，凭校园卡乘坐。\n"
            "- 西校区：禁止骑行电动车和摩托车，允许使用自行车。\n"
            "- 东校区：允许骑行自行车，电动车须在保卫处登记。")
    question = "我大一住西校区，打算买辆电动车上课用，在校区里能骑吗？"
    answer = answered(question, "新生入学问答", text)
    assert answer.startswith("不能[1]。- 西校区：禁止骑行电动车"), answer


def test_a_local_number_written_in_two_groups_carries_a_contact() -> None:
    need = question_need("校医院门诊部的电话是多少？")
    assert evidence_bonus(need, "电话：8801 0120") > 0 and evidence_bonus(need, "Call 555-1234 for an appointment.") > 0
    assert evidence_bonus(need, "2023-2024学年第一学期开学。") == 0  # a span of years
    assert evidence_bonus(need, "补贴标准为1000-2000元。") == 0  # an amount


@pytest.mark.parametrize(("question", "kind"), [
    ("家属每天几点到几点可以来病区咨询？", "date"),  # 几点: the time of day, though 咨询 names a contact
    ("图书馆周六几点开门？", "date"),
    ("申请时有哪几点要求？", "conditions"),  # which few points
    ("What time does the front desk open?", "date"),
    ("By what date will I hear whether I got the grant?", "date"),
])
def test_the_time_of_day_is_asked_as_a_date(question: str, kind: str) -> None:
    assert question_need(question).kind == kind


def test_a_question_opening_with_a_rhetorical_check_asks_in_the_sentence_after_it() -> None:
    from lambdarag.answer.asking import asking_sentence

    question = "302不是院办专用的会议室吗？周末空着的话，我们课题组能借来开组会吗？"
    assert asking_sentence(question) == "周末空着的话，我们课题组能借来开组会吗"
    assert asking_sentence("这个不是免费的吗？") == "这个不是免费的吗"  # asked alone, the check is the question
    assert asking_sentence("要交钱吗？打印收不收工本费？") == "要交钱吗"
    assert asking_sentence("Isn't the lab open late? Can I stay until midnight?") == "Can I stay until midnight"
    assert question_need(question) == Need("yesno", "能", False)
    text = "学院302为院办专用会议室，优先院办会议，周末及节假日未使用时可对课题组开放借用。"
    assert answered(question, "会议室借用办法", text).startswith("能[1]。学院302为院办专用会议室"), answered(
        question, "会议室借用办法", text)


def test_asked_whether_it_is_free_a_rule_that_no_payment_is_needed_answers_yes() -> None:
    text = "校园网账号开通后，校内访问学术数据库无需付费。"
    assert answered("校内访问学术数据库是不是无需付费？", "校园网说明", text).startswith("是[1]。"), answered(
        "校内访问学术数据库是不是无需付费？", "校园网说明", text)
    # asked whether one pays, the same rule says no
    assert answered("校内访问学术数据库需要付费吗？", "校园网说明", text).startswith("不需要[1]。")


def test_the_askers_own_email_or_phone_is_no_contact_asked() -> None:
    assert question_need("What format should my email to the help desk be in?").kind != "contact"
    assert question_need("Can our phone plan be changed online?").kind == "yesno"
    assert question_need("Which email address do I write to about refunds?").kind == "contact"
    assert question_need("What is the phone number of the front desk?").kind == "contact"


@pytest.mark.parametrize(("question", "sentence", "carries"), [
    ("研究生这学期的学费最晚哪天之前得交上？", "截止日期：付学费截止日期是9月25日。", True),
    ("研究生这学期的学费最晚哪天之前得交上？", "学费从2015年开始可以按学期交。", False),  # a year is not the day asked
    ("网上报名的时间到几月几号？", "网上报名时间为2013年11月20日至11月30日。", True),
    ("What date is the fee due?", "The fee has been charged since 2015.", False),
    ("学费什么时候开始按学期交的？", "学费从2015年开始可以按学期交。", True),  # asked when, a year may answer
])
def test_asked_the_day_a_year_alone_is_not_it(question: str, sentence: str, carries: bool) -> None:
    from lambdarag.answer.asked_values import AskedValues

    assert (AskedValues.of(question, "fact").value_bonus(sentence) > 0) is carries


def test_asked_how_much_the_tier_the_figure_asked_is_in_comes_first() -> None:
    leave = ("员工手册", "第十条 年休假按工龄计算。\n（二）工龄满1年不满10年的，年休假5天。\n"
             "（三）工龄满10年不满20年的，年休假10天。\n（四）工龄满20年的，年休假15天。")
    assert "年休假10天" in first_sentence(answered("我在公司已经干了12年了，今年一年能休几天年假？", *leave))
    assert "年休假5天" in first_sentence(answered("我工作了3年，能休几天年假？", *leave))
    # a sentence stating both sides admits any figure; one per period ("一年") is no figure
    exchange = ("交流项目", "长期项目的交流时间为三个月以上（含三个月），短期项目的交流时间为三个月以下。\n"
                "交流生返校后须提交总结。")
    assert "三个月以上" in first_sentence(answered("我打算出国交换四个月，分界线是多久？", *exchange))


@pytest.mark.parametrize(("question", "sentence", "bonus"), [
    # a measure asked ("At what size", "how big") is an amount asked, storage sizes too
    ("At what size does a tree need the special permit?", "Any tree 19 inches or more in diameter needs one.", 0.15),
    ("What's the most memory we can reserve for our apps?", "Apps can reserve up to 2GB of memory.", 0.15),
    # asked the most one may, an amount said as its bound before one said as it is; counts in words count
    ("What's the most I can extend the internship by?", "An internship can be extended by up to five weeks total.",
     0.15),
    ("What's the most I can extend the internship by?", "Mentors typically extend the internship by 1 or 2 weeks.",
     0.075),
    # a count in words restated in digits, as contracts write it
    ("How long after signing up can I still get my money back?",
     "Refunds are issued within thirty (30) days of the original purchase.", 0.15),
    ("攒着不报的发票金额最多能有多少？", "自己手中积攒的未报销发票不要超过3000元！", 0.15),
    ("攒着不报的发票金额最多能有多少？", "每人每学年有300元的科技书籍购买预算。", 0.075),
    # the largest of a kind is no limit asked
    ("鬣齿兽属中最小的大约多大？", "相反，最小的物种肩高只有30厘米。", 0.15),
    # "the most" counting a noun asks a number of it, the bound between the figure and its noun ("five or fewer")
    ("What's the most children I can have in a home daycare?", "* Five or fewer children under your care", 0.15),
    ("What's the most children I can have in a home daycare?", "* A diploma and 3 years of work with children.", 0.0),
])
def test_a_measure_or_a_limit_asked_is_carried_by_its_amount(question: str, sentence: str, bonus: float) -> None:
    from lambdarag.answer.asked_values import AskedValues

    assert AskedValues.of(question, "fact").value_bonus(sentence) == pytest.approx(bonus)


def test_an_amount_asked_is_not_answered_by_a_duration_field() -> None:
    """"住宿费标准是多少" asks what it costs: "报销时限：30天内" is a number of days, which answers "多久"."""
    text = "差旅费标准速览\n报销时限：出差返回后30天内\n住宿费：按城市类别和人员类别限额报销，每晚不超过500元"
    assert answered("出差住宿费标准是多少？", "差旅费标准", text).startswith("住宿费：")
    assert answered("出差回来多久之内要报销？", "差旅费标准", text).startswith("报销时限：")


def test_a_web_address_is_what_a_contact_question_asks() -> None:
    from lambdarag.answer.needs import NEED_BONUS

    need = question_need("协会的官网网址是多少？")
    assert evidence_bonus(need, "本协会官方网站（https://www.example.org）每周更新。") == NEED_BONUS
    assert evidence_bonus(need, "本协会每周更新一次活动安排。") == 0.0


def test_a_contact_asked_is_led_by_the_sentence_carrying_one_not_by_the_top_chunks_best() -> None:
    chunks = {"guide#1": Chunk("guide#1", "guide", "Phone guide", "Phone guide",
                               "This guide explains the internal phone network and how to dial the front desk "
                               "from it."),
              "guide#2": Chunk("guide#2", "guide", "Getting help", "Getting help",
                               "You can reach the front desk by calling 2040 on the internal phone network or by email "
                               "at desk@example.org.")}
    question = "Which number do I dial on the internal phone network to reach the front desk?"
    packed = pack({}, ["guide#1", "guide#2"], [], chunks, max_chars=3500)  # the fused order: the guide's page first
    answer = extractive_answer(question, packed, "fact", {}, Tokenizer().keywords(question))
    assert answer.startswith("You can reach the front desk by calling 2040"), answer


def test_a_contact_question_naming_the_way_is_answered_that_way() -> None:
    """A phone asked is not given by a web address (nor an address asked by a phone); asked how to reach someone
    without naming a way, any way answers. A short number after a verb of dialling is a phone too."""
    phone, web = "赞助合作请致电010-6275 1234。", "报名请登录官方网站www.example.org。"
    for question, gives, other in (("想赞助比赛，打哪个电话？", phone, web), ("比赛的官网网址是多少？", web, phone)):
        need = question_need(question)
        assert evidence_bonus(need, gives, question) > 0 and evidence_bonus(need, other, question) == 0
    question = "赞助的事该怎么联系主办方？"
    assert all(evidence_bonus(question_need(question), s, question) > 0 for s in (phone, web))
    question = "Which phone number do I dial to reach the front desk?"
    assert evidence_bonus(question_need(question), "Reach the desk by calling 2040 on any house phone.", question) > 0
    assert evidence_bonus(question_need(question), "See www.example.org for the desk's hours.", question) == 0


def test_asked_which_number_to_call_the_sentence_giving_one_follows_the_first() -> None:
    """The phone sentence shares few of the question's words ("致电" for 电话) and scores under the answer's floor:
    it is offered second when no sentence picked gives a way of reaching anyone."""
    race = chunked("race", "南湖马拉松", [
        ("南湖马拉松 > 报名", "南湖马拉松的报名在官方网站进行，公司团队报名的选手可以统一领取比赛装备。"
                          "南湖马拉松每年吸引上万名选手参加比赛。"),
        ("南湖马拉松 > 赞助", "南湖马拉松比赛的赞助公司可以在比赛现场展示品牌，"
                          "赞助公司名单在南湖马拉松比赛前一周公布。"),
        ("附录", "赞助事宜请致电010-6275 1234。")])
    answer = answered_in("我们公司想赞助南湖马拉松比赛，可以打哪个电话问？", race)
    assert "010-6275 1234" in answer.split("。")[1]


def test_asked_a_count_in_its_measure_the_sentence_stating_one_follows_the_first() -> None:
    """"几个人" is answered by the field line "每队4人", which shares one word of the question: it comes second."""
    cup = chunked("cup", "校园编程挑战赛", [
        ("校园编程挑战赛 > 报名", "参赛队伍在完成组队后，需要在报名系统中提交参赛队伍的成员名单。"
                            "参赛队伍报名截止后不再接受更换。"),
        ("校园编程挑战赛 > 赛制", "参赛队伍将在指定赛场完成八小时的程序设计，赛后由评委对参赛队伍的作品进行评审。"),
        ("校园编程挑战赛 > 队伍", "* 队伍规模：每队4人\n* 指导老师：每队1名")])
    assert "每队4人" in answered_in("一支参赛队伍要几个人？", cup).split("。")[1]


def test_asked_how_a_figure_is_computed_the_rate_leads_not_the_steps() -> None:
    """"怎么算" asks the rate or formula (an amount), not the procedure the process slots hold."""
    guide = one_doc("租车指南", "租车步骤：1. 在官网预定车辆；2. 去营业点取车；3. 用完之后还车。\n"
                               "租车价格=基本价格+保险+税。\n- 税：前面几项费用之和的13%。")
    slots = {"steps": ["在官网预定车辆", "去营业点取车", "用完之后还车"], "sources": {"steps": "doc#1"}}
    question = "租车的税是怎么算的？"
    assert question_need(question).kind == "amount"
    answer = extractive_answer(question, guide, "process", slots, Tokenizer().keywords(question))
    assert "13%" in answer.split("。")[0]
