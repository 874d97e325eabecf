"""The page a question names: a document whose title the question holds ("郝德泉从事什么职业？" of the page 郝德泉).

A question about a page's subject is answered on that page; a sentence of another document that echoes the
question's predicate ("儿子某某从事职业治疗") is about someone else. The answer's sentences from a page the
question names score ON_PAGE more (answer/sentences.py); a sentence elsewhere that carries what the need asks
(the role asked, filled) still outscores them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lambdarag.text.tokenizer import normalize

ON_PAGE = 0.1
MIN_TITLE_CHARS = 2
_TITLE_END = re.compile(r" · | > ")  # the head line: breadcrumb (title > section) · document header（locator）
_TRAILING_BRACKET = re.compile(r"\s*[（(][^（）()]*[）)]\s*$")  # "西土城站 (北京市)", a locator "（第3页）"


def page_title(head: str) -> str:
    """The document title of an evidence piece's head line."""
    title = _TITLE_END.split(head, maxsplit=1)[0]
    return _TRAILING_BRACKET.sub("", title).strip()


def asked_pages(question: str, heads: Iterable[tuple[str, str]]) -> frozenset[str]:
    """The documents, of (doc_id, head line) pairs, whose title the question holds."""
    asked = _squeezed(question)
    titles = ((doc_id, _squeezed(page_title(head))) for doc_id, head in heads)
    return frozenset(doc_id for doc_id, title in titles if len(title) >= MIN_TITLE_CHARS and title in asked)


def _squeezed(text: str) -> str:
    return normalize(text).replace(" ", "")
