"""A rule's stated exception named by a yes/no question turns the rule's no into a yes on the exception's terms; an
exception the question does not name, or names only by the rule's own words, leaves the rule as it is."""

from __future__ import annotations

import pytest
from test_answer_needs import answered

from lambdarag.answer.exceptions import excepted

DOGS = "No dogs are allowed in the garden with the exception of service animals trained to aid a disabled person."
PETS = "宿舍内严禁饲养宠物（导盲犬除外）。"


@pytest.mark.parametrize(("question", "sentence", "named"), [
    ("I have a service dog. Can it come into the garden with me?", DOGS, True),
    ("Can I bring my dog into the garden?", DOGS, False),
    ("我有导盲犬，能带进宿舍吗？", PETS, True),
    ("宿舍里能养猫吗？", PETS, False),
    ("除了周末，其他时间能借吗？", "除节假日外，每天开放。", False),  # 周末 is not the exception's word
    ("节假日能来吗？", "除节假日外，每天开放。", True),
    ("Can I drop the course after week 2 if the dean approves?",
     "Courses may not be dropped after week 2 except with the dean's approval.", True),
    ("Can I drop the course after week 2?", "Courses may not be dropped after week 2 except with the dean's approval.",
     False),
    # the question says the rule's place, which the exception repeats: not the exception's own word
    ("Can I eat in the library?", "No food in the library except in the café area of the library.", False),
    ("删除账号以外还能做什么？", "账号删除后无法恢复。", False),  # 删除 is no exception
])
def test_the_question_names_the_exception(question: str, sentence: str, named: bool) -> None:
    assert excepted(question, sentence) is named


def test_a_refusal_with_the_exception_asked_says_yes_on_its_terms() -> None:
    garden = ("Garden rules", f"Plots must be cleared by November 10.\n{DOGS}\nPlace unwanted rocks by the fence.")
    assert answered("I have a service dog. Can it come into the garden with me?", *garden).startswith("Yes, with")
    assert answered("Can I bring my dog into the garden with me?", *garden).startswith(("No[", "No."))
    dorms = ("宿舍管理规定", f"宿舍每晚十一点熄灯。\n{PETS}\n宿舍电费按月结算。")
    assert answered("我有导盲犬，可以带进宿舍吗？", *dorms).startswith("可以，但有条件")
    assert answered("宿舍里可以养宠物吗？", *dorms).startswith("不可以")



def test_a_provision_with_the_exception_asked_says_no_and_an_obligation_s_is_left_as_read() -> None:
    shuttle = ("校园班车", "校园班车每天7:00发车。\n班车免费接送全校师生，节假日除外。\n乘车请出示校园卡。")
    assert answered("节假日能坐班车吗？", *shuttle).startswith("不能")
    pool = ("Pool rules", "Members may use the pool every day from 7am, except on Mondays.\nShowers are required.")
    assert answered("Can I use the pool on Monday?", *pool).startswith(("No[", "No."))
    rooms = ("宿舍分配", "新生宿舍应四人合住一间（留学生除外）。\n宿舍每晚十一点熄灯。")
    assert not answered("我是留学生，可以四人合住一间吗？", *rooms).startswith("不")
