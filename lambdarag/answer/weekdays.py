"""Whether the day of the week a yes/no question names lies outside the days its supporting sentence states.

"Is the museum open on Mondays?" asked of "The museum is open from Tuesday to Sunday": the sentence says nothing
negative, yet the answer is no, as "周六可以办理吗？" against "办公时间：周一至周五". A sentence states days as a range
("Tuesday to Sunday", "周一至周五", a week wrapping round) or one by one ("Saturday 10 am to 2 pm"); the question's day
is outside when the sentence states a range and neither a range nor a day it names holds it. Pure functions; the
yes/no lead reads them (answer/extractive.py).
"""

from __future__ import annotations

import re

_EN_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CN_DAYS = "一二三四五六日"
# a day's full name in any case, its short form capitalised only ("Sat" is a day, "sat" a verb), its Chinese names
_DAY = (r"(?:(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
        r"|(?:Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\.?(?![A-Za-z])"
        r"|(?:周|星期|礼拜)[一二三四五六日天])")
_RANGE = re.compile(rf"(?<![A-Za-z])({_DAY})\s*(?:(?i:to|through|thru|until|till)|-|–|—|~|～|至|到)\s*({_DAY})")
_ONE_DAY = re.compile(rf"(?<![A-Za-z])({_DAY})")
_WEEKEND = re.compile(r"\bweekends?\b|周末", re.IGNORECASE)
WEEKEND = frozenset({5, 6})


def day_index(word: str) -> int | None:
    """0 for Monday … 6 for Sunday ("Tue", "Tuesdays", "周二", "星期天"), None for no day."""
    low = word.lower()
    if low[:1] in "周星礼":
        last = low[-1]
        return 6 if last == "天" else _CN_DAYS.index(last) if last in _CN_DAYS else None
    return next((i for i, day in enumerate(_EN_DAYS) if day.startswith(low[:3])), None)


def asked_days(question: str) -> frozenset[int]:
    """The days of the week a question names ("on Mondays", "周六", "at weekends")."""
    days = {day_index(m.group(1)) for m in _ONE_DAY.finditer(question)}
    if _WEEKEND.search(question):
        days |= WEEKEND
    return frozenset(d for d in days if d is not None)


def stated_days(sentence: str) -> tuple[frozenset[int], bool]:
    """The days a sentence states (its ranges, a week wrapping round, the days it names alone, the weekend's), and
    whether it states a range."""
    days: set[int] = set()
    ranges = list(_RANGE.finditer(sentence))
    for m in ranges:
        start, end = day_index(m.group(1)), day_index(m.group(2))
        if start is not None and end is not None:
            days.update((start + k) % 7 for k in range((end - start) % 7 + 1))
    inside = [m.span() for m in ranges]
    for m in _ONE_DAY.finditer(sentence):
        if not any(a <= m.start() < b for a, b in inside) and (day := day_index(m.group(1))) is not None:
            days.add(day)
    if _WEEKEND.search(sentence):  # "closed on the weekend", "周末休息"
        days |= WEEKEND
    return frozenset(days), bool(ranges)


def without_days(text: str) -> str:
    """The text without the days of the week it names ("周末闭馆" -> "闭馆"): they say when, not for whom."""
    return _WEEKEND.sub("", _ONE_DAY.sub("", _RANGE.sub("", text)))


def day_outside(question: str, sentence: str) -> bool:
    """Whether every day the question names lies outside the days the sentence states as a range."""
    asked = asked_days(question)
    if not asked:
        return False
    days, ranged = stated_days(sentence)
    return ranged and not asked & days
