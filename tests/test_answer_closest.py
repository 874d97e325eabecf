"""What the dense reading offers after the sentences chosen by their words (answer/closest): the sentence nearest in
meaning to the question, and the closest chunk's best sentence."""

from __future__ import annotations

import dataclasses

from lambdarag.answer.closest import by_meaning, closest_number, nearest_unsaid, with_closest, with_nearest
from lambdarag.answer.context import pack
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.sentences import Scored
from lambdarag.answer.units import SENTENCE_CHARS, chunk_sentences
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


def test_the_sentence_nearest_in_meaning_comes_after_the_picked_ones_unless_it_is_one_of_them() -> None:
    everything = [*PICKED, *OTHERS]
    near = {"甲": 0.8, "丙": 0.9, "丁": 0.3}
    assert [s.sentence for s in with_nearest(PICKED, everything, near)] == ["甲", "乙", "丙"]
    assert with_nearest(PICKED, everything, {"甲": 0.9, "丙": 0.5}) == PICKED  # the nearest is quoted already
    assert with_nearest(PICKED, everything, {"己": 0.99}) == PICKED  # a sentence no candidate is
    assert with_nearest(PICKED, everything, {}) == PICKED  # no sentence vectors
    assert with_nearest([], everything, near) == []  # no answer to add to


def test_a_lead_in_offered_by_meaning_comes_with_its_items_or_not_at_all() -> None:
    """The nearest sentence may be a lead-in ("Submit a mileage log including:"): alone it announces, says nothing."""
    lead = scored(0.3, 1, "Submit a mileage log including:")
    items = [scored(0.2, 1, "- Starting location."), scored(0.2, 1, "- Destination.")]
    other = scored(0.9, 2, "Mileage is paid at the current rate.")
    everything = [other, lead, *items]
    near = {"Submit a mileage log including:": 0.9}
    offered = by_meaning([other], everything, near, None)
    assert [s.sentence for s in offered] == [other.sentence,
                                             "Submit a mileage log including: - Starting location. - Destination."]
    # some of its items picked already, the lead-in alone would end the answer on a colon
    assert by_meaning([other, items[0]], everything, near, None) == [other, items[0]]


def test_a_sentence_a_picked_one_holds_as_a_clause_is_not_offered_again() -> None:
    """A chunk's sentences split at "；" by the sentence index may be clauses of a sentence the answer quotes whole."""
    whole = scored(3.0, 1, "直系亲属去世的，丧假3个工作日；近亲属去世的，丧假1个工作日。")
    clause, other = scored(1.0, 1, "近亲属去世的，丧假1个工作日；"), scored(0.5, 2, "婚假10天。")
    near = {"近亲属去世的，丧假1个工作日；": 0.9, "婚假10天。": 0.5}
    assert with_nearest([whole], [whole, clause, other], near) == [whole]
    assert by_meaning([whole], [whole, clause, other], {}, 1) == [whole]  # the closest chunk is quoted already
    assert by_meaning([other], [whole, clause, other], {"近亲属去世的，丧假1个工作日；": 0.9}, 1) == [other, clause]


def test_a_chunk_offers_its_sentences_as_the_answer_reads_them_and_a_table_none() -> None:
    text = "发版频率为每月一次。新版本需要重新登录。"
    assert chunk_sentences(text) == ["发版频率为每月一次。", "新版本需要重新登录。"]
    assert chunk_sentences("Members pay 20 dollars a month. Guests sign in.") == [
        "Members pay 20 dollars a month.", "Guests sign in."]
    long = "甲" * 400 + "。"
    assert chunk_sentences(long) == [long[:SENTENCE_CHARS]]  # the opening of an over-long one, its key too
    assert chunk_sentences("| 项目 | 金额 |\n|---|---|\n| 差旅 | 100 |\n| 住宿 | 200 |") == []


def test_an_answer_in_other_words_is_offered_by_the_nearest_sentence() -> None:
    packed = pack({}, ["install#1", "release#1"], [], CHUNKS, max_chars=3500)
    plain = extractive_answer(QUESTION, packed, "fact", {}, ["新版本"])
    nearness = {sentence: 0.5 for text in (c.text for c in CHUNKS.values()) for sentence in chunk_sentences(text)}
    near = dataclasses.replace(packed, nearness={**nearness, "发版频率为每月一次。": 0.9})
    offered = extractive_answer(QUESTION, near, "fact", {}, ["新版本"])
    assert offered.startswith(plain.rstrip()) and offered.rstrip().endswith("发版频率为每月一次[2]。")
    # the nearest already quoted: nothing more
    quoted = dataclasses.replace(packed, nearness={**nearness, "新版本需要重新登录。": 0.9})
    assert extractive_answer(QUESTION, quoted, "fact", {}, ["新版本"]) == plain


def test_the_nearest_sentence_comes_first_and_never_suppresses_the_closest_chunks() -> None:
    everything = [*PICKED, *OTHERS]
    # the nearest sentence is of the closest chunk: that chunk still offers its best after it
    assert [s.sentence for s in by_meaning(PICKED, everything, {"丙": 0.9}, 2)] == ["甲", "乙", "丙", "丁"]
    assert [s.sentence for s in by_meaning(PICKED, everything, {"丁": 0.9}, 2)] == ["甲", "乙", "丁"]  # the same
    assert [s.sentence for s in by_meaning(PICKED, everything, {"戊": 0.9}, None)] == ["甲", "乙", "戊"]


def test_the_nearest_sentence_follows_slot_lines_that_do_not_hold_it() -> None:
    everything = [*PICKED, *OTHERS]
    assert nearest_unsaid(everything, {"丙": 0.9, "甲": 0.5}, "甲[1]。") == [OTHERS[0]]
    assert nearest_unsaid(everything, {"丙": 0.9}, "办理地点：丙[2]。") == []  # a slot line quotes it already
    assert nearest_unsaid(everything, {}, "甲[1]。") == []  # no sentence vectors


OFFICE = {
    "office#1": chunk("office#1", "财务处", "财务处报账大厅负责人：张敏，电话：027-87651100。报账大厅周一至周五开放。"),
    "loan#1": chunk("loan#1", "借款", "借款逾期未还的，由财务处从工资中扣回。借款须在报销后冲销。"),
}
PERSON = {"name": "张敏", "phone": "027-87651100", "sources": {"name": "office#1", "phone": "office#1"}}


def test_a_person_answer_from_slots_offers_the_nearest_sentence_after_its_lines() -> None:
    packed = pack(PERSON, ["office#1", "loan#1"], [], OFFICE, max_chars=3500)
    question = "借的钱一直没还会怎样，找谁？"
    plain = extractive_answer(question, packed, "person", PERSON, ["借款"])
    assert plain == "张敏，办公电话027-87651100[1]。"
    nearness = {"借款逾期未还的，由财务处从工资中扣回。": 0.92, "报账大厅周一至周五开放。": 0.5}
    offered = extractive_answer(question, dataclasses.replace(packed, nearness=nearness), "person", PERSON, ["借款"])
    assert offered == plain + "借款逾期未还的，由财务处从工资中扣回[2]。"


def test_an_english_answer_offers_the_nearest_sentence_second_where_the_budget_still_holds_it() -> None:
    everything = [*PICKED, *OTHERS]
    assert [s.sentence for s in by_meaning(PICKED, everything, {"戊": 0.9}, None, second=True)] == ["甲", "戊", "乙"]
    rules = {"rules#1": chunk("rules#1", "Contest rules", (
        "The contest is to design the logic for one cell of the game of Life using only small chips from the 74xx "
        "family, and the design must be purely combinatorial with no clock required at all. "
        "Designs for the contest are judged by the number of chip packages they use, the fewest packages winning, "
        "and ties in the contest are broken by the earliest design received. "
        "Each design for the contest must be published under an open license of your choice. "
        "Entries come as a link in a direct message.")), "faq#1": chunk("faq#1", "FAQ", "Other questions go here.")}
    packed = pack({}, ["rules#1", "faq#1"], [], rules, max_chars=3500)
    question = "How do I actually send in my design for the Life contest?"
    nearness = {s: 0.5 for text in (c.text for c in rules.values()) for s in chunk_sentences(text)}
    near = dataclasses.replace(packed, nearness={**nearness, "Entries come as a link in a direct message.": 0.9})
    answer = extractive_answer(question, near, "fact", {}, ["send", "design", "life", "contest"])
    assert "Entries come as a link in a direct message[1]." in answer, answer


CARD = {"card#1": chunk("card#1", "会员卡说明", "会员卡在有效期内可以长期使用，活动结束后卡片不会收回。\n"
                                           "办理会员卡需要提供本人身份证。\n会员卡遗失后可到前台补办。")}
CARD_QUESTION = "活动结束了，这张会员卡我以后还能接着用吗？"  # asks 接着用: no sentence says it in those words


def test_a_yes_or_no_is_read_from_the_sentence_nearest_in_meaning_when_no_sentence_says_it_in_the_words_asked() -> None:
    packed = pack({}, ["card#1"], [], CARD, max_chars=3500)
    keywords = ["活动", "结束", "会员卡", "以后", "接着"]
    assert extractive_answer(CARD_QUESTION, packed, "fact", {}, keywords).startswith("资料中未明确说明")
    nearness = {sentence: 0.5 for sentence in chunk_sentences(CARD["card#1"].text)}
    nearest = "会员卡在有效期内可以长期使用，活动结束后卡片不会收回。"
    near = dataclasses.replace(packed, nearness={**nearness, nearest: 0.9})
    # its yes is the clause's saying what is asked (使用); the 不会 of 收回 says nothing of it
    assert extractive_answer(CARD_QUESTION, near, "fact", {}, keywords).startswith("能[1]。会员卡在有效期内")
    # the nearest scoring far below the best by its words is no support: still not stated
    far = dataclasses.replace(packed, nearness={**nearness, "会员卡遗失后可到前台补办。": 0.9})
    assert extractive_answer(CARD_QUESTION, far, "fact", {}, keywords).startswith("资料中未明确说明")
