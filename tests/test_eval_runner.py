"""The eval runner end to end on a tiny real corpus: throw-away domain, baseline, ablations, report files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lambdarag.answer.context import pack
from lambdarag.cli import main
from lambdarag.evaluation.baseline import NaiveBM25
from lambdarag.evaluation.runner import Levels, cited_page_hits, default_variants
from lambdarag.ingest.document import locator_pages
from lambdarag.records import Chunk

DOCS = [
    ("fin-travel", "差旅费报销办法", "教职工出差住宿费标准为每人每天不超过500元，超出部分由个人承担。"),
    ("fin-contact", "财务处联系方式", "报账大厅位于行政楼一层，联系电话027-88886666，负责人张明。预算科隶属财务处。"),
    ("lit-history", "文学院简介", "中国人民大学文学院的前身是1939年成立的华北联合大学文艺学院。"),
    ("enroll-2019", "2019年本科招生", "2019年本科招生计划：学校共录取新生3000人，其中理科1800人。"),
    ("enroll-2024", "2024年本科招生", "2024年本科招生计划：学校共录取新生3600人，其中理科2000人。"),
    ("lib-hours", "图书馆开放时间", "图书馆周一至周五8:00至22:00开放，周末9:00至21:00开放，寒暑假另行通知。"),
    ("canteen", "食堂就餐", "学生食堂位于东区，早餐6:30开始供应，校园卡可在食堂充值。"),
    ("scholar", "奖学金评定", "国家奖学金每人每年8000元，评审由学生处组织，每年10月公示名单。"),
]
QUESTIONS: list[dict[str, Any]] = [
    {"qid": "q1", "question": "出差住宿费标准是多少？", "gold_doc_ids": ["fin-travel"], "answers": ["500元"],
     "type": "extractive"},
    {"qid": "q2", "question": "报账大厅的联系电话是多少？", "gold_doc_ids": ["fin-contact"],
     "answers": ["027-88886666"], "type": "extractive"},
    {"qid": "q3", "question": "它成立于哪一年", "gold_doc_ids": ["lit-history"], "answers": ["1939年"],
     "type": "conversation", "history": [{"question": "中国人民大学文学院的前身是什么",
                                          "answers": ["华北联合大学文艺学院"]}]},
    {"qid": "q4", "question": "国家奖学金每年多少钱？", "gold_doc_ids": ["scholar"], "answers": ["8000元"],
     "type": "extractive", "answer_sets": [["8000", "元"]]},
    {"qid": "q5", "question": "今年学校共录取新生多少人？", "gold_doc_ids": ["enroll-2019"], "answers": ["3000人"],
     "type": "time_sensitive", "as_of": "2019"},
    {"qid": "q6", "question": "图书馆周末几点开放？", "gold_doc_ids": ["lib-hours"], "answers": ["9:00"],
     "type": "extractive"},
]


def write_dataset(folder: Path, questions: list[dict[str, Any]] = QUESTIONS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as out:
        for doc_id, title, text in DOCS:
            out.write(json.dumps({"doc_id": doc_id, "title": title, "text": text, "src_doc_id": doc_id[:3]},
                                 ensure_ascii=False) + "\n")
    with open(folder / "questions.jsonl", "w", encoding="utf-8") as out:
        for q in questions:
            out.write(json.dumps(q, ensure_ascii=False) + "\n")
    return folder


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One full eval run (BM25 and graph only: embedding.backend none keeps it fast)."""
    root = tmp_path_factory.mktemp("eval")
    dataset = write_dataset(root / "tiny")
    out = root / "report"
    code = main(["eval", "--dataset", str(dataset), "--set", "embedding.backend=none", "--out", str(out),
                 "--cache-dir", str(root / "cache"), "--no-progress", "--target", "recall@5=0.5"])
    assert code == 0
    return out


def read_report(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return data


def test_report_files_are_written(report: Path) -> None:
    for name in ("report.json", "report.md", "questions.jsonl", "recall_by_intent.png", "recall_by_type.png",
                 "ablation_deltas.png", "latency.png"):
        assert (report / name).is_file(), name
        assert (report / name).stat().st_size > 0
    assert (report / "latency.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = read_report(report)
    assert data["meta"]["questions"] == len(QUESTIONS) and data["meta"]["documents"] == len(DOCS)
    assert data["targets"] == [{"metric": "recall@5", "target": 0.5, "value": data["summary"]["full"]["recall@5"],
                                "met": True, "rule": ">= 0.5"}]


def test_full_system_baseline_and_ablations_in_one_table(report: Path) -> None:
    data = read_report(report)
    rows = {row["variant"]: row for row in data["ablation"]}
    assert list(rows)[:2] == ["full", "baseline"]
    assert {"only_bm25", "uniform_weights", "with_gate", "with_entity_expansion"} <= set(rows)
    assert "only_vector" not in rows  # not loaded with embedding.backend none, and the report says why
    assert "vector" in data["meta"]["channel_errors"]
    full = rows["full"]["metrics"]
    assert full["n"] == len(QUESTIONS) and full["errors"] == 0
    assert full["recall@5"] >= 0.8 and full["answer_in_context"] >= 0.6
    assert rows["baseline"]["metrics"]["recall@5"] >= 0.5
    assert rows["baseline"]["metrics"]["extractive_hit"] is None  # the baseline writes no answer
    assert rows["only_bm25"]["delta"]["recall@5"] == pytest.approx(
        rows["only_bm25"]["metrics"]["recall@5"] - full["recall@5"], abs=1e-3)
    markdown = (report / "report.md").read_text(encoding="utf-8")
    assert "## Full system, baseline and ablations" in markdown and "| baseline |" in markdown
    assert "## Full system by question type" in markdown and "| conversation | 1 |" in markdown
    assert "## Full system by intent" in markdown and "## Latency of the full system (ms)" in markdown
    assert "## The extractive answer" in markdown and "cited page" not in markdown  # no question names its pages


def test_breakdowns_latency_and_per_question_records(report: Path) -> None:
    data = read_report(report)
    assert set(data["by_type"]["full"]) == {"extractive", "conversation", "time_sensitive"}
    assert sum(g["n"] for g in data["by_intent"]["full"].values()) == len(QUESTIONS)
    assert set(data["by_intent"]["baseline"]) <= set(data["by_intent"]["full"])  # grouped by the full intent
    stages = data["latency_ms"]["full"]
    assert {"retrieve", "context", "total", "channel:bm25"} <= set(stages)
    assert stages["total"]["p95"] >= stages["total"]["p50"] > 0
    records = [json.loads(line) for line in (report / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(QUESTIONS) * len(data["meta"]["variants"])
    by_key = {(r["qid"], r["variant"]): r for r in records}
    assert "文学院" in by_key[("q3", "full")]["condensed"]  # the history resolved "它"
    assert by_key[("q1", "full")]["ranked"][0] == "fin-travel"
    assert "src_recall@5" in by_key[("q1", "full")]["metrics"]  # corpus src_doc_id → source level too


def test_as_of_sets_today_for_time_sensitive_questions(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "ts", [QUESTIONS[4], {**QUESTIONS[4], "qid": "q5b", "as_of": "2024",
                                                             "gold_doc_ids": ["enroll-2024"], "answers": ["3600人"]}])
    out = tmp_path / "report"
    assert main(["eval", "--dataset", str(dataset), "--set", "embedding.backend=none", "--out", str(out),
                 "--no-ablations", "--no-baseline", "--cache-dir", str(tmp_path / "cache"), "--no-progress"]) == 0
    records = {r["qid"]: r for r in map(json.loads, (out / "questions.jsonl").read_text("utf-8").splitlines())}
    assert records["q5"]["ranked"][0] == "enroll-2019"
    assert records["q5b"]["ranked"][0] == "enroll-2024"


def test_domain_mode_and_missed_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = write_dataset(tmp_path / "ds", QUESTIONS[:2])
    keep = tmp_path / "kb"
    common = ["--no-ablations", "--no-progress", "--cache-dir", str(tmp_path / "cache")]
    assert main(["eval", "--dataset", str(dataset), "--set", "embedding.backend=none", "--keep-domain", str(keep),
                 "--out", str(tmp_path / "r1"), *common]) == 0
    # the kept domain is a normal domain: evaluate it by name, with a target it cannot meet
    code = main(["eval", "--domain", "ds", "--base-dir", str(keep), "--questions", str(dataset / "questions.jsonl"),
                 "--out", str(tmp_path / "r2"), "--target", "recall@1=1.01", *common])
    assert code == 1
    assert "target recall@1 >= 1.01" in capsys.readouterr().out
    assert "MISSED" in (tmp_path / "r2" / "report.md").read_text("utf-8")
    data = read_report(tmp_path / "r2")
    assert data["summary"]["baseline"]["n"] == 2  # baseline over the domain's own documents


def test_bad_arguments_say_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--dataset", str(tmp_path)]) == 2
    assert "lacks corpus.jsonl, questions.jsonl" in capsys.readouterr().err
    assert main(["eval"]) == 2
    assert "pass --dataset DIR, or --domain NAME --questions FILE" in capsys.readouterr().err
    assert main(["eval", "--dataset", str(tmp_path), "--target", "recall@5"]) == 2
    assert "is not METRIC=VALUE, METRIC=VARIANT+OFFSET or METRIC>VARIANT" in capsys.readouterr().err


def test_variants_and_baseline_pack_the_same_budget() -> None:
    names = [v.name for v in default_variants(["bm25", "vector"])]
    assert names == ["full", "baseline", "only_bm25", "only_vector", "uniform_weights", "with_gate",
                     "with_entity_expansion"]  # opt-in by default: the ablations switch them on
    assert [v.name for v in default_variants(["bm25"], gate_retry=True)][-2] == "no_gate"
    assert [v.name for v in default_variants(["bm25"], entity_expansion=True)][-1] == "no_entity_expansion"
    without = default_variants(["bm25"], sentence_vectors=True)[-1]  # only when they are built and loaded
    assert without.name == "without_sentence_vectors" and without.options is not None
    assert without.options.sentence_vectors is False
    assert all(v.options is None or v.options.log is False for v in default_variants(["bm25"]))
    alone = [v.options for v in default_variants(["bm25", "graph"]) if v.name.startswith("only_")]
    # a channel alone is ranked at weight 1: an intent that gives it weight 0 does not search it in the full system
    assert [(o.channels, o.uniform_weights) for o in alone if o is not None] == [(("bm25",), True), (("graph",), True)]
    loo = {v.name: v.options.channels for v in default_variants(["bm25", "vector", "graph"], leave_one_out=True)
           if v.options is not None and v.name.startswith("without_")}
    assert loo == {"without_bm25": ("vector", "graph"), "without_vector": ("bm25", "graph"),
                   "without_graph": ("bm25", "vector")}
    docs = [{"doc_id": d, "title": t, "text": x} for d, t, x in DOCS]
    baseline = NaiveBM25(docs)
    answer = baseline.answer("国家奖学金每年多少钱", max_chars=60)
    assert answer.doc_ids[0] == "scholar"
    assert len(answer.context) <= 60 + 2 * len(answer.doc_ids) and answer.context.startswith("奖学金评定")


def test_page_recall_beside_document_recall(tmp_path: Path) -> None:
    folder = tmp_path / "filings"
    folder.mkdir()
    pages = ["Cover page of the annual report.", "Revenue rose to 512 million dollars in fiscal 2022.",
             "The board approved a dividend of 3 dollars per share.", "Risk factors include supply chain delays."]
    docs = [{"doc_id": "acme", "title": "Acme 10-K", "text": "\n".join(f"[page {n}]\n{t}" for n, t in
                                                                      enumerate(pages, start=1))},
            {"doc_id": "other", "title": "Other 10-K", "text": "Other company text about weather and tides."}]
    questions = [{"qid": "p1", "question": "What dividend per share did the board approve?", "gold_doc_ids": ["acme"],
                  "type": "paged", "gold_pages": [3]},
                 {"qid": "p2", "question": "What was the revenue in fiscal 2022?", "gold_doc_ids": ["acme"],
                  "type": "plain"}]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs), encoding="utf-8")
    (folder / "questions.jsonl").write_text("\n".join(json.dumps(q) for q in questions), encoding="utf-8")
    out = tmp_path / "report"
    assert main(["eval", "--dataset", str(folder), "--set", "embedding.backend=none", "--set", "ingest.chunk_size=60",
                 "--set", "ingest.chunk_overlap=0",
                 "--out", str(out), "--no-ablations", "--cache-dir", str(tmp_path / "cache"), "--no-progress"]) == 0
    data = read_report(out)
    assert data["summary"]["full"]["page_recall@5"] == 1.0  # one question carries gold_pages, its page is found
    assert data["summary"]["baseline"]["page_recall@5"] is None  # whole documents: no pages
    assert data["by_type"]["full"]["plain"]["page_recall@5"] is None
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "## Page level" in markdown and "1 questions carry gold_pages" in markdown
    assert "| baseline | 1.000 | – |" in markdown
    assert data["summary"]["full"]["answer_page_hit"] == 1.0  # the answer quotes the dividend page first
    assert data["by_type"]["full"]["plain"]["answer_page_hit"] is None
    assert "cited page" in markdown


def test_cited_page_hits_read_the_first_citation_and_the_first_evidence_chunk() -> None:
    chunks = {f"acme#{n}": Chunk(f"acme#{n}", "acme", "Acme 10-K", "Acme 10-K", text, locator=f"第{n}页")
              for n, text in ((1, "Revenue rose to 512 million dollars."), (3, "The board approved a dividend."))}
    packed = pack({}, ["acme#1", "acme#3"], [], chunks, max_chars=3500)
    pages = Levels(lambda cid: cid.split("#")[0], {}, {}, lambda cid: locator_pages(chunks[cid].locator)).page_ranking
    gold = {("acme", 3)}
    first, second = (c.n for c in packed.citations)
    assert cited_page_hits(f"The board approved a dividend[{second}].", packed, gold, pages) == \
        {"answer_page_hit": 1.0, "lead_page_hit": 0.0}
    assert cited_page_hits(f"Revenue rose[{first}].", packed, gold, pages)["answer_page_hit"] == 0.0
    assert cited_page_hits("", packed, gold, pages) == {"answer_page_hit": 0.0, "lead_page_hit": 0.0}  # not found
    assert cited_page_hits("Revenue rose[1].", packed, set(), pages) == {"answer_page_hit": None, "lead_page_hit": None}


def test_tune_split_tunes_on_some_questions_and_evaluates_both_systems_on_the_rest(tmp_path: Path) -> None:
    from lambdarag.evaluation.dataset import load_questions
    from lambdarag.evaluation.evaluate import split_questions

    dataset = write_dataset(tmp_path / "tiny")
    out = tmp_path / "report"
    code = main(["eval", "--dataset", str(dataset), "--set", "embedding.backend=none", "--out", str(out),
                 "--cache-dir", str(tmp_path / "cache"), "--no-progress", "--no-ablations", "--tune-split", "0.3",
                 "--target", "tuned:mrr@10=full", "--target", "tuned:mrr@10>full"])
    data = read_report(out)
    tune_on, rest = split_questions(load_questions(dataset / "questions.jsonl"), 0.3, 0)
    assert len(tune_on) == 2 and [q.qid for q in rest] == [q["qid"] for q in QUESTIONS if q["qid"] not in
                                                            {t.qid for t in tune_on}]
    records = [json.loads(line) for line in (out / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    by_variant: dict[str, list[str]] = {}
    for r in records:
        by_variant.setdefault(r["variant"], []).append(r["qid"])
    assert by_variant["full"] == by_variant["tuned"] == [q.qid for q in rest]  # tuned on none of them
    tuning = data["meta"]["tuning"]
    assert tuning["questions"] == 2 and tuning["evaluated"] == 4 and tuning["seed"] == 0
    assert tuning["learned"]["used"] is False  # two questions are too few to learn from, and the report says so
    [reach, beat] = data["targets"]
    assert reach["metric"] == "tuned:mrr@10" and reach["met"] and reach["value"] == data["summary"]["full"]["mrr@10"]
    assert not beat["met"] and code == 1  # nothing was learned, so the tuned system equals the untuned one


def test_tune_split_must_be_a_fraction(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = write_dataset(tmp_path / "tiny")
    assert main(["eval", "--dataset", str(dataset), "--tune-split", "1.5"]) == 2
    assert "--tune-split 1.5: must be between 0 and 1" in capsys.readouterr().err


def test_the_persistent_eval_cache_keeps_the_sentence_vectors_too(tmp_path: Path) -> None:
    import hashlib

    import numpy as np

    from lambdarag.channels.vector import EmbeddingCache
    from lambdarag.config.domain import open_domain
    from lambdarag.evaluation.workspace import merge_cache_out, vector_cache_dir

    (tmp_path / "kb" / "d").mkdir(parents=True)
    domain = open_domain("d", tmp_path / "kb")
    names = ["local-e5-small-4-abcd1234", "local-e5-small-4-abcd1234-sentences"]  # the chunks', the sentences'
    for i, name in enumerate(names):
        with EmbeddingCache(vector_cache_dir(domain) / name, 4).opened() as cache:
            cache.append([hashlib.sha256(f"{name}{k}".encode()).digest() for k in range(i + 2)],
                         np.full((i + 2, 4), 0.5, dtype=np.float32))  # unit length, as stored
    assert merge_cache_out(domain, tmp_path / "persistent") == 2 + 3
    assert sorted(p.name for p in (tmp_path / "persistent" / "vector-cache").iterdir()) == names
