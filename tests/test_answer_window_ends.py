"""Evidence whose chunk window ends inside a sentence gets the rest of it from the next chunk."""

from __future__ import annotations

import dataclasses

from lambdarag.answer.context import pack
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


def test_a_closed_sentence_a_heading_another_section_a_table_or_a_long_rest_is_left_as_it_is() -> None:
    def same(chunks: dict[str, Chunk]) -> bool:
        return completed(chunks["mpl#0033"], chunks) == chunks["mpl#0033"].text

    assert same(store(first="Any litigation relating to this License is brought in court."))
    assert same(store(first="Any litigation relating to this License may be brought\n8. Litigation"))  # a heading
    assert same(store(breadcrumb="MPL > 9. Miscellaneous"))
    assert same(store(is_table=True))
    assert same(store(second="courts " + "of a jurisdiction " * (MAX_COMPLETION // 10) + "end."))
    assert completed(store()["mpl#0034"], store()) == SECOND  # the last chunk: nothing after it
