"""Whether a question asking if one pays is answered no by a clause saying the thing is free.

"Do I have to pay for parking on Sundays?" asked of "Restrictions apply Monday to Saturday. Parking is free on
Sundays and bank holidays.", or "首次申领身份证要交费吗" of "首次申领免费": no word of the sentence refuses, yet the
answer is no. "Is parking free?" asks about free itself and is read as any yes/no question. A clause naming days
says it of those days only ("free on Sundays" answers nothing of Mondays), a clause naming whom it is free for says
it of them only. Pure functions; the yes/no lead reads them (answer/extractive.py).
"""

from __future__ import annotations

import re

from lambdarag.answer import cues
from lambdarag.answer.cues import cue_pattern
from lambdarag.answer.weekdays import asked_days, stated_days

_PAY = cue_pattern(*cues.PAY_ASKED, flags=re.IGNORECASE)
_FREE = cue_pattern(*cues.FREE_OF_CHARGE, flags=re.IGNORECASE)
_CLAUSE = re.compile(r"[^.;。；！!？?]+")
_FOR = re.compile(r"\s+(?:for|to)\s+(?:the\s+|all\s+|any\s+)?([A-Za-z]+)", re.IGNORECASE)
_CJK = re.compile(r"[\u4e00-\u9fff]")


def free_of_charge(question: str, sentence: str) -> bool:
    """Whether the question asks whether one pays and a clause of the sentence says it is free, on the days the
    question names when the clause names days."""
    if not _PAY.search(question) or _FREE.search(question):
        return False
    days = asked_days(question)
    for clause in _CLAUSE.findall(sentence):
        free = _FREE.search(clause)
        if free is None or not _for_the_asked(clause, free, question):
            continue
        stated, _ = stated_days(clause)
        if not days or not stated or days & stated:
            return True
    return False


def _for_the_asked(clause: str, free: re.Match[str], question: str) -> bool:
    """Whether a clause's "free" holds for what the question asks: unqualified, or qualified by words the question
    says too ("free for children" asked of children; "首次申领免费" asked of 首次申领, not of 补领)."""
    after = _FOR.match(clause, free.end())
    if after is not None and after.group(1).lower() not in question.lower():
        return False
    before = re.split(r"[：:，,、]", clause[:free.start()])[-1]
    cjk = "".join(_CJK.findall(before))
    if len(cjk) < 2:
        return True
    pairs = {cjk[i:i + 2] for i in range(len(cjk) - 1)}
    return sum(1 for pair in pairs if pair in question) * 2 > len(pairs)  # most of them
