"""BM25 benchmark: our sparse BM25Okapi against rank_bm25.BM25Okapi on the same tokens, plus tokenizer
and build throughput.

    .venv/bin/python bench/bench_bm25.py [--sizes 10000,100000] [--ref-queries 10000:60,100000:8]

Chunks are synthesised from sentences of the DomainRAG corpus (../shared/evaldata/domainrag_ruc) when
it is present, else from generated Chinese-like text; queries are its questions (else generated). The
output is Markdown, ready for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import rank_bm25

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lambdarag.channels.okapi import BM25Okapi  # noqa: E402
from lambdarag.text.tokenizer import Tokenizer, normalize, split_sentences  # noqa: E402

EVALDATA = ROOT.parent / "shared" / "evaldata" / "domainrag_ruc"
CHUNK_CHARS = 450  # the DomainRAG passages are about this long
T = TypeVar("T")
# CPU time of this process: on a shared machine wall time mostly measures waiting for a CPU.
clock = time.process_time


def load_source(seed: int) -> tuple[str, list[str], list[str]]:
    """(description, passages, questions) from DomainRAG, or generated text when it is absent."""
    corpus, questions = EVALDATA / "corpus.jsonl", EVALDATA / "questions.jsonl"
    if corpus.exists() and questions.exists():
        with corpus.open(encoding="utf-8") as fh:
            passages = [json.loads(line)["text"] for line in fh]
        with questions.open(encoding="utf-8") as fh:
            asked = [json.loads(line)["question"] for line in fh]
        return f"DomainRAG sentences ({len(passages)} passages, {len(asked)} questions)", passages, asked
    rng = random.Random(seed)
    syllables = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    words = ["".join(rng.choices(syllables, k=rng.randint(1, 4))) for _ in range(20000)]
    weights = [1.0 / (i + 1) for i in range(len(words))]

    def sentence() -> str:
        return "".join(rng.choices(words, weights, k=rng.randint(5, 25))) + "。"

    passages = ["".join(sentence() for _ in range(12)) for _ in range(3000)]
    asked = ["".join(rng.choices(words[:3000], k=rng.randint(2, 6))) + "？" for _ in range(300)]
    return "generated Chinese-like text (DomainRAG not found)", passages, asked


def synthesise(passages: Sequence[str], n: int, seed: int) -> list[str]:
    """n chunks of about CHUNK_CHARS characters made of sentences sampled from the passages."""
    rng = random.Random(seed)
    sentences = [s for p in passages for s in split_sentences(p) if len(s) > 4]
    chunks = []
    for _ in range(n):
        parts: list[str] = []
        size = 0
        while size < CHUNK_CHARS:
            parts.append(rng.choice(sentences))
            size += len(parts[-1])
        chunks.append("".join(parts))
    return chunks


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    start = clock()
    value = fn()
    return clock() - start, value


def bench_segmenters(passages: Sequence[str]) -> list[str]:
    """rjieba against jieba with the same (default) dictionary: speed and token identity."""
    import jieba
    import rjieba

    jieba.setLogLevel(logging.WARNING)
    texts = [normalize(p) for p in passages]
    chars = sum(map(len, texts))
    start = clock()
    fast = rjieba.Jieba()
    t_fast_init = clock() - start
    slow = jieba.Tokenizer()
    slow.initialize()
    t_slow_init = clock() - start - t_fast_init
    loads = f"rjieba.Jieba() {t_fast_init * 1000:.0f} ms, jieba.Tokenizer() {t_slow_init * 1000:.0f} ms"
    lines = [f"- dictionary load: {loads}"]
    for hmm in (False, True):
        t_fast, a = _segment_all(functools.partial(fast.cut, hmm=hmm), texts)
        t_slow, b = _segment_all(functools.partial(slow.lcut, HMM=hmm), texts)
        same = sum(x == y for x, y in zip(a, b, strict=True))
        lines.append(
            f"- HMM {'on ' if hmm else 'off'}: rjieba {chars / t_fast / 1e6:.2f} M chars/s, "
            f"jieba {chars / t_slow / 1e6:.2f} M chars/s ({t_slow / t_fast:.1f}x); "
            f"identical tokens in {same}/{len(texts)} passages ({same / len(texts):.1%})"
        )
    t_ours, _ = _segment_all(Tokenizer().tokens, passages)
    rate = chars / t_ours / 1e6
    lines.append(f"- lambdarag Tokenizer.tokens (rjieba, HMM off, identifiers, stopwords): {rate:.2f} M chars/s")
    return lines


def _segment_all(cut: Callable[[str], list[str]], texts: Sequence[str]) -> tuple[float, list[list[str]]]:
    start = clock()
    out = [cut(t) for t in texts]
    return clock() - start, out


def reference_top10(ref: rank_bm25.BM25Okapi, query: list[str]) -> tuple[list[int], np.ndarray]:
    scores = np.asarray(ref.get_scores(query))
    nonzero = np.flatnonzero(scores)
    order = nonzero[np.lexsort((nonzero, -scores[nonzero]))][:10]
    return [int(i) for i in order], scores


def bench_size(n: int, texts: list[str], queries: list[list[str]], ref_queries: int) -> list[str]:
    """Build and query both implementations on the same tokens of n chunks."""
    tok = Tokenizer()
    chars = sum(map(len, texts))
    t_tok, corpus = timed(lambda: [tok.tokens(t) for t in texts])
    t_fit, ours = timed(lambda: BM25Okapi.fit(corpus))
    with tempfile.TemporaryDirectory() as tmp:
        t_save, _ = timed(lambda: ours.save(Path(tmp)))
        t_load, _ = timed(lambda: BM25Okapi.load(Path(tmp)))
    per_query = []
    for q in queries:
        start = clock()
        ours.top_k(q, 10)
        per_query.append(clock() - start)
    t_ref_fit, ref = timed(lambda: rank_bm25.BM25Okapi(corpus))
    sample = queries[:ref_queries]
    same = overlap = 0
    ref_times, max_diff = [], 0.0
    for q in sample:
        start = clock()
        ref_top, ref_scores = reference_top10(ref, q)
        ref_times.append(clock() - start)
        our_top = [i for i, _ in ours.top_k(q, 10)]
        same += our_top == ref_top
        overlap += len(set(our_top) & set(ref_top))
        max_diff = max(max_diff, float(np.abs(ours.scores(q) - ref_scores).max()))
    ours_ms, ref_ms = statistics.mean(per_query) * 1000, statistics.mean(ref_times) * 1000
    return [
        f"| {n:,} | {chars / 1e6:.1f} M | {n / t_tok:,.0f} | {t_fit:.2f} s "
        f"| {t_save * 1000:.0f} / {t_load * 1000:.0f} ms "
        f"| {ours_ms:.2f} ms ({len(queries)} q) | {ref_ms:.1f} ms ({len(sample)} q) | {ref_ms / ours_ms:,.0f}x "
        f"| {same}/{len(sample)} identical, overlap {overlap / (10 * max(len(sample), 1)):.1%} | {max_diff:.1e} "
        f"| {t_ref_fit:.1f} s |"
    ]


def bench_channel_build(texts: list[str]) -> str:
    """Throughput of the whole channel build: entity dictionary, tokens, fit, atomic publish."""
    from lambdarag.channels import bm25
    from lambdarag.config.domain import init_domain
    from lambdarag.records import Chunk

    chunks = [Chunk(f"doc{i // 20}#{i % 20:04d}", f"doc{i // 20}", "", "", t) for i, t in enumerate(texts)]
    with tempfile.TemporaryDirectory() as tmp:
        domain = init_domain("bench", Path(tmp))
        try:
            t_build, result = timed(lambda: bm25.build(domain, chunks, progress=False))
        except Exception as exc:  # report and go on: the other figures stand on their own
            return f"- channel build of {len(chunks):,} chunks failed: {type(exc).__name__}: {exc}"
    detail = getattr(result, "detail", "")
    return f"- channel build (entities + dictionary + tokens + fit + publish) of {len(chunks):,} chunks: " \
        f"{t_build:.1f} s, {len(chunks) / t_build:,.0f} chunks/s ({detail})"


def hit_rates(
    texts: Sequence[str], ids: Sequence[str], questions: Sequence[dict[str, Any]], cut: Callable[[str], list[str]]
) -> str:
    """hit@5, hit@10 and MRR@10 of the gold passage over the questions, BM25 on ``cut`` tokens."""
    model = BM25Okapi.fit([cut(t) for t in texts])
    at5 = at10 = rr = 0.0
    for q in questions:
        top = [ids[i] for i, _ in model.top_k(cut(q["question"]), 10)]
        first = next((rank for rank, doc in enumerate(top) if doc in set(q["gold_doc_ids"])), None)
        if first is not None:
            at5, at10, rr = at5 + (first < 5), at10 + 1, rr + 1 / (first + 1)
    n = len(questions)
    return f"{at5 / n:.3f} | {at10 / n:.3f} | {rr / n:.3f}"


def bench_quality() -> list[str]:
    """Retrieval quality of the tokenisation choices on DomainRAG (gold passage among the top 10)."""
    import rjieba

    from lambdarag.channels.bm25 import entity_terms
    from lambdarag.records import Chunk
    from lambdarag.text import tokenizer as text

    with (EVALDATA / "corpus.jsonl").open(encoding="utf-8") as fh:
        docs = [json.loads(line) for line in fh]
    with (EVALDATA / "questions.jsonl").open(encoding="utf-8") as fh:
        questions = [json.loads(line) for line in fh]
    texts, ids = [f"{d['title']}\n{d['text']}" for d in docs], [d["doc_id"] for d in docs]
    plain = rjieba.Jieba()
    terms = entity_terms(Chunk(d["doc_id"], d["doc_id"], d["title"], d["title"], d["text"]) for d in docs)
    rows = [
        ("rjieba words only (no normalisation, stopwords or identifiers)", lambda t: plain.cut(t, False)),
        ("Tokenizer, HMM off (the default)", Tokenizer().tokens),
        (f"Tokenizer, HMM off + entity dictionary ({len(terms)} names, words whole + parts)", Tokenizer(terms).tokens),
    ]
    lines = [f"| {label} | {hit_rates(texts, ids, questions, cut)} |" for label, cut in rows]
    hmm = Tokenizer()
    hmm._segment = text.segmenter(frozenset(), True)  # the alternative we measured against
    lines.insert(2, f"| Tokenizer, HMM on | {hit_rates(texts, ids, questions, hmm.tokens)} |")
    return lines


def parse_ref(spec: str) -> dict[int, int]:
    return {int(a): int(b) for a, b in (part.split(":") for part in spec.split(",") if part)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="corpus sizes in chunks")
    parser.add_argument("--ref-queries", default="10000:60,100000:8", help="size:queries run through rank_bm25")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    source, passages, questions = load_source(args.seed)
    tok = Tokenizer()
    queries = [q for q in (tok.tokens(x) for x in questions) if q]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Source: {source}; {len(queries)} queries; chunks of ~{CHUNK_CHARS} chars of shuffled sentences.")
    print(f"Times are CPU seconds of the benchmark process; load average at start {load} on {os.cpu_count()} CPUs.\n")
    print("Tokenizers on the source passages:\n")
    print("\n".join(bench_segmenters(passages)))
    print("\n| chunks | chars | tokenise chunks/s | fit | save / load | ours per query | rank_bm25 per query "
          "| speed-up | same top-10 | max score diff | rank_bm25 fit |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    refs = parse_ref(args.ref_queries)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    for n in sizes:
        texts = synthesise(passages, n, args.seed + n)
        print("\n".join(bench_size(n, texts, queries, refs.get(n, 10))), flush=True)
    print()
    print(bench_channel_build(synthesise(passages, min(sizes), args.seed)))
    if (EVALDATA / "corpus.jsonl").exists():
        print(f"\nTokenisation choices, BM25 on the {EVALDATA.name} passages (gold passage in the top k):\n")
        print("| tokens | hit@5 | hit@10 | MRR@10 |\n|---|---|---|---|")
        print("\n".join(bench_quality()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
