"""The HTML and quote marks a Markdown file writes around its text, read as the text they lay out.

Markdown allows raw HTML: pages exported from a CMS or a docs site keep ``<div>``, ``<br>``, ``<li>`` and ``&nbsp;``
in their lines, and notes are block quotes ("> **说明**：…"). A block tag breaks the line where it stands, an inline
tag goes, an entity is read as its character, and a quote's marks go, so that what reaches the chunks is the
sentences a reader sees. Code blocks are not read here (text_formats keeps them as written).
"""

from __future__ import annotations

import html
import re

from lambdarag.ingest.definitions import term_label

_BLOCK_TAG = re.compile(r"</?(?:p|div|br|li|ul|ol|dl|dt|dd|tr|td|th|table|thead|tbody|h[1-6]|section|article|"
                        r"blockquote|hr|center|details|summary|figure|figcaption|nav|header|footer)\b[^<>]*/?>",
                        re.IGNORECASE)
_INLINE_TAG = re.compile(r"</?(?:a|b|i|u|em|strong|span|font|sup|sub|small|big|code|kbd|mark|img|abbr|cite|s|del|"
                         r"ins|strike|tt|label)\b[^<>]*/?>", re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?-->")
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z]{2,8});")
_QUOTE_MARKS = re.compile(r"^ {0,3}(?:>\s?)+")
# a definition list's term and the description right after it: one line "term: description" (ingest/definitions.py)
_TERM = re.compile(r"<dt\b[^<>]*>(.*?)</dt>\s*<dd\b[^<>]*>", re.IGNORECASE)
_BREAK = re.compile(r"<br\b[^<>]*/?>", re.IGNORECASE)


def markdown_lines(line: str) -> list[str]:
    """The lines of text one Markdown line shows: its quote marks dropped, split at its block tags, its inline tags
    dropped and its entities read. A line that is markup only shows nothing ([]); a blank line stays blank."""
    line = _QUOTE_MARKS.sub("", line)
    if "<" not in line and "&" not in line:
        return [line]
    text = _TERM.sub(lambda m: "<dt>" + term_label(_BREAK.sub(" ", m.group(1))), _COMMENT.sub("", line))
    text = _INLINE_TAG.sub("", text)
    parts = _BLOCK_TAG.split(text)
    shown = [_read_entities(part).rstrip() for part in parts]
    if len(parts) == 1:
        return shown
    return [part for part in shown if part.strip()]


def _read_entities(text: str) -> str:
    """``&nbsp;`` read as a space, ``&amp;`` as "&" (a bare "&" stays)."""
    return _ENTITY.sub(lambda m: html.unescape(m.group()), text).replace("\xa0", " ")
