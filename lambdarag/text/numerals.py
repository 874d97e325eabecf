"""Chinese numerals: one table of digit characters, and the readings dates and counts take from it."""

from __future__ import annotations

import re

ONE_TO_NINE = "一二三四五六七八九"
# 〇 and 零 are zero; ○ (a circle) and Ｏ (a full-width letter O) stand in for 〇 in typed documents.
ZEROS = "〇零○Ｏ"
TWO_COUNTING = "两"  # the counting form of 二 (两年, 两个)
TEN = "十"
DIGITS: dict[str, int] = {
    **dict.fromkeys(ZEROS, 0), **{ch: i for i, ch in enumerate(ONE_TO_NINE, start=1)}, TWO_COUNTING: 2,
}

# Counts an English text writes in words ("two permits", "twenty men"), one to nineteen and the tens, with values
_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
ENGLISH_NUMBERS: dict[str, int] = {**{w: i for i, w in enumerate(_UNITS, 1)},
                                   **{w: 10 * i for i, w in enumerate(_TENS, 2)}}
# one of them as a pattern, from a word's start, the longer first ("sixteen" before "six")
ENGLISH_NUMBER_WORD = rf"\b(?:{'|'.join(sorted(ENGLISH_NUMBERS, key=len, reverse=True))})"
_ENGLISH_NUMBER = re.compile(rf"{ENGLISH_NUMBER_WORD}\b", re.IGNORECASE)
# a count in words restated in digits, as contracts write them ("thirty (30) days", "twenty-one (21) years")
_RESTATED = re.compile(rf"{ENGLISH_NUMBER_WORD}(?:[- ]{ENGLISH_NUMBER_WORD})?\s*\((\d+)\)", re.IGNORECASE)
# A written date spells its digits one by one (二〇二三年): 两 only counts, it is never a digit there.
DATE_DIGITS: dict[str, int] = {ch: value for ch, value in DIGITS.items() if ch != TWO_COUNTING}
# A count (近五年, 两年, 十年) has no zero, and 十 alone is ten.
COUNT_DIGITS: dict[str, int] = {**{ch: value for ch, value in DIGITS.items() if value}, TEN: 10}


def spelled_digits(numeral: str, table: dict[str, int] = DATE_DIGITS) -> str:
    """The digit string of a numeral written digit by digit ("二〇二三" → "2023"); KeyError on another character."""
    return "".join(str(table[ch]) for ch in numeral)


def tens_value(numeral: str, table: dict[str, int], unknown: int | None) -> int | None:
    """A numeral around 十 (十, 十二, 二十, 二十三) as a number; a part not in ``table`` counts as ``unknown``."""
    tens, _, units = numeral.partition(TEN)
    high = table.get(tens, unknown) if tens else 1
    low = table.get(units, unknown) if units else 0
    if high is None or low is None:
        return None
    return high * 10 + low


def count_value(numeral: str) -> int | None:
    """A count of 1 to 99 in Chinese numerals (三, 两, 十, 十八, 三十五), None for anything else."""
    if TEN not in numeral:
        return COUNT_DIGITS.get(numeral) if len(numeral) == 1 else None
    return tens_value(numeral, COUNT_DIGITS, unknown=None)


def english_digits(text: str) -> str:
    """The text with its English counts in words written in digits ("up to five weeks" -> "up to 5 weeks"), a count
    restated in digits once ("thirty (30) days" -> "30 days")."""
    return _ENGLISH_NUMBER.sub(lambda m: str(ENGLISH_NUMBERS[m.group(0).lower()]), _RESTATED.sub(r"\1", text))
