"""What a question asks a sentence to carry: a date (a deadline), an amount in the measure asked, the event asked.

A sentence carrying it scores a bonus over one that only shares the question's words (answer/sentences.py).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from lambdarag.answer import cues
from lambdarag.answer.cues import cue_pattern
from lambdarag.answer.limits import states_bound
from lambdarag.text.dates import mentions_date, names_a_year, names_year_alone, names_years_only
from lambdarag.text.english import stem
from lambdarag.text.numerals import ENGLISH_NUMBER_WORD, english_digits
from lambdarag.text.patterns import CURRENCY

DATE_BONUS = 0.2  # "when" questions are answered by sentences that carry a date
VALUE_BONUS = 0.15  # "how much / how long" questions by sentences that carry an amount
# A multiple of another figure ("高度为宽度的3倍", "按月工资的2倍") says how much only relative to it: it answers
# "how much" with this share of the bonus, below an amount stated outright ("高约38公分"), unless 倍 is asked.
MULTIPLE_SHARE = 0.5
UNBOUNDED_SHARE = 0.5  # asked the most one may, the share of the bonus an amount stated without its bound earns
EVENT_BONUS = 0.1  # a sentence naming the event asked, in any of its words (卒 ~ 病逝 ~ 去世)
VALUE_INTENTS = frozenset({"synthesis"})  # an overview is made of the figures too…
# …unless the question names the kind of thing it asks ("叶子是什么颜色", "what shape"): no amount is that
_NAMES_ITS_KIND = re.compile(r"什么(?!时候|是|样)[\u4e00-\u9fff]"
                             r"|\bwhat (?!(?:is|are|was|were|do|does|did|has|have|had)\b)[a-z]", re.IGNORECASE)

DATE_QUESTION = cue_pattern(*cues.DATE, *cues.IN_FORCE, *cues.DATE_EN, flags=re.IGNORECASE)
YEAR_QUESTION = cue_pattern(*cues.YEAR, flags=re.IGNORECASE)
DAY_QUESTION = cue_pattern(*cues.DAY, flags=re.IGNORECASE)
MOST_QUESTION = cue_pattern(*cues.MOST_LIMIT, flags=re.IGNORECASE)
LEAST_QUESTION = cue_pattern(*cues.LEAST_LIMIT, flags=re.IGNORECASE)
AMOUNT_QUESTION = cue_pattern(*cues.AMOUNT, *cues.AMOUNT_LIMITS, *cues.AMOUNT_EN, *cues.LEAD_TIME_EN,
                              flags=re.IGNORECASE)
AMOUNT = re.compile(rf"\d+(?:\.\d+)?\s*(?:%|％|{CURRENCY}|元|万元|亿元|天|个工作日|工作日|个月|年内|年后|人|笔|分|次"
                    r"|小时|个|万"  # a currency sign after the figure as price lists write it ("0.08 ￥/L")
                    # measures of length, area, weight, age, time and temperature ("水深0至12公尺", "重3吨")
                    r"|米|公尺|公分|公里|千米|厘米|毫米|英尺|英里|海里|平方米|平方公里|公顷|亩|吨|公斤|千克|公克|克|斤|公升|毫升|升"
                    r"|岁|秒|周|℃)"
                    r"|[一二三四五六七八九十两百千万]+(?:个工作日|天|个月|年)"
                    # English: a currency before the figure, a scale or unit after it ("$1.2 billion", "12 percent")
                    rf"|{CURRENCY}\s?\d"
                    r"|\d[\d,.]*\s*(?:percent|per cent|million|billion|thousand|bps|basis points|km|kilomet(?:re|er)s?"
                    r"|met(?:re|er)s?|cm|mm|miles?|feet|foot|ft|inch(?:es)?|yards?|hectares?|acres?|kg|kilograms?"
                    r"|grams?|tons?|tonnes?|pounds?|dollars?|euros?|cents?|pence|days?|weeks?|months?|years?|hours?|minutes?"
                    r"|[kmgt]i?b"  # storage: "2GB", "500 MiB"
                    r"|seconds?|degrees?)\b",
                    re.IGNORECASE)
MULTIPLE = re.compile(r"(?:\d+(?:\.\d+)?|[一二三四五六七八九十两百千万]+)\s*倍")
DURATION_QUESTION = cue_pattern(*cues.DURATION, *cues.DURATION_EN, flags=re.IGNORECASE)
DURATION = re.compile(r"\d+(?:\.\d+)?\s*(?:个)?(?:工作日|自然日)|\d+(?:\.\d+)?\s*(?:天|周(?!岁)|星期|小时|分钟|秒|个月)"
                      r"|(?<![月\d])\d{1,3}\s*日(?=内|以内|之内|后)"  # "15日内", not the date "3月1日"
                      r"|(?<!\d)\d{1,2}\s*年(?!\d)"  # "2年", not the year "2014年"
                      r"|(?<![〇零一二三四五六七八九十])[一二三四五六七八九十两半]{1,3}\s*(?:个工作日|个月|天|周(?!岁)|年|小时|分钟)"
                      rf"|(?:\d+|{ENGLISH_NUMBER_WORD})\s*"
                      r"(?:business |working |calendar )?(?:days?|weeks?|months?|years?|hours?|minutes?)\b",
                      re.IGNORECASE)
FREQUENCY_QUESTION = cue_pattern(*cues.FREQUENCY, flags=re.IGNORECASE)
_TIMES = r"[一二两三四五六七八九十\d]+\s*次"
FREQUENCY = re.compile(rf"\b(?:once|twice|thrice|(?:\d+|{ENGLISH_NUMBER_WORD})\s+times)\s+(?:a|an|per|each|every)\s+\w+"
                       rf"|\bevery\s+(?:other\s+|\d+\s+|{ENGLISH_NUMBER_WORD}\s+)?"
                       r"(?:day|week|fortnight|month|quarter|semester|term|year)s?\b"
                       r"|\b(?:daily|weekly|fortnightly|monthly|quarterly|annually|yearly|biannually|biweekly)\b"
                       rf"|每(?:[年月周天日季]|个月|学期|星期|学年)[^，。；,;]{{0,4}}?{_TIMES}|{_TIMES}\s*/\s*[年月周天]",
                       re.IGNORECASE)
# asked how long a thing is ("How long is the river?", "How long is the programme?"): a length or a duration
_HOW_LONG_IS = re.compile(r"\bhow long (?:is|are|was|were)\b", re.IGNORECASE)
_LENGTH = re.compile(r"\d[\d,.]*\s*(?:km|kilomet(?:re|er)s?|met(?:re|er)s?|cm|mm|miles?|feet|foot|ft|inch(?:es)?"
                     r"|yards?)\b|\d+(?:\.\d+)?\s*(?:米|公尺|公里|千米|厘米|毫米|英尺|英里|海里)", re.IGNORECASE)
_SPAN = re.compile(f"{DURATION.pattern}|{_LENGTH.pattern}", re.IGNORECASE)  # a duration or a length
_OFTEN = re.compile(f"{FREQUENCY.pattern}|{DURATION.pattern}", re.IGNORECASE)  # a frequency or a period
# The measure word a count question names ("多少家", "几所", "前多少名"): a sentence with a number in that measure
# answers it, other amounts do not. 多少钱 is answered in yuan (AMOUNT); 几乎 asks nothing.
# the measure asked; the general classifier 个 before 人 counts people ("几个人" -> 人, stated "3人", "3名")
_ASKED_MEASURE = re.compile(r"(?:多少|几)(?:个(?=人))?([\u4e00-\u9fff])")
# "How many members", "How many of the principal authors": the noun counted (after "of the")
# ... or after "the most" when it counts ("the most children I can have", not "the most memory")
_ASKED_MEASURE_EN = re.compile(r"\bhow many\s+(?:of\s+(?:the|its|their|our|your|these|those)\s+)?([A-Za-z]{3,})"
                               r"|\bthe (?:most|fewest|max(?:imum)? number of|min(?:imum)? number of)\s+"
                               r"([A-Za-z]{2,}[^s\W]s|children|people|men|women)\b", re.IGNORECASE)
_COUNT_OF = re.compile(r"([\u4e00-\u9fff])数(?:是|为|有|约|共)?(?:多少|几)")  # 人数是多少: counted in 人
_NOT_MEASURES = frozenset("的是呢吗了钱乎总基指参系函")  # 总数, 基数, 指数…: a number, not a count in a measure
_EVENTS = tuple(cue_pattern(*family, flags=re.IGNORECASE) for family in cues.EVENTS)
_COUNT = r"(?:\d+(?:\.\d+)?|[一二三四五六七八九十两百千万]+)\s*(?:余|多|来)?\s*(?:万|亿)?\s*(?:余|多)?\s*"


@dataclass(frozen=True)
class AskedValues:
    """The values a question asks for, read once per question."""

    date: bool  # a date ("什么时候", "截止日期", a temporal intent): "2月5日" answers it, "30天内" too
    amount: re.Pattern[str] | None  # what an amount answering it looks like; None when no amount is asked
    event: re.Pattern[str] | None  # the words for the event asked (death, birth, founding)
    in_words: bool = False  # the question's own words ask it ("多少", "何时", "how long"), not its intent alone
    year: bool = False  # the year itself is asked ("哪一年", "what year"): a date must name one
    day: bool = False  # the day is asked ("最晚哪天", "what date"): a year alone is not it
    # the most or the least one may is asked ("最多能贷多少", "What's the most I can…"): "upper" or "lower", a bound
    # states it
    bound: str = ""

    @classmethod
    def of(cls, question: str, intent: str) -> AskedValues:
        wants_amount = bool(AMOUNT_QUESTION.search(question))
        wants_date = bool(DATE_QUESTION.search(question))
        overview = intent in VALUE_INTENTS and not _NAMES_ITS_KIND.search(question)
        amount = asked_amount(question) if wants_amount else AMOUNT if overview else None
        bound = "upper" if MOST_QUESTION.search(question) else "lower" if LEAST_QUESTION.search(question) else ""
        return cls(intent == "temporal" or wants_date, amount, asked_event(question), wants_amount or wants_date,
                   bool(YEAR_QUESTION.search(question)), bool(DAY_QUESTION.search(question)), bound)

    def value_bonus(self, sentence: str) -> float:
        """DATE_BONUS for a sentence carrying the date asked, else VALUE_BONUS for the amount asked (a share of it for
        a multiple of another figure, asked any amount), else 0."""
        # "2月5日"; "30天内" too: asked when a thing is done, a rule answers within how long ("受理后15个工作日内");
        # a month alone answers when a yearly thing happens ("每年3月", "the end of January")
        # asked the year, a day or a month without one ("时间：11月4日") is not it
        # asked the day, a year alone ("学费从2015年开始") is not it
        if self.date and mentions_date(sentence, within=True, month=True) \
                and (not self.year or names_a_year(sentence)) and not (self.day and names_years_only(sentence)):
            return DATE_BONUS
        if self.amount is None:
            return 0.0
        if self.amount.search(sentence) or self.amount.search(english_digits(sentence)):  # "up to five weeks total"
            # asked the most, an amount stated as its bound ("up to five weeks total") before one stated as it is
            unbounded = self.bound and not states_bound(sentence, self.bound == "upper")
            return VALUE_BONUS * (UNBOUNDED_SHARE if unbounded else 1.0)
        return VALUE_BONUS * MULTIPLE_SHARE if self.amount is AMOUNT and MULTIPLE.search(sentence) else 0.0

    def carries(self, sentence: str, value: float) -> bool:
        """Whether the sentence holds what the question's own words ask: the value it scored ``value`` for (from
        ``value_bonus``, which has read its dates) or, asked when, a year said alone ("incorporated in 1929", which
        the date bonus leaves to the words)."""
        return self.in_words and (value > 0 or (self.date and names_year_alone(sentence)))

    def event_bonus(self, sentence: str) -> float:
        """EVENT_BONUS for a sentence naming the event asked, in any of its words."""
        return EVENT_BONUS if self.event is not None and self.event.search(sentence) else 0.0


def asked_amount(question: str) -> re.Pattern[str]:
    """What an amount answering the question looks like: a duration asked how long ("多久", "how long does"),
    else a number in the measure it names, else any amount."""
    if FREQUENCY_QUESTION.search(question):  # "twice each year", "every eight months", "每月一次"
        return _OFTEN
    if DURATION_QUESTION.search(question):
        return DURATION
    if _HOW_LONG_IS.search(question):
        return _SPAN
    return counted_in(asked_measure(question))


def asked_event(question: str) -> re.Pattern[str] | None:
    """The words for the event a question asks about (death: 卒, 去世, 病逝…; birth; founding; eating), None for
    none: a sentence saying it in any of them names the event asked."""
    return next((family for family in _EVENTS if family.search(question)), None)


def asked_measure(question: str) -> str:
    """The measure word after 多少 / 几 ("有多少家" -> 家, "前多少名" -> 名), before the 数 it asks
    ("人数是多少" -> 人) or after "how many" ("How many members" -> members), "" when the question names none."""
    m = _ASKED_MEASURE.search(question) or _COUNT_OF.search(question)
    if m is None:  # "How many members…" -> members
        english = _ASKED_MEASURE_EN.search(question)
        return (english.group(1) or english.group(2)).lower() if english else ""
    return m.group(1) if m.group(1) not in _NOT_MEASURES else ""


# a measure written another way for the same unit: days asked in 天 are stated in 日 as often, and the other way round;
# people asked in 人 are counted in 名 or 位 ("招收10名", "3位老师") as often
_SAME_MEASURE = {"天": "日", "日": "天", "星期": "周", "周": "(?:个)?星期", "小时": "钟头", "人": "(?:个人|名|位)"}


@functools.lru_cache(maxsize=256)
def counted_in(measure: str) -> re.Pattern[str]:
    """What a sentence answering a count in ``measure`` carries: a number in it ("60家", "412万册", "前5名", "学制四年"
    but not "2014年"; "12 members" asked how many members); without a measure, any amount (AMOUNT)."""
    if not measure:
        return AMOUNT
    if measure.isascii():  # "12 members", "315,000 people", "47 new stores", "five of the principal authors"
        number = rf"(?:(?<![\d.,])\d[\d,]*(?:\.\d+)?|{ENGLISH_NUMBER_WORD})"
        # the counted noun as written, or quoted or emphasised ('3 "levels"', "3 *levels*")
        # a unit glued to the figure before the noun ("2GB of memory")
        return re.compile(rf"{number}[A-Za-z]{{0,3}}\s+(?:[A-Za-z-]+\s+){{0,2}}?[\"'“‘*_]*{re.escape(stem(measure))}",
                          re.IGNORECASE)
    # a four-digit number before 年 is a year ("2014年"), not a count of years ("四年", "5年")
    count = r"(?<!\d)(?!\d{4}\s*年)" + _COUNT if measure == "年" else _COUNT
    same = _SAME_MEASURE.get(measure)
    if same is not None:  # days asked, "1000千米为2日" answers (not the day of a date, "3月2日")
        return re.compile(rf"{count}{re.escape(measure)}|(?<![月\d]){_COUNT}{same}")
    return re.compile(count + re.escape(measure))
