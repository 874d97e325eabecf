"""Headings plain text marks by its layout: a line underlined with a rule, and a definition list's term.

A text file has no markup, but its writers mark headings all the same: "The global statement" over a line of
asterisks, "Eligibility" over a line of dashes; and a reference's entries are terms, each a short line over its
indented description ("object.__len__(self)" over "Called to implement len()…", "-v, --verbose" over "Print more.").
As sections, they put the term into the breadcrumb of every chunk of its description, which is what the
description's sentences are about ("Should return the length of the object" says nothing of __len__ itself).
"""

from __future__ import annotations

import re

UNDERLINED_LEVELS = {"=": 1, "*": 1, "#": 1, "-": 2, "~": 2, "^": 3, "+": 3}
UNDERLINED_MAX = 80  # characters of an underlined heading
TERM_LEVEL = 4  # below the underlined and the numbered Chinese headings (第一章 1, 第一节 2, 一、 3)
TERM_MAX = 40  # characters of a term line
TERM_SHARE = 0.6  # a term is at most this share of its description's first line
TERM_WORDS = 5  # words of a term line: a longer line over an indented block is a lead-in ("…is equivalent to")
_RULE = re.compile(r"^([=*#\-~^+])\1{2,}$")
SENTENCE_END = re.compile(r"[。！？；，,.;:：!?]$")  # a line closed as a sentence or clause heads nothing
_INDENT = re.compile(r"^(?: {2,}|\t)\S")
_WORD = re.compile(r"[^\W_]")  # a letter or digit, of any script


def underlined_level(lines: list[str], i: int) -> int | None:
    """The level of line ``i`` when the next line underlines it (a rule of one repeated mark, at least half the
    line's length, under a line of words not framed by that mark), else None."""
    line = lines[i].strip()
    rule = lines[i + 1].strip() if i + 1 < len(lines) else ""
    match = _RULE.match(rule)
    if (match is None or not _WORD.search(line) or line.startswith(match.group(1)) or len(rule) * 2 < len(line)
            or len(line) > UNDERLINED_MAX):
        return None  # a line of marks only, or a box's line ("*  Disclaimer  *" over its closing rule), is no heading
    return UNDERLINED_LEVELS[match.group(1)]


def is_rule(line: str) -> bool:
    """Whether ``line`` is a rule: one mark repeated, nothing else ("*****", "-----")."""
    return bool(_RULE.match(line.strip()))


def is_term(lines: list[str], i: int) -> bool:
    """Whether line ``i`` is a definition list's term: a short unindented line (a few words, shorter than the line
    under it) opening its paragraph, no sentence, over an indented description (on the next line, or after one blank
    line) that does not go on with it in lower case."""
    line = lines[i]
    text = line.strip()
    if (not text or is_rule(line) or line[0].isspace() or len(text) > TERM_MAX or len(text.split()) > TERM_WORDS
            or SENTENCE_END.search(text)):
        return False
    if i > 0 and lines[i - 1].strip():
        return False  # inside a paragraph
    after = lines[i + 1 : i + 3]
    body = after[1] if after and not after[0].strip() and len(after) > 1 else (after[0] if after else "")
    description = body.strip()
    # a list item's wrapped first line ("1. Submit the claim form" over "   within 30 days.") is as long as the
    # lines under it, and they go on with it in lower case
    return (bool(_INDENT.match(body)) and len(text) <= TERM_SHARE * len(description)
            and not description[:1].islower())
