"""Sentence vectors (channels/sentence_vectors.py): what they cost to build against the chunk vectors of the same
passages, and what reading them costs per answer against embedding the candidate sentences at answer time.

    .venv/bin/python bench/bench_sentences.py            # 96 domainrag_ruc passages, the local model
    .venv/bin/python bench/bench_sentences.py --no-write # print instead of updating BENCHMARKS.md
    .venv/bin/python bench/bench_sentences.py --scale 100000  # also the build's own cost at 100k chunks

The scale arm builds the chunk vectors (reference) and the sentence vectors of N chunks made from the passages
(each sentence told apart by its chunk's number, so none is a copy) with random unit vectors at memory speed,
each in a process of its own: the build's own time, peak memory and files, not the model's.

Both arms run in one process on the same passages, one after the other, batches of 32 as the build sends them;
CPU seconds are quoted (the machine is shared). Needs ../shared/evaldata and the local model; says so otherwise.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_vector import write_section  # noqa: E402

from lambdarag.answer.units import chunk_sentences  # noqa: E402
from lambdarag.models.embeddings import local_available  # noqa: E402

CORPUS = ROOT.parent / "shared" / "evaldata" / "domainrag_ruc" / "corpus.jsonl"
SECTION = "## Sentence vectors"
BATCH = 32
PREFIX = "passage: "


def cpu_seconds(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def batched(embed: Callable[[Sequence[str]], np.ndarray], texts: Sequence[str]) -> np.ndarray:
    return np.vstack([embed(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)])


def measure(sample: int) -> dict[str, float]:
    from lambdarag.models.embeddings import LocalE5Embedder

    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()[:sample] if line.strip()]
    passages = [f"{r.get('title', '')}\n{r['text']}" for r in rows]
    sentences = [chunk_sentences(r["text"]) for r in rows]
    unique = sorted({s for group in sentences for s in group}, key=len)  # as the build sends them
    embedder = LocalE5Embedder()
    embedder.embed_query("预热")
    chunk_cpu = cpu_seconds(lambda: batched(embedder.embed_passages, passages))
    vectors: dict[str, np.ndarray] = {}

    def embed_sentences() -> None:
        vectors.update(zip(unique, batched(embedder.embed_passages, unique), strict=True))

    sentence_cpu = cpu_seconds(embed_sentences)
    # per answer: the cosines of ten chunks' sentences read from stored vectors, or embedded then and there
    query = embedder.embed_query(rows[0]["title"])
    groups = [sentences[i : i + 10] for i in range(0, min(len(sentences), 40), 10)]
    stored = np.vstack(list(vectors.values())).astype(np.float16)
    row_of = {s: i for i, s in enumerate(vectors)}

    def from_store(group: list[list[str]]) -> object:
        return stored[[row_of[s] for c in group for s in c]].astype(np.float32) @ query

    def then_and_there(group: list[list[str]]) -> object:
        return batched(embedder.embed_passages, [s for c in group for s in c]) @ query


    def split_ten(start: int) -> object:  # the packing splits its chunks again to key the look-up
        return [chunk_sentences(r["text"]) for r in rows[start : start + 10]]

    split = [cpu_seconds(partial(split_ten, start)) for start in range(0, min(len(rows), 40), 10)]
    read = [cpu_seconds(partial(from_store, g)) for g in groups]
    live = [cpu_seconds(partial(then_and_there, g)) for g in groups]
    return {"passages": len(passages), "passage_chars": statistics.mean(map(len, passages)),
            "sentences": sum(map(len, sentences)), "unique": len(unique),
            "sentence_chars": statistics.mean(map(len, unique)) if unique else 0.0,
            "chunk_cpu": chunk_cpu, "sentence_cpu": sentence_cpu,
            "read_ms": statistics.median(read) * 1000, "live_ms": statistics.median(live) * 1000,
            "split_ms": statistics.median(split) * 1000,
            "per_answer": statistics.mean(sum(map(len, g)) for g in groups)}


def build_arm(arm: str, n: int, out: Any) -> None:
    """In a fresh process: build one arm over n synthetic chunks; put (seconds, peak RSS MB, folder MB)."""
    import re
    import resource
    import tempfile

    from bench_vector import RandomEmbedder

    from lambdarag.channels import sentence_vectors, vector
    from lambdarag.config.domain import init_domain
    from lambdarag.records import Chunk

    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()[:500] if line.strip()]
    texts = [r["text"][:600] for r in rows]
    with tempfile.TemporaryDirectory() as tmp:
        domain = init_domain("scale", Path(tmp))
        chunks = [Chunk(f"c{i}#0000", f"c{i}", "t", "t", re.sub("([。！？])", f"（{i}）\\1", texts[i % len(texts)]))
                  for i in range(n)]
        start = time.perf_counter()
        if arm == "chunks":
            vector.build(domain, chunks, progress=False, embedder=RandomEmbedder())
        else:
            sentence_vectors.build(domain, chunks, [chunk_sentences(c.text) for c in chunks], progress=False,
                                   embedder=RandomEmbedder())
        seconds = time.perf_counter() - start
        folder = (domain.index_dir / ("vector" if arm == "chunks" else sentence_vectors.NAME)).resolve()
        size = sum(f.stat().st_size for f in folder.iterdir()) / 1e6
    out.put((seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, size))


def scale(n: int) -> dict[str, tuple[float, float, float]]:
    """Each arm's (seconds, peak RSS MB, index MB) at n chunks, each built in a process of its own."""
    context = multiprocessing.get_context("spawn")
    out: dict[str, tuple[float, float, float]] = {}
    for arm in ("chunks", "sentences"):
        queue = context.Queue()
        worker = context.Process(target=build_arm, args=(arm, n, queue))
        worker.start()
        out[arm] = queue.get()
        worker.join()
    return out


def scale_lines(n: int, arms: dict[str, tuple[float, float, float]]) -> list[str]:
    names = {"chunks": "chunk vectors (reference)", "sentences": "sentence vectors"}
    return [f"Build's own cost at {n:,} chunks (random vectors, each arm in a process of its own; "
            f"`--scale {n}`):", "", "| arm | seconds | peak RSS MB | index MB |", "|---|---:|---:|---:|",
            *(f"| {names[a]} | {s:.1f} | {r:.0f} | {mb:.0f} |" for a, (s, r, mb) in arms.items()), ""]


def section(m: dict[str, float]) -> str:
    ratio = m["sentence_cpu"] / m["chunk_cpu"]
    looked_up = m["read_ms"] + m["split_ms"]
    return "\n".join([
        SECTION, "",
        "Command: `.venv/bin/python bench/bench_sentences.py` (local multilingual-e5-small, batches of "
        f"{BATCH}, both arms in one process on the first {m['passages']:.0f} domainrag_ruc passages).", "",
        "| arm | texts | mean chars | CPU s | CPU s per text |", "|---|---:|---:|---:|---:|",
        f"| chunk vectors (reference) | {m['passages']:.0f} | {m['passage_chars']:.0f} | {m['chunk_cpu']:.1f} | "
        f"{m['chunk_cpu'] / m['passages']:.3f} |",
        f"| sentence vectors | {m['unique']:.0f} distinct of {m['sentences']:.0f} | {m['sentence_chars']:.0f} | "
        f"{m['sentence_cpu']:.1f} | {m['sentence_cpu'] / max(m['unique'], 1):.3f} |", "",
        f"Building the sentence vectors costs **{ratio:.2f}×** the CPU of the chunk vectors of the same passages "
        "(short texts batched by length pad little). Per answer, the cosines of ten chunks' sentences "
        f"({m['per_answer']:.0f} on average) read from the stored vectors: {m['read_ms']:.2f} ms CPU, plus "
        f"{m['split_ms']:.1f} ms to split the ten chunks again into the sentences the vectors are keyed by; "
        f"embedded at answer time instead: {m['live_ms']:.0f} ms CPU ({m['live_ms'] / max(looked_up, 1e-6):.0f}× "
        "both).", ""])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=96, help="domainrag_ruc passages to embed")
    parser.add_argument("--no-write", action="store_true", help="print the section instead of updating BENCHMARKS.md")
    parser.add_argument("--scale", type=int, default=0, help="also build N synthetic chunks' vectors (random)")
    args = parser.parse_args(argv)
    if not CORPUS.exists() or not local_available():
        print("skipped: needs ../shared/evaldata/domainrag_ruc and the local embedding model")
        return 0
    text = section(measure(args.sample))
    if args.scale:
        text += "\n".join(scale_lines(args.scale, scale(args.scale))) + "\n"
    print(text)
    if not args.no_write:
        write_section(ROOT / "BENCHMARKS.md", text, SECTION)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
