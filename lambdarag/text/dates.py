"""Temporal expressions and dates.

Dates found in a text, normalised to "YYYY", "YYYY-MM" or "YYYY-MM-DD" (the build path stores
them on every chunk; the temporal boost compares them with the asked range).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from datetime import date

from lambdarag.errors import InputError
from lambdarag.text.numerals import DATE_DIGITS, TEN, spelled_digits, tens_value

# --- Dates in documents -------------------------------------------------------------------------

_CN_DIGIT = "".join(DATE_DIGITS)
_CN_SMALL = f"[{_CN_DIGIT}{TEN}]{{1,3}}"
_YEAR_MIN, _YEAR_MAX = 1000, 2999

# 2023年3月1日 / 2023年3月 / 2023年 (also with full-width digits, normalised before matching)
_CN_DATE = re.compile(r"(?<![\d.])(\d{4})\s*年(?:\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?)?")
# 二〇二三年三月一日 / 二〇二三年三月 / 二〇二三年
_CN_NUMERAL_DATE = re.compile(
    rf"([{_CN_DIGIT}]{{4}})年(?:({_CN_SMALL})月(?:({_CN_SMALL})[日号])?)?"
)
# 2023-03-01 / 2023/3/1 / 2023.3.1 (the same separator twice)
_NUMERIC_DATE = re.compile(r"(?<![\d.])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?![\d])")
# 2023-03 / 2023/3 (not "2023.3", which is as likely a decimal number)
_NUMERIC_MONTH = re.compile(r"(?<![\d./-])(\d{4})[-/](\d{1,2})(?![\d/-])")

# 2023-2024学年 / 2022至2023年度: both years
_YEAR_RANGE = re.compile(r"(?<![\d.])(\d{4})\s*[-–—~～至到]\s*(\d{4})(?=\s*(?:学年|年度|财年|年))")

# English: December 31, 2022 / Dec. 31, 2022 / 31 December 2022 / December 2022 / FY2022, fiscal (year) 2022 /
# Q2 2024, 2024Q2
_MONTHS = {name: i for i, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sept", "sep"), ("october", "oct"), ("november", "nov"),
     ("december", "dec")], start=1) for name in names}
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_EN_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}),?\s+(\d{{4}})(?!\d)", re.IGNORECASE)
_EN_DAY_MONTH_YEAR = re.compile(rf"(?<![\d.])(\d{{1,2}})\s+{_MONTH}\s+(\d{{4}})(?!\d)", re.IGNORECASE)
_EN_MONTH_YEAR = re.compile(rf"\b{_MONTH}\s+(\d{{4}})(?!\d)", re.IGNORECASE)
_EN_FISCAL_YEAR = re.compile(r"(?:\bfy\s?|\bfiscal\s+(?:year\s+)?|\bq[1-4]\s+)(\d{4})(?!\d)|(?<!\d)(\d{4})\s?q[1-4]\b",
                             re.IGNORECASE)
_LATIN = re.compile(r"[A-Za-z]")
# a day of a month without its year, as notices of one year write deadlines: 2月5日, 三月一日, March 5, 5th of March
_CN_MONTH_DAY = re.compile(rf"(?<!\d)\d{{1,2}}\s*月\s*\d{{1,2}}\s*[日号]|{_CN_SMALL}月{_CN_SMALL}[日号]")
_WITHIN = re.compile(r"(?:\d+|[一二三四五六七八九十两]+)\s*个?(?:工作日|日|天|周|星期|个月|月|年)(?:内|以内|之内)"
                     r"|\bwithin\s+(?:\d+|[a-z]+)\s+(?:business\s+|working\s+)?(?:days?|weeks?|months?|years?)\b"
                     # an hour a thing is due by ("by 11:59 pm (UK time) on the day after the missed assessment")
                     r"|\b(?:by|before|until|no later than)\s+"
                     r"(?:\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|noon|midnight)",
                     re.IGNORECASE)
# a month alone: "3月", "三月", "January" (a full capitalised name; "May" is left out, a modal as often)
_MONTH_ALONE = re.compile(r"(?<![\d.])(?:1[0-2]|[1-9])\s*月(?!\s*\d)"
                          r"|(?<![一二三四五六七八九十第])(?:十[一二]?|[一二三四五六七八九])月"
                          r"|\b(?:January|February|March|April|June|July|August|September|October|November|December)\b")
_EN_YEAR_ALONE = re.compile(r"\b(?:in|since|from|until|by|before|after|around)\s+(?:1[0-9]|20)\d{2}\b(?![.,]\d)",
                            re.IGNORECASE)
# any year a text names, leniently: a number or numeral before 年 ("2018年", "前206年", "咸丰三年"; not 年级) or a
# four-digit English year; what a month and day alone ("11月4日") lack
_YEAR_NAMED = re.compile(r"(?:\d|[〇零元一二三四五六七八九十百千])\s*年(?!级)|\b(?:1\d|20)\d{2}\b")
_EN_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
                           rf"|(?<![\d.])\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b", re.IGNORECASE)

# a year naming a title's edition: 2023, 2023年, 2023年度, 2023学年 (not a range 2022-2023, not part of a number,
# not 第2018号); a title with a 文号 (江大财〔2021〕5号) or with two years names no single edition
_EDITION_YEAR = re.compile(
    r"(?<![\d.\-–~第])((?:19|20)\d{2})(?:年度|学年|年)?(?![\d.\-–~号届期]|\s*[-–~至到]\s*\d)")
DOC_NUMBER_YEAR = re.compile(r"[〔［\[【]\d{4}[〕］\]】]")  # the year of a 文号 (江大财〔2021〕5号) dates nothing

_FULLWIDTH_DIGIT = re.compile("[０-９]")
_FULLWIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


def years_of(dates: Iterable[str]) -> list[int]:
    """The years of normalised dates ("2023", "2023-03", "2023-03-01"), sorted, each once; "" and others skipped."""
    return sorted({int(d[:4]) for d in dates if d[:4].isdigit()})


def mentions_date(text: str, within: bool = False, month: bool = False) -> bool:
    """Whether ``text`` names a date: one ``find_dates`` reads, or a day of a month without its year; ``within``:
    or a span a deadline is given in ("返回后30天内", "within 30 days"); ``month``: or a month alone, as a yearly
    time is given ("每年3月", "the end of January")."""
    if (within and _WITHIN.search(text)) or (month and _MONTH_ALONE.search(text)):
        return True
    return bool(_CN_MONTH_DAY.search(text) or _EN_MONTH_DAY.search(text) or find_dates(text))


def names_years_only(text: str) -> bool:
    """Whether the dates ``text`` names are years alone ("学费从2015年开始"): no month, day or span given in."""
    if _WITHIN.search(text) or _MONTH_ALONE.search(text) or _CN_MONTH_DAY.search(text) or _EN_MONTH_DAY.search(text):
        return False
    found = find_dates(text)
    return bool(found) and all("-" not in d for d in found)


def names_year_alone(text: str) -> bool:
    """Whether ``text`` names an English year alone after its preposition ("incorporated in 1929"), which
    ``mentions_date`` leaves to the words: a filing names years everywhere."""
    return _EN_YEAR_ALONE.search(text) is not None


def names_a_year(text: str) -> bool:
    """Whether ``text`` names a year in any form (a day of a month alone names none): "2018年6月", "咸丰三年",
    "in 1929"; read leniently, as what a question asking the year needs at least."""
    return _YEAR_NAMED.search(text) is not None


def find_dates(text: str) -> tuple[str, ...]:
    """Normalised dates mentioned in ``text``, sorted and unique."""
    if _FULLWIDTH_DIGIT.search(text):
        text = text.translate(_FULLWIDTH_DIGITS)
    found: set[str] = set()
    if "年" in text:
        for match in _CN_DATE.finditer(text):
            _add(found, match.group(1), match.group(2), match.group(3))
        for match in _CN_NUMERAL_DATE.finditer(text):
            _add(found, _cn_year(match.group(1)), _cn_small(match.group(2)), _cn_small(match.group(3)))
        for match in _YEAR_RANGE.finditer(text):
            _add(found, match.group(1), None, None)
            _add(found, match.group(2), None, None)
    if _LATIN.search(text):
        _english_dates(text, found)
    for match in _NUMERIC_DATE.finditer(text):
        _add(found, match.group(1), match.group(3), match.group(4))
    for match in _NUMERIC_MONTH.finditer(text):
        _add(found, match.group(1), match.group(2), None)
    return tuple(sorted(found))


def _english_dates(text: str, found: set[str]) -> None:
    for match in _EN_MONTH_DAY_YEAR.finditer(text):
        _add(found, match.group(3), str(_MONTHS[match.group(1).lower()]), match.group(2))
    for match in _EN_DAY_MONTH_YEAR.finditer(text):
        _add(found, match.group(3), str(_MONTHS[match.group(2).lower()]), match.group(1))
    for match in _EN_MONTH_YEAR.finditer(text):
        if match.group(1).lower() != "may":  # "may 2023" is as often the verb before a number
            _add(found, match.group(2), str(_MONTHS[match.group(1).lower()]), None)
    for match in _EN_FISCAL_YEAR.finditer(text):
        _add(found, match.group(1) or match.group(2), None, None)


def edition_year(title: str) -> re.Match[str] | None:
    """The one year a title names as its edition (2023年…招生简章, 2023年度报告, Annual Report 2023, Contoso 2022
    10-K), as a match on ``title`` (group 1 the year); None when it names none, two, or carries a 文号."""
    if DOC_NUMBER_YEAR.search(title):
        return None
    years = list(_EDITION_YEAR.finditer(title))
    return years[0] if len(years) == 1 else None


def normalise_date(year: int, month: int | None = None, day: int | None = None) -> str | None:
    """"YYYY", "YYYY-MM" or "YYYY-MM-DD", or None when the parts are not a real date."""
    if not _YEAR_MIN <= year <= _YEAR_MAX:
        return None
    if month is None:
        return f"{year:04d}"
    if not 1 <= month <= 12:
        return None
    if day is None:
        return f"{year:04d}-{month:02d}"
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _add(found: set[str], year: str | None, month: str | None, day: str | None) -> None:
    if year is None or (month is None and day is not None):
        return
    value = normalise_date(int(year), int(month) if month else None, int(day) if day else None)
    if value is not None:
        found.add(value)


def _cn_year(digits: str) -> str:
    return spelled_digits(digits, DATE_DIGITS)


def _cn_small(numeral: str | None) -> str | None:
    """Chinese numerals up to 31 (三, 十, 十二, 二十, 二十三, 〇三) as a digit string."""
    if not numeral:
        return None
    if TEN not in numeral:
        return spelled_digits(numeral, DATE_DIGITS)
    value = tens_value(numeral, DATE_DIGITS, unknown=None)
    return None if value is None else str(value)


# --- Query-side temporal expressions (added separately) -----------------------------------------


_AS_OF_RE = re.compile(r"^\s*(\d{4})(?:[-/.年](\d{1,2})(?:[-/.月](\d{1,2})日?)?月?)?\s*$")


def parse_as_of(value: object) -> date | None:
    """"2023" → 2023-12-31, "2023-05" → 2023-05-31, "2023-05-06" → that day; empty → None."""
    if value is None or str(value).strip() == "":
        return None
    match = _AS_OF_RE.match(str(value))
    if not match:
        raise InputError(f"as_of {value!r} is not a date", "write it as YYYY, YYYY-MM or YYYY-MM-DD")
    year = int(match.group(1))
    month = int(match.group(2) or 12)
    if not 1 <= month <= 12:
        raise InputError(f"as_of {value!r} has month {month}", "write it as YYYY, YYYY-MM or YYYY-MM-DD")
    day = int(match.group(3) or calendar.monthrange(year, month)[1])
    try:
        return date(year, month, day)
    except ValueError as exc:
        raise InputError(f"as_of {value!r} is not a valid date", "check the day of the month") from exc
