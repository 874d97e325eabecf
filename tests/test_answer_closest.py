"""The dense channel's closest chunk offers its best sentence after the ones chosen by their words (answer/closest)."""

from __future__ import annotations

import dataclasses

from lambdarag.answer.closest import closest_number, with_closest
from lambdarag.answer.context import pack
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.sentences import Scored
from lambdarag.records import Chunk


def scored(score: float, n: int, sentence: str) -> Scored:
    return Scored(score, n, n - 1, sentence)


PICKED = [scored(3.0, 1, "甲"), scored(2.0, 1, "乙")]
OTHERS = [scored(0.5, 2, "丙"), scored(0.9, 2, "丁"), scored(0.7, 3, "戊")]


def test_the_closest_chunks_best_sentence_comes_after_the_picked_ones() -> None:
    assert [s.sentence for s in with_closest(PICKED, [*PICKED, *OTHERS], 2)] == ["甲", "乙", "丁"]


def test_nothing_is_offered_when_the_answer_already_quotes_that_chunk_or_there_is_none() -> None:
    everything = [*PICKED, *OTHERS]
    assert with_closest(PICKED, everything, 1) == PICKED  # a picked sentence is from it already
    assert with_closest(PICKED, everything, None) == PICKED  # no dense channel
    assert with_closest(PICKED, everything, 7) == PICKED  # its sentences are not among the candidates
    assert with_closest([], everything, 2) == []  # no answer to add to
    assert closest_number("b#1", {"a#1": 1, "b#1": 2}) == 2 and closest_number(None, {"a#1": 1}) is None


def chunk(cid: str, title: str, text: str) -> Chunk:
    return Chunk(cid, cid.split("#")[0], title, title, text)


CHUNKS = {
    "install#1": chunk("install#1", "安装说明", "新版本的安装：下载新版本安装包后运行安装程序。新版本需要重新登录。"),
    "release#1": chunk("release#1", "发布说明", "发版频率为每月一次。"),
}
QUESTION = "你们一般多久发一次新版本？"


def test_an_answer_in_other_words_is_offered_from_the_closest_chunk_and_displaces_nothing() -> None:
    packed = pack({}, ["install#1", "release#1"], [], CHUNKS, max_chars=3500)
    plain = extractive_answer(QUESTION, packed, "fact", {}, ["新版本"])
    assert "每月" not in plain  # the words of the question lead the scorer to the installation page only
    offered = extractive_answer(QUESTION, dataclasses.replace(packed, closest="release#1"), "fact", {}, ["新版本"])
    assert offered.startswith(plain.rstrip()) and offered.rstrip().endswith("发版频率为每月一次[2]。")
    # the chunk the answer quotes already offers nothing more
    quoted = dataclasses.replace(packed, closest="install#1")
    assert extractive_answer(QUESTION, quoted, "fact", {}, ["新版本"]) == plain
