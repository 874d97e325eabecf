"""Eval tier: small real subsets of ../shared/evaldata through `lambdarag eval` (skipped when the data is absent).

Run with `pytest -m eval tests/test_eval_real.py`. The subsets keep every document their questions need
plus a fixed set of distractors; embeddings come from the local model through the persistent eval cache
(workspace/eval-cache/, shared with full runs), so only the first run pays for embedding. The floors are
loose: they catch a broken pipeline or runner, not a one-point regression (`make eval` measures that).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lambdarag.cli import main
from lambdarag.evaluation.workspace import DEFAULT_CACHE_ROOT
from lambdarag.models.embeddings import local_available

EVALDATA = Path(__file__).resolve().parents[2] / "shared" / "evaldata"
pytestmark = pytest.mark.eval


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def subset(name: str, out: Path, pick: Callable[[list[dict[str, Any]]], list[dict[str, Any]]],
           distractors: int) -> Path:
    """A data set folder with the picked questions, their gold documents and the first non-gold distractors."""
    source = EVALDATA / name
    if not (source / "corpus.jsonl").is_file():
        pytest.skip(f"{source} not present")
    questions = pick(read_jsonl(source / "questions.jsonl"))
    gold = {g for q in questions for g in q["gold_doc_ids"]}
    corpus = read_jsonl(source / "corpus.jsonl")
    others = [d for d in corpus if d["doc_id"] not in gold][:distractors]
    folder = out / f"{name}_subset"
    folder.mkdir()
    write_jsonl(folder / "corpus.jsonl", [d for d in corpus if d["doc_id"] in gold] + others)
    write_jsonl(folder / "questions.jsonl", questions)
    return folder


def per_type(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """The first n questions of every type, in file order."""
    taken: dict[str, int] = {}
    out = []
    for row in rows:
        if taken.get(row["type"], 0) < n:
            taken[row["type"]] = taken.get(row["type"], 0) + 1
            out.append(row)
    return out


def run_eval(dataset: Path, cache: str, out: Path) -> dict[str, Any]:
    backend = "local" if local_available() else "none"  # without the local model: BM25, graph and wiki only
    code = main(["eval", "--dataset", str(dataset), "--out", str(out), "--cache-dir",
                 str(DEFAULT_CACHE_ROOT / cache), "--set", f"embedding.backend={backend}", "--no-progress"])
    assert code == 0
    data: dict[str, Any] = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def domainrag(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """42 DomainRAG questions (7 of every type), their gold passages and 300 distractors."""
    root = tmp_path_factory.mktemp("domainrag")
    dataset = subset("domainrag_ruc", root, lambda rows: per_type(rows, 7), distractors=300)
    return run_eval(dataset, "domainrag_ruc", root / "report")


@pytest.fixture(scope="module")
def cmrc(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The questions of the first 25 CMRC paragraphs, with 150 other paragraphs as distractors."""
    def first_docs(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        docs = sorted({q["gold_doc_ids"][0] for q in rows}, key=lambda d: int(d.split("_")[1]))[:25]
        return [q for q in rows if q["gold_doc_ids"][0] in docs]

    root = tmp_path_factory.mktemp("cmrc")
    return run_eval(subset("cmrc2018_dev", root, first_docs, distractors=150), "cmrc2018_dev", root / "report")


def test_domainrag_subset_floors(domainrag: dict[str, Any]) -> None:
    full, baseline = domainrag["summary"]["full"], domainrag["summary"]["baseline"]
    assert full["n"] == 42 and full["errors"] == 0
    assert full["recall@5"] >= 0.7 and full["answer_in_context"] >= 0.65 and full["aic_checkable"] >= 0.85
    assert full["recall@5"] >= baseline["recall@5"] and full["answer_in_context"] >= baseline["answer_in_context"]
    assert {"structured", "extractive", "time_sensitive", "conversation", "multi_doc", "faithful"} == set(
        domainrag["by_type"]["full"])
    assert {"only_bm25", "uniform_weights", "with_gate", "with_entity_expansion"} <= set(domainrag["summary"])


def test_cmrc_subset_floors(cmrc: dict[str, Any]) -> None:
    full = cmrc["summary"]["full"]
    assert full["n"] >= 80 and full["errors"] == 0
    assert full["recall@5"] >= 0.9 and full["answer_in_context"] >= 0.9
    assert cmrc["summary"]["only_bm25"]["recall@1"] >= 0.85


def test_cmrc_subset_first_hit_floor(cmrc: dict[str, Any]) -> None:
    """A regression floor, not the target: the full system's recall@1 (0.66 on this subset) trails BM25 alone
    (0.95) — a known gap, see docs/EVALUATION.md (the wiki channel's votes reorder close first places)."""
    assert cmrc["summary"]["full"]["recall@1"] >= 0.6
    assert cmrc["summary"]["only_bm25"]["recall@1"] >= cmrc["summary"]["baseline"]["recall@1"]
