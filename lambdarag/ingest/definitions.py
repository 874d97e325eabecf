"""A definition list's term read with its description, as one line.

HTML writes term-value pairs as ``<dl><dt>Volunteer desk</dt><dd>1009</dd>…</dl>`` (phone directories, FAQ pages,
glossaries, a product's specifications); a browser shows each description beside or under its term. Read as
blocks, the term and its value become two lines and then two sentences that no longer say which number is whose.
Both HTML readers (a page, the HTML inside a Markdown file) put the first description after its term, as a
labelled field is written ("Volunteer desk: 1009", "报名费：100元").
"""

from __future__ import annotations

from lambdarag.text.tokenizer import has_cjk

_COLONS = (":", "：")


def term_label(term: str) -> str:
    """The term as the label of the description that follows: a colon after it in its language's form (a term that
    already ends in one keeps its own); an empty term gives ""."""
    term = " ".join(term.split())
    if not term:
        return ""
    if term.endswith(_COLONS):
        return term if term.endswith("：") else f"{term} "
    return f"{term}：" if has_cjk(term[-1]) else f"{term}: "
