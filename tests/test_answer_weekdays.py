"""A day of the week asked yes or no against the days a sentence states (answer/weekdays.py)."""

from __future__ import annotations

import pytest

from lambdarag.answer.context import pack
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.weekdays import day_outside
from lambdarag.records import Chunk


@pytest.mark.parametrize(("question", "sentence", "outside"), [
    ("Is the museum open on Mondays?", "The museum is open from Tuesday to Sunday.", True),
    ("Is the museum open on Sundays?", "The museum is open from Tuesday to Sunday.", False),
    ("Is it open on Monday?", "Open Friday to Monday.", False),  # a range may wrap round the week
    ("Can I visit at weekends?", "Open Mon-Fri, 9 am to 5 pm.", True),
    ("Can I visit on Saturday?", "Open Monday to Friday 9-5 and Saturday 10-2.", False),  # a day named alone
    ("周六可以办理吗？", "办公时间：周一至周五 9:00-17:00", True),
    ("星期三可以办理吗？", "办公时间：周一至周五", False),
    ("Is the office open on Sunday?", "The office opens at 9 am.", False),  # no days stated
    ("Does the board meet on Monday?", "He sat on the board from 2001 to 2005.", False),  # "sat" is no day
    ("Is the fair open?", "The fair is open from Tuesday to Sunday.", False),  # no day asked
])
def test_a_day_asked_against_the_days_stated(question: str, sentence: str, outside: bool) -> None:
    assert day_outside(question, sentence) is outside


def test_asked_yes_or_no_on_a_day_outside_the_opening_days_the_answer_is_no() -> None:
    chunk = Chunk("hall#1", "hall", "Service Hall", "Service Hall > Opening hours",
                  "The service hall is open from Monday to Friday, 9 am to 5 pm.")
    p = pack({}, ["hall#1"], [], {"hall#1": chunk}, max_chars=3500)
    keywords = ["service", "hall", "open"]
    answer = extractive_answer("Is the service hall open on Saturday?", p, "fact", {}, keywords)
    assert answer.startswith(("No[", "No."))
    assert extractive_answer("Is the service hall open on Tuesday?", p, "fact", {}, keywords).startswith("Yes")
