"""Weighted reciprocal rank fusion and the intent boosts (pure functions, no I/O).

RRF after Cormack, Clarke & Büttcher (SIGIR 2009), with a per-channel weight chosen by intent.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from lambdarag.channels import document as document_channel
from lambdarag.query.temporal import TimeScope
from lambdarag.records import Chunk, Hit
from lambdarag.text.dates import years_of
from lambdarag.text.tokenizer import keyword_share, normalize, split_sentences

UNITS_CACHE = 4096  # chunks whose normalised sentence units are kept (proximity, evidence)


@dataclass(frozen=True)
class Fused:
    """One chunk in the fused ranking: its final score, per-channel ranks and contributions, boosts."""

    chunk_id: str
    score: float
    ranks: dict[str, int] = field(default_factory=dict)  # channel -> rank in that channel
    scores: dict[str, float] = field(default_factory=dict)  # channel -> w / (k + rank)
    boosts: dict[str, float] = field(default_factory=dict)  # boost name -> relative factor applied
    learned: float | None = None  # the learned ranking stage's score, when it ordered this chunk
    rerank: float | None = None  # the rerank endpoint's score, when the reranker reordered this candidate

    @property
    def best_rank(self) -> int:
        """The best rank this chunk reached in any single channel."""
        return min(self.ranks.values()) if self.ranks else 1 << 30

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"chunk_id": self.chunk_id, "score": round(self.score, 6), "ranks": dict(self.ranks),
                                  "scores": {k: round(v, 6) for k, v in self.scores.items()},
                                  "boosts": dict(self.boosts)}
        if self.learned is not None:
            out["learned"] = round(self.learned, 6)
        if self.rerank is not None:
            out["rerank"] = round(self.rerank, 6)
        return out


def order(fused: Sequence[Fused]) -> list[Fused]:
    """Highest score first; ties by best single-channel rank, then chunk id (deterministic)."""
    return sorted(fused, key=lambda f: (-f.score, f.best_rank, f.chunk_id))


def without_matches(hits: Sequence[Hit], key: str, value: str) -> list[Hit]:
    """The hits whose ``extra[key]`` is not ``value``, ranked again 1..n in their order."""
    kept = [h for h in hits if h.extra.get(key) != value]
    return [h if h.rank == rank else dataclasses.replace(h, rank=rank) for rank, h in enumerate(kept, start=1)]


def weighted_rrf(rankings: Mapping[str, Sequence[Hit]], weights: Mapping[str, float], k: int) -> list[Fused]:
    """score(c) = Σ_i w_i / (k + rank_i(c)) over the channels i that ranked c (weighted RRF)."""
    ranks: dict[str, dict[str, int]] = {}
    for channel in sorted(rankings):  # fixed channel order: the float sums do not depend on arrival order
        for hit in rankings[channel]:
            best = ranks.setdefault(hit.chunk_id, {})
            best[channel] = min(hit.rank, best.get(channel, hit.rank))
    fused = []
    for chunk_id, by_channel in ranks.items():
        contributions = {ch: weights.get(ch, 0.0) / (k + rank) for ch, rank in sorted(by_channel.items())}
        fused.append(Fused(chunk_id, sum(contributions.values()), dict(sorted(by_channel.items())), contributions))
    return order(fused)


DOCUMENT = document_channel.NAME  # the channel whose hits are documents


def fuse(rankings: Mapping[str, Sequence[Hit]], weights: Mapping[str, float], k: int,
         doc_of: Callable[[str], str], spread: float) -> list[Fused]:
    """Weighted RRF over the chunk channels, then the document channel's ranking passed down to the chunks
    (document_prior) with its weight times ``spread`` (1 − documents / chunks of the knowledge base: a corpus of
    one-chunk documents makes the document ranking a copy of the chunk one, which must not count twice)."""
    fused = weighted_rrf({n: hits for n, hits in rankings.items() if n != DOCUMENT}, weights, k)
    return document_prior(fused, doc_of, rankings.get(DOCUMENT, ()), weights.get(DOCUMENT, 0.0) * spread, k)


def document_prior(fused: Sequence[Fused], doc_of: Callable[[str], str], documents: Sequence[Hit], weight: float,
                   k: int) -> list[Fused]:
    """Add w / (k + rank of its document) to every candidate chunk of a ranked document.

    ``documents`` are the document channel's hits, each carried by a chunk of its document; ``doc_of`` gives a
    chunk id's document ("" for an unknown chunk). A ranked document none of whose chunks is a candidate joins
    with the chunk its hit carries, on that share alone.
    """
    if not documents or not weight:
        return list(fused)
    rank_of: dict[str, int] = {}
    for hit in documents:
        rank_of.setdefault(doc_of(hit.chunk_id), hit.rank)
    rank_of.pop("", None)
    out: list[Fused] = []
    present: set[str] = set()
    for f in fused:
        doc = doc_of(f.chunk_id)
        if doc not in rank_of:
            out.append(f)
            continue
        present.add(doc)
        share = weight / (k + rank_of[doc])
        out.append(dataclasses.replace(f, score=f.score + share, ranks={**f.ranks, DOCUMENT: rank_of[doc]},
                                       scores={**f.scores, DOCUMENT: share}))
    for hit in documents:
        doc = doc_of(hit.chunk_id)
        if doc and doc not in present:
            share = weight / (k + rank_of[doc])
            out.append(Fused(hit.chunk_id, share, {DOCUMENT: rank_of[doc]}, {DOCUMENT: share}))
            present.add(doc)
    return order(out)


def subject_boost(fused: Sequence[Fused], doc_of: Callable[[str], str], documents: Sequence[Hit],
                  boost: float) -> list[Fused]:
    """Scale the chunks of each document whose subject the question names by 1 + boost · the share named.

    The shares ride on the document channel's hits (``extra["subject"]``, channels/subject.py): a question that
    names a document's issuer, region or title word asks about that document, whichever chunk of it answers.
    """
    shares = {doc_of(h.chunk_id): float(h.extra[document_channel.SUBJECT])
              for h in documents if document_channel.SUBJECT in h.extra}
    shares.pop("", None)
    if not boost or not shares:
        return list(fused)
    out = [_boost(f, "subject", boost * shares[doc]) if (doc := doc_of(f.chunk_id)) in shares else f for f in fused]
    return order(out)


def cover_sides(fused: Sequence[Fused], doc_of: Callable[[str], str], documents: Sequence[Hit],
                reach: int) -> list[Fused]:
    """Raise the best chunk of each side the question names into the first ``reach`` places.

    A question that names two subjects side by side ("A与B有何不同", the document channel's ``extra["side"]``:
    channels/subject.named_sides) is answered from both; when the chunks of one side fill the top, the best
    chunk of the other is moved up to place ``reach`` (boost "side": its new score over its old, minus one),
    the ones it passes keeping their order. ``reach`` below the number of sides, or 0, changes nothing.
    """
    side_of = {doc_of(h.chunk_id): int(h.extra[document_channel.SIDE])
               for h in documents if document_channel.SIDE in h.extra}
    side_of.pop("", None)
    best: dict[int, int] = {}
    for i, f in enumerate(fused):
        side = side_of.get(doc_of(f.chunk_id))
        if side is not None:
            best.setdefault(side, i)
    if len(best) < 2 or reach < len(best):
        return list(fused)
    late = [fused[i] for i in sorted(best.values()) if i >= reach]
    if not late:
        return list(fused)
    rest = [f for f in fused if f not in late]
    head = rest[: reach - len(late)]
    floor = head[-1].score if head else fused[0].score
    raised = [dataclasses.replace(f, score=floor, boosts={**f.boosts, "side": floor / f.score - 1.0} if f.score > 0
                                  else f.boosts) for f in late]
    return [*head, *raised, *rest[len(head):]]


def _boost(item: Fused, name: str, factor: float) -> Fused:
    return dataclasses.replace(item, score=item.score * (1.0 + factor), boosts={**item.boosts, name: factor})


def table_boost(fused: Sequence[Fused], chunks: Mapping[str, Chunk], boost: float) -> list[Fused]:
    """Scale table chunks by (1 + boost): data questions are answered by tables."""
    out = [
        _boost(f, "table", boost) if boost and f.chunk_id in chunks and chunks[f.chunk_id].is_table else f
        for f in fused
    ]
    return order(out)


def chunk_years(chunk: Chunk) -> list[int]:
    """Years of the dates stored on a chunk ("2023", "2023-03", "2023-03-01")."""
    return years_of((*chunk.dates, chunk.doc_date))


def recency_boost(
    fused: Sequence[Fused], chunks: Mapping[str, Chunk], scope: TimeScope | None, boost: float
) -> list[Fused]:
    """Scale chunks dated in the asked range by (1 + boost); with ``newest``, by boost / (1 + years behind newest)."""
    if scope is None or not boost:
        return list(fused)
    latest: dict[str, int] = {}
    for f in fused:
        years = [y for y in chunk_years(chunks[f.chunk_id]) if scope.contains(y)] if f.chunk_id in chunks else []
        if years:
            latest[f.chunk_id] = max(years)
    if not latest:
        return list(fused)
    newest = max(latest.values())
    out = []
    for f in fused:
        if f.chunk_id not in latest:
            out.append(f)
            continue
        # newest-first decays with age so a recent revision outranks an older equally good one
        factor = boost / (1 + newest - latest[f.chunk_id]) if scope.newest else boost
        out.append(_boost(f, "recency", factor))
    return order(out)


def parse_date(value: str) -> date | None:
    """A normalised date ("2023", "2023-05", "2023-05-31") as the first day it covers; None when it is not one."""
    parts = value.split("-")
    try:
        return date(int(parts[0]), int(parts[1]) if len(parts) > 1 else 1, int(parts[2]) if len(parts) > 2 else 1)
    except (ValueError, IndexError):
        return None


def after_today(fused: Sequence[Fused], chunks: Mapping[str, Chunk], today: date, penalty: float) -> list[Fused]:
    """Scale chunks of documents dated after ``today`` by (1 - penalty): asked as of a date, they did not exist yet."""
    if not penalty:
        return list(fused)
    late = {f.chunk_id for f in fused if f.chunk_id in chunks
            for d in [parse_date(chunks[f.chunk_id].doc_date)] if d is not None and d > today}
    if not late:
        return list(fused)
    return order([_boost(f, "after_today", -penalty) if f.chunk_id in late else f for f in fused])


def chunk_units(chunk: Chunk, span: int = 1) -> list[str]:
    """The chunk's runs of ``span`` consecutive sentences, each read with its breadcrumb as every chunk is
    indexed; a table chunk (caption, header and rows) is one unit, its rows mean nothing without the header."""
    if chunk.is_table:
        return [chunk.index_text]
    head = chunk.head + "\n" if chunk.head else ""
    sentences = split_sentences(chunk.text) or [chunk.text]
    return [head + "".join(sentences[i : i + span]) for i in range(max(1, len(sentences) - span + 1))]


@functools.lru_cache(maxsize=UNITS_CACHE)
def normalized_units(chunk: Chunk, span: int = 1) -> tuple[str, ...]:
    """chunk_units, normalised; cached, since the same top chunks are read by request after request."""
    return tuple(normalize(unit) for unit in chunk_units(chunk, span))


def proximity(keywords: Sequence[str], chunk: Chunk, span: int = 2) -> float:
    """The largest share of ``keywords`` found within one unit of ``span`` sentences of the chunk (chunk_units)."""
    return _share_nearby([normalize(k) for k in keywords], chunk, span)


def _share_nearby(keys: Sequence[str], chunk: Chunk, span: int) -> float:
    """proximity for keywords normalised already (once per question, not once per chunk)."""
    return max(keyword_share(keys, unit) for unit in normalized_units(chunk, span))


def proximity_boost(fused: Sequence[Fused], chunks: Mapping[str, Chunk], keywords: Sequence[str], boost: float,
                    depth: int, span: int = 2) -> list[Fused]:
    """Scale each of the first ``depth`` chunks by 1 + boost · (share of the query keywords found together within
    ``span`` consecutive sentences of it).

    Term proximity: of two chunks that share the question's words (overlapping windows of one page, a notice and
    its neighbour), the one that holds them in one place — the sentence that answers — ranks first.
    """
    if not boost or not keywords:
        return list(fused)
    out = []
    keys = [normalize(k) for k in keywords]
    for n, f in enumerate(fused):
        chunk = chunks.get(f.chunk_id)
        if n >= depth or chunk is None:
            out.append(f)
            continue
        best = _share_nearby(keys, chunk, span)
        out.append(_boost(f, "proximity", boost * best) if best else f)
    return order(out)


def version_preference(fused: Sequence[Fused], chunks: Mapping[str, Chunk], demoted_docs: Mapping[str, str],
                       penalty: float) -> list[Fused]:
    """Scale chunks of documents superseded for this question by (1 - penalty): the current version answers first."""
    if not demoted_docs or not penalty:
        return list(fused)
    out = [
        _boost(f, "superseded", -penalty) if f.chunk_id in chunks and chunks[f.chunk_id].doc_id in demoted_docs else f
        for f in fused
    ]
    return order(out)
