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
_LATIN = re.compile(r"[a-z]")
_TRAILING_BRACKET = re.compile(r"\s*[（(][^（）()]*[）)]\s*$")  # "西土城站 (北京市)", a locator "（第3页）"


def page_title(head: str) -> str:
    """The document title of an evidence piece's head line."""
    title = _TITLE_END.split(head, maxsplit=1)[0]
    return _TRAILING_BRACKET.sub("", title).strip()


def asked_pages(question: str, heads: Iterable[tuple[str, str]]) -> frozenset[str]:
    """The documents, of (doc_id, head line) pairs, whose title the question holds (a Latin title as whole words:
    "Tax" is not in "syntax")."""
    asked = normalize(question)
    spaced, squeezed = " ".join(asked.split()), asked.replace(" ", "")  # the question's two forms, made once
    return frozenset(doc_id for doc_id, head in heads if _holds(spaced, squeezed, normalize(page_title(head))))


def _holds(spaced: str, squeezed: str, title: str) -> bool:
    """Whether the question (``spaced``: single spaces; ``squeezed``: none) holds ``title``."""
    if len(title.replace(" ", "")) < MIN_TITLE_CHARS:
        return False
    if _LATIN.search(title):
        words = re.escape(" ".join(title.split()))
        return re.search(rf"(?<![a-z0-9]){words}(?![a-z0-9])", spaced) is not None
    return title.replace(" ", "") in squeezed
