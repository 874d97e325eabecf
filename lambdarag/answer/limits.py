"""Whether the figure a yes/no question names lies outside the limit its supporting sentence states.

"40岁可以申报吗？" asked of "申报人年龄在18至35周岁之间": the sentence says nothing negative, yet the answer is no.
A question names a figure in a measure ("40岁", "成立5年", "8 years"); the sentence states a range ("18至35周岁"),
an upper bound ("不超过3年", "3年以内", "under 5 years") or a lower one ("满1年", "1年以上", "at least 2 years") in
the same measure. Pure functions; the yes/no lead reads them (answer/extractive.py).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from lambdarag.answer import cues
from lambdarag.answer.candidates import W
from lambdarag.text.english import stem
from lambdarag.text.numerals import count_value, english_digits
from lambdarag.text.patterns import CURRENCY

# measures a question and a limit are compared in; words of one measure are one family (岁 and 周岁)
_UNITS = {"周岁": "岁", "岁": "岁", "年": "年", "个月": "月", "月": "月", "天": "天", "日": "天", "个工作日": "工作日",
          "工作日": "工作日", "小时": "小时", "万元": "万元", "元": "元", "人": "人", "名": "人", "%": "%", "％": "%",
          "张": "张", "次": "次", "项": "项", "家": "家", "所": "所", "套": "套", "辆": "辆",
          "years": "年", "year": "年", "months": "月", "month": "月", "days": "天", "day": "天", "hours": "小时",
          "hour": "小时", "employees": "人", "people": "人", "staff": "人",
          "$": "$", "dollars": "$", "€": "€", "euros": "€", "£": "£", "pounds": "£", "¥": "元", "￥": "元",
          "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb"}  # storage ("up to 2GB")
# a measure: one of _UNITS, or the English noun a figure counts ("50,000 homes", "12 stores"), compared by its stem
_UNIT = "|".join(sorted(map(re.escape, _UNITS), key=len, reverse=True)) + r"|(?<![A-Za-z])[A-Za-z]{3,}(?![A-Za-z])"
# not a day of a month ("4月18日"); thousands written with commas ("315,000")
_NUMBER = r"(?<![\d.,月])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
# a figure joined to its measure by a hyphen counts too ("a 5-hour flight", "a 3-year contract")
_FIGURE = re.compile(rf"{_NUMBER}\s*-?\s*({_UNIT})(?![\u4e00-\u9fff]*?(?:以上|以下|以内|之内|之间))", re.IGNORECASE)
_RANGE = re.compile(rf"{_NUMBER}\s*({_UNIT})?\s*(?:至|到|-|—|~|～|to|and)\s*{_NUMBER}\s*({_UNIT})", re.IGNORECASE)
# a count in Chinese numerals before its measure or a range's other end ("两年", "三张", "十八至三十五周岁")
_CN_COUNT = re.compile(r"(?<![〇零一二三四五六七八九十两百千万\d])([一二三四五六七八九十两]{1,3})"
                       r"(?=个?(?:周岁|岁|个月|月|天|日|小时|年(?![级度代])|人|名|张|次|项|家|所|套|辆|元|万元)"
                       r"|\s*(?:至|到|~|～)\s*[一二三四五六七八九十两\d])")
_MONEY = re.compile(rf"({CURRENCY})\s?(\d[\d,]*(?:\.\d+)?)")
# an English age said without its measure, written as years: "aged 17", "the age of 18", "I'm 17 —", "my niece is
# 17 and…", "65 and older" (older and younger speak of ages); the figure alone, followed by no measure of its own
_AGE_EN = re.compile(r"\b(?:aged|(?:the\s+)?age\s+of)\s+(\d{1,3})\b"
                     r"|\b(?:i'm|i\s+am|(?:he|she)(?:'s|\s+is)|(?:my|our|his|her|their)\s+(?:"
                     + "|".join(cues.KIN_EN) + r")s?\s+(?:is|are))\s+(\d{1,3})"
                     r"(?=\s*(?:[,.;:!?\u2013\u2014-]|$|(?:and|but|so|now)\b))"
                     r"|\b(\d{1,3})(?=\s+(?:and|or)\s+(?:older|younger)\b)", re.IGNORECASE)
OTHER_TIER = 0.8  # score kept by a sentence stating a tier the question's figure lies outside
# one of a period, a rate rather than a figure: "每月", "一年能休几天" (not "提前一个月"), "a year", "per month"
_RATE = re.compile(r"每个?(?:年|月|天|周|星期)|一个?(?:年|月|天|周|星期)(?=能|可|有|最多|一共|总共|共)"
                   r"|\b(?:a|an|per|each|every)\s+(?:year|month|day|week)\b", re.IGNORECASE)
_TIER_CLAUSE = re.compile(r"[，；。,;]")  # a tier is stated in a clause of its own
YEAR_DATE = 1000  # "2024年" is a date, not a number of years
# words bounding a figure from above or below, before it ("不超过3年") or after it ("3年以内"); a strict one excludes
# the figure itself ("未满18周岁")
_UPPER_WORDS = ("不超过", "不得超过", "不要超过", "不能超过", "不可超过", "不应超过", "不高于", "不大于",
                "最多", "最长", "低于", "少于", "未满", "不满", "不足", "不到", "no more than", "up to", "at most",
                "under", "below", "less than", "fewer than")
_LOWER_WORDS = ("不低于", "不少于", "不得少于", "大于等于", "不小于", "至少", "最少", "满", "超过", "高于",
                "大于", "多于", "at least", "no less than", "over", "more than", "above")
_STRICT = frozenset({"低于", "少于", "未满", "不满", "不足", "不到", "under", "below", "less than", "fewer than",
                     "超过", "高于", "大于", "多于", "over", "more than", "above"})
# "超过" inside "不超过", "more than" inside "no more than" bound from above
_NOT_BEFORE = r"(?<![不未得])(?<!不要)(?<!不能)(?<!不可)(?<!不应)(?<!no )(?<!not )"
# a bound said with a negation: "no later than 30 June", "with no component below 6.0", "not exceeding 3 years"
_NEGATED_BOUND = (r"\bno(?:t)?\s+(?:\w+\s+){0,2}?(?:later|earlier|sooner|more|less|fewer|longer|shorter|greater"
                  r"|higher|lower|below|above|under|over|exceeding)\b(?:\s+than\b)?")
_BOUND_WORDS = re.compile("|".join([_NEGATED_BOUND, *sorted(map(re.escape, (*_UPPER_WORDS, *_LOWER_WORDS)), key=len,
                                                             reverse=True)]), re.IGNORECASE)


def without_bounds(text: str) -> str:
    """The text without its bounding words ("不得超过", "no more than", "no later than", "no component below"): their
    negation states a limit, not a no."""
    return _BOUND_WORDS.sub(" ", text)


def _bound_before(words: tuple[str, ...]) -> re.Pattern[str]:
    """A bound word before its figure, a short Chinese verb between them allowed ("每户最多办理两张")."""
    return re.compile(rf"{_NOT_BEFORE}({'|'.join(words)})[\u4e00-\u9fff]{{0,3}}?\s*{_NUMBER}\s*({_UNIT})",
                      re.IGNORECASE)


_UPPER_BEFORE = _bound_before(_UPPER_WORDS)
_LOWER_BEFORE = _bound_before(_LOWER_WORDS)
# the bound after its measure ("3年以内", "19 inches or more") or between the figure and its measure ("5 or fewer
# children"): the measure in group 2 or 3
_UPPER_AFTER = re.compile(rf"{_NUMBER}\s*(?:({_UNIT})\s*(?:以下|以内|之内|内|or less|or fewer"
                          rf"|(?:or|and) (?:younger|under))|or (?:less|fewer)\s+({_UNIT}))", re.IGNORECASE)
_LOWER_AFTER = re.compile(rf"{_NUMBER}\s*(?:({_UNIT})\s*(?:以上|及以上|或以上|(?:or|and) (?:more|over|older|above))"
                          rf"|or more\s+({_UNIT}))", re.IGNORECASE)


@dataclass(frozen=True)
class Limit:
    """What a sentence allows in one measure: low <= x <= high (either end open), strict ends excluded."""

    unit: str
    low: float | None = None
    high: float | None = None
    strict_low: bool = False
    strict_high: bool = False

    def admits(self, value: float) -> bool:
        if self.low is not None and (value < self.low or (self.strict_low and value == self.low)):
            return False
        return self.high is None or not (value > self.high or (self.strict_high and value == self.high))


def figure_outside(question: str, sentence: str) -> bool:
    """Whether a figure the question names lies outside a limit the sentence states in the same measure, or the
    figure the sentence states outside a limit the question names ("above 90%" asked, "a rate of 78%" stated)."""
    question, sentence = _as_figures(question), _as_figures(sentence)
    limits = stated_limits(sentence)
    # the question's own figures, not a bound it states ("不到16岁" asked of "未满16周岁的…可以由监护人代为申领")
    if any(not limit.admits(value) for value, unit in _exact(question) for limit in limits if limit.unit == unit):
        return True
    # the sentence may state several figures in the measure ("315,000 people worldwide, 132,000 in the US"): the
    # question's limit is unmet only when none of them meets it
    stated = _exact(sentence)
    for limit in stated_limits(question):
        values = [value for value, unit in stated if unit == limit.unit]
        if values and not any(limit.admits(value) for value in values):
            return True
    return False


def tiers_asked(question: str, scored: Sequence[W]) -> list[W]:
    """``scored`` with the sentences stating a tier the question's own figure lies outside scaled by OTHER_TIER:
    asked "干了12年了，今年一年能休几天年假", the tier "满1年不满10年的，年休假5天" gives way to "满10年不满20年的，
    年休假10天". A figure of one per period ("一年能休几天", "a year") says how often, not how much: left out."""
    figures = _exact(_as_figures(_RATE.sub(" ", question)))
    if not figures:
        return list(scored)
    return [dataclasses.replace(s, score=s.score * OTHER_TIER) if _other_tier(figures, s.sentence) else s  # type: ignore[type-var]
            for s in scored]


def _other_tier(figures: Sequence[tuple[float, str]], sentence: str) -> bool:
    """Whether the sentence states tiers in the measure of a figure, each clause one ("满1年不满10年的，…"), and
    none admits it (a sentence stating both sides, "三个月以上为长期项目，三个月以下为短期项目", admits any figure)."""
    clauses = [stated_limits(clause) for clause in _TIER_CLAUSE.split(_as_figures(sentence))]
    for value, unit in figures:
        tiers = [own for limits in clauses if (own := [limit for limit in limits if limit.unit == unit])]
        if tiers and not any(all(limit.admits(value) for limit in tier) for tier in tiers):
            return True
    return False


def states_bound(sentence: str, upper: bool) -> bool:
    """Whether the sentence states an upper (``upper``) or a lower bound: "up to five weeks total", "不超过3年";
    "满1年", "at least 2 years"."""
    return any((limit.high if upper else limit.low) is not None for limit in stated_limits(_as_figures(sentence)))


def in_asked_measure(question: str, sentence: str) -> bool:
    """Whether the sentence states a figure or a limit in a measure a figure of the question is in ("成立5年的企业…"
    against "成立时间不超过3年"): what it says answers the question's figure, yes or no."""
    asked = {unit for _, unit in _exact(_as_figures(question))}
    text = _as_figures(sentence)
    return bool(asked & ({limit.unit for limit in stated_limits(text)} | {unit for _, unit in _figures(text)}))


def _as_figures(text: str) -> str:
    """Money written with its sign first as a measure after its figure ("under $5,000" -> "under 5,000 $"), and
    small numbers written in words as digits ("no more than two permits" -> "no more than 2 permits", "不超过两年"
    -> "不超过2年"; not 年级, 年度, 年代)."""
    text = _CN_COUNT.sub(lambda m: str(count_value(m.group(1)) or m.group(1)), text)
    text = _AGE_EN.sub(_age_in_years, english_digits(text))
    return _MONEY.sub(r"\2 \1", text)


def _age_in_years(m: re.Match[str]) -> str:
    """An English age as a figure in years: "over the age of 14" -> "over 14 years", "I'm 17" -> "I'm 17 years"."""
    aged, own, bounded = m.groups()
    return f"{m.group(0)[:m.start(2) - m.start()]}{own} years" if own else f"{aged or bounded} years"


def _figures(text: str, bounded: Sequence[tuple[int, int]] = ()) -> list[tuple[float, str]]:
    """The figures of a text with their measures (no year), but those starting inside the ``bounded`` spans."""
    found = (m for m in _FIGURE.finditer(text) if not any(a <= m.start() < b for a, b in bounded))
    figures = [(_value(m.group(1)), _unit(m.group(2))) for m in found]
    return [(value, unit) for value, unit in figures if not _date(value, unit)]


def _exact(sentence: str) -> list[tuple[float, str]]:
    """The figures a sentence states as values, not as the end of a bound ("不超过3年", "at least 2 years")."""
    bounds = [m.span() for pattern in (_UPPER_BEFORE, _LOWER_BEFORE) for m in pattern.finditer(sentence)]
    return _figures(sentence, bounds)


def _unit(word: str) -> str:
    """The measure a unit word names: its family in _UNITS (岁 and 周岁), else the English noun's stem."""
    lowered = word.lower()
    return _UNITS.get(lowered) or stem(lowered)


def _value(number: str) -> float:
    return float(number.replace(",", ""))


def stated_limits(sentence: str) -> list[Limit]:
    """The ranges and bounds ``sentence`` states, each in its measure (dates are none: "2020年至2024年")."""
    limits: list[Limit] = []
    for m in _RANGE.finditer(sentence):
        unit = _unit(m.group(4))
        if m.group(2) is None or _unit(m.group(2)) == unit:
            limits.append(Limit(unit, _value(m.group(1)), _value(m.group(3))))
    for m in _UPPER_BEFORE.finditer(sentence):
        word = m.group(1).lower()
        limits.append(Limit(_unit(m.group(3)), high=_value(m.group(2)), strict_high=word in _STRICT))
    for m in _UPPER_AFTER.finditer(sentence):
        limits.append(Limit(_unit(m.group(2) or m.group(3)), high=_value(m.group(1))))
    for m in _LOWER_BEFORE.finditer(sentence):
        word = m.group(1).lower()
        limits.append(Limit(_unit(m.group(3)), low=_value(m.group(2)), strict_low=word in _STRICT))
    for m in _LOWER_AFTER.finditer(sentence):
        limits.append(Limit(_unit(m.group(2) or m.group(3)), low=_value(m.group(1))))
    return [limit for limit in limits if not any(_date(v, limit.unit) for v in (limit.low, limit.high) if v)]


def _date(value: float, unit: str) -> bool:
    return unit == "年" and value >= YEAR_DATE
