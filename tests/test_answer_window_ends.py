"""Evidence whose chunk window ends inside a sentence gets the rest of it from the next chunk."""

from __future__ import annotations

import dataclasses

from lambdarag.answer.context import pack
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.window_ends import MAX_COMPLETION, completed
from lambdarag.records import Chunk

FIRST = ("8. Litigation\n-------------\n"
         "Any litigation relating to this License may be brought only in the")
SECOND = ("-------------\nAny litigation relating to this License may be brought only in the\n"  # the overlap
          "courts of a jurisdiction where the defendant maintains its principal\n"
          "place of business.\nNothing in this Section shall prevent a party's ability to bring\ncross-claims.")


def store(first: str = FIRST, second: str = SECOND, **changes: object) -> dict[str, Chunk]:
    a = Chunk("mpl#0033", "mpl", "MPL", "MPL", first)
    b = dataclasses.replace(Chunk("mpl#0034", "mpl", "MPL", "MPL", second), **changes)  # type: ignore[arg-type]
    return {a.chunk_id: a, b.chunk_id: b}


def test_the_sentence_a_window_cut_is_finished_from_the_next_chunk_past_their_overlap() -> None:
    chunks = store()
    assert completed(chunks["mpl#0033"], chunks) == (
        f"{FIRST}\ncourts of a jurisdiction where the defendant maintains its principal\nplace of business.")
    # without an overlap the next chunk goes on where the window stopped
    chunks = store(second="courts of a jurisdiction in the defendant's country. The end.")
    assert completed(chunks["mpl#0033"], chunks).endswith("only in the courts of a jurisdiction in the defendant's "
                                                          "country.")
    packed = pack({}, ["mpl#0033"], [], store(), max_chars=3500)
    assert "maintains its principal\nplace of business." in packed.pieces[0].text
    assert packed.citations[0].chunk_id == "mpl#0033"


def test_an_overlap_of_one_short_line_is_not_repeated() -> None:
    first = ("Depreciation for centrally managed assets is included in segment operating costs. In 2021,\n"
             "$668 was included in the primary business segments, of which $386 was included in BCA. In")
    second = "In\n2020, $689 was included in the primary business segments, of which $397 was included in BCA."
    chunks = store(first=first, second=second)
    assert completed(chunks["mpl#0033"], chunks) == f"{first}\n2020, $689 was included in the primary business " \
        "segments, of which $397 was included in BCA."


def test_a_closed_sentence_a_heading_another_section_a_table_or_a_long_rest_is_left_as_it_is() -> None:
    def same(chunks: dict[str, Chunk]) -> bool:
        return completed(chunks["mpl#0033"], chunks) == chunks["mpl#0033"].text

    assert same(store(first="Any litigation relating to this License is brought in court."))
    assert same(store(first="Any litigation relating to this License may be brought\n8. Litigation"))  # a heading
    assert same(store(breadcrumb="MPL > 9. Miscellaneous"))
    assert same(store(is_table=True))
    assert same(store(second="courts " + "of a jurisdiction " * (MAX_COMPLETION // 10) + "end."))
    # a balance sheet's row is as unclosed as a cut sentence, but shorter than the text's prose lines
    prose = "Total liabilities increased in 2022, mainly because customer deposits grew during the year.\n"
    assert same(store(first=f"{prose}{prose}Customer deposits $ 110,239 $ 84,382",
                      second="Travelers Cheques outstanding 1,000 1,200\nOther liabilities were lower. End."))
    assert completed(store()["mpl#0034"], store()) == SECOND  # the last chunk: nothing after it


def test_a_completion_beyond_the_first_chunks_never_takes_a_chunks_place_in_the_context() -> None:
    chunks = store()
    others = [Chunk(f"faq#{n}", "faq", "FAQ", "FAQ", f"Question {n}? Its answer, in a sentence.") for n in range(4)]
    chunks |= {c.chunk_id: c for c in others}
    # the cut chunk among the first three: completed before later chunks are fitted
    first = pack({}, ["mpl#0033", "faq#0"], [], chunks, max_chars=3500)
    assert "place of business." in first.pieces[0].text
    ids = ["faq#0", "faq#1", "faq#2", "mpl#0033", "faq#3"]
    assert "place of business." in pack({}, ids, [], chunks, max_chars=3500).pieces[3].text
    # a budget that holds every chunk as it is, with a few characters to spare, not the completion too
    plain = pack({}, ids, [], {cid: chunks[cid] for cid in ids}, max_chars=3500)
    tight = pack({}, ids, [], chunks, max_chars=sum(len(p.text) + 8 for p in plain.pieces))
    assert tight.included == ids and tight.pieces[3].text == plain.pieces[3].text


def test_a_figure_chinese_text_broke_at_a_window_is_one_figure_again() -> None:
    first = ("第六条 管理中心自受理申请之日起3个工作日内作出准予提取或者不准提取的决定，\n"
             "逾期未作出决定的，申请人可以向住房公积金管理中心投诉，投诉电话：010-6512")
    chunks = store(first=first, second="3456，工作时间为周一至周五。其他事项另行通知。")
    assert completed(chunks["mpl#0033"], chunks).endswith("投诉电话：010-65123456，工作时间为周一至周五。")


def test_a_piece_the_window_cut_after_a_comma_is_quoted_without_it() -> None:
    text = "，在专业领域声誉显著。学院现有教授四十二人，副教授五十五人。"
    chunk = Chunk("arts#2", "arts", "美术学院", "美术学院", text)
    packed = pack({}, ["arts#2"], [], {"arts#2": chunk}, max_chars=3500)
    keywords = ["美术学院", "专业", "领域", "声誉"]
    answer = extractive_answer("美术学院在专业领域的声誉如何？", packed, "fact", {}, keywords)
    assert answer.startswith("在专业领域声誉显著[1]"), answer
