"""How near questions of no domain come to this one's chunks: the dense channel's background, per language.

A fixed list of everyday questions (resources/background_questions.txt: the weather, recipes, pets, sport) is
embedded as queries when the vectors are built; the best cosine each reaches among the domain's chunks is written
next to the vectors (background.json), with the list's digest, and so is the best among its sentences next to the
sentence vectors (channels/sentence_vectors.py). A question whose own best cosine stays within that
background is no nearer the domain than the weather is (retrieval/off_topic.py). The scale is the domain's and the
model's own, so no cosine threshold is configured. An index built before, or with another list, has no background.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from lambdarag.text.tokenizer import has_cjk

BACKGROUND_FILE = "background.json"
RESOURCE = "resources/background_questions.txt"
FENCE_IQR = 1.5  # Tukey's upper fence: the third quartile plus 1.5 interquartile ranges
BLOCK_ROWS = 65_536  # rows of a memory-mapped matrix read (as float32) at a time


@dataclass(frozen=True)
class Background:
    """The best cosine each background question reached, sorted, per language ("zh", "en")."""

    scores: Mapping[str, tuple[float, ...]]

    def fence(self, english: bool) -> float | None:
        """The top of the background of the question's language (None without one)."""
        scores = self.scores.get("en" if english else "zh", ())
        return upper_fence(scores) if scores else None


def upper_fence(scores: Sequence[float]) -> float:
    """Tukey's upper fence of ``scores``: a score above it is no longer one of them (a background question or two
    that the domain does answer raise the quartiles little)."""
    q1, q3 = np.quantile(np.asarray(scores, dtype=np.float64), [0.25, 0.75])
    return float(q3 + FENCE_IQR * (q3 - q1))


@functools.cache
def background_questions() -> dict[str, tuple[str, ...]]:
    """The bundled background questions by language."""
    text = resources.files("lambdarag").joinpath(RESOURCE).read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return {"zh": tuple(q for q in lines if has_cjk(q)), "en": tuple(q for q in lines if not has_cjk(q))}


@functools.cache
def questions_digest() -> str:
    """What a background was computed from: the questions, so a changed list is computed again."""
    return hashlib.sha256(json.dumps(background_questions(), ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def write_background(folder: Path, embed_queries: Callable[[Sequence[str]], np.ndarray],
                     best: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
    """Embed the background questions and write the best cosine each reaches: ``best`` of their query vectors (one
    row each), by default the highest inner products with ``folder``'s vectors.npy (the Milvus channel searches its
    collection). A domain without chunks has an empty background."""
    if best is None:
        vectors = np.load(folder / "vectors.npy", mmap_mode="r")
        best = (lambda rows: best_cosines(vectors, rows)) if vectors.shape[0] else None
    scores: dict[str, list[float]] = {language: [] for language in background_questions()}
    if best is not None:
        for language, questions in background_questions().items():
            rows = np.asarray(embed_queries(questions), dtype=np.float32)
            scores[language] = sorted(round(float(b), 6) for b in best(rows))
    payload = {"digest": questions_digest(), "scores": scores}
    (folder / BACKGROUND_FILE).write_text(json.dumps(payload), encoding="utf-8")


def best_cosines(vectors: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The highest inner product of each of ``queries`` (one per row) with a row of ``vectors`` (float32 or
    float16, memory-mapped), read BLOCK_ROWS rows at a time: no float32 copy of a whole sentence index, each block
    read once for every question."""
    q = np.asarray(queries, dtype=np.float32)
    best = np.full(q.shape[0], -np.inf, dtype=np.float32)
    for i in range(0, vectors.shape[0], BLOCK_ROWS):
        best = np.maximum(best, (np.asarray(vectors[i:i + BLOCK_ROWS], dtype=np.float32) @ q.T).max(axis=0))
    return best


def read_background(folder: Path) -> Background | None:
    """The background written with the vectors; None for an index built before (no file) or from another list.
    A file that does not read is a ValueError, which the loaders report as a damaged index."""
    path = folder / BACKGROUND_FILE
    if not path.is_file():
        return None
    payload = json.loads(path.read_text(encoding="utf-8"))
    scores = payload.get("scores") if isinstance(payload, dict) else None
    if not isinstance(scores, dict) or not all(isinstance(v, list) for v in scores.values()):
        raise ValueError(f"{BACKGROUND_FILE} holds no scores")
    if payload.get("digest") != questions_digest():
        return None
    return Background({str(k): tuple(float(s) for s in v) for k, v in scores.items()})
