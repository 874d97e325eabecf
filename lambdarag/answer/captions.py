"""Lines that name a topic and never answer: captions, labels, headings and page furniture.

A short line without a clause mark ("信息公开", "Contact details") labels what follows; an English line with most
of its words capitalised and no closing stop is a heading or a column header; a heading repeated in the body and a
page number line are the page's furniture. Pure functions; the sentence candidates read them
(answer/sentences.py).
"""

from __future__ import annotations

import re

from lambdarag.text.tokenizer import has_cjk, normalize

TITLE_WORDS, TITLE_SHARE = 3, 0.75  # an English line of this many words, this share capitalised, is a heading
_LABEL_LINE = re.compile(r"^[^，,。；;：:！!？?]{1,30}$")
_PAGE_FURNITURE = re.compile(r"第\s*\d+\s*页(?:\s*/?\s*共\s*\d+\s*页)?\s*$|^\s*-?\s*\d+\s*-?\s*$")
# a line holding only a page's number: "— 3 —", "- 12 -", "3 / 10", "Page 3 of 10", "第3页 共10页"
# a field, "Label: value" ("Class Distribution: 212 - Malignant", "State of Incorporation: Delaware", "Missing
# Attribute Values: None"): it answers what its label names, however capitalised
_FIELD = re.compile(r"\w[^:：]*[:：]\s+\S")
PAGE_NUMBER_LINE = re.compile(r"^\s*(?:[-—–]\s*)?\d{1,4}(?:\s*[-—–])?\s*$|^\s*\d{1,4}\s*/\s*\d{1,4}\s*$"
                              r"|^\s*page\s+\d{1,4}(?:\s+of\s+\d{1,4})?\s*$"
                              r"|^\s*第\s*\d{1,4}\s*页(?:\s*[,，/]?\s*共\s*\d{1,4}\s*页)?\s*$", re.IGNORECASE)


def caption_line(line: str) -> bool:
    """A label line or an English heading: it names a topic, unless a need finds its answer in it."""
    return label_line(line) or title_case_line(line)


def label_line(line: str) -> bool:
    """A short line without a clause mark ("信息公开", "Contact details"), but no English sentence closed by its full
    stop, however short ("Alcohol is not reimbursable.")."""
    if not _LABEL_LINE.match(line):
        return False
    return not (line.rstrip().endswith(".") and len(line.split()) >= TITLE_WORDS)


def title_case_line(line: str) -> bool:
    """An English heading or column header ("Fiscal Year Opened Closed Fiscal Year"): most of its words capitalised
    and no closing punctuation, however long, and no field's value after a label; a sentence says something in
    lower-case words and ends."""
    words = [w for w in line.split() if w[:1].isalpha()]
    if len(words) < TITLE_WORDS or has_cjk(line) or line.rstrip()[-1:] in ".!?;:。" or _FIELD.search(line):
        return False
    return sum(1 for w in words if w[0].isupper()) >= TITLE_SHARE * len(words)


# a line sending the reader to a source for what follows ("- 参考 《…管理规定》 from 中国政府网：", "See [the act]:"):
# the quote under it answers, the pointer never does; a field naming a source ("来源：《人民日报》", "出处：《论语》")
# is no pointer, it answers where a text comes from
_SOURCE_POINTER = re.compile(r"^\s*(?:[-*•]\s*)?(?:参考|参阅|详见|参见|(?:see|refer to)\b)"
                             r"[^。！？!?.]*(?:《[^》]+》|\]\(|https?://)[^。！？!?]*(?<![.。])[：:]?\s*$",
                             re.IGNORECASE)


def furniture(sentence: str, heading: str) -> bool:
    """A heading repeated in the body (``heading`` normalised, without spaces), a page number line, a line pointing
    at a source, or a line of no letter or digit: never an answer."""
    key = normalize(sentence).replace(" ", "").rstrip("。.")
    if not any(ch.isalnum() for ch in sentence):  # a rule drawn in characters: "*****", "==== ===="
        return True
    if _PAGE_FURNITURE.search(sentence) or _SOURCE_POINTER.match(sentence):
        return True
    return bool(heading) and key in heading
