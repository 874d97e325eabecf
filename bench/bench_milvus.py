"""The local backend against milvus-lite (retrieval.backend: milvus, in-process) at growing corpus sizes.

    .venv/bin/python bench/bench_milvus.py                     # 10k and 100k chunks
    .venv/bin/python bench/bench_milvus.py --sizes 2000,10000  # others
    .venv/bin/python bench/bench_milvus.py --max-build-s 900   # skip milvus-lite sizes whose build would exceed it

Every (backend, size) builds the bm25 and vector channels in one child process, from the same chunks and vectors
(random unit vectors through the vector cache: the model is not measured), then loads them in a second, fresh
one, as a server worker would, times 100 BM25 and 100 vector searches (wall and CPU per query) and reads its
resident set before the load (interpreter, code, chunk list) and after the searches (the index loaded and
searched, tokenizer dictionary and, for milvus-lite, its in-process server included). Chunks are DomainRAG
passages (../shared/evaldata) cut to ~300 characters and repeated with a numbered suffix to reach the size;
without the data set, jieba dictionary words. Figures are printed as a Markdown table (docs/SCALING.md quotes
them) and saved to bench/milvus.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lambdarag.channels import bm25, milvus_bm25, milvus_vector, vector  # noqa: E402
from lambdarag.config.domain import Domain, init_domain, open_domain  # noqa: E402
from lambdarag.models.embeddings import normalize_rows  # noqa: E402
from lambdarag.records import Chunk  # noqa: E402

RUC = ROOT.parent / "shared" / "evaldata" / "domainrag_ruc" / "corpus.jsonl"
DIM = 384
QUERIES = 100
TOP_K = 30
CHUNK_CHARS = 300


class RandomEmbedder:
    """Deterministic random unit vectors: both backends get the same vectors, at memory speed."""

    name, model, dim = "openai", "random", DIM  # as the bench config names it, so the loaders accept it

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        seeds = [abs(hash(t)) % (2**32) for t in texts]
        return normalize_rows(np.stack([np.random.default_rng(s).normal(size=DIM) for s in seeds]))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_passages([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_passages(texts)


def base_texts() -> list[str]:
    """~300-character pieces of the DomainRAG passages, else runs of jieba dictionary words."""
    if RUC.is_file():
        passages = [json.loads(line)["text"] for line in RUC.read_text(encoding="utf-8").splitlines() if line]
        return [p[i : i + CHUNK_CHARS] for p in passages for i in range(0, len(p), CHUNK_CHARS) if p[i:].strip()]
    import jieba

    with jieba.get_dict_file() as dictionary:
        words = [line.decode("utf-8").split()[0] for line, _ in zip(dictionary, range(60_000), strict=False)]
    rng = random.Random(0)
    return ["".join(rng.choices(words, k=120)) for _ in range(5000)]


def make_chunks(size: int) -> list[Chunk]:
    texts = base_texts()
    chunks = []
    for i in range(size):
        text = texts[i % len(texts)] + (f"（第{i // len(texts)}份）" if i >= len(texts) else "")
        doc = f"doc{i // 4:06d}"
        chunks.append(Chunk(chunk_id=f"{doc}#{i % 4:04d}", doc_id=doc, title=f"文档{i // 4}",
                            breadcrumb=f"文档{i // 4}", text=text, source=f"{doc}.md"))
    return chunks


def domain_for(base: Path, backend: str) -> Domain:
    domain = init_domain("bench", base)
    domain.instance_file.write_text(
        "llm: {enabled: false}\n"
        f"embedding: {{backend: openai, base_url: 'http://127.0.0.1:9/v1', model: random, dim: {DIM}, "
        "query_prefix: '', passage_prefix: ''}\n"
        f"retrieval:\n  backend: {backend}\n  milvus: {{batch_size: 2000}}\n"
        # budgets far above the defaults (bm25 2 s, vector 5 s), so slow searches are measured, not cut off
        "  channels: {bm25: {timeout_s: 600}, vector: {timeout_s: 600}}\n", encoding="utf-8")
    return open_domain("bench", base)


def rss_mb() -> dict[str, float]:
    """VmRSS (now) and VmHWM (peak) of this process in MB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return {k: round(int(fields[k].split()[0]) / 1024, 1) for k in ("VmRSS", "VmHWM")}


def timed_searches(search: Any, queries: Sequence[Any]) -> dict[str, float]:
    """p50 and p95 wall ms and mean CPU ms per search."""
    walls, cpu_start = [], time.process_time()
    for query in queries:
        start = time.perf_counter()
        search(query)
        walls.append((time.perf_counter() - start) * 1000)
    cpu = (time.process_time() - cpu_start) * 1000 / len(queries)
    walls.sort()
    return {"p50_ms": round(statistics.median(walls), 2), "p95_ms": round(walls[int(0.95 * len(walls)) - 1], 2),
            "cpu_ms": round(cpu, 2), "over_2s": sum(w > 2000 for w in walls)}


def queries(chunks: Sequence[Chunk]) -> tuple[list[str], list[np.ndarray]]:
    """The same BM25 and vector queries for both backends: pieces and vectors of sampled chunks."""
    sample = random.Random(1).sample(list(chunks), QUERIES)
    return [c.text[:16] for c in sample], [RandomEmbedder().embed_query(c.text) for c in sample]


def build_phase(backend: str, size: int, folder: Path) -> dict[str, Any]:
    """Build the bm25 and vector channels of ``backend`` into ``folder`` (this process only builds)."""
    chunks, embedder = make_chunks(size), RandomEmbedder()
    domain = domain_for(folder, backend)
    vector.build(domain, chunks, progress=False, embedder=embedder)  # fills the vector cache for both backends
    start, cpu = time.perf_counter(), time.process_time()
    if backend == "local":
        bm25.build(domain, chunks, progress=False)
    else:
        milvus_bm25.build(domain, chunks, progress=False, embedder=embedder)
        milvus_vector.build(domain, chunks, progress=False, embedder=embedder)
    return {"wall_s": round(time.perf_counter() - start, 1), "cpu_s": round(time.process_time() - cpu, 1),
            "peak_mb": rss_mb()["VmHWM"]}


def serve_phase(backend: str, size: int, folder: Path) -> dict[str, Any]:
    """Load the built channels in this fresh process, as a server worker would, and time searches."""
    chunks = make_chunks(size)
    text_queries, vectors = queries(chunks)
    domain = open_domain("bench", folder)
    base = rss_mb()["VmRSS"]  # the interpreter, the code and the chunk list a worker holds anyway
    mods = (bm25, vector) if backend == "local" else (milvus_bm25, milvus_vector)
    start = time.perf_counter()
    lexical, dense = mods[0].load(domain, chunks), mods[1].load(domain, chunks)
    load_s = round(time.perf_counter() - start, 2)
    bm25_times = timed_searches(lambda q: lexical.search(q, TOP_K), text_queries)
    dense_search = (lambda v: vector.top_k(dense.vectors, v, TOP_K)) if backend == "local" else (
        lambda v: dense.searcher.search([float(x) for x in v], "dense", TOP_K, {"ef": 128}))
    vector_times = timed_searches(dense_search, vectors)
    now = rss_mb()
    return {"load_s": load_s, "bm25": bm25_times, "vector": vector_times, "base_mb": base,
            "VmRSS": now["VmRSS"], "VmHWM": now["VmHWM"], "index_mb": round(now["VmRSS"] - base, 1)}


def run_child(backend: str, size: int, phase: str, folder: Path, timeout_s: float) -> dict[str, Any] | None:
    command = [sys.executable, __file__, "--child", backend, "--phase", phase, "--folder", str(folder),
               "--sizes", str(size)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, env={
            **os.environ, "PYTHONHASHSEED": "0"})
    except subprocess.TimeoutExpired:
        print(f"{backend} at {size}: {phase} over {timeout_s:.0f} s, stopped", file=sys.stderr)
        return None
    if done.returncode != 0:
        print(done.stderr[-3000:], file=sys.stderr)
        return None
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def measure(backend: str, size: int, timeout_s: float) -> dict[str, Any] | None:
    """Build in one child process, then load and search in another (its memory is the serving cost)."""
    with tempfile.TemporaryDirectory(prefix="bench-milvus-") as tmp:
        build = run_child(backend, size, "build", Path(tmp), timeout_s)
        serve = run_child(backend, size, "serve", Path(tmp), timeout_s) if build else None
    return {"backend": backend, "size": size, "build": build, **serve} if build and serve else None


def table(results: Sequence[dict[str, Any]]) -> str:
    head = ("| backend | chunks | build s (CPU s) | build peak MB | load s | BM25 p50 / p95 ms (CPU) "
            "| vector p50 / p95 ms (CPU) | worker before load MB | + loaded and searched MB |\n"
            "|---|---|---|---|---|---|---|---|---|")
    rows = [f"| {r['backend']} | {r['size']:,} | {r['build']['wall_s']} ({r['build']['cpu_s']}) "
            f"| {r['build']['peak_mb']} | {r['load_s']} "
            f"| {r['bm25']['p50_ms']} / {r['bm25']['p95_ms']} ({r['bm25']['cpu_ms']}; {r['bm25']['over_2s']} > 2 s) "
            f"| {r['vector']['p50_ms']} / {r['vector']['p95_ms']} ({r['vector']['cpu_ms']}) "
            f"| {r['base_mb']} | {r['index_mb']} |" for r in results]
    return "\n".join([head, *rows])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--max-build-s", type=float, default=1800.0, help="per child process")
    parser.add_argument("--child", choices=("local", "milvus"), help=argparse.SUPPRESS)
    parser.add_argument("--phase", choices=("build", "serve"), help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.child:
        phase = build_phase if args.phase == "build" else serve_phase
        print(json.dumps(phase(args.child, sizes[0], args.folder)))
        return 0
    results = []
    for size in sizes:
        for backend in ("local", "milvus"):
            result = measure(backend, size, args.max_build_s)
            if result is not None:
                results.append(result)
                print(table([result]).splitlines()[-1], file=sys.stderr)
    (ROOT / "bench" / "milvus.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n" + table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
