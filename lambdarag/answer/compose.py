"""Putting the extractive answer together: the needed part first, a yes/no lead, a length budget.

Pure functions over cited lines ("…[n]。"). The budget counts the characters a reader reads, citations
excluded; the first line is always kept (cut at a clause boundary when it alone is too long), later lines only
when they fit whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from lambdarag.answer import cues
from lambdarag.answer.context import Piece
from lambdarag.answer.cues import cue_pattern
from lambdarag.answer.focus import ELLIPSIS
from lambdarag.answer.limits import without_bounds
from lambdarag.answer.needs import BARE, Need
from lambdarag.answer.sentences import evidence_pieces, split_piece
from lambdarag.text.patterns import CITATION_MARK
from lambdarag.text.tokenizer import rejoin_enumerations, rejoin_quotations, split_sentences

_MARKS_AT_END = re.compile(r"((?:\[\d{1,3}\])+)([。.！!？?]?)\s*$")
_CLAUSE_END = "，；、,;：:"
_ITEM_NUMBER_END = re.compile(r"(?:^|[^\d.])\d{1,2}\.$")  # "办理步骤：1." ends in an item's number, not a sentence
_NEGATION = cue_pattern(*cues.NEGATION, *cues.FORBIDDEN_KIND)
_NEGATION_EN = cue_pattern(*cues.NEGATION_EN, flags=re.IGNORECASE)
_LEADING_CONDITION_EN = re.compile(cues.LEADING_CONDITION_EN, re.IGNORECASE)
_CONCESSION_EN = re.compile(cues.CONCESSION_EN, re.IGNORECASE)
_LEADING_CONDITION = re.compile(cues.LEADING_CONDITION)
_RULE = cue_pattern(*cues.RULE)
_CONDITION = cue_pattern(*cues.CONDITION, *cues.CONDITION_EN, flags=re.IGNORECASE)
# "any price or no price", "whether or not": the alternatives of a choice refuse nothing
_ALTERNATIVE_EN = re.compile(r"\bor\s+not?\b(?:\s+\w+)?|\bwhether\s+or\s+not\b", re.IGNORECASE)
# the lead in the words yes/no answers are given in: 要 and 得 (must) in words of need (不得 says "must not"), 允许 in
# words of permission, the bare …吗 in 是 / 否
_NEGATED = {"有": "没有", "必须": "不必", "需要": "不需要", "要": "不需要", "得": "不需要", "允许": "不可以",
            BARE: "否"}
_AFFIRMED = {"得": "需要", "要": "需要", "允许": "可以", BARE: "是"}
Focus = Callable[[str, int], str | None]  # the part of a sentence to quote within a budget, None for its start


PART_MIN = 100  # characters left in the budget worth a long sentence's part


def plain_length(text: str) -> int:
    """Characters a reader reads: the text without its [n] citations."""
    return len(CITATION_MARK.sub("", text))


def fit_budget(lines: Sequence[str], budget: int, focus: Focus | None = None, parts: bool = True) -> list[str]:
    """The lines that fit ``budget`` in order: the first always (cut if needed, to the part ``focus`` picks when
    it picks one), the others whole; with ``parts``, a line too long for what is left (at least PART_MIN) is cut
    the same way and ends the answer: the best matching sentence after the top chunk's is often the long one, and
    the shorter lines after it pad rather than answer."""
    out: list[str] = []
    used = 0
    for line in lines:
        size = plain_length(line)
        if not out and size > budget:
            out.append(shorten(line, budget, focus))
            break
        if used + size <= budget:
            out.append(line)
            used += size
        elif parts and budget - used >= PART_MIN:  # the part of a long sentence that answers, in what is left
            out.append(shorten(line, budget - used, focus))
            break
    return out


def shorten(line: str, budget: int, focus: Focus | None = None) -> str:
    """``line`` cut at its last clause boundary within ``budget`` characters, its citations kept; or, when
    ``focus`` picks one, to the part of it within ``budget`` that answers (answer/focus.py)."""
    m = _MARKS_AT_END.search(line)
    marks, stop = (m.group(1), m.group(2) or "。") if m else ("", "")
    body = line[: m.start()] if m else line
    body = CITATION_MARK.sub("", body)
    tail = stop if marks else ""
    room = budget - len(tail)  # the full stop after the citations counts in the budget as well
    if len(body) <= room:
        return line
    part = focus(body, room) if focus is not None else None
    if part is not None:
        return f"{part}{marks}{tail}"
    cut = body[: max(1, room - 1)]
    boundary = max(cut.rfind(c) for c in _CLAUSE_END)
    if boundary >= room // 2:
        cut = cut[:boundary]
    return f"{cut}{ELLIPSIS}{marks}{tail}"


def on_condition(question: str, sentence: str) -> bool:
    """Whether the supporting ``sentence`` grants what it grants only on a condition it states ("仅限…方可", "only
    if…"), one the question does not itself ask about ("…only if I pay?")."""
    return any(m.group() not in question for m in _CONDITION.finditer(sentence))


def yes_no_lead(need: Need, support: str, supported: bool, refuted: bool = False, outside: bool = False,
                conditional: bool = False) -> str:
    """"可以" / "不可以" / "需要"… (or "Yes" / "No") from the supporting sentence; "not stated" without support.

    The supporting sentence's negation decides: "不得/不予/无需…" answers no; so does a sentence that ``refuted``
    the question's own terms (the predicate asked said negated: "要收费吗" against "不收费"; free, asked whether one
    pays; a day outside the days stated). A figure the question names ``outside`` the limit the sentence states
    turns the sentence's answer round (answer/limits.py): "40岁" against "18至35周岁" is no, "$40" against "Receipts
    are not needed for fares under $25" yes. A bound's own words ("不得超过", "no more than", "no later than")
    negate nothing, nor do the alternatives of a choice ("any price or no price", "whether or not"). A yes the
    sentence gives only on a condition (``conditional``: on_condition) says so ("可以，但有条件", "Yes, with
    conditions"), the sentence after it stating the condition. Without support — nothing in the evidence matches
    the question well enough — the answer says the documents do not say.
    """
    if not supported:
        return "Not stated in the documents. " if need.english else "资料中未明确说明。"
    # outside a rule's limit, or in the exception it names, the rule's yes or no is turned round
    negative = negates(need, support) != outside or refuted
    conditional = conditional and not negative  # yes, but only on the condition the sentence states
    if need.english:
        return "No." if negative else "Yes, with conditions." if conditional else "Yes."
    modal = need.modal or "是"
    word = (_NEGATED.get(modal) or f"不{modal}") if negative else _AFFIRMED.get(modal, modal)
    return f"{word}，但有条件" if conditional else word


def lead_line(need: Need, support: str, supported: bool, refuted: bool = False, outside: bool = False,
              conditional: bool = False) -> str:
    """The yes/no lead as a line of its own, cited like the sentence it was read from."""
    word = yes_no_lead(need, support, supported, refuted, outside, conditional)
    if not supported:
        return word
    m = _MARKS_AT_END.search(support)
    marks = m.group(1) if m else ""
    if need.english:
        return f"{word.rstrip('.')}{marks}. "
    return f"{word}{marks}。"


def negates(need: Need, support: str) -> bool:
    """Whether the supporting sentence says no in words of its own: a negation of the rule it states, not a bound's
    ("no more than"), a choice's ("whether or not"), an English condition's it opens with or a concession's."""
    said = without_bounds(CITATION_MARK.sub("", support))
    if need.english:  # the rule the sentence states, not the condition it opens with or the concession it makes
        said = _CONCESSION_EN.sub(" ", _LEADING_CONDITION_EN.sub(" ", said))
    elif _LEADING_CONDITION.match(said):  # its last clause, when that states a rule ("…，…可能会允许发布该内容")
        last = re.split(r"[，,；;]", said.rstrip("。.！!"))[-1]
        said = last if _RULE.search(last) else said
    return bool(_NEGATION_EN.search(_ALTERNATIVE_EN.sub(" ", said)) if need.english else _NEGATION.search(said))


def lead_text(pieces: Sequence[Piece], budget: int) -> str:
    """The evaluation's reference answer: the first evidence sentences in order, up to ``budget`` characters.

    What an answer that does not look at the question would show; the extractive answer is measured against it.
    """
    lines = [s for p in evidence_pieces(pieces) for line in split_piece(p)[1].splitlines()
             for s in split_sentences(line.strip())]
    return "".join(fit_budget(lines, budget, parts=False))


def first_sentence(text: str) -> str:
    """The first sentence a reader reads (citations dropped); a numbered item's "1. " does not end it ("办理步骤：
    1. 填写报销单；" is one sentence, not "办理步骤：1.")."""
    line = CITATION_MARK.sub("", text).strip().split("\n", 1)[0]
    sentences = rejoin_enumerations(rejoin_quotations(split_sentences(line)))
    first = sentences[0] if sentences else ""
    for rest in sentences[1:]:
        if not _ITEM_NUMBER_END.search(first):
            break
        first = f"{first} {rest}"
    return first
