"""Okapi BM25 over a sparse term-by-document matrix, score-for-score equal to rank_bm25.BM25Okapi.

    score(D, Q) = Σ_{q in Q} idf(q) · tf(q, D) · (k1 + 1) / (tf(q, D) + k1 · (1 − b + b · |D| / avgdl))
    idf(q)      = ln(N − n(q) + 0.5) − ln(n(q) + 0.5), floored at ε · mean(idf) where negative

(Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and Beyond"; the ε floor
is rank_bm25's.) Query tokens count with their multiplicity, as in rank_bm25. The index stores
term frequencies in a CSR matrix with one row per term, so scoring a query slices the posting rows
of its terms and touches only the documents that contain them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

ARRAYS = ("indptr", "indices", "tf", "doc_len")


class BM25Okapi:
    """BM25 scorer fit on token lists; ``scores`` matches rank_bm25.BM25Okapi.get_scores."""

    def __init__(
        self,
        vocab: dict[str, int],
        postings: tuple[np.ndarray, np.ndarray, np.ndarray],
        doc_len: np.ndarray,
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
    ) -> None:
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.vocab = vocab
        # CSR arrays, one row per term: the documents containing it and its frequency in each.
        self.indptr, self.indices, self.tf = postings
        self.doc_len = doc_len
        self.n_docs = int(doc_len.shape[0])
        self.avgdl = float(doc_len.sum()) / self.n_docs if self.n_docs else 0.0
        df = np.diff(self.indptr).astype(np.float64)
        self.idf = idf_floored(df, self.n_docs, epsilon)
        # Same operation order as rank_bm25 so scores agree to the last few bits.
        self._norm = k1 * (1 - b + b * doc_len.astype(np.float64) / (self.avgdl or 1.0))

    @classmethod
    def fit(cls, corpus: Iterable[Sequence[str]], k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25) -> BM25Okapi:
        """Index tokenised documents; the vocabulary is numbered in order of first appearance."""
        vocab: dict[str, int] = {}
        rows: list[int] = []
        lengths: list[int] = []
        for doc in corpus:
            rows.extend(vocab.setdefault(tok, len(vocab)) for tok in doc)
            lengths.append(len(doc))
        doc_ids = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
        ones = np.ones(len(rows), dtype=np.int32)
        shape = (len(vocab), len(lengths))
        matrix = sp.csr_matrix((ones, (np.asarray(rows, dtype=np.int64), doc_ids)), shape=shape)
        matrix.sum_duplicates()  # tf = number of occurrences, postings sorted by document
        postings = (matrix.indptr.astype(np.int64), matrix.indices.astype(np.int32), matrix.data.astype(np.int32))
        return cls(vocab, postings, np.asarray(lengths, dtype=np.int32), k1, b, epsilon)

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for the query (float64, length n_docs)."""
        out = np.zeros(self.n_docs, dtype=np.float64)
        for tok in query_tokens:
            row = self.vocab.get(tok)
            if row is None:
                continue
            start, end = int(self.indptr[row]), int(self.indptr[row + 1])
            docs = self.indices[start:end]
            tf = self.tf[start:end].astype(np.float64)
            out[docs] += self.idf[row] * (tf * (self.k1 + 1) / (tf + self._norm[docs]))
        return out

    def top_k(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The k best (doc index, score) pairs, highest first, ties by lower index; zero scores left out."""
        return rank_scores(self.scores(query_tokens), k)

    def save(self, folder: Path) -> None:
        """Write the index into ``folder`` as .npy arrays plus JSON (vocabulary and parameters)."""
        folder.mkdir(parents=True, exist_ok=True)
        params = {"k1": self.k1, "b": self.b, "epsilon": self.epsilon, "n_docs": self.n_docs}
        (folder / "bm25.json").write_text(json.dumps(params), encoding="utf-8")
        terms = sorted(self.vocab, key=self.vocab.__getitem__)
        (folder / "vocab.json").write_text(json.dumps(terms, ensure_ascii=False), encoding="utf-8")
        for name, array in zip(ARRAYS, (self.indptr, self.indices, self.tf, self.doc_len), strict=True):
            np.save(folder / f"{name}.npy", np.ascontiguousarray(array))

    @classmethod
    def load(cls, folder: Path, mmap: bool = True) -> BM25Okapi:
        """Read an index written by ``save``; the posting arrays are memory-mapped by default."""
        params: dict[str, Any] = json.loads((folder / "bm25.json").read_text(encoding="utf-8"))
        terms: list[str] = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
        mode: Literal["r"] | None = "r" if mmap else None
        arrays = {name: np.load(folder / f"{name}.npy", mmap_mode=mode) for name in ARRAYS}
        shape = (len(terms), int(params["n_docs"]))
        if arrays["indptr"].shape[0] != shape[0] + 1 or arrays["doc_len"].shape[0] != shape[1]:
            raise ValueError(f"BM25 arrays in {folder} do not match its vocabulary and document count")
        postings = (arrays["indptr"], arrays["indices"], arrays["tf"])
        vocab = {t: i for i, t in enumerate(terms)}
        return cls(vocab, postings, np.asarray(arrays["doc_len"]), params["k1"], params["b"], params["epsilon"])


def idf_floored(df: np.ndarray, n_docs: int, epsilon: float) -> np.ndarray:
    """ln(N − df + 0.5) − ln(df + 0.5), negative values replaced by ε · mean of the raw idf (rank_bm25)."""
    idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
    if idf.size:
        idf[idf < 0] = epsilon * float(idf.mean())
    return idf


def rank_scores(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Indices of the k highest non-zero scores, ties broken by lower index."""
    candidates = np.flatnonzero(scores)
    if k <= 0 or candidates.size == 0:
        return []
    values = scores[candidates]
    if candidates.size > k:
        # Keep everything tied with the k-th best so the index tie-break below is exact.
        kth = np.partition(values, candidates.size - k)[candidates.size - k]
        keep = values >= kth
        candidates, values = candidates[keep], values[keep]
    order = np.lexsort((candidates, -values))[:k]
    return [(int(candidates[i]), float(values[i])) for i in order]
