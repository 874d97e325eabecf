"""Retrieval and answer metrics at document and page level (pure functions, no I/O).

Rankings are lists of chunk ids mapped back to their document, or to (document, page) units; a
unit counts at its first occurrence, so several chunks of one document do not crowd the cut-off.
Relevance is binary.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from lambdarag.text.tokenizer import normalize

_SPACE_RE = re.compile(r"\s+")
Unit = TypeVar("Unit", bound=Hashable)  # what a ranking ranks: a doc id, a (doc id, page) pair
PageUnit = tuple[str, int]


def doc_ranking(chunk_ids: Iterable[str], doc_of: Mapping[str, str] | Callable[[str], str]) -> list[str]:
    """Document ids in rank order, each at its first occurrence (chunks without a document are skipped)."""
    lookup = doc_of.get if isinstance(doc_of, Mapping) else doc_of
    seen: dict[str, None] = {}
    for chunk_id in chunk_ids:
        doc = lookup(chunk_id)
        if doc and doc not in seen:
            seen[doc] = None
    return list(seen)


def page_ranking(chunk_ids: Iterable[str], doc_of: Callable[[str], str],
                 pages_of: Callable[[str], Iterable[int]]) -> list[PageUnit]:
    """(doc id, page) units in rank order, each at its first occurrence; a chunk spanning pages yields each page."""
    seen: dict[PageUnit, None] = {}
    for chunk_id in chunk_ids:
        doc = doc_of(chunk_id)
        for page in pages_of(chunk_id) if doc else ():
            seen.setdefault((doc, page), None)
    return list(seen)


def gold_page_units(gold_doc_ids: Iterable[str], gold_pages: Iterable[int]) -> set[PageUnit]:
    """The gold (doc id, page) pairs: every gold page in every gold document."""
    pages = list(gold_pages)
    return {(doc, page) for doc in gold_doc_ids for page in pages}


def chunk_doc(chunk_id: str) -> str:
    """The document part of a chunk id "<doc_id>#<nnnn>" (the id itself when it has no '#')."""
    return chunk_id.rsplit("#", 1)[0]


def recall_at_k(ranked: Sequence[Unit], gold: Iterable[Unit], k: int) -> float:
    """Fraction of the gold units (documents or pages) found in the top k (0.0 without gold)."""
    wanted = set(gold)
    if not wanted:
        return 0.0
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def hit_at_k(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """1.0 when any gold document is in the top k, else 0.0."""
    wanted = set(gold)
    return 1.0 if wanted.intersection(ranked[:k]) else 0.0


def mrr_at_k(ranked: Sequence[str], gold: Iterable[str], k: int = 10) -> float:
    """Reciprocal rank of the first gold document within the top k (0.0 when none)."""
    wanted = set(gold)
    for i, doc in enumerate(ranked[:k], start=1):
        if doc in wanted:
            return 1.0 / i
    return 0.0


def ndcg_at_k(ranked: Sequence[str], gold: Iterable[str], k: int = 10) -> float:
    """nDCG@k with binary relevance: Σ 1/log2(i+1) over gold hits, over the ideal ordering (Järvelin & Kekäläinen)."""
    wanted = set(gold)
    if not wanted:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 1) for i, doc in enumerate(ranked[:k], start=1) if doc in wanted)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(wanted), k) + 1))
    return dcg / ideal


def squash(text: str) -> str:
    """Text for containment checks: normalised (NFKC, casefold) with all whitespace removed."""
    return _SPACE_RE.sub("", normalize(text))


def answer_alternatives(answers: Sequence[str], answer_sets: Sequence[Sequence[str]] | None = None) -> list[list[str]]:
    """Gold alternatives, each a list of required parts: answer_sets when given, else one part per answer."""
    if answer_sets:
        alternatives = [[p for p in (str(x) for x in alt) if squash(p)] for alt in answer_sets]
    else:
        alternatives = [[a] for a in answers if squash(a)]
    return [alt for alt in alternatives if alt]


def contains_answer(text: str, alternatives: Sequence[Sequence[str]]) -> bool:
    """True when every required part of some alternative occurs in the text (after squash)."""
    haystack = squash(text)
    return any(all(squash(part) in haystack for part in alt) for alt in alternatives)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; 0.0 for no values."""
    return sum(values) / len(values) if values else 0.0
