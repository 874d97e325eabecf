"""A superlative over a table split into row groups compares every group (answer/split_tables.py)."""

from __future__ import annotations

from lambdarag.answer.context import pack
from lambdarag.answer.evidence import Added, expand_evidence, with_added
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.split_tables import extreme_chunk
from lambdarag.records import Chunk, make_chunk_id

HEADER = "各学院科研经费\n| 学院 | 经费（万元） | 项目数 |\n"
GROUPS = [
    [("文学院", "120", "8"), ("理学院", "210", "15"), ("法学院", "95", "6")],
    [("工学院", "860", "40"), ("医学院", "540", "31")],  # the most funds: in the second part
    [("商学院", "310", "12"), ("艺术学院", "40", "3")],  # the least: in the third
]


def _chunks() -> dict[str, Chunk]:
    out = {}
    for i, rows in enumerate(GROUPS):
        cid = make_chunk_id("funds", i)
        text = HEADER + "\n".join(f"| {a} | {b} | {c} |" for a, b, c in rows)
        out[cid] = Chunk(cid, "funds", "各学院科研经费", "各学院科研经费", text, is_table=True)
    notes = make_chunk_id("notes", 0)
    out[notes] = Chunk(notes, "notes", "说明", "说明", "经费按到账金额统计。")
    return out


def test_the_extreme_is_looked_for_in_every_part_of_the_table() -> None:
    chunks = _chunks()
    first, second, third = (make_chunk_id("funds", i) for i in range(3))
    assert extreme_chunk("哪个学院的经费最多？", [first, third], chunks) == second  # retrieval missed it
    assert extreme_chunk("哪个学院的经费最少？", [third, first], chunks) is None  # the first table holds it
    assert extreme_chunk("哪个学院的经费最少？", [first, second], chunks) == third
    assert extreme_chunk("理学院的经费是多少？", [first], chunks) is None  # no superlative


def test_the_part_holding_the_extreme_leads_the_evidence_and_the_answer() -> None:
    chunks = _chunks()
    first, second, third = (make_chunk_id("funds", i) for i in range(3))
    fused = [first, make_chunk_id("notes", 0), third]
    added = expand_evidence("哪个学院的经费最多？", ["学院", "经费"], "data", fused, chunks)
    assert Added(second, "the part of a split table holding the extreme asked", lead=True) in added
    order = with_added(fused, added)
    assert order[0] == second
    # the answer compares the parts it is given: the second part's 工学院 over the first part's 理学院
    packed = pack({}, [first, third, second], [], chunks, max_chars=3500)
    answer = extractive_answer("哪个学院的经费最多？", packed, "data", {}, ["学院", "经费"])
    assert "工学院" in answer and "理学院" not in answer.split("[")[0]


def test_two_periods_tables_of_one_header_are_two_tables() -> None:
    """A sheet's 2023 and 2022 tables share a header, not a caption: the 2022 question's lowest is not the 2023
    table's, however low."""
    from lambdarag.answer.split_tables import most_extreme_first
    from lambdarag.answer.table_lookup import answering_tables

    header = "| Segment | Sales |\n"
    this_year = "Half year 2023\n" + header + "| Zone A | 900 |\n| Unallocated | 0 |"
    last_year = "Half year 2022\n" + header + "| Zone A | 850 |\n| Other businesses | 131 |"
    question = "Which segment had the lowest sales in half year 2022?"
    found = answering_tables(question, [("", this_year), ("", last_year)])
    assert len(found) == 2
    first = found[most_extreme_first(found, question)[0]]
    assert first.table.caption == "Half year 2022" and first.table.rows[first.match.rows[0]][0] == "Other businesses"
