"""Wikipedia's language-conversion marks are no text (text/wiki_markup.py, read by ingest's DocBuilder)."""

from __future__ import annotations

import pytest

from lambdarag.ingest.document import DocBuilder
from lambdarag.text.wiki_markup import without_conversion_marks


@pytest.mark.parametrize(("text", "shown"), [
    ("郭-{麐}-（-{麐}-同麟）字群伯", "郭麐（麐同麟）字群伯"),  # a kept word
    ("凡企业-{zh-hans:为;zh-hant:為;}-了营业活动", "凡企业为了营业活动"),  # the simplified variant of a choice
    ("-{zh-tw:滑鼠;zh-cn:鼠标}-", "鼠标"),
    ("-{zh-tw:滑鼠;zh-hk:滑鼠}-", "滑鼠"),  # no simplified variant: the first
    ("足-{}-三两", "足三两"),  # an empty mark stops a conversion, it says nothing
    ("-{H|zh-hans:鼠标;zh-hant:滑鼠;}-鼠标", "鼠标"),  # a conversion rule
    ("x-{y}z and {braces}", "x-{y}z and {braces}"),  # not a mark
])
def test_a_reader_sees_the_kept_words(text: str, shown: str) -> None:
    assert without_conversion_marks(text) == shown


def test_an_exported_page_is_read_without_its_marks() -> None:
    builder = DocBuilder("DEV_1", "corpus.jsonl", "jsonl")
    builder.heading(1, "郭-{麐}-生平")
    builder.text("郭-{麐}-，卒于道光十一年（1831年）。")
    doc = builder.build(title="郭麐")
    assert [b.text for b in doc.blocks] == ["郭麐，卒于道光十一年（1831年）。"]
    assert doc.blocks[0].section == ("郭麐生平",)
