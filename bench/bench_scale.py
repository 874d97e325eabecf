"""Performance at scale: a domain of 10k (and 100k) chunks built, loaded, searched in-process and served by gunicorn.

    .venv/bin/python bench/bench_scale.py                                  # 10k chunks + the query-embedding check
    .venv/bin/python bench/bench_scale.py --sizes 10000,100000 --cache-dir /work/scale-cache --write

Per size: the build time of each step (chunks/s, chars/s; the vectors come from bench/scale_embedder.py, a
deterministic embedder behind the OpenAI-compatible endpoint, whose own CPU time is reported as the model's),
the index load time, retrieval p50/p95/p99 per channel and fused (query vectors cached: the query embedding is
excluded), /api/search and /api/ask (no LLM) through a real gunicorn with their CPU per request, RSS / PSS /
private memory per worker, and requests/s with 1, 2 and 4 workers; with two sizes, how each figure grows. A built
domain is kept under --cache-dir and reused by later runs (delete its folder to rebuild). The corpus source is
bench/scale_corpus.py's (../shared recombined, else a word model of the demo domain; the output says which).

The query-embedding check (bench/scale_embedding.py) serves the demo domain with the local embedder and measures
/api/search with every channel against the same server asked for bm25, graph and wiki only, side by side.
--write replaces the "## Scale" and "## Query embedding" sections of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import scale_corpus  # noqa: E402
import scale_report  # noqa: E402
from scale_serve import Served, cpu_seconds, percentile  # noqa: E402

from lambdarag.build.steps import build_domain  # noqa: E402
from lambdarag.config.domain import Domain, init_domain, open_domain  # noqa: E402
from lambdarag.options import PipelineOptions  # noqa: E402
from lambdarag.pipeline.run import search  # noqa: E402
from lambdarag.retrieval.knowledge import KnowledgeBase  # noqa: E402

DIM = 384
INSTANCE = """embedding:
  backend: openai
  base_url: {base_url}
  model: scale-hash
  dim: {dim}
  batch_size: 64
  query_prefix: ""
  passage_prefix: ""
feedback: {{rotate_mb: 5, keep_rotated: 2}}
"""


class HashEmbedder:
    """bench/scale_embedder.py in a process of its own, for the build and the served domain's queries."""

    def __init__(self, workdir: Path) -> None:
        port_file = workdir / "embedder.url"
        port_file.unlink(missing_ok=True)
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "bench" / "scale_embedder.py"), "--dim", str(DIM),
                                      "--port-file", str(port_file)], cwd=ROOT)
        deadline = time.monotonic() + 60
        while not port_file.exists() or not port_file.read_text():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise SystemExit("the deterministic embedder did not start")
            time.sleep(0.1)
        self.base_url = port_file.read_text()

    def cpu_s(self) -> float:
        return cpu_seconds([self.proc.pid])

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def domain_for(size: int, cache: Path, embedder: HashEmbedder) -> Domain:
    """The size's domain under the cache folder (created with its instance.yml; the endpoint's URL refreshed)."""
    name = f"scale{size}"
    base = cache / "knowledge"
    domain = open_domain(name, base) if (base / name).is_dir() else init_domain(name, base)
    domain.instance_file.write_text(INSTANCE.format(base_url=embedder.base_url, dim=DIM), encoding="utf-8")
    return open_domain(name, base)


def build(size: int, src: scale_corpus.Source, cache: Path, embedder: HashEmbedder) -> tuple[Domain, dict[str, Any]]:
    """Build the domain once (corpus, then every step timed); later runs reuse it and its recorded figures."""
    domain = domain_for(size, cache, embedder)
    record = domain.root / "bench-build.json"
    if record.exists():
        return domain, {**json.loads(record.read_text(encoding="utf-8")), "reused": True}
    corpus = scale_corpus.write_corpus(src, size, domain.raw_dir)
    steps: dict[str, Any] = {}
    model_before = embedder.cpu_s()
    for outcome in build_domain(domain, progress=False):
        if not outcome.ok:
            raise SystemExit(f"build step {outcome.step} failed: {outcome.summary}")
        steps[outcome.step] = {"seconds": outcome.seconds,
                               "channels": {r.channel: r.seconds for r in outcome.results}}
    steps["vectors"]["model_cpu_s"] = embedder.cpu_s() - model_before
    with open(domain.processed_dir / "chunks.jsonl", encoding="utf-8") as lines:
        chunks = sum(1 for _ in lines)
    result = {"size": size, "chunks": chunks, "corpus": corpus, "source": src.describe(), "steps": steps,
              "built": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    record.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    return domain, {**result, "reused": False}


def load_times(domain: Domain, repeat: int = 3) -> tuple[KnowledgeBase, dict[str, float]]:
    """KnowledgeBase.load (chunks and every channel), fastest of ``repeat``, wall and CPU seconds."""
    best: dict[str, float] = {}
    kb = None
    for _ in range(repeat):
        kb = None
        start, cpu = time.perf_counter(), time.process_time()
        kb = KnowledgeBase.load(domain)
        wall, cpu_s = time.perf_counter() - start, time.process_time() - cpu
        if not best or wall < best["wall_s"]:
            best = {"wall_s": wall, "cpu_s": cpu_s}
    assert kb is not None
    if kb.channel_errors:
        raise SystemExit(f"channels failed to load: {kb.channel_errors}")
    return kb, best


def timed(calls: list[Any]) -> dict[str, float]:
    """p50/p95/p99 wall ms and median CPU ms of zero-argument calls, one after another."""
    wall, cpu = [], []
    for call in calls:
        start, cpu_start = time.perf_counter(), time.process_time()
        call()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - cpu_start) * 1000)
    return {"p50_ms": percentile(wall, 50), "p95_ms": percentile(wall, 95), "p99_ms": percentile(wall, 99),
            "cpu_p50_ms": percentile(cpu, 50), "n": len(calls)}


def retrieval(kb: KnowledgeBase, questions: list[str]) -> dict[str, dict[str, float]]:
    """Each channel's search and the fused retrieval (pipeline.search) per question; query vectors cached first."""
    for q in questions:  # warm-up: fills the vector channel's query cache, so embedding is excluded below
        search(kb, q)
    settings = kb.config.retrieval.channels
    out = {name: timed([lambda c=channel, q=q, k=settings[name].top_k: c.search(q, k) for q in questions])
           for name, channel in kb.channels.items()}
    out["fused"] = timed([lambda q=q: search(kb, q) for q in questions])
    out["fused (bm25, graph, wiki)"] = timed(
        [lambda q=q: search(kb, q, PipelineOptions(channels=("bm25", "graph", "wiki"))) for q in questions])
    return out


def served(domain: Domain, questions: list[str], args: argparse.Namespace, log: Path) -> dict[str, Any]:
    """gunicorn with each worker count: /api/search (and /api/ask, memory and start-up at the largest count)."""
    out: dict[str, Any] = {"workers": {}}
    searches = [{"question": q} for q in questions]
    for workers in sorted(args.workers_list, reverse=True):
        server = Served(domain, workers, args.threads, log)
        try:
            server.drive("warm-up", "/api/search", searches, args.clients, min(args.duration, 5))
            phase = server.drive("search", "/api/search", searches, args.clients, args.duration)
            out["workers"][workers] = phase.row()
            if workers == max(args.workers_list):
                out["ready_s"] = server.ready_s
                out["search"] = phase.row()
                out["ask"] = server.drive("ask", "/api/ask", searches, args.clients, args.duration).row()
                out["memory"] = server.memory()
        finally:
            server.stop()
    return out


def measure(size: int, src: scale_corpus.Source, args: argparse.Namespace, embedder: HashEmbedder) -> dict[str, Any]:
    print(f"[scale {size}] building (or reusing) the domain", file=sys.stderr, flush=True)
    domain, built = build(size, src, args.cache_dir, embedder)
    print(f"[scale {size}] loading and searching in-process", file=sys.stderr, flush=True)
    kb, load = load_times(domain)
    questions = scale_corpus.questions(src, args.queries)
    result = {**built, "load": load, "retrieval": retrieval(kb, questions)}
    del kb
    print(f"[scale {size}] serving with gunicorn", file=sys.stderr, flush=True)
    result["served"] = served(domain, questions, args, args.cache_dir / f"gunicorn-{size}.log")
    return result


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ints = lambda v: [int(x) for x in v.split(",") if x.strip()]  # noqa: E731
    parser.add_argument("--sizes", type=ints, default=[10_000], help="chunk counts, comma-separated (10000)")
    parser.add_argument("--cache-dir", type=Path, default=ROOT / "workspace" / "bench-scale",
                        help="where built domains are kept and reused (workspace/bench-scale)")
    parser.add_argument("--queries", type=int, default=200, help="questions searched in-process (200)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent HTTP clients (16)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of each HTTP phase (10)")
    parser.add_argument("--workers-list", type=ints, default=[1, 2, 4], help="gunicorn worker counts (1,2,4)")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (4)")
    parser.add_argument("--embedding-check", type=float, default=12.0,
                        help="seconds per phase of the demo query-embedding check (12; 0 = skip it)")
    parser.add_argument("--write", action="store_true", help="write the sections into BENCHMARKS.md")
    parser.add_argument("--json", type=Path, help="also write every figure here as JSON")
    parser.add_argument("--render", type=Path, nargs="+", help="measure nothing: print (and --write) the sections "
                        "of reports saved with --json, each section from the last file that has it")
    return parser.parse_args(argv)


def render_saved(paths: list[Path], write: bool) -> int:
    sections: dict[str, str] = {}
    for path in paths:
        sections.update(scale_report.render(json.loads(path.read_text(encoding="utf-8"))))
    print("\n\n".join(sections.values()))
    if write:
        scale_report.write(ROOT / "BENCHMARKS.md", sections)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.render:
        return render_saved(args.render, args.write)
    args.cache_dir = args.cache_dir.resolve()
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    load_before = os.getloadavg()
    src = scale_corpus.source()
    report: dict[str, Any] = {"machine": machine(load_before), "command": " ".join(["bench/bench_scale.py",
                                                                                   *(argv or sys.argv[1:])]),
                              "source": src.describe(), "sizes": {}}
    embedder = HashEmbedder(args.cache_dir)
    try:
        for size in args.sizes:
            report["sizes"][size] = measure(size, src, args, embedder)
    finally:
        embedder.stop()
    if args.embedding_check > 0:
        import scale_embedding

        report["embedding"] = scale_embedding.check(args.cache_dir, args.embedding_check)
    report["machine"]["load_after"] = [round(x, 1) for x in os.getloadavg()]
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    sections = scale_report.render(report)
    print("\n\n".join(sections.values()))
    if args.write:
        scale_report.write(ROOT / "BENCHMARKS.md", sections)
    return 0


def machine(load: tuple[float, float, float]) -> dict[str, Any]:
    return {"cpus": os.cpu_count(), "arch": platform.machine(), "python": platform.python_version(),
            "load_before": [round(x, 1) for x in load], "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


if __name__ == "__main__":
    raise SystemExit(main())
