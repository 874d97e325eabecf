"""Yes/no read without a word of refusal: the opposite of what is asked (free when asked whether one pays, closed
when asked whether open), a day outside the days a sentence of the support's chunk states, and an FAQ answer that
opens with its own yes or no."""

from __future__ import annotations

from typing import Any

import pytest
from test_answer_needs import answered

from lambdarag.answer.context import pack
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.opposites import says_opposite
from lambdarag.records import Chunk

HOURS = "Restrictions apply Monday to Saturday, 8am to 6.30pm. Parking is free on Sundays and bank holidays."
FEES = "收费标准（元）：20，备注：首次申领免费"
COFFEE = "There is a small onsite coffee shop (open on Friday until 10pm but closed on the weekend)."


@pytest.mark.parametrize(("question", "sentence", "free"), [
    ("Do I have to pay for parking on Sundays?", HOURS, True),
    ("Do I have to pay for parking on Mondays?", HOURS, False),  # free on Sundays says nothing of Mondays
    ("Is parking free on Sundays?", HOURS, False),  # asks about free itself: read as any yes/no question
    ("首次申领身份证要交费吗？", FEES, True),
    ("补领身份证要交费吗？", FEES, False),  # free for a first application only
    ("补领居住证要交费吗？", "首次申领居住证不收取费用；遗失补领的，收取工本费20元", False),
    ("首次申领居住证要交费吗？", "首次申领居住证不收取费用；遗失补领的，收取工本费20元", True),
    ("办理居住证要收费吗？", "收费标准：不收费", True),
    ("Is there a charge for the museum?", "Admission is free for children under 12.", False),  # for children only
    ("Do children have to pay?", "Admission is free for children under 12.", True),
    ("Do I have to pay to call?", "Call our toll-free number.", False),
    # open asked, closed stated, on the days asked; and the other way round
    ("Is the museum open on Mondays?", "The museum is closed on Mondays.", True),
    ("Is the museum open on Tuesdays?", "The museum is closed on Mondays.", False),
    ("Is the office closed on Sundays?", "The office is open on Sundays from 10am.", True),
    ("Is the office closed on Sundays?", "The office is open Monday to Saturday.", False),
    ("图书馆周日开放吗？", "图书馆每周日闭馆。", True),
    # what "but" sets against the rest is a clause of its own; the weekend is Saturday and Sunday
    ("Will the coffee shop be open on Saturday morning?", COFFEE, True),
    ("Will the coffee shop be open on Friday evening?", COFFEE, False),
    ("周六图书馆开放吗？", "图书馆周一至周五开放，但周末闭馆。", True),
    ("周三图书馆开放吗？", "图书馆周一至周五开放，但周末闭馆。", False),
    # different asked, the same stated, and the other way round; 一样 says "likewise" as often
    ("Are fiscal hosting and fiscal sponsorship two different services?", "These two terms mean the same thing.", True),
    ("Is fiscal hosting the same as fiscal sponsorship?", "They are different services.", True),
    ("本科生和研究生的标准不同吗？", "本科生和研究生的标准相同。", True),
    ("两种卡的收费不同吗？", "失败的调用也一样会计费。", False),
    ("Is the museum open on Mondays?", "The shop is close to the museum.", False),  # near, not closed
    # a clause saying the thing asked as well does not merely state its opposite
    ("Can I charge a price for copies?", "You may distribute copies of free software (and charge for them).", False),
    # every one asked, some not stated ("是不是每个…" itself says no "不是每")
    ("是不是每个网点都能办理？", "部分网点不办理此项业务；", True),
    ("每家银行都可以代收吗？", "部分银行没有开通代收。", True),
    ("每家银行都可以代收吗？", "各家银行均已开通代收。", False),
])
def test_free_answers_a_question_whether_one_pays(question: str, sentence: str, free: bool) -> None:
    assert says_opposite(question, sentence) is free


def faq(*lines: str) -> Any:
    chunk = Chunk("faq#1", "faq", "Parking Q&A", "Parking Q&A", "\n".join(lines))
    return pack({}, ["faq#1"], [], {"faq#1": chunk}, max_chars=3500)


def test_free_on_the_day_asked_is_a_no() -> None:
    p = faq("Q: When are the parking restrictions in force?", f"A: {HOURS}")
    answer = extractive_answer("Do I have to pay for parking on Sundays?", p, "fact", {}, ["pay", "parking", "sundays"])
    assert answer.startswith(("No[", "No."))


def test_an_faq_answer_opening_with_its_own_yes_is_not_led_by_another() -> None:
    p = faq("Q: Can visitors park in the zone?", "A: Yes. Residents can buy visitor vouchers at £2 per day.")
    answer = extractive_answer("Can my friends park in the zone when they visit?", p, "fact", {},
                               ["friends", "park", "zone", "visit"])
    assert answer.startswith("Yes. Residents can buy visitor vouchers")  # said by its question, led once


def test_a_day_outside_the_hours_another_sentence_of_the_chunk_states_is_a_no() -> None:
    chunk = Chunk("licence#1", "licence", "Fishing licence", "Fishing licence > How to buy",
                  "You can buy a licence online, by phone on 0344 800 5386, or at any post office. "
                  "The phone line is open Monday to Friday, 8am to 6pm.")
    p = pack({}, ["licence#1"], [], {"licence#1": chunk}, max_chars=3500)
    keywords = ["buy", "fishing", "licence", "phone", "saturday"]
    assert extractive_answer("Can I buy a fishing licence by phone on Saturday?", p, "fact", {},
                             keywords).startswith(("No[", "No."))


def test_a_yes_no_question_asked_with_another_is_read_for_its_own_part() -> None:
    chunk = Chunk("guide#1", "guide", "社保补贴办事指南", "社保补贴办事指南",
                  "补贴标准：按实际缴费的三分之二给予补贴。\n收费标准：不收费。\n咨询电话：0571-12333。")
    p = pack({}, ["guide#1"], [], {"guide#1": chunk}, max_chars=3500)
    answer = extractive_answer("补贴要收费吗？咨询电话是多少？", p, "fact", {}, ["补贴", "收费", "咨询电话"])
    assert answer.startswith("不需要") and "0571-12333" in answer


def test_a_yes_no_clause_asked_with_another_in_one_sentence_is_answered_first() -> None:
    """"Can I get X, and would I have to pay for one?": the lead answers getting it; the support's price ("at no
    charge") refuses nothing asked of getting it, and answers the second clause after the lead."""
    chunk = Chunk("access#1", "access", "Accessibility", "Accessibility",
                  "On request, we will provide a sign language interpreter (at no charge) to any Deaf attendee.")
    p = pack({}, ["access#1"], [], {"access#1": chunk}, max_chars=3500)
    keywords = ["sign", "language", "interpreter", "pay"]
    question = "Can I get a sign language interpreter, and would I have to pay for one?"
    assert extractive_answer(question, p, "fact", {}, keywords).startswith("Yes")
    # asked without its question mark, the same
    assert extractive_answer(question.rstrip("?"), p, "fact", {}, keywords).startswith("Yes")
    # asked whether one pays, the same sentence answers no
    assert extractive_answer("Do I have to pay for a sign language interpreter?", p, "fact", {},
                             keywords).startswith("No[")


@pytest.mark.parametrize(("question", "lead"), [
    ("可以申请手语翻译吗？", "可以"),  # asks nothing of paying: "无需付费" refuses nothing asked
    ("申请手语翻译需要付费吗？", "不需要"),
])
def test_a_free_of_charge_phrase_says_no_only_to_a_question_whether_one_pays(question: str, lead: str) -> None:
    chunk = Chunk("access#2", "access", "无障碍服务", "无障碍服务", "听障参会者可以申请手语翻译，无需付费。")
    p = pack({}, ["access#2"], [], {"access#2": chunk}, max_chars=3500)
    answer = extractive_answer(question, p, "fact", {}, ["手语", "翻译", "付费"])
    assert answer.startswith(lead), answer


@pytest.mark.parametrize(("question", "sentence", "no"), [
    ("已经参加过一次交流项目，大四还想再申请一个同类项目，可以吗？", "本科四年内只限参加一次。", True),
    ("I got a grant last year. Can I apply again this year?", "Each person may receive the grant only once.", True),
    ("可以申请交流项目吗？", "本科四年内只限参加一次。", False),  # not asked again: once is a yes
    ("大四还想再申请一个同类项目，可以吗？", "每学期可申请多个项目。", False),  # no limit of once
])
def test_once_only_answers_no_to_doing_it_again(question: str, sentence: str, no: bool) -> None:
    from lambdarag.answer.opposites import once_only_again

    assert once_only_again(question, sentence) is no


def test_a_negation_the_question_asks_with_itself_agrees() -> None:
    releases = ("Release policy", "Versions within one release line are always backwards compatible, thus they do not "
                "include database schema changes or API modifications.\nA feature release starts a release line.")
    answer = answered("Are patch versions of one release line backwards compatible, with no database schema changes?",
                      *releases)
    assert answer.startswith("Yes")
    # asked without the question's own negation, the sentence's "not" says no
    assert answered("Do patch versions include database schema changes?", *releases).startswith(("No[", "No."))
    # a "without" the rule refuses as well is still refused by the rule's "cannot"
    entry = ("Entry", "You cannot enter the hall without a ticket.\nTickets are sold at the door.")
    assert answered("Can I enter the hall without a ticket?", *entry).startswith(("No[", "No."))


def test_what_a_contrast_sets_apart_answers_when_it_says_what_is_asked() -> None:
    rules = ("参赛规则", "百度内部员工可正常参赛获得名次与荣誉，但不参与现金奖励的分配。\n比赛分初赛和复赛两个阶段。")
    assert answered("我在百度上班，自己参赛要是拿了名次，能领现金奖吗？", *rules).startswith("不能")
    assert not answered("我在百度上班，可以参赛拿名次吗？", *rules).startswith("不")


def test_what_a_contrast_sets_against_the_part_saying_what_is_asked_restricts_it() -> None:
    terms = ("使用协议",
             "会员可将本人的订单信息通过分享入口分享给他人，但不得用于商业用途。\n会员每月可免费取消两次预约。")
    # the part before 但 says what is asked: its yes, on the terms the rest states
    assert answered("我能把订单分享给别人吗？", *terms).startswith("能，但有条件")
    # what the part after 但 says is still refused there
    assert answered("订单信息能用于商业用途吗？", *terms).startswith("不能")
    # asked in other words than the sentence's, its restriction refuses nothing asked: not stated, never a wrong no
    assert answered("我能用 App 把自己的订单发给朋友看吗？", *terms).startswith("资料中未明确说明")
