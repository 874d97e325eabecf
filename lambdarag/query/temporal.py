"""Temporal phrases in a question (近五年, 今年, 去年, 最新, 截至2023年, 2020年以来…) as explicit years.

Relative phrases are resolved against an injectable ``today`` so tests and evaluations with an
"as of" date are reproducible.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from lambdarag.query.temporal_english import english_scope
from lambdarag.text.numerals import COUNT_DIGITS, ONE_TO_NINE, TEN, TWO_COUNTING, tens_value
from lambdarag.text.tokenizer import has_cjk

# 1-99 in digits or Chinese: 十, 十二, 两, 二十 (两 does not follow 十: "十两" is no number)
_NUM = rf"(\d{{1,2}}|{TEN}[{ONE_TO_NINE}]?|[{ONE_TO_NINE}{TWO_COUNTING}]{TEN}?)"
_FULLWIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")
MAX_EXPANDED_YEARS = 30  # a range longer than this is not spelled out year by year


@dataclass(frozen=True)
class TimeScope:
    """The years a question asks about; None on a side means open; newest prefers the latest."""

    start_year: int | None
    end_year: int | None
    newest: bool
    phrase: str

    def contains(self, year: int) -> bool:
        """Whether ``year`` lies within the scope (open sides accept anything)."""
        return (self.start_year is None or year >= self.start_year) and (
            self.end_year is None or year <= self.end_year
        )

    def to_dict(self) -> dict[str, object]:
        return {"start_year": self.start_year, "end_year": self.end_year, "newest": self.newest, "phrase": self.phrase}


def as_of_scope(today: date) -> TimeScope:
    """The scope of a question asked as of ``today`` that names no time: up to that year, the latest first."""
    return TimeScope(None, today.year, True, f"as of {today.isoformat()}")


def cn_number(text: str) -> int | None:
    """1-99 written in digits or simple Chinese numerals (五, 十, 十二, 二十, 两)."""
    if text.isdigit():
        return int(text)
    if TEN not in text:
        return COUNT_DIGITS.get(text)
    return tens_value(text, COUNT_DIGITS, unknown=0)  # lenient: an unknown part counts as 0, as it always has


Rule = tuple[re.Pattern[str], Callable[[re.Match[str], int], tuple[int | None, int | None, bool]]]


def _last_n(m: re.Match[str], year: int) -> tuple[int | None, int | None, bool]:
    n = cn_number(m.group(1)) or 1
    return year - n + 1, year, False


def _years_range(m: re.Match[str], year: int) -> tuple[int | None, int | None, bool]:
    a, b = int(m.group(1)), int(m.group(2))
    return min(a, b), max(a, b), False


# first matching rule wins; more specific phrases come first
_RULES: list[Rule] = [
    (re.compile(r"(?<!\d)(\d{4})\s*年?\s*(?:至|到|-|–|—|~|～)\s*(\d{4})\s*(?:学年|年度|年)"), _years_range),
    (re.compile(r"(?:截至|截止到|截止|截到)\s*(?:目前|现在|当前|今天|今日|今年)"), lambda m, y: (None, y, True)),
    (re.compile(r"(?:截至|截止到|截止|截到)\s*(\d{4})\s*年"), lambda m, y: (None, int(m.group(1)), True)),
    (re.compile(r"(?<!\d)(\d{4})\s*年\s*(?:以来|至今|起至今|到现在|之后|以后)"),
     lambda m, y: (int(m.group(1)), y, False)),
    (re.compile(r"(?<!\d)(\d{4})\s*年\s*(?:以前|之前|前)"), lambda m, y: (None, int(m.group(1)), False)),
    (re.compile(rf"(?:近|最近|过去|前)\s*{_NUM}\s*(?:年|个年度)"), _last_n),
    (re.compile(r"(?:近几年|近年来|近年|最近几年|这几年)"), lambda m, y: (y - 2, y, False)),
    (re.compile(r"(?:今年|本年度|本年)"), lambda m, y: (y, y, False)),
    (re.compile(r"(?:去年|上一年|上年度)"), lambda m, y: (y - 1, y - 1, False)),
    (re.compile(r"前年"), lambda m, y: (y - 2, y - 2, False)),
    (re.compile(r"明年"), lambda m, y: (y + 1, y + 1, False)),
    (re.compile(r"(?<!\d)(\d{4})\s*(?:年|学年|年度)"), lambda m, y: (int(m.group(1)), int(m.group(1)), False)),
    (re.compile(r"(?:最新|最近|目前|现行|当前|现在)"), lambda m, y: (None, None, True)),
]
_NEWEST = re.compile(r"最新|最近|目前|现行|当前|现在")


def time_scope(question: str, today: date) -> TimeScope | None:
    """The time scope a question asks about, relative to ``today``; None when it names none."""
    text = question.translate(_FULLWIDTH_DIGITS)
    for pattern, resolve in _RULES:
        match = pattern.search(text)
        if match is None:
            continue
        start, end, newest = resolve(match, today.year)
        # "最新的近三年数据": the range stands, and the newest within it is preferred
        newest = newest or bool(_NEWEST.search(text.replace(match.group(0), "")))
        return TimeScope(start, end, newest, match.group(0))
    if not has_cjk(text):  # an English question (query/temporal_english.py)
        english = english_scope(text, today.year)
        return TimeScope(*english) if english is not None else None
    return None


def expand_years(scope: TimeScope | None) -> list[str]:
    """The scope's years spelled out ("2022年", …, "2026年"); nothing for an open or too long range."""
    if scope is None or scope.end_year is None or not has_cjk(scope.phrase):
        return []  # an English question names its years as it means them; "2022年" would add nothing
    if scope.start_year is None:
        return [f"{scope.end_year}年"] if scope.newest else []  # "截至2023年" asks for 2023's state
    if scope.end_year - scope.start_year >= MAX_EXPANDED_YEARS:
        return []
    return [f"{y}年" for y in range(scope.start_year, scope.end_year + 1)]
