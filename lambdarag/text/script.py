"""Traditional Chinese characters read as their Simplified forms, for matching.

A domain's documents may be written in Traditional characters (a Taiwan or Hong Kong office's rules, an older
page) and its questions in Simplified ones, or the other way round: 門禁卡 and 门禁卡, 鎖匠 and 锁匠 are the same
words, yet no token, keyword or character pair of one meets the other, and jieba's dictionary knows the Simplified
forms best. Text is compared after mapping every Traditional character to its first Simplified form in OpenCC's
character table (TSCharacters.txt, shipped by opencc-python-reimplemented, Apache-2.0); what a reader is shown
stays as written. Character by character: two words one form merges (乾 and 干) match each other, which costs less
than words of one meaning that never match.
"""

from __future__ import annotations

import functools
from importlib import resources

_TABLE = "dictionary/TSCharacters.txt"


@functools.cache
def simplified_table() -> dict[int, str]:
    """str.translate table: each Traditional character (a code point) -> its first Simplified form."""
    text = resources.files("opencc").joinpath(_TABLE).read_text(encoding="utf-8")
    table: dict[int, str] = {}
    for line in text.splitlines():
        traditional, _, forms = line.partition("\t")
        first = forms.split(" ", 1)[0].strip()
        if len(traditional) == 1 and first and first != traditional:
            table[ord(traditional)] = first
    return table


def simplified(text: str) -> str:
    """The text with its Traditional characters in their Simplified forms ("門禁卡" -> "门禁卡"); others unchanged."""
    return text.translate(simplified_table())
