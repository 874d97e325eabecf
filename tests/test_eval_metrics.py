"""Evaluation metrics on hand-computed examples, and the question/corpus readers."""

from __future__ import annotations

import json
import math
from datetime import date
from pathlib import Path

import pytest

from lambdarag.errors import InputError
from lambdarag.evaluation import metrics as m
from lambdarag.evaluation.dataset import load_corpus, load_questions, parse_as_of, src_doc_map
from lambdarag.evaluation.runner import QuestionRecord, answer_in_gold, score
from lambdarag.evaluation.summary import aggregate, breakdown, deltas, latency
from lambdarag.evaluation.targets import check_targets, parse_target
from lambdarag.records import Turn


def test_doc_ranking_keeps_first_occurrence_and_skips_unknown_chunks() -> None:
    doc_of = {"a#0": "A", "a#1": "A", "b#0": "B", "c#0": "C"}
    assert m.doc_ranking(["a#1", "b#0", "a#0", "x#9", "c#0"], doc_of) == ["A", "B", "C"]
    assert m.doc_ranking(["d#0001", "d#0002", "e#0001"], m.chunk_doc) == ["d", "e"]


def test_recall_hit_and_mrr_by_hand() -> None:
    ranked = ["D1", "G1", "D2", "D3", "D4", "G2", "D5"]
    gold = ["G1", "G2", "G3"]
    assert m.recall_at_k(ranked, gold, 1) == 0.0
    assert m.recall_at_k(ranked, gold, 5) == pytest.approx(1 / 3)  # G1 only
    assert m.recall_at_k(ranked, gold, 10) == pytest.approx(2 / 3)  # G1, G2 (G3 never retrieved)
    assert m.hit_at_k(ranked, gold, 1) == 0.0
    assert m.hit_at_k(ranked, gold, 2) == 1.0
    assert m.mrr_at_k(ranked, gold, 10) == 0.5  # first gold at rank 2
    assert m.mrr_at_k(ranked, ["D5"], 5) == 0.0  # rank 7 is beyond the cut-off
    assert m.recall_at_k(ranked, [], 5) == 0.0


def test_ndcg_binary_relevance_by_hand() -> None:
    # gold at ranks 2 and 4 of two gold documents: DCG = 1/log2(3) + 1/log2(5); IDCG = 1 + 1/log2(3)
    ranked = ["x", "g1", "y", "g2", "z"]
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert m.ndcg_at_k(ranked, ["g1", "g2"], 10) == pytest.approx(expected)
    assert m.ndcg_at_k(["g1", "g2"], ["g1", "g2"], 10) == pytest.approx(1.0)
    # more gold than k: the ideal ranking is k hits
    assert m.ndcg_at_k(["g1"], ["g1", "g2", "g3"], 1) == pytest.approx(1.0)


def test_answer_in_context_uses_answer_sets_and_normalises() -> None:
    context = "中法学院用汉语、 法语和英语 三种语言授课。ＧＤＰ增长"
    sets = [["汉语", "法语", "英语"]]
    assert m.contains_answer(context, m.answer_alternatives(["汉语、法语、英语"], sets))
    # without answer_sets the whole answer string must occur (it does not: the separators differ)
    assert not m.contains_answer(context, m.answer_alternatives(["汉语、法语、英语"]))
    # every part of one alternative is needed; another alternative can still match
    assert not m.contains_answer(context, [["汉语", "德语"]])
    assert m.contains_answer(context, [["汉语", "德语"], ["英语"]])
    # NFKC + casefold + whitespace removed on both sides
    assert m.contains_answer(context, [["gdp 增长"]])
    assert m.answer_alternatives(["", " "]) == []


def test_percentile_by_hand() -> None:
    assert m.percentile([], 50) == 0.0
    assert m.percentile([4.0], 95) == 4.0
    assert m.percentile([1.0, 2.0, 3.0, 4.0], 50) == pytest.approx(2.5)
    assert m.percentile([10.0, 20.0, 30.0, 40.0, 50.0], 95) == pytest.approx(48.0)


def test_parse_as_of() -> None:
    assert parse_as_of("2023") == date(2023, 12, 31)
    assert parse_as_of("2024-02") == date(2024, 2, 29)
    assert parse_as_of("2023-05-06") == date(2023, 5, 6)
    assert parse_as_of("2023年5月6日") == date(2023, 5, 6)
    assert parse_as_of(None) is None and parse_as_of("") is None
    with pytest.raises(InputError, match="not a date"):
        parse_as_of("last year")


def test_load_questions_reads_history_as_of_and_answer_sets(tmp_path: Path) -> None:
    path = tmp_path / "questions.jsonl"
    lines = [
        {"qid": "q1", "question": "它成立于哪一年", "gold_doc_ids": ["d1"], "answers": ["1939年"], "type": "conv",
         "history": [{"question": "文学院前身是什么", "answers": ["华北联合大学文艺学院", "x"]}]},
        {"qid": "q2", "question": "校长是谁？", "gold_doc_ids": ["d2"], "answers": ["林尚立"], "as_of": "2023",
         "answer_sets": [["林尚立"]], "gold_src_doc_ids": ["10"], "extra_field": 1},
    ]
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n\n", encoding="utf-8")
    q1, q2 = load_questions(path)
    assert q1.history == (Turn("文学院前身是什么", "华北联合大学文艺学院"),)
    assert q1.as_of is None and q1.alternatives == [["1939年"]]
    assert q2.as_of == date(2023, 12, 31) and q2.gold_src_doc_ids == ("10",)
    assert q2.extra == {"extra_field": 1}
    assert [q.qid for q in load_questions(path, types=("conv",))] == ["q1"]
    assert len(load_questions(path, limit=1)) == 1


def test_readers_name_the_bad_line(tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"qid": "a", "question": "x", "gold_doc_ids": []}\nnot json\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"q\.jsonl:2: invalid JSON"):
        load_questions(bad)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"doc_id": "p1", "text": "t", "src_doc_id": "s1"}\n{"title": "no id"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"corpus\.jsonl:2: needs doc_id and text"):
        load_corpus(corpus)
    corpus.write_text('{"doc_id": "p1", "text": "t", "src_doc_id": "s1"}\n{"doc_id": "p2", "text": "u"}\n',
                      encoding="utf-8")
    assert src_doc_map(load_corpus(corpus)) == {"p1": "s1"}
    with pytest.raises(InputError, match="not found"):
        load_questions(tmp_path / "missing.jsonl")


def test_page_ranking_and_page_recall_by_hand() -> None:
    pages = {"A#0": (3,), "A#1": (3, 4), "B#0": (), "X#0": (1,), "A#2": (7,), "B#1": (1,), "A#3": (9,)}
    docs = {"A#0": "A", "A#1": "A", "B#0": "B", "A#2": "A", "B#1": "B", "A#3": "A"}  # X#0: unknown chunk
    ranked = m.page_ranking(list(pages), lambda c: docs.get(c, ""), lambda c: pages[c])
    assert ranked == [("A", 3), ("A", 4), ("A", 7), ("B", 1), ("A", 9)]  # a spanning chunk counts for each page
    gold = m.gold_page_units(["A"], [4, 9, 12])
    assert gold == {("A", 4), ("A", 9), ("A", 12)}
    assert m.recall_at_k(ranked, gold, 5) == pytest.approx(2 / 3)  # (A, 4) at 2 and (A, 9) at 5
    assert m.recall_at_k(ranked, gold, 3) == pytest.approx(1 / 3)
    assert m.gold_page_units(["A", "B"], [2]) == {("A", 2), ("B", 2)}
    assert m.gold_page_units(["A"], []) == set()


def test_load_questions_reads_gold_pages(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    lines = [{"qid": "a", "question": "x", "gold_doc_ids": ["d"], "gold_pages": [12, 13, 12]},
             {"qid": "b", "question": "y", "gold_doc_ids": ["d"]}]
    path.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    first, second = load_questions(path)
    assert (first.gold_pages, second.gold_pages) == ((12, 13), ())
    assert "gold_pages" not in first.extra
    for bad in ([0], ["12"], 12, [True]):
        path.write_text(json.dumps({"question": "x", "gold_doc_ids": ["d"], "gold_pages": bad}), encoding="utf-8")
        with pytest.raises(InputError, match=r"q\.jsonl:1: gold_pages"):
            load_questions(path)


def test_score_page_recall_only_where_gold_pages_and_pages_exist(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"qid": "p", "question": "x", "gold_doc_ids": ["A"], "gold_pages": [4, 9]}) + "\n"
                    + json.dumps({"qid": "n", "question": "y", "gold_doc_ids": ["A"]}), encoding="utf-8")
    paged, plain = load_questions(path)
    units = [("A", 3), ("A", 4), ("B", 9)]
    assert score(paged, ["A", "B"], "", "", True, page_ranked=units)["page_recall@5"] == 0.5
    assert score(paged, ["A", "B"], "", "", True)["page_recall@5"] is None  # the baseline: no pages, not 0
    assert score(paged, [], "", "", False, page_ranked=[])["page_recall@5"] == 0.0  # a failed question
    assert score(plain, ["A"], "", "", True, page_ranked=units)["page_recall@5"] is None


def _question(tmp_path: Path) -> object:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"qid": "q", "question": "x", "gold_doc_ids": ["p2", "p3"], "answers": ["甲乙"],
                                "gold_src_doc_ids": ["s1"]}, ensure_ascii=False), encoding="utf-8")
    return load_questions(path)[0]


def test_score_per_question_at_both_levels(tmp_path: Path) -> None:
    question = _question(tmp_path)
    src = {"p1": "s1", "p2": "s1", "p3": "s2"}
    metrics = score(question, ["p1", "p2", "p9"], "上下文：甲 乙", "答案是甲乙。", True, src)  # type: ignore[arg-type]
    assert metrics["recall@1"] == 0.0 and metrics["recall@5"] == 0.5 and metrics["mrr@10"] == 0.5
    assert metrics["src_recall@1"] == 1.0  # p1 belongs to the gold source document s1
    assert metrics["answer_in_context"] == 1.0 and metrics["extractive_hit"] == 1.0
    assert metrics["not_found"] == 0.0
    missing = score(question, [], "", "", False)  # type: ignore[arg-type]
    assert missing["not_found"] == 1.0 and missing["extractive_hit"] == 0.0 and "src_recall@1" not in missing


def _record(qid: str, variant: str, intent: str, recall: float | None, ms: float) -> QuestionRecord:
    return QuestionRecord(qid, variant, "t1" if qid < "q3" else "t2", intent, [],
                          {"recall@5": recall, "not_found": 0.0}, {"retrieve": ms})


def test_aggregates_breakdowns_latency_and_targets() -> None:
    records = [_record("q1", "full", "fact", 1.0, 10.0), _record("q2", "full", "data", 0.0, 20.0),
               _record("q3", "full", "fact", None, 30.0), _record("q1", "baseline", "", 0.0, 1.0)]
    full = aggregate(records[:3])
    assert full["n"] == 3 and full["recall@5"] == 0.5  # the undefined value is left out, not counted as 0
    by_type = breakdown(records[:3], "type")
    assert by_type["t1"]["recall@5"] == 0.5 and by_type["t2"]["recall@5"] is None
    # baseline records take the full system's intent of the same question
    assert list(breakdown(records[3:], "intent", {"q1": "fact"})) == ["fact"]
    assert latency(records[:3])["retrieve"] == {"p50": 20.0, "p95": 29.0, "mean": 20.0, "n": 3}
    assert deltas({"recall@5": 0.25, "n": 1}, full) == {"recall@5": -0.25}
    specs = ["recall@5=0.5", "not_found=0.1", "ndcg@10=0.2"]
    targets = check_targets({"full": full}, [parse_target(s) for s in specs])
    assert [t["met"] for t in targets] == [True, True, False]


def test_relative_targets_read_other_variants_of_the_same_run() -> None:
    summaries = {"full": {"mrr@10": 0.85, "not_found": 0.02}, "baseline": {"mrr@10": 0.73},
                 "only_bm25": {"mrr@10": 0.74}, "only_vector": {"mrr@10": 0.85}, "uniform_weights": {"mrr@10": 0.9}}
    specs = ["mrr@10=baseline+0.10", "mrr@10=baseline+0.15", "mrr@10>baseline", "mrr@10>best_channel",
             "mrr@10=best_channel", "mrr@10>no_gate", "not_found=0.05", "not_found>baseline"]
    rows = check_targets(summaries, [parse_target(s) for s in specs])
    assert [r["met"] for r in rows] == [True, False, True, False, True, False, True, False]
    assert rows[0]["target"] == 0.83 and rows[0]["rule"] == ">= baseline + 0.1 (baseline)"
    assert rows[3]["target"] == 0.85 and rows[3]["rule"] == "> best_channel (only_vector)"  # a tie does not beat
    assert rows[5]["target"] is None and "variant no_gate did not run" in rows[5]["rule"]
    assert rows[6]["rule"] == "<= 0.05"
    for bad in ("mrr@10", "mrr@10=", "mrr@10=baseline+x", "=0.5", "mrr@10<baseline"):
        with pytest.raises(InputError, match="--target"):
            parse_target(bad)


def test_answer_in_gold_and_checkable_aic(tmp_path: Path) -> None:
    question = _question(tmp_path)  # gold p2, p3; answer 甲乙
    assert answer_in_gold(question, {"p2": "……甲乙……", "p3": "无关"}) == 1.0  # type: ignore[arg-type]
    assert answer_in_gold(question, {"p2": "甲", "p3": "乙"}) == 0.0  # type: ignore[arg-type]
    assert answer_in_gold(question, {}) is None  # type: ignore[arg-type]
    records = [QuestionRecord("a", "full", "", "", [], {"answer_in_context": 1.0, "answer_in_gold": 1.0}),
               QuestionRecord("b", "full", "", "", [], {"answer_in_context": 0.0, "answer_in_gold": 1.0}),
               QuestionRecord("c", "full", "", "", [], {"answer_in_context": 0.0, "answer_in_gold": 0.0})]
    summary = aggregate(records)
    assert summary["answer_in_context"] == pytest.approx(1 / 3, abs=1e-4)  # rounded to 4 places
    assert summary["answer_in_gold"] == pytest.approx(2 / 3, abs=1e-4)  # the ceiling
    assert summary["aic_checkable"] == 0.5  # c cannot be answered verbatim from its gold documents
