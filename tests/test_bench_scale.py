"""The scale benchmark's whole code path at a tiny size (no figure is checked: a benchmark, not a timing test)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_scale  # noqa: E402
import scale_corpus  # noqa: E402
import scale_embedder  # noqa: E402


def test_hashed_vectors_are_deterministic_unit_vectors_that_share_words() -> None:
    a, b = scale_embedder.hashed_vector("差旅费报销标准", 64), scale_embedder.hashed_vector("差旅费报销标准", 64)
    assert a == b and abs(sum(v * v for v in a) - 1.0) < 1e-4
    near = sum(x * y for x, y in zip(a, scale_embedder.hashed_vector("差旅费报销办法", 64), strict=True))
    far = sum(x * y for x, y in zip(a, scale_embedder.hashed_vector("图书馆开放时间", 64), strict=True))
    assert near > far
    assert scale_embedder.hashed_vector("", 8)[0] == 1.0


def test_corpus_is_seeded_and_near_the_size_asked(tmp_path: Path) -> None:
    src = scale_corpus.source()
    first = scale_corpus.write_corpus(src, 200, tmp_path / "a")
    scale_corpus.write_corpus(src, 200, tmp_path / "b")
    files = sorted((tmp_path / "a").iterdir())
    assert [f.name for f in files] == ["corpus-000000.jsonl"]
    assert files[0].read_bytes() == (tmp_path / "b" / "corpus-000000.jsonl").read_bytes()
    rows = [json.loads(line) for line in files[0].read_text(encoding="utf-8").splitlines()]
    assert len(rows) == first["documents"] and len({r["doc_id"] for r in rows}) == len(rows)
    assert first["chars"] >= 200 * scale_corpus.CHARS_PER_CHUNK
    assert src.describe() and len(scale_corpus.questions(src, 5)) == 5


def test_the_benchmark_runs_end_to_end_at_300_chunks(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    args = ["--sizes", "300", "--queries", "5", "--duration", "1", "--clients", "2", "--workers-list", "1",
            "--threads", "2", "--embedding-check", "0", "--cache-dir", str(tmp_path / "cache"), "--json", str(out)]
    assert bench_scale.main(args) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    size = report["sizes"]["300"]
    assert size["chunks"] > 100 and not size["reused"]
    assert set(size["steps"]) == {"extract", "index", "vectors", "wiki"}
    assert set(size["steps"]["index"]["channels"]) == {"bm25", "document"}
    assert {"bm25", "vector", "graph", "wiki", "document", "fused"} <= set(size["retrieval"])
    served = size["served"]
    for route in ("search", "ask"):
        assert served[route]["requests"] > 0 and served[route]["failures"] == 0
    assert served["memory"] and all(w["private"] > 0 and w["rss"] >= w["pss"] for w in served["memory"])
    sections = bench_scale.scale_report.render(report)
    assert list(sections) == ["## Scale"] and "Targets of issue 15" in sections["## Scale"]
    # a second run finds the domain built and reuses it with its recorded build figures
    args_again = bench_scale.parse_args(args)
    args_again.cache_dir = args_again.cache_dir.resolve()
    embedder = bench_scale.HashEmbedder(args_again.cache_dir)
    try:
        _, built = bench_scale.build(300, scale_corpus.source(), args_again.cache_dir, embedder)
    finally:
        embedder.stop()
    assert built["reused"] and built["steps"] == size["steps"]
