"""The naive peer baseline: jieba.lcut + rank_bm25.BM25Okapi over whole documents, top documents concatenated.

This is what a typical small RAG project does without chunking, fusion, intent or a gate; the eval runner
measures it on the same questions and the same context budget, so the delta to the full system is honest.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lambdarag.records import Turn


def naive_tokens(text: str) -> list[str]:
    """jieba.lcut with the default settings, blanks dropped (no normalisation, no stopwords)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)  # its "Building prefix dict" lines would interleave with the progress bar
    return [t for t in jieba.lcut(text) if t.strip()]


@dataclass(frozen=True)
class BaselineAnswer:
    """The baseline's document ranking, its packed context and the time each part took (ms)."""

    doc_ids: list[str]
    context: str
    timings: dict[str, float]


class NaiveBM25:
    """BM25Okapi over "title + text" of every document, searched with the question (and earlier turns)."""

    def __init__(self, docs: Sequence[Mapping[str, Any]]) -> None:
        from rank_bm25 import BM25Okapi

        self.ids = [str(d["doc_id"]) for d in docs]
        self.texts = [_doc_text(d) for d in docs]
        self.bm25 = BM25Okapi([naive_tokens(t) for t in self.texts])

    def search(self, query: str, k: int = 10) -> list[str]:
        """The k best document ids; ties keep corpus order."""
        tokens = naive_tokens(query)
        if not tokens:
            return []
        scores = np.asarray(self.bm25.get_scores(tokens), dtype=np.float64)
        order = np.argsort(-scores, kind="stable")[:k]
        return [self.ids[int(i)] for i in order]

    def context(self, doc_ids: Sequence[str], max_chars: int) -> str:
        """Whole documents in rank order, joined until the budget; the last one is cut to fit."""
        by_id = dict(zip(self.ids, self.texts, strict=True))
        parts: list[str] = []
        used = 0
        for doc_id in doc_ids:
            room = max_chars - used
            if room <= 0:
                break
            piece = by_id[doc_id][:room]
            parts.append(piece)
            used += len(piece) + 2
        return "\n\n".join(parts)

    def answer(self, question: str, history: Sequence[Turn] = (), max_chars: int = 3500, k: int = 10) -> BaselineAnswer:
        """Rank with the earlier questions prepended (how a naive peer handles a session) and pack."""
        query = " ".join([*(t.question for t in history), question])
        start = time.perf_counter()
        ranked = self.search(query, k)
        searched = time.perf_counter()
        text = self.context(ranked, max_chars)
        done = time.perf_counter()
        return BaselineAnswer(ranked, text, {"search": (searched - start) * 1000, "context": (done - searched) * 1000})


def _doc_text(doc: Mapping[str, Any]) -> str:
    title = str(doc.get("title") or "").strip()
    text = str(doc.get("text") or "")
    return f"{title}\n{text}" if title else text
