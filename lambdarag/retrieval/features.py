"""Per-candidate features of the fused ranking, the input of the learned ranking stage (pure, numpy only).

One row per candidate of the fused pool (weighted RRF and the boosts applied, best first). Every feature is
a bounded number that means the same on any corpus: reciprocal ranks, scores divided by the query's best score
in that channel, shares of the question's words; nothing names a corpus. FEATURE_VERSION changes whenever a
feature is added, removed or computed differently, so a model trained on other features is refused.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from lambdarag.config.schema import CHANNEL_NAMES, INTENT_NAMES
from lambdarag.query.expand import Expansion
from lambdarag.records import Chunk, Hit
from lambdarag.retrieval.fusion import DOCUMENT, UNITS_CACHE, Fused, normalized_units
from lambdarag.text.tokenizer import keyword_share, normalize, split_sentences

FEATURE_VERSION = 5  # 5: boost_subject
BOOSTS = ("table", "recency", "proximity", "after_today", "superseded", "subject")
LENGTH_SCALE = 1000.0  # characters: log1p(len / scale) keeps the chunk length feature near 0..2

FEATURES: tuple[str, ...] = (
    "fused_rr", "fused_score", "doc_share", "doc_first",
    *(f"rr_{c}" for c in CHANNEL_NAMES), *(f"score_{c}" for c in CHANNEL_NAMES),
    "head_keywords", "head_entities", "text_keywords", "proximity", "is_table", "length",
    "body_keywords", "body_window", "rare_keywords", "rare_window", "bigram_window",
    *(f"boost_{b}" for b in BOOSTS), *(f"intent_{i}" for i in INTENT_NAMES),
)
# compared within the pool: how far below the best candidate, and below the best window of its own document
RELATIVE = ("rare_window", "bigram_window", "score_bm25", "score_vector", "proximity")
CONFIDENT = ("bm25", "vector", "document")  # channels whose rank is also read scaled by how sure the channel is
BASE_FEATURES = FEATURES
FEATURES = (*BASE_FEATURES, *(f"{n}_gap" for n in RELATIVE), *(f"{n}_doc_gap" for n in RELATIVE),
            *(f"rr_{c}_sure" for c in CONFIDENT))


def channel_scores(rankings: Mapping[str, Sequence[Hit]], doc_of: Callable[[str], str]) -> dict[str, dict[str, float]]:
    """Per channel: chunk id (document id for the document channel) → its score divided by the channel's best
    score for this query (0..1; 1 when the scores are not positive, so only the rank speaks)."""
    out: dict[str, dict[str, float]] = {}
    for channel, hits in rankings.items():
        top = max((h.score for h in hits if math.isfinite(h.score)), default=0.0)
        by_key: dict[str, float] = {}
        for hit in hits:
            value = hit.score / top if top > 0 and math.isfinite(hit.score) else 1.0
            key = doc_of(hit.chunk_id) if channel == DOCUMENT else hit.chunk_id
            by_key.setdefault(key, max(0.0, min(1.0, value)))
        out[channel] = by_key
    return out


def _entity_names(expansion: Expansion) -> list[str]:
    return list(dict.fromkeys(normalize(e.name) for e in expansion.entities if e.name.strip()))


def candidate_features(pool: Sequence[Fused], rankings: Mapping[str, Sequence[Hit]], chunks: Mapping[str, Chunk],
                       expansion: Expansion, intent: str) -> np.ndarray:
    """The (len(pool) × len(FEATURES)) matrix of the pool's candidates, in pool order."""

    def doc_of(chunk_id: str) -> str:
        return chunks[chunk_id].doc_id if chunk_id in chunks else chunk_id

    scores = channel_scores(rankings, doc_of)
    keywords = [normalize(k) for k in expansion.keywords]
    entities = _entity_names(expansion)
    texts = [chunk_text(chunks[f.chunk_id]).index if f.chunk_id in chunks else "" for f in pool]
    rarity = pool_rarity(keywords, texts)
    bigrams = question_bigrams(" ".join(keywords))
    docs = [doc_of(f.chunk_id) for f in pool]
    per_doc: dict[str, int] = {}
    for doc in docs:
        per_doc[doc] = per_doc.get(doc, 0) + 1
    top = pool[0].score if pool and pool[0].score > 0 else 1.0
    seen: set[str] = set()
    rows = np.zeros((len(pool), len(BASE_FEATURES)), dtype=np.float64)
    for i, (item, doc) in enumerate(zip(pool, docs, strict=True)):
        chunk = chunks.get(item.chunk_id)
        row = [1.0 / (i + 1), item.score / top, per_doc[doc] / len(pool), float(doc not in seen)]
        seen.add(doc)
        row += [1.0 / item.ranks[c] if item.ranks.get(c) else 0.0 for c in CHANNEL_NAMES]
        row += [scores.get(c, {}).get(doc if c == DOCUMENT else item.chunk_id, 0.0) if item.ranks.get(c) else 0.0
                for c in CHANNEL_NAMES]
        row += _text_features(chunk, keywords, entities)
        row += _body_features(chunk, keywords, rarity, bigrams, texts[i])
        row += [float(item.boosts.get(b, 0.0)) for b in BOOSTS]
        row += [float(intent == name) for name in INTENT_NAMES]
        rows[i] = row
    sure = [[row[BASE_FEATURES.index(f"rr_{c}")] * confidence(rankings.get(c, ())) for c in CONFIDENT]
            for row in rows]
    return np.hstack([rows, relative_columns(rows, docs),
                      np.asarray(sure, dtype=np.float64).reshape(len(rows), len(CONFIDENT))])


def confidence(hits: Sequence[Hit]) -> float:
    """How far a channel's best hit stands above its second: 1 − second / best score (0 with fewer than two hits
    or no positive best). A question one channel answers clearly is one where that channel's order should win."""
    if len(hits) < 2 or not math.isfinite(hits[0].score) or hits[0].score <= 0:
        return 0.0
    return max(0.0, min(1.0, 1.0 - hits[1].score / hits[0].score))


def relative_columns(rows: np.ndarray, docs: Sequence[str]) -> np.ndarray:
    """For each RELATIVE feature: value − the pool's best, then value − the best of the same document's
    candidates (a linear scorer cannot compare candidates by itself; these say which window of a page is best)."""
    cols = [BASE_FEATURES.index(n) for n in RELATIVE]
    out = np.zeros((len(rows), 2 * len(cols)), dtype=np.float64)
    if not len(rows):
        return out
    for j, col in enumerate(cols):
        values = rows[:, col]
        out[:, j] = values - values.max()
        best: dict[str, float] = {}
        for doc, v in zip(docs, values, strict=True):
            best[doc] = max(best.get(doc, v), v)
        out[:, len(cols) + j] = values - np.array([best[d] for d in docs])
    return out


def _text_features(chunk: Chunk | None, keywords: Sequence[str], entities: Sequence[str]) -> list[float]:
    """head_keywords, head_entities, text_keywords, proximity, is_table, length."""
    if chunk is None:
        return [0.0] * 6
    text = chunk_text(chunk)
    return [keyword_share(keywords, text.head), keyword_share(entities, text.head),
            keyword_share(keywords, text.index),
            _proximity(keywords, chunk, text),
            float(chunk.is_table), math.log1p(len(chunk.text) / LENGTH_SCALE)]


def _proximity(keywords: Sequence[str], chunk: Chunk, text: ChunkText) -> float:
    """fusion.proximity of keywords normalised already, testing in each unit only the words the chunk holds (a
    unit is the head and a window of joined sentences, or a table's whole text)."""
    present = [k for k in keywords if (k in text.index if chunk.is_table else k in text.head or k in text.joined)]
    if not present:
        return 0.0
    return max(sum(1 for k in present if k in unit) for unit in normalized_units(chunk, 2)) / len(keywords)


def pool_rarity(keywords: Sequence[str], texts: Sequence[str]) -> dict[str, float]:
    """Each keyword's weight log(1 + n / (1 + candidates holding it)) over the pool's n candidates: a word every
    candidate holds (the document's name, shared by the windows of one page) tells them apart least."""
    n = len(texts)
    return {k: math.log1p(n / (1 + sum(1 for t in texts if k in t))) for k in dict.fromkeys(keywords)}


def question_bigrams(text: str) -> frozenset[str]:
    """Character bigrams of the question's letters, digits and CJK characters (spaces and punctuation dropped)."""
    chars = "".join(ch for ch in normalize(text) if ch.isalnum())
    return frozenset(chars[i:i + 2] for i in range(len(chars) - 1))


def _weighted_share(weights: Mapping[str, float], haystack: str) -> float:
    total = sum(weights.values())
    return sum(w for k, w in weights.items() if k in haystack) / total if total > 0 else 0.0


def _body_features(chunk: Chunk | None, keywords: Sequence[str], rarity: Mapping[str, float],
                   bigrams: frozenset[str], text: str) -> list[float]:
    """body_keywords, body_window, rare_keywords, rare_window, bigram_window: the question's words in the chunk's
    own text (not its head, which every window of a page shares) and in its best window of two sentences."""
    if chunk is None:
        return [0.0] * 5
    ct = chunk_text(chunk)
    counts: dict[str, int] = {}
    for k in keywords:
        if k in ct.joined:  # a word the joined sentences lack is in none of the windows
            counts[k] = counts.get(k, 0) + 1
    total_rarity = sum(rarity.values())
    best_share = best_rare = 0.0
    for window in ct.windows if counts else ():  # one pass over the window per keyword, both shares read from it
        found = [k for k in counts if k in window]
        best_share = max(best_share, sum(counts[k] for k in found) / len(keywords))
        best_rare = max(best_rare, sum(rarity.get(k, 0.0) for k in found) / total_rarity if total_rarity > 0 else 0.0)
    best_bigram = max((len(bigrams & b) / len(bigrams) for b in ct.bigrams), default=0.0) if bigrams else 0.0
    return [keyword_share(keywords, ct.body), best_share, _weighted_share(rarity, text), best_rare, best_bigram]


@dataclass(frozen=True)
class ChunkText:
    """A chunk's texts as the features read them, normalised once (the same top chunks come back request after
    request): head, body, head + body, and the body's windows of two sentences (a table: its body, one unit)."""

    head: str
    body: str
    index: str
    windows: tuple[str, ...]
    joined: str  # the body's sentences joined as the windows join them (each window is a substring of it)
    bigrams: tuple[frozenset[str], ...]  # each window's character bigrams (a bigram is in a window iff in its set)


@functools.lru_cache(maxsize=UNITS_CACHE)
def chunk_text(chunk: Chunk) -> ChunkText:
    body = normalize(chunk.text)
    sentences = [body] if chunk.is_table else [normalize(s) for s in split_sentences(chunk.text)] or [body]
    windows = tuple("".join(sentences[i:i + 2]) for i in range(max(1, len(sentences) - 1)))
    bigrams = tuple(frozenset(w[i:i + 2] for i in range(len(w) - 1)) for w in windows)
    return ChunkText(normalize(chunk.head), body, normalize(chunk.index_text), windows, "".join(sentences), bigrams)
