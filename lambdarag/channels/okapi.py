"""Okapi BM25 over a sparse term-by-document matrix, score-for-score equal to rank_bm25.BM25Okapi.

    score(D, Q) = Σ_{q in Q} idf(q) · tf(q, D) · (k1 + 1) / (tf(q, D) + k1 · (1 − b + b · |D| / avgdl))
    idf(q)      = ln(N − n(q) + 0.5) − ln(n(q) + 0.5), floored at ε · mean(idf) where negative

(Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and Beyond"; the ε floor
is rank_bm25's.) Query tokens count with their multiplicity, as in rank_bm25. The fit computes
every term's contribution to every document that contains it once, into a CSR matrix with one
row per term; a query then slices the rows of its terms and sums them per document, touching only
the documents that contain a query term. Weights stay float64 so scores match rank_bm25 to ~1e-12.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

from lambdarag.channels.vocab import Vocabulary

ARRAYS = ("indptr", "indices", "weights", "doc_len")


class BM25Okapi:
    """BM25 scorer fit on token lists; ``scores`` matches rank_bm25.BM25Okapi.get_scores."""

    def __init__(
        self,
        vocab: Mapping[str, int],
        postings: tuple[np.ndarray, np.ndarray, np.ndarray],
        doc_len: np.ndarray,
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
    ) -> None:
        """Wrap CSR arrays (indptr, document indices, BM25 weights), one row per term of ``vocab``."""
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.vocab = vocab
        self.indptr, self.indices, self.weights = postings
        self.doc_len = doc_len
        self.n_docs = int(doc_len.shape[0])
        self.avgdl = float(doc_len.sum()) / self.n_docs if self.n_docs else 0.0
        self.idf = idf_floored(np.diff(self.indptr).astype(np.float64), self.n_docs, epsilon)

    @classmethod
    def fit(cls, corpus: Iterable[Sequence[str]], k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25) -> BM25Okapi:
        """Index tokenised documents; the vocabulary is numbered in order of first appearance."""
        numbering: defaultdict[str, int] = defaultdict()
        numbering.default_factory = numbering.__len__  # a new token gets the next number, in C
        term_ids: list[np.ndarray] = []
        for doc in corpus:
            term_ids.append(np.fromiter(map(numbering.__getitem__, doc), dtype=np.int32, count=len(doc)))
        lengths = [t.size for t in term_ids]
        rows = np.concatenate(term_ids) if term_ids else np.zeros(0, dtype=np.int32)
        doc_ids = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
        shape = (len(numbering), len(lengths))
        counts = sp.csr_matrix((np.ones(rows.size, dtype=np.int32), (rows, doc_ids)), shape=shape)
        counts.sum_duplicates()  # data = term frequency; each row's documents in ascending order
        doc_len = np.asarray(lengths, dtype=np.int32)
        indptr = counts.indptr.astype(np.int64)
        weights = bm25_weights(indptr, counts.indices, counts.data, doc_len, k1, b, epsilon)
        return cls(dict(numbering), (indptr, counts.indices.astype(np.int32), weights), doc_len, k1, b, epsilon)

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for the query (float64, length n_docs)."""
        found = map(self.vocab.get, query_tokens)
        rows = [r for r in found if r is not None]
        if not rows:
            return np.zeros(self.n_docs, dtype=np.float64)
        spans = [slice(int(self.indptr[r]), int(self.indptr[r + 1])) for r in rows]
        docs = np.concatenate([self.indices[s] for s in spans])
        weights = np.concatenate([self.weights[s] for s in spans])
        return np.bincount(docs, weights=weights, minlength=self.n_docs).astype(np.float64, copy=False)

    def document_frequency(self, token: str) -> int:
        """How many documents hold ``token`` (0 for a token none has)."""
        row = self.vocab.get(token)
        return 0 if row is None else int(self.indptr[row + 1] - self.indptr[row])

    def term_frequencies(self, token: str) -> tuple[np.ndarray, np.ndarray]:
        """The documents holding ``token`` and how many times each holds it, read back from the stored weights
        (w = idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl)), solved for tf). A token of half the
        documents or more has no positive idf to solve with: its counts read 0."""
        row = self.vocab.get(token)
        if row is None:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
        span = slice(int(self.indptr[row]), int(self.indptr[row + 1]))
        docs = np.asarray(self.indices[span])
        weight = np.asarray(self.weights[span], dtype=np.float64)
        norm = self.k1 * (1.0 - self.b + self.b * self.doc_len[docs] / self.avgdl)
        top = self.idf[row] * (self.k1 + 1.0) - weight
        with np.errstate(divide="ignore", invalid="ignore"):
            tf = np.where(top > 0, weight * norm / np.where(top > 0, top, 1.0), 0.0)
        return docs, np.rint(tf).astype(np.int64)

    def top_k(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The k best (doc index, score) pairs, highest first, ties by lower index; only positive scores."""
        return rank_scores(self.scores(query_tokens), k)

    def save(self, folder: Path) -> None:
        """Write the index into ``folder`` as .npy arrays (the vocabulary's too: channels/vocab.py) plus its
        parameters in JSON."""
        folder.mkdir(parents=True, exist_ok=True)
        params = {"k1": self.k1, "b": self.b, "epsilon": self.epsilon, "n_docs": self.n_docs}
        (folder / "bm25.json").write_text(json.dumps(params), encoding="utf-8")
        vocab = self.vocab if isinstance(self.vocab, Vocabulary) else Vocabulary.of(
            sorted(self.vocab, key=self.vocab.__getitem__))
        vocab.save(folder)
        for name, array in zip(ARRAYS, (self.indptr, self.indices, self.weights, self.doc_len), strict=True):
            np.save(folder / f"{name}.npy", np.ascontiguousarray(array))

    @classmethod
    def load(cls, folder: Path, mmap: bool = True) -> BM25Okapi:
        """Read an index written by ``save``; the posting arrays are memory-mapped by default."""
        params: dict[str, Any] = json.loads((folder / "bm25.json").read_text(encoding="utf-8"))
        vocab = Vocabulary.load(folder)
        mode: Literal["r"] | None = "r" if mmap else None
        arrays = {name: np.load(folder / f"{name}.npy", mmap_mode=mode) for name in ARRAYS}
        shape = (len(vocab), int(params["n_docs"]))
        if arrays["indptr"].shape[0] != shape[0] + 1 or arrays["doc_len"].shape[0] != shape[1]:
            raise ValueError(f"BM25 arrays in {folder} do not match its vocabulary and document count")
        postings = (arrays["indptr"], arrays["indices"], arrays["weights"])
        return cls(vocab, postings, np.asarray(arrays["doc_len"]), params["k1"], params["b"], params["epsilon"])


def idf_floored(df: np.ndarray, n_docs: int, epsilon: float) -> np.ndarray:
    """ln(N − df + 0.5) − ln(df + 0.5), negative values replaced by ε · mean of the raw idf (rank_bm25)."""
    idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
    if idf.size:
        idf[idf < 0] = epsilon * float(idf.mean())
    return idf


def bm25_weights(
    indptr: np.ndarray, indices: np.ndarray, tf: np.ndarray, doc_len: np.ndarray, k1: float, b: float, epsilon: float
) -> np.ndarray:
    """Per posting: idf(term) · tf·(k1+1) / (tf + k1·(1 − b + b·|D|/avgdl)), in rank_bm25's operation order."""
    n_docs = doc_len.shape[0]
    avgdl = float(doc_len.sum()) / n_docs if n_docs else 1.0
    idf = idf_floored(np.diff(indptr).astype(np.float64), n_docs, epsilon)
    term_of = np.repeat(np.arange(idf.shape[0]), np.diff(indptr))
    norm = k1 * (1 - b + b * doc_len.astype(np.float64) / (avgdl or 1.0))
    freq = tf.astype(np.float64)
    scores: np.ndarray = idf[term_of] * (freq * (k1 + 1) / (freq + norm[indices]))
    return scores


def rank_scores(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Indices of the k highest positive scores, highest first, ties broken by lower index."""
    if k <= 0 or scores.size == 0:
        return []
    # Everything tied with the k-th best stays a candidate, so the index tie-break below is exact.
    kth = np.partition(scores, scores.size - k)[scores.size - k] if scores.size > k else 0.0
    candidates = np.flatnonzero((scores >= kth) & (scores > 0))
    values = scores[candidates]
    order = np.lexsort((candidates, -values))[:k]
    return [(int(candidates[i]), float(values[i])) for i in order]
