"""Evidence sentences read against the date a question is asked as of (PipelineOptions.today, given).

Retrieval already ranks, for a question asked as of a date, what was current then, the latest first
(fusion.recency_boost with query.temporal.as_of_scope) and cuts documents dated after it (fusion.after_today).
The answer's sentences follow the same reading: of sentences that state a figure for several years ("在2018年…
通过率达100%", "在2019年…96%", "在2021年…93%"), the one of the latest year up to that date answers first, and a
sentence whose every year is after it speaks of a time the question does not ask about. A question asked
without a date (the usual case) is left as scored.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING

from lambdarag.text.dates import find_dates

if TYPE_CHECKING:
    from lambdarag.answer.sentences import Scored

AS_OF_BONUS = 0.15  # for a sentence of the latest year up to the date, less by each year behind it
AFTER_AS_OF = 0.6  # score kept by a sentence whose every year is after the date


def sentence_years(sentence: str) -> list[int]:
    """The years of the dates a sentence names."""
    return sorted({int(d[:4]) for d in find_dates(sentence) if d[:4].isdigit()})


def read_as_of(scored: Sequence[Scored], as_of: date | None) -> list[Scored]:
    """``scored`` with the as-of preference applied (unchanged without a date or when no sentence names a year)."""
    if as_of is None:
        return list(scored)
    years = {s.sentence: sentence_years(s.sentence) for s in scored}
    within = {text: max(y for y in ys if y <= as_of.year) for text, ys in years.items()
              if any(y <= as_of.year for y in ys)}
    newest = max(within.values(), default=None)
    out = []
    for item in scored:
        if item.sentence in within and newest is not None:
            bonus = AS_OF_BONUS / (1 + newest - within[item.sentence])
            item = dataclasses.replace(item, score=item.score + bonus)
        elif years[item.sentence]:  # every year it names is after the date
            item = dataclasses.replace(item, score=item.score * AFTER_AS_OF)
        out.append(item)
    return out
