"""Evidence sentences read against the date a question is asked as of (PipelineOptions.today, given).

Retrieval already ranks, for a question asked as of a date, what was current then, the latest first
(fusion.recency_boost with query.temporal.as_of_scope) and cuts documents dated after it (fusion.after_today).
The answer's sentences follow the same reading: of sentences that state a figure for several years ("在2018年…
通过率达100%", "在2019年…96%", "在2021年…93%"), the one of the latest year up to that date answers first, and a
sentence whose every year is after it speaks of a time the question does not ask about. A question asked
without a date (the usual case) is left as scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from lambdarag.text.dates import find_dates, years_of

AS_OF_BONUS = 0.15  # for a sentence of the latest year up to the date, less by each year behind it
AFTER_AS_OF = 0.6  # score kept by a sentence whose every year is after the date


def sentence_years(sentence: str) -> list[int]:
    """The years of the dates a sentence names."""
    return years_of(find_dates(sentence))


def years_in_turn(sentences: Sequence[str], chunks: Sequence[object]) -> list[list[int]]:
    """Each sentence's years, a sentence naming none taking those of the sentence before it in the same chunk
    ("在2019年…通过率达96%。平均分为74.84分。": the average is 2019's too)."""
    out: list[list[int]] = []
    carried: list[int] = []
    for i, sentence in enumerate(sentences):
        if i and chunks[i] != chunks[i - 1]:
            carried = []
        carried = sentence_years(sentence) or carried
        out.append(carried)
    return out


def as_of_scores(years: Sequence[Sequence[int]], scores: Sequence[float], as_of: date | None) -> list[float]:
    """The scores of sentences naming ``years`` read as of ``as_of`` (unchanged without a date or when no sentence
    names a year)."""
    if as_of is None:
        return list(scores)
    within = [max((y for y in ys if y <= as_of.year), default=None) for ys in years]
    newest = max((y for y in within if y is not None), default=None)
    out = []
    for ys, year, score in zip(years, within, scores, strict=True):
        if year is not None and newest is not None:
            score += AS_OF_BONUS / (1 + newest - year)
        elif ys:  # every year it names is after the date
            score *= AFTER_AS_OF
        out.append(score)
    return out


def scores_as_of(sentences: Sequence[str], chunks: Sequence[object], scores: Sequence[float],
                 as_of: date) -> list[float]:
    """The scores of ``sentences`` (cut from ``chunks``, in order) read as of a date: what was current then counts,
    a sentence naming no year taking those of the sentence before it in its chunk."""
    return as_of_scores(years_in_turn(sentences, chunks), scores, as_of)
