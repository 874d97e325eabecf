"""Near copies of a ranked chunk (an overlapping window, an article published twice) are packed once."""

from __future__ import annotations

from lambdarag.answer.evidence import distinct_chunks, shingles
from lambdarag.records import Chunk

ARTICLE = ("学院成立于1999年，现有教师66人，其中教授12人。学院设有绘画、设计和音乐三个系，"
           "每年招收本科生约一百人，并与多所海外院校开展交流合作。")


def chunk(cid: str, text: str) -> Chunk:
    return Chunk(cid, cid.partition("#")[0], "学院概况", "学院概况", text)


CHUNKS = {
    "a#1": chunk("a#1", ARTICLE),
    "b#1": chunk("b#1", "转载：" + ARTICLE),  # the same article on another page
    "a#2": chunk("a#2", ARTICLE[40:] + "学院图书馆藏书五万册，向全校师生开放。"),  # a window overlapping half of a#1
    "c#1": chunk("c#1", "招生咨询电话为010-12345678，工作日开放。"),
    "d#1": chunk("d#1", "奖学金每年评定一次，覆盖三成学生。"),
}


def test_a_near_copy_gives_its_place_to_the_next_ranked_chunk() -> None:
    taken, copies = distinct_chunks(["a#1", "b#1", "a#2", "c#1", "d#1"], CHUNKS, 3)
    assert taken == ["a#1", "a#2", "c#1"] and copies == ["b#1"]  # half an overlap is new text, a reprint is not
    assert distinct_chunks(["b#1", "a#1", "c#1"], CHUNKS, 2) == (["b#1", "c#1"], ["a#1"])  # the first copy stays


def test_the_share_the_count_and_unknown_chunks() -> None:
    ranked = ["a#1", "missing#1", "a#1", "b#1", "c#1"]
    assert distinct_chunks(ranked, CHUNKS, 10, share=1.01) == (["a#1", "b#1", "c#1"], [])  # above 1: nothing copies
    assert distinct_chunks(ranked, CHUNKS, 1) == (["a#1"], [])  # stops at the count
    assert distinct_chunks([], CHUNKS, 3) == ([], [])
    assert shingles("ab c") == {"abc"} and shingles("  ") == set()
    assert len(shingles("一二三四五六七八九", 8)) == 2
