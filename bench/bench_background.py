"""The background of everyday questions (channels/vector_background.py): the best cosine each bundled question
reaches among a domain's sentence vectors, written by every sentence build. Reading the memory-mapped float16 matrix
once for all the questions (best_cosines) against once per question (the reference: what the chunk background did).

    .venv/bin/python bench/bench_background.py             # 200,000 sentences, 80 questions
    .venv/bin/python bench/bench_background.py --rows 50000 --no-write

Random unit vectors stand in for the model's (the scan's cost does not depend on the values); both arms read the
same file in one process, one after the other, and must give the same scores. CPU seconds are quoted (the machine
is shared).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_vector import write_section  # noqa: E402

from lambdarag.channels.vector_background import BLOCK_ROWS, best_cosines  # noqa: E402

SECTION = "## Background of everyday questions"
DIM = 384
QUESTIONS = 80


def per_question(vectors: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The reference: each question scans the whole matrix (block by block) on its own."""
    out = []
    for q in queries:
        out.append(max(float(np.max(np.asarray(vectors[i:i + BLOCK_ROWS], dtype=np.float32) @ q))
                       for i in range(0, vectors.shape[0], BLOCK_ROWS)))
    return np.asarray(out, dtype=np.float32)


def measure(rows: int) -> dict[str, float]:
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vectors.npy"
        matrix = rng.standard_normal((rows, DIM)).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        np.save(path, matrix.astype(np.float16))
        del matrix
        queries = rng.standard_normal((QUESTIONS, DIM)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        vectors = np.load(path, mmap_mode="r")
        start = time.process_time()
        reference = per_question(vectors, queries)
        reference_s = time.process_time() - start
        start = time.process_time()
        once = best_cosines(vectors, queries)
        once_s = time.process_time() - start
    if not np.allclose(reference, once, atol=1e-6):
        raise SystemExit("the two arms disagree")
    return {"rows": rows, "reference": reference_s, "once": once_s}


def section(m: dict[str, float]) -> str:
    return "\n".join([
        SECTION, "",
        f"Command: `.venv/bin/python bench/bench_background.py --rows {int(m['rows'])}` ({int(m['rows']):,} float16 "
        f"sentence vectors of {DIM} dimensions, memory-mapped; {QUESTIONS} questions; both arms in one process, "
        "same scores).", "",
        "| arm | CPU s |", "|---|---:|",
        f"| each question scans the matrix (reference) | {m['reference']:.2f} |",
        f"| one scan for all questions (`best_cosines`) | {m['once']:.2f} |", "",
        f"One scan costs **{m['once'] / m['reference']:.3f}×** the reference. On CMRC's 11,181 sentences with the "
        "local model: 1.20 → 0.09 s CPU, beside 0.92 s to embed the 80 questions (thirty-fourth session).", "",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--no-write", action="store_true", help="print instead of updating BENCHMARKS.md")
    args = parser.parse_args()
    text = section(measure(args.rows))
    if args.no_write:
        print(text)
    else:
        write_section(ROOT / "BENCHMARKS.md", text)
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
