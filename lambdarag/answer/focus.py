"""The part of an over-long sentence the answer quotes: the clauses holding the value asked.

A sentence longer than the answer's budget is cut to fit (answer/compose.py). Cut from its start, a long rule
loses what it ends with: "…reinstated permanently if the copyright holder notifies you…, this is the first time…,
and you cure the violation prior to 30 days after your receipt of the notice" asked how many days, or "在…条件下，
…，…，应于收到通知之日起15个工作日内补正" asked within how long. When the start does not hold the value the
question asks for (a date, a duration, an amount: answer/asked_values.py) and a later run of clauses does, that
run is quoted, an ellipsis marking each end cut off.
"""

from __future__ import annotations

import re
from collections.abc import Callable

ELLIPSIS = "…"
# a clause ends at a Chinese comma, enumeration comma, semicolon or colon, or at an English one before a space
# ("1,000" is one number)
_CLAUSE = re.compile(r"(?:[^，；、：,;:]|[,;:](?=\S))*(?:[，；、：]|[,;:](?=\s|$)|$)\s*")

Carries = Callable[[str], bool]  # whether a piece of text holds the value asked
Scores = Callable[[str], float]  # how well a piece of text matches the question's words


def clauses(text: str) -> list[str]:
    """``text`` cut after each clause boundary; "".join(clauses(text)) == text."""
    parts = [m.group() for m in _CLAUSE.finditer(text) if m.group()]
    return parts if "".join(parts) == text else [text]


def focused(text: str, budget: int, carries: Carries, scores: Scores) -> str | None:
    """The run of whole clauses of ``text``, at most ``budget`` characters with its ellipses, that holds the
    value asked and matches the question best (the earliest of equals), marked "…" where it starts or ends
    inside the sentence; None when the sentence's start already holds the value or no run of clauses does
    (the caller cuts from the start then)."""
    if carries(text[:budget]):
        return None
    parts = clauses(text)
    runs = [_run(parts, start, budget) for start in range(len(parts))]
    best: tuple[float, int, int] | None = None
    for start, stop in enumerate(runs):
        piece = "".join(parts[start:stop])
        if stop == start or not carries(piece):
            continue
        score = scores(piece)
        if best is None or score > best[0]:
            best = (score, start, stop)
    if best is None:
        return None
    _, start, stop = best
    piece = "".join(parts[start:stop]).strip()
    return f"{ELLIPSIS if start else ''}{piece.rstrip('，,；;、：:')}{ELLIPSIS if stop < len(parts) else ''}"


def _run(parts: list[str], start: int, budget: int) -> int:
    """The end (exclusive) of the longest run of clauses from ``start`` that fits ``budget`` with two ellipses."""
    used, stop = 2 * len(ELLIPSIS), start
    while stop < len(parts) and used + len(parts[stop]) <= budget:
        used += len(parts[stop])
        stop += 1
    return stop
