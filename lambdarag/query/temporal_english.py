"""Temporal phrases of an English question (FY2022, Q2 of fiscal 2024, between 2021 and 2023, since 2019, the last
three years, as of 2022, latest…) as explicit years, for questions written without Chinese.

Each rule resolves to (start year, end year, newest) against ``today``'s year, as query/temporal.py's Chinese
rules do; every year a question names is taken (FY2023, FY2022 and FY2021 → 2021–2023), not only the first.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Resolved = tuple[int | None, int | None, bool]

_YEAR = r"(?:19|20)\d{2}"
_FISCAL = r"(?:fy\s?|fiscal\s+(?:year\s+)?)?"
# a year as written in a question: 2022, FY2022, FY 2022, fiscal 2022, fiscal year 2022, FY22; not 2,022 or $2022
_A_YEAR = rf"(?<![\d$])(?<!\d[,.])(?:{_FISCAL}({_YEAR})|fy\s?(\d{{2}}))(?!\d|[,.]\d|%)"
_YEAR_IN_TEXT = re.compile(_A_YEAR, re.IGNORECASE)
_WORD_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_N = rf"(\d{{1,2}}|{'|'.join(_WORD_NUMBERS)})"


def _year(match: re.Match[str], group: int = 1) -> int:
    full, short = match.group(group), match.group(group + 1)
    return int(full) if full else 2000 + int(short)


def _range(m: re.Match[str], today: int) -> Resolved:
    a, b = _year(m, 1), _year(m, 3)
    return min(a, b), max(a, b), False


def _last_n(m: re.Match[str], today: int) -> Resolved:
    n = int(m.group(1)) if m.group(1).isdigit() else _WORD_NUMBERS[m.group(1).lower()]
    return today - n + 1, today, False


def _word(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE)


Rule = tuple[re.Pattern[str], Callable[[re.Match[str], int], Resolved]]

# first matching rule wins; the more specific phrases come first
RULES: list[Rule] = [
    (re.compile(rf"\b(?:between|from)\s+{_A_YEAR}\s+(?:and|to|through|until|-|–)\s+{_A_YEAR}", re.IGNORECASE),
     _range),
    (re.compile(rf"{_A_YEAR}\s*[-–]\s*{_A_YEAR}", re.IGNORECASE), _range),
    (re.compile(rf"\b(?:as\s+of|as\s+at|by\s+the\s+end\s+of|at\s+the\s+end\s+of)\s+(?:the\s+)?{_A_YEAR}",
                re.IGNORECASE), lambda m, y: (None, _year(m), True)),
    (re.compile(rf"\b(?:since|after)\s+{_A_YEAR}", re.IGNORECASE), lambda m, y: (_year(m), y, False)),
    (re.compile(rf"\b(?:before|prior\s+to|until)\s+{_A_YEAR}", re.IGNORECASE), lambda m, y: (None, _year(m), False)),
    (_word(rf"(?:last|past|previous|prior)\s+{_N}\s+(?:fiscal\s+)?years"), _last_n),
    (_word(r"(?:last|previous|prior)\s+(?:fiscal\s+)?year"), lambda m, y: (y - 1, y - 1, False)),
    (_word(r"(?:this|current)\s+(?:fiscal\s+)?year"), lambda m, y: (y, y, False)),
    (_word(r"next\s+(?:fiscal\s+)?year"), lambda m, y: (y + 1, y + 1, False)),
]
# not "current": in "current assets" or "the current ratio" it names no time
_NEWEST = _word(r"latest|most\s+recent(?:ly)?|currently|now|today|up[-\s]to[-\s]date")


def english_scope(question: str, today_year: int) -> tuple[int | None, int | None, bool, str] | None:
    """(start, end, newest, phrase) of the time an English question names, or None when it names none."""
    for pattern, resolve in RULES:
        match = pattern.search(question)
        if match is not None:
            start, end, newest = resolve(match, today_year)
            rest = question.replace(match.group(0), " ")
            return start, end, newest or _NEWEST.search(rest) is not None, match.group(0)
    years = [_year(m) for m in _YEAR_IN_TEXT.finditer(question)]
    if years:
        phrase = ", ".join(m.group(0) for m in _YEAR_IN_TEXT.finditer(question))
        return min(years), max(years), _NEWEST.search(question) is not None, phrase
    latest = _NEWEST.search(question)
    return (None, None, True, latest.group(0)) if latest else None
