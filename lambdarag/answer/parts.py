"""The parts a question asks about together: its sub-questions, the items it enumerates, the clauses that ask.

The extractive answer gives each part its own sentence first (answer/sentences.py; a clause that asks, as asked
alone: answer/extractive.py), so "A是哪个？B又是哪个？", "包括交通、住宿和伙食" or "在哪里办理，需要多长时间" is not
answered by the one sentence that matches the whole question best.
"""

from __future__ import annotations

import re

from lambdarag.answer.needs import asks_something

MAX_PART_CHARS = 12  # longer enumerated "items" are clauses, not parts
_SUB_QUESTION = re.compile(r"[？?]")
# clauses of one question mark ("在哪里办理，需要多长时间"; "What is X, and who approves Y"): an "and" joins two
# English questions only before a question word of its own
_CLAUSE = re.compile(r"([，,；;]\s*(?:and\s+)?|\s+and\s+(?=(?:what|which|who|whom|whose|where|when|why|how)\b))",
                     re.IGNORECASE)
_ENUM_HEAD = re.compile(r"(?:[:：]|包括|包含|涵盖|分别是|比如|例如)(.+)$")
_FROM_TO = re.compile(r"从(.{1,12}?)到(.{1,12}?)(?:的|全过程|整个|整体|过程|$)")
_BEFORE_FROM = re.compile(r"([^的，,、\s]{2,12})(?:和|及|以及|与)$")
_ENUM_SPLIT = re.compile(r"[、，,；;]|以及|和|及|与|还有")
_ENUM_TRIM = re.compile(r"^(?:的|等)|(?:等|方面|的)$")


def question_parts(question: str) -> list[str]:
    """The parts a question asks about together: its sub-questions, or the items it enumerates.

    "A是哪个？B又是哪个？" has two sub-questions; "包括交通、住宿和伙食", "：窗口分工、服务时间和常见问题" and
    "从入账、使用到结题" enumerate items. A question with one part gives [].
    """
    q = question.strip().rstrip("。？?！!")
    subs = [x for x in _SUB_QUESTION.split(q) if x.strip()]
    if len(subs) >= 2:
        return subs
    items: list[str] = []
    if m := _FROM_TO.search(q):
        items = [*_ENUM_SPLIT.split(m.group(1)), m.group(2)]
        if before := _BEFORE_FROM.search(q[: m.start()]):  # "X和从A到B": X is a part too
            items.insert(0, before.group(1))
    elif m := _ENUM_HEAD.search(q):
        items = _ENUM_SPLIT.split(m.group(1))
    items = [_ENUM_TRIM.sub("", x.strip()) for x in items]
    items = [x for x in items if 2 <= len(x) <= MAX_PART_CHARS]
    return items if len(items) >= 2 else []


def asking_clauses(question: str) -> list[str]:
    """The clauses of a question that each ask something of their own ("补贴标准是多少，什么时候发放" -> both; "What
    is the limit and who approves it" -> both); a clause that asks nothing ("我是研究生，可以申请吗") joins the
    asking clause after it. One asking clause gives [its question]."""
    out: list[str] = []
    pending = after = ""
    pieces = _CLAUSE.split(question)  # clause, separator, clause, …
    for clause, separator in zip(pieces[::2], [*pieces[1::2], ""], strict=True):
        if asks_something(clause):
            out.append(f"{pending}{clause}")
            pending, after = "", separator
        else:
            pending += clause + separator
    if pending and out:  # a closing clause that asks nothing ("…，如果是研究生") belongs to the last question
        out[-1] += after + pending
    return out if len(out) >= 2 else [question]
