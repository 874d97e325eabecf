"""Sentences that need the next one: the sentence that matches the question best may only introduce its answer.

Whatever the question, a lead-in ("Employees may claim the following:", "补贴标准如下：") answers only with the
items it announces, which follow it in its chunk.

A list question's best match is often the lead-in ("这门课很受学生欢迎。") and the next sentence holds the items
("课时安排是：导言—诗律、诗韵—对仗…"); a "why" question's best match is often the sentence stating what it asks
about ("雄蛛会很小心地走近雌蛛。"), and the next one gives the reason ("若不小心，就会被雌蛛吃下。").

The answer's first sentence may also point back at what is asked, which the sentence before it names: a reason
asked, it opens with "因此" / "Therefore"; the year asked, with "同年" / "The same year" and no year of its own; the
thing asked by "哪场比赛" / "which match", it says "这场比赛" / "this match". The one before leads it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any, cast

from lambdarag.answer.asked_values import YEAR_QUESTION
from lambdarag.answer.candidates import C
from lambdarag.answer.lines import joined_list, leads_list, opens_item
from lambdarag.answer.needs import gives_reason
from lambdarag.text.dates import names_a_year

# a sentence drawing a consequence of the one before it
_CONSEQUENCE = re.compile(r"^(?:因此|因而|所以|于是|故此|therefore\b|thus\b|hence\b|consequently\b|as a result\b)",
                          re.IGNORECASE)
# a sentence placing itself in the year of the one before it
_SAME_YEAR = re.compile(r"^(?:同年|当年|是年|该年|这一年|那一年|次年|翌年|the same year\b|that year\b"
                        r"|in (?:the same|that) year\b|the (?:following|next) year\b|later that year\b)", re.IGNORECASE)
# what "哪" asks with its measure word and noun ("哪场比赛", "哪一位", "哪部作品"), and "which <noun>"
_WHICH = re.compile(r"哪一?([个场次部本位种家所座条项届支首件])?([\u4e00-\u9fff]{0,2})")
_NOT_NOUNS = frozenset("里些儿怕样")
_WHICH_EN = re.compile(r"\bwhich ([a-z]{3,})\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[，,；;。]")  # a sentence naming what it points back to names it before
# three items or more, each up to 15 characters, separated by 、 ； or a dash
_ENUMERATION = re.compile(r"(?:[^、，,；;—。]{1,15}[、；;—]){2,}")


Test = Callable[[str], bool]


def enumerates(sentence: str) -> bool:
    """Whether ``sentence`` lists three items or more."""
    return bool(_ENUMERATION.search(sentence))


def _any(sentence: str) -> bool:
    return True


# need -> (what a picked sentence holds when it answers by itself, what the next sentence must hold to follow it)
FOLLOW_ON: dict[str, tuple[Test, Test]] = {"list": (enumerates, enumerates), "reason": (gives_reason, _any)}


def points_back(question: str, need: str) -> Test:
    """What of a first sentence points back at what ``question`` asks, named by the sentence before it."""
    tests: list[Test] = [lambda s: bool(_CONSEQUENCE.match(s))] if need == "reason" else []
    if YEAR_QUESTION.search(question):
        tests.append(lambda s: bool(_SAME_YEAR.match(s)) and not names_a_year(_SAME_YEAR.sub("", s, count=1)))
    which = _WHICH.search(question)
    # "哪场比赛", "哪位"; not "哪里", "哪些", "哪儿"
    if which and (which.group(1) or len(which.group(2)) == 2) and which.group(2)[:1] not in _NOT_NOUNS:
        measure, noun = which.group(1) or "", which.group(2)
        said = re.compile(f"[这该此那]一?{measure}{noun}" if noun else f"[这该此那]一?{measure}")
        tests.append(lambda s: bool(said.search(_first_clause(s))))
    which_en = _WHICH_EN.search(question)
    if which_en:
        this = re.compile(rf"\b(?:this|that|the same) {re.escape(which_en.group(1))}\b", re.IGNORECASE)
        tests.append(lambda s: bool(this.search(_first_clause(s))))
    return lambda s: any(test(s) for test in tests)


def _first_clause(sentence: str) -> str:
    return _CLAUSE_END.split(sentence, maxsplit=1)[0]


def with_next(picked: Sequence[C], candidates: Sequence[C], need: str, back: Test | None = None) -> list[C]:
    """``picked`` with each picked lead-in joined to the items it announces (one line, as they read in the text),
    and, for a need of FOLLOW_ON, after each picked sentence that does not answer the ``need`` by itself, the next
    sentence of its chunk when that one may (``candidates`` in their chunks' order). A first sentence ``back``
    finds pointing back at what is asked (``points_back``) is led by the sentence before it."""
    rule = FOLLOW_ON.get(need)  # (answers by itself, may follow) for the need, None for other needs
    out: list[C] = []
    listed: list[C] = []  # items joined to their lead-in, not shown again
    for item in picked:
        if item in out or item in listed:
            continue
        at = candidates.index(item)
        before = candidates[at - 1] if at > 0 else None
        if back is not None and not out and back(item.sentence) and before is not None and before.n == item.n:
            out.append(before)  # "因此…决定兴建新路" answers why only with the sentence it concludes from
        items = _items_after(at, candidates) if leads_list(item.sentence) else []
        if items:
            listed.extend(items)
            out = [o for o in out if o not in items]
            out.append(_with_sentence(item, joined_list(item.sentence, [i.sentence for i in items])))
            continue
        out.append(item)
        if rule is None or rule[0](item.sentence):
            continue
        after = candidates[at + 1] if at + 1 < len(candidates) else None
        if after is not None and after.n == item.n and after not in picked and after not in out \
                and rule[1](after.sentence):
            out.append(after)
    return _clauses_joined(out, candidates)


def _clauses_joined(out: list[C], candidates: Sequence[C]) -> list[C]:
    """A clause ending in ；/; followed in the answer by the clause after it in its chunk: one sentence, as its
    writer put it ("大多来自…口述；一小部份来自…公文"), not two closed with a full stop each."""
    joined: list[C] = []
    for item in out:
        last = joined[-1] if joined else None
        if last is not None and last.sentence.rstrip().endswith(("；", ";")) and _next_of(last, candidates) is item:
            glue = " " if last.sentence.rstrip().endswith(";") else ""
            joined[-1] = _with_sentence(last, f"{last.sentence.rstrip()}{glue}{item.sentence}")
            continue
        joined.append(item)
    return joined


def _next_of(item: C, candidates: Sequence[C]) -> C | None:
    """The candidate after ``item`` in its chunk, None at its chunk's end (or for a sentence no candidate is)."""
    if item not in candidates:
        return None
    at = candidates.index(item)
    after = candidates[at + 1] if at + 1 < len(candidates) else None
    return after if after is not None and after.n == item.n else None


def announced(lead_in: C, candidates: Sequence[C]) -> list[C]:
    """The items a lead-in announces ("Submit a mileage log including:" -> "- Starting location." …), none for a
    sentence that leads no list or is no candidate."""
    if lead_in not in candidates or not leads_list(lead_in.sentence):
        return []
    return _items_after(candidates.index(lead_in), candidates)


def _items_after(at: int, candidates: Sequence[C]) -> list[C]:
    """The marked items right after the lead-in ``candidates[at]`` in its chunk."""
    items: list[C] = []
    for after in candidates[at + 1:]:
        if after.n != candidates[at].n or not opens_item(after.sentence):
            break
        items.append(after)
    return items


def _with_sentence(item: C, sentence: str) -> C:
    """``item`` (a dataclass, answer/sentences.Scored) saying ``sentence``."""
    return cast(C, dataclasses.replace(cast(Any, item), sentence=sentence))
