"""Learned ranking stage latency: search() without and with the stage, interleaved, and the stage alone.

    .venv/bin/python bench/bench_learned.py               # the demo domain, built without vectors in a temp folder
    .venv/bin/python bench/bench_learned.py --domain NAME --base-dir DIR --questions FILE [--limit 100]
    .venv/bin/python bench/bench_learned.py ... --channels bm25,document,graph,wiki  # both arms without vectors

The model is installed in memory (seeded random coefficients: the cost does not depend on their values), so no
training is needed. Arm (a) is search() with learned=False, arm (b) the same knowledge base with the model and
learned=True; the two run back to back on each question, in alternating order, after one warm-up pass. The
stage alone is candidate_features + LearnedRanker.scores + reorder on the first ranker.depth candidates of the
real fused pool of each question. Prints a machine line and a Markdown table for BENCHMARKS.md
("## Learned ranking stage").
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lambdarag.build.steps import build_domain  # noqa: E402
from lambdarag.config.domain import Domain, init_domain, open_domain  # noqa: E402
from lambdarag.options import PipelineOptions  # noqa: E402
from lambdarag.pipeline.result import SearchResult  # noqa: E402
from lambdarag.pipeline.run import retrieval_front, search  # noqa: E402
from lambdarag.retrieval.features import FEATURES, candidate_features  # noqa: E402
from lambdarag.retrieval.knowledge import KnowledgeBase  # noqa: E402
from lambdarag.retrieval.learned import LearnedRanker, fusion_fingerprint, reorder  # noqa: E402

DEMO_QUESTIONS = ROOT / "lambdarag" / "demo" / "questions.jsonl"
NO_VECTORS = "embedding:\n  backend: none\nretrieval:\n  channels:\n    vector: {enabled: false}\n"
DEPTH = 30  # candidates the stage re-orders (the depth lambdarag tune writes)
TARGET_MS = 5.0  # issue 13: the stage adds at most this much to a request's p50
STAGE_LOOPS = 10  # stage-alone timings per question and repeat (it takes microseconds)


def build_demo(base: Path) -> Domain:
    """The demo domain under ``base``: generated documents, extract, BM25 + document, graph + wiki; no vectors."""
    from lambdarag.demo.generate import generate

    domain = init_domain("demo", base)
    domain.instance_file.write_text(domain.instance_file.read_text(encoding="utf-8") + "\n" + NO_VECTORS, "utf-8")
    domain = open_domain("demo", base)
    generate(domain.raw_dir)
    outcomes = build_domain(domain, ["extract", "index", "wiki"], progress=False)
    failed = [o.summary for o in outcomes if not o.ok]
    if failed:
        raise SystemExit(f"demo build failed: {failed}")
    return domain


def load_questions(path: Path, limit: int | None) -> list[str]:
    """The questions of a questions.jsonl (one JSON object with "question" per line), the first ``limit``."""
    with path.open(encoding="utf-8") as fh:
        questions = [json.loads(line)["question"] for line in fh if line.strip()]
    return questions[:limit] if limit else questions


def with_model(kb: KnowledgeBase, seed: int) -> KnowledgeBase:
    """The knowledge base with a learned model of seeded random coefficients over every feature."""
    rng = np.random.default_rng(seed)
    n = len(FEATURES)
    ranker = LearnedRanker(FEATURES, tuple(rng.normal(0, 0.1, n)), tuple(rng.uniform(0.5, 2.0, n)),
                           tuple(rng.normal(0, 1.0, n)), DEPTH, fusion_fingerprint(kb.config))
    return dataclasses.replace(kb, ranker=ranker)


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall ms, CPU ms of the whole process, channel threads included) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def bench_requests(plain: KnowledgeBase, learned: KnowledgeBase, questions: Sequence[str], repeat: int,
                   channels: tuple[str, ...] | None) -> dict[str, list[float]]:
    """Wall and CPU ms per search() of both arms, interleaved per question, order alternating between repeats."""
    off = PipelineOptions(channels=channels, learned=False, log=False)
    on = PipelineOptions(channels=channels, learned=True, log=False)
    arms: dict[str, Callable[[str], SearchResult]] = {"plain": lambda q: search(plain, q, off),
                                                      "learned": lambda q: search(learned, q, on)}
    for q in questions:  # warm-up: caches, lazily built indexes, the channel thread pool
        for run in arms.values():
            run(q)
    out: dict[str, list[float]] = {f"{a}_{m}": [] for a in arms for m in ("wall", "cpu")}
    for r in range(repeat):
        for i, q in enumerate(questions):
            order = ("plain", "learned") if (r + i) % 2 == 0 else ("learned", "plain")
            for arm in order:
                wall, cpu = timed(functools.partial(arms[arm], q))
                out[f"{arm}_wall"].append(wall)
                out[f"{arm}_cpu"].append(cpu)
    return out


def bench_stage(kb: KnowledgeBase, ranker: LearnedRanker, questions: Sequence[str], repeat: int,
                channels: tuple[str, ...] | None) -> dict[str, Any]:
    """µs of the learned stage alone on each question's real fused pool: features, then scores + reorder."""
    features_us: list[float] = []
    total_us: list[float] = []
    fed, pools, fused, retries = [], [], [], 0
    for q in questions:
        _, intent, r = retrieval_front(kb, q, (), PipelineOptions(channels=channels, learned=False, log=False))
        assert r.expansion is not None
        head = r.pool[: ranker.depth]
        fed.append(len(head))
        pools.append(len(r.pool))
        fused.append(r.candidates)
        retries += len(r.gate.attempts) > 1
        for _ in range(repeat * STAGE_LOOPS):
            start = time.perf_counter()
            rows = candidate_features(head, r.rankings, kb.chunks, r.expansion, intent)
            middle = time.perf_counter()
            reorder(head, [float(x) for x in ranker.scores(rows)])
            end = time.perf_counter()
            features_us.append((middle - start) * 1e6)
            total_us.append((end - start) * 1e6)
    return {"features_us": features_us, "total_us": total_us, "fed": fed, "pool": pools, "fused": fused,
            "retries": retries}


def with_candidates(kb: KnowledgeBase, questions: Sequence[str],
                    channels: tuple[str, ...] | None) -> tuple[list[str], list[str]]:
    """(questions with a fused candidate, questions with none): the stage has nothing to order on the latter, so
    both arms ask only the former (what is measured is the stage's cost at its pool size)."""
    options = PipelineOptions(channels=channels, learned=False, log=False)
    kept: list[str] = []
    empty: list[str] = []
    for q in questions:
        (kept if retrieval_front(kb, q, (), options)[2].pool else empty).append(q)
    return kept, empty


def check_applied(kb: KnowledgeBase, question: str, channels: tuple[str, ...] | None) -> None:
    """Fail loudly when the learned arm would not run the stage (say, the model's fingerprint were refused)."""
    _, _, r = retrieval_front(kb, question, (), PipelineOptions(channels=channels, learned=True, log=False))
    if r.pool and all(f.learned is None for f in r.pool):
        raise SystemExit("the learned stage did not run in the learned arm: nothing to measure")


def p(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q))


def paired_median(a: Sequence[float], b: Sequence[float]) -> float:
    """Median of b − a over the pairs (each pair is one question of one repeat, measured back to back)."""
    return statistics.median(y - x for x, y in zip(a, b, strict=True))


def table_row(label: str, req: dict[str, list[float]], stage: dict[str, Any], repeat: int) -> str:
    n = len(req["plain_wall"]) // repeat
    cells = [label, f"{n} × {repeat}"]
    for metric in ("wall", "cpu"):
        a, b = req[f"plain_{metric}"], req[f"learned_{metric}"]
        cells += [f"{p(a, 50):.1f} → {p(b, 50):.1f}", f"{p(a, 95):.1f} → {p(b, 95):.1f}",
                  f"{p(b, 50) - p(a, 50):+.2f} ({paired_median(a, b):+.2f})", f"{p(b, 50) / p(a, 50):.3f}"]
    total, feats = stage["total_us"], stage["features_us"]
    cells += [f"{p(total, 50):,.0f} / {p(total, 95):,.0f} ({p(feats, 50) / p(total, 50):.0%} features)",
              f"{statistics.mean(stage['fed']):.1f} (pool {statistics.mean(stage['pool']):.1f}, "
              f"fused {statistics.mean(stage['fused']):.0f})"]
    return "| " + " | ".join(cells) + " |"


HEADER = ("| domain | questions × repeats | wall p50 ms, without → with | wall p95 ms | wall p50 added ms "
          "(paired median) | wall p50 ratio | CPU p50 ms | CPU p95 ms | CPU p50 added ms (paired median) "
          "| CPU p50 ratio | stage alone p50 / p95 µs | candidates fed (mean pool, mean fused) |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--domain", help="an existing built domain (default: build the demo domain in a temp folder)")
    parser.add_argument("--base-dir", type=Path, help="the folder holding --domain")
    parser.add_argument("--questions", type=Path, default=DEMO_QUESTIONS, help="questions.jsonl to ask")
    parser.add_argument("--limit", type=int, default=None, help="ask only the first N questions")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes over the questions (after a warm-up)")
    parser.add_argument("--channels", default=None, help="comma-separated channels for both arms (default: all)")
    parser.add_argument("--seed", type=int, default=13, help="seed of the model's random coefficients")
    args = parser.parse_args(argv)
    channels = tuple(c for c in args.channels.split(",") if c) if args.channels else None
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"Machine: {os.cpu_count()} CPUs, {platform.machine()}, load average at start {load}, "
          f"Python {platform.python_version()}, numpy {np.__version__}\n", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        domain = open_domain(args.domain, args.base_dir) if args.domain else build_demo(Path(tmp))
        plain = KnowledgeBase.load(domain)
        plain = dataclasses.replace(plain, ranker=None)  # arm (a) never holds a model, installed or not
        learned = with_model(plain, args.seed)
        assert learned.ranker is not None
        questions, empty = with_candidates(plain, load_questions(args.questions, args.limit), channels)
        used = [c for c in (channels or plain.channels) if c in plain.channels]
        label = f"{domain.name} ({len(plain.chunks):,} chunks; {', '.join(used)})"
        print(f"{label}: {len(questions)} questions with candidates from {args.questions.name}; "
              f"channel errors: {plain.channel_errors or 'none'}", flush=True)
        if empty:
            print(f"Left out, no fused candidate (nothing for the stage to order): {empty}")
        check_applied(learned, questions[0], channels)
        start = time.perf_counter()
        req = bench_requests(plain, learned, questions, args.repeat, channels)
        stage = bench_stage(plain, learned.ranker, questions, args.repeat, channels)
        seconds = time.perf_counter() - start
    # what the stage adds to a request: the median of the per-request differences (with − without, the same
    # question back to back); p50(with) − p50(without) compares two skewed distributions and is shown beside it
    added = paired_median(req["plain_cpu"], req["learned_cpu"])
    print(f"Measured in {seconds:.0f} s; load average at the end "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; {stage['retries']} of {len(questions)} questions "
          "take the corrective retry (the stage runs once per attempt).\n")
    print(HEADER)
    print(table_row(label, req, stage, args.repeat))
    verdict = "met" if added <= TARGET_MS else "NOT met"
    print(f"\nTarget (issue 13): the learned stage adds ≤ {TARGET_MS:g} ms p50 at {DEPTH} candidates: {verdict} "
          f"(per-request median {added:+.2f} ms CPU, {paired_median(req['plain_wall'], req['learned_wall']):+.2f} ms "
          f"wall; p50 difference {p(req['learned_wall'], 50) - p(req['plain_wall'], 50):+.2f} ms wall).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
