"""Weighted RRF by hand on tiny inputs, weights, ties, table and recency boosts."""

from __future__ import annotations

import dataclasses
import itertools
from datetime import date

import pytest

from lambdarag.query.temporal import TimeScope, as_of_scope
from lambdarag.records import Chunk, Hit
from lambdarag.retrieval.fusion import (
    Fused,
    after_today,
    chunk_years,
    proximity,
    proximity_boost,
    recency_boost,
    table_boost,
    version_preference,
    weighted_rrf,
    without_matches,
)


def hits(channel: str, *ids: str) -> list[Hit]:
    return [Hit(chunk_id=cid, score=1.0 / n, rank=n, channel=channel) for n, cid in enumerate(ids, start=1)]


def chunk(cid: str, is_table: bool = False, dates: tuple[str, ...] = ()) -> Chunk:
    return Chunk(chunk_id=cid, doc_id=cid.split("#")[0], title="t", breadcrumb="t", text="x", is_table=is_table,
                 dates=dates)


def test_weighted_rrf_matches_the_formula_by_hand() -> None:
    rankings = {"bm25": hits("bm25", "a", "b", "c"), "vector": hits("vector", "b", "d")}
    fused = weighted_rrf(rankings, {"bm25": 1.0, "vector": 0.5}, k=60)
    by_id = {f.chunk_id: f for f in fused}
    assert by_id["a"].score == pytest.approx(1.0 / 61)
    assert by_id["b"].score == pytest.approx(1.0 / 62 + 0.5 / 61)
    assert by_id["c"].score == pytest.approx(1.0 / 63)
    assert by_id["d"].score == pytest.approx(0.5 / 62)
    assert [f.chunk_id for f in fused] == ["b", "a", "c", "d"]
    assert by_id["b"].ranks == {"bm25": 2, "vector": 1}
    assert by_id["b"].scores == pytest.approx({"bm25": 1.0 / 62, "vector": 0.5 / 61})


def test_weights_change_the_order() -> None:
    rankings = {"bm25": hits("bm25", "a", "b"), "graph": hits("graph", "b", "a")}
    assert [f.chunk_id for f in weighted_rrf(rankings, {"bm25": 1.0, "graph": 0.1}, 60)] == ["a", "b"]
    assert [f.chunk_id for f in weighted_rrf(rankings, {"bm25": 0.1, "graph": 1.0}, 60)] == ["b", "a"]
    # a channel without a weight contributes nothing but its rank is still recorded
    only_bm25 = weighted_rrf(rankings, {"bm25": 1.0}, 60)
    assert only_bm25[0].ranks == {"bm25": 1, "graph": 2} and only_bm25[0].scores["graph"] == 0.0


def test_small_k_sharpens_rank_differences() -> None:
    rankings = {"bm25": hits("bm25", "a", "b")}
    k0 = weighted_rrf(rankings, {"bm25": 1.0}, 0)
    assert [f.score for f in k0] == pytest.approx([1.0, 0.5])


def test_ties_break_by_best_rank_then_chunk_id() -> None:
    # x: rank 1 in bm25 only; y: rank 1 in vector only; equal weights -> equal score, id decides
    tied = weighted_rrf({"bm25": hits("bm25", "y"), "vector": hits("vector", "x")}, {"bm25": 1, "vector": 1}, 60)
    assert [f.chunk_id for f in tied] == ["x", "y"]
    # p: ranks 1 and 3 (1/61 + 1/63), q: rank 2 twice (2/62): nearly equal, q is slightly less
    fused = weighted_rrf({"a": hits("a", "p", "q", "z"), "b": hits("b", "z", "q", "p")}, {"a": 1, "b": 1}, 60)
    assert fused[-1].chunk_id == "q"
    same = [Fused("m", 0.5, {"a": 3}), Fused("n", 0.5, {"a": 1})]
    assert [f.chunk_id for f in table_boost(same, {}, 0.3)] == ["n", "m"]


def test_duplicate_hits_in_one_channel_count_once_at_the_best_rank() -> None:
    rankings = {"wiki": [Hit("a", 1.0, 1, "wiki"), Hit("a", 0.5, 3, "wiki"), Hit("b", 0.7, 2, "wiki")]}
    fused = weighted_rrf(rankings, {"wiki": 1.0}, 60)
    assert [(f.chunk_id, f.ranks["wiki"]) for f in fused] == [("a", 1), ("b", 2)]
    assert fused[0].score == pytest.approx(1.0 / 61)


def test_channel_order_does_not_change_the_result() -> None:
    channels = {"bm25": hits("bm25", "a", "b", "c", "d"), "vector": hits("vector", "d", "c", "e"),
                "graph": hits("graph", "c", "a"), "wiki": hits("wiki", "e", "b")}
    weights = {"bm25": 0.7, "vector": 0.3, "graph": 0.2, "wiki": 0.6}
    expected = weighted_rrf(channels, weights, 60)
    for perm in itertools.permutations(channels):
        assert weighted_rrf({n: channels[n] for n in perm}, weights, 60) == expected


def test_table_boost_lifts_table_chunks() -> None:
    fused = weighted_rrf({"bm25": hits("bm25", "text#1", "table#1")}, {"bm25": 1.0}, 60)
    chunks = {"text#1": chunk("text#1"), "table#1": chunk("table#1", is_table=True)}
    boosted = table_boost(fused, chunks, 0.3)
    assert [f.chunk_id for f in boosted] == ["table#1", "text#1"]
    assert boosted[0].score == pytest.approx(1.3 / 62) and boosted[0].boosts == {"table": 0.3}
    assert boosted[1].boosts == {}
    assert table_boost(fused, chunks, 0.0) == fused


def test_recency_boost_in_range_and_newest_first() -> None:
    chunks = {
        "old#1": chunk("old#1", dates=("2018-05-01",)),
        "mid#1": chunk("mid#1", dates=("2023",)),
        "new#1": chunk("new#1", dates=("2021-01", "2025-09-01")),
        "none#1": chunk("none#1"),
    }
    fused = weighted_rrf({"bm25": hits("bm25", "none#1", "old#1", "mid#1", "new#1")}, {"bm25": 1.0}, 60)
    in_range = recency_boost(fused, chunks, TimeScope(2022, 2026, False, "近五年"), 0.3)
    assert {f.chunk_id: f.boosts.get("recency") for f in in_range} == {
        "none#1": None, "old#1": None, "mid#1": 0.3, "new#1": 0.3}
    assert [f.chunk_id for f in in_range] == ["mid#1", "new#1", "none#1", "old#1"]
    newest = recency_boost(fused, chunks, TimeScope(None, None, True, "最新"), 0.3)
    factors = {f.chunk_id: f.boosts.get("recency") for f in newest}
    assert factors["new#1"] == pytest.approx(0.3)  # 2025: the newest
    assert factors["mid#1"] == pytest.approx(0.3 / 3)  # 2023: two years behind
    assert factors["old#1"] == pytest.approx(0.3 / 8)
    assert factors["none#1"] is None
    as_of = recency_boost(fused, chunks, TimeScope(None, 2023, True, "截至2023年"), 0.3)
    assert {f.chunk_id: f.boosts.get("recency") for f in as_of}["new#1"] == pytest.approx(0.3 / 3)  # 2021 counts


def test_recency_boost_without_scope_or_dates_changes_nothing() -> None:
    fused = weighted_rrf({"bm25": hits("bm25", "a#1", "b#1")}, {"bm25": 1.0}, 60)
    chunks = {"a#1": chunk("a#1"), "b#1": chunk("b#1")}
    assert recency_boost(fused, chunks, None, 0.3) == fused
    assert recency_boost(fused, chunks, TimeScope(2020, 2021, False, "x"), 0.3) == fused


def test_both_boosts_multiply() -> None:
    chunks = {"t#1": chunk("t#1", is_table=True, dates=("2024",))}
    fused = weighted_rrf({"bm25": hits("bm25", "t#1")}, {"bm25": 1.0}, 60)
    both = recency_boost(table_boost(fused, chunks, 0.3), chunks, TimeScope(2024, 2024, False, "今年"), 0.5)
    assert both[0].score == pytest.approx(1.0 / 61 * 1.3 * 1.5)
    assert both[0].boosts == {"table": 0.3, "recency": 0.5}


def test_version_preference_scales_chunks_of_demoted_documents_and_records_it() -> None:
    chunks = {c: chunk(c) for c in ("old#1", "new#1", "other#1")}
    fused = weighted_rrf({"bm25": hits("bm25", "old#1", "new#1", "other#1")}, {"bm25": 1.0}, 60)
    out = version_preference(fused, chunks, {"old": "repealed"}, 0.5)
    assert [f.chunk_id for f in out] == ["new#1", "other#1", "old#1"]
    old = next(f for f in out if f.chunk_id == "old#1")
    assert old.score == pytest.approx(0.5 / 61) and old.boosts == {"superseded": -0.5}
    assert version_preference(fused, chunks, {"old": "repealed"}, 0.0) == fused
    assert version_preference(fused, chunks, {}, 0.5) == fused


def test_without_matches_drops_marked_hits_and_ranks_the_rest_again() -> None:
    marked = [dataclasses.replace(h, extra={"match": m})
              for h, m in zip(hits("wiki", "a#0", "b#0", "c#0"), ["body", "named", "named"], strict=True)]
    kept = without_matches(marked, "match", "body")
    assert [(h.chunk_id, h.rank) for h in kept] == [("b#0", 1), ("c#0", 2)]
    assert without_matches(hits("bm25", "a#0"), "match", "body") == hits("bm25", "a#0")  # unmarked hits stay


def test_after_today_scales_documents_that_did_not_exist_yet() -> None:
    chunks = {"old#0": chunk("old#0"), "new#0": chunk("new#0"), "undated#0": chunk("undated#0")}
    chunks = {k: dataclasses.replace(c, doc_date=d)
              for (k, c), d in zip(chunks.items(), ["2017-01-18", "2023-01", ""], strict=True)}
    fused = weighted_rrf({"bm25": hits("bm25", "new#0", "old#0", "undated#0")}, {"bm25": 1.0}, 60)
    as_of_2018 = after_today(fused, chunks, date(2018, 12, 31), 0.5)
    assert [f.chunk_id for f in as_of_2018] == ["old#0", "undated#0", "new#0"]
    assert as_of_2018[-1].boosts == {"after_today": -0.5}
    assert after_today(fused, chunks, date(2026, 1, 1), 0.5) == fused  # nothing is after today
    assert after_today(fused, chunks, date(2018, 12, 31), 0.0) == fused


def test_asked_as_of_a_date_the_latest_document_up_to_that_year_ranks_first() -> None:
    dated = {"n2016#0": "2016-01-20", "n2017#0": "2017-01-18", "n2023#0": "2023-01-10"}
    chunks = {cid: dataclasses.replace(chunk(cid), doc_date=d) for cid, d in dated.items()}
    assert chunk_years(dataclasses.replace(chunk("x#0", dates=("2021-03",)), doc_date="2023-05-31")) == [2021, 2023]
    fused = weighted_rrf({"bm25": hits("bm25", "n2023#0", "n2016#0", "n2017#0")}, {"bm25": 1.0}, 60)
    as_of = recency_boost(fused, chunks, as_of_scope(date(2017, 12, 31)), 0.3)
    assert [f.chunk_id for f in as_of][:2] == ["n2017#0", "n2016#0"]  # 2023 lies outside "up to 2017"
    assert as_of[0].boosts == {"recency": 0.3} and as_of[1].boosts == {"recency": 0.15}


def test_proximity_prefers_the_chunk_holding_the_keywords_in_one_place() -> None:
    together = dataclasses.replace(chunk("a#0"), text="开头一句。住宿费限额为每晚500元。其他说明。")
    apart = dataclasses.replace(chunk("b#0"), text="住宿费另行说明。第二句。第三句。每晚标准见附件。第五句。"
                                                   "第六句。限额另定。")
    table = dataclasses.replace(chunk("t#0", is_table=True), text="地区 | 住宿费限额\n北京 | 900元")
    keywords = ["住宿费", "限额", "每晚"]
    assert proximity(keywords, together) == 1.0
    assert proximity(keywords, apart) == pytest.approx(1 / 3)
    assert proximity(keywords, table) == pytest.approx(2 / 3)  # a table is one unit: header and rows together
    chunks = {c.chunk_id: c for c in (together, apart)}
    fused = weighted_rrf({"bm25": hits("bm25", "b#0", "a#0")}, {"bm25": 1.0}, 60)
    boosted = proximity_boost(fused, chunks, keywords, 1.0, depth=30)
    assert [f.chunk_id for f in boosted] == ["a#0", "b#0"] and boosted[0].boosts == {"proximity": 1.0}
    assert proximity_boost(fused, chunks, keywords, 0.0, depth=30) == fused
    assert [f.chunk_id for f in proximity_boost(fused, chunks, keywords, 1.0, depth=1)] == ["b#0", "a#0"]
