"""Context packing: slots, relation paths, wiki excerpts and evidence chunks within a character budget.

Numbers are per source chunk: evidence chunks are numbered 1..m in fused order, chunks reached only
through a relation path or wiki page come after. Every piece is labelled with its chunk's number,
so "[n]" in an answer always names one chunk and one Citation.

The LLM gets the context fenced as data (text/fence.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from lambdarag.answer.context_labels import CHINESE, ContextLabels, context_labels
from lambdarag.answer.slots import slot_sources
from lambdarag.answer.table_text import form_text
from lambdarag.answer.units import chunk_sentences
from lambdarag.answer.window_ends import completed
from lambdarag.channels.vector import NAME as DENSE_CHANNEL
from lambdarag.records import Chunk, Citation, Hit
from lambdarag.retrieval.channel_run import question_vector

if TYPE_CHECKING:
    from lambdarag.retrieval.knowledge import KnowledgeBase
    from lambdarag.retrieval.retrieve import Retrieval

MAX_RELATIONS = 5
COMPLETED_FIRST = 3  # evidence chunks whose cut last sentence is completed even at the cost of a later chunk
MIN_TRUNCATED = 120  # a truncated first evidence chunk keeps at least this much, else it is left out
_LABEL_WIDTH = len("[99]")


@dataclass(frozen=True)
class Piece:
    """One labelled part of the context."""

    n: int | None  # citation number of the source chunk (None for an unsourced slot block)
    kind: str  # slots | relation | wiki | evidence
    chunk_id: str | None
    chars: int
    text: str = field(default="", compare=False)

    def summary(self) -> dict[str, Any]:
        return {"n": self.n, "kind": self.kind, "chunk_id": self.chunk_id, "chars": self.chars}


@dataclass(frozen=True)
class Repealed:
    """A document repealed by a statement in the context: its title, since when, and the statement's chunk."""

    title: str
    since: str | None
    chunk_id: str


@dataclass(frozen=True)
class Packed:
    """The context text, its pieces, which evidence chunks made it in or not, and one citation per number."""

    text: str
    pieces: list[Piece]
    included: list[str]
    omitted: list[str]
    citations: list[Citation]
    repealed: dict[str, Repealed] = field(default_factory=dict)  # doc id -> what says it was repealed
    as_of: date | None = None  # the date the question is asked as of (PipelineOptions.today), when given
    # the included evidence chunk closest in meaning to the question: the one the dense channel ranked first (None
    # without a dense channel, or when it ranked none of them); the extractive answer offers its best sentence
    closest: str | None = None
    # the included evidence's sentences (as embedded, answer/units.embedded) -> cosine with the question, from the
    # sentence vectors built with the index (empty without them); the extractive answer offers the nearest
    nearness: Mapping[str, float] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        nearest = max(self.nearness.items(), key=lambda item: item[1], default=None)
        return {"chars": len(self.text), "pieces": [p.summary() for p in self.pieces],
                "included": list(self.included), "omitted": list(self.omitted), "closest": self.closest,
                "sentences_read_by_meaning": len(self.nearness),
                "nearest": {"sentence": nearest[0], "cosine": round(nearest[1], 4)} if nearest else None}


@dataclass(frozen=True)
class _Draft:
    """A piece before numbering: slot lines carry source placeholders until chunks get numbers."""

    kind: str
    chunk_id: str | None
    body: str
    refs: tuple[str, ...] = ()  # chunk ids behind the placeholders of a slot block

    @property
    def size(self) -> int:
        """Characters once rendered (numbers are counted at their widest, "[99]")."""
        body = self.body
        for i in range(len(self.refs)):
            body = body.replace(_placeholder(i), "[99]")
        return len(body) + (0 if self.kind == "slots" else _LABEL_WIDTH + 1) + 2


def _placeholder(i: int) -> str:
    return f"\x00{i}\x00"


def pack_context(slots: dict[str, Any], retrieval: Retrieval, kb: KnowledgeBase, max_chars: int,
                 evidence_ids: Sequence[str] | None = None, english: bool = False, sentences: bool = True) -> Packed:
    """Pack the request's slots, side information and evidence (default: the fused ids) into at most ``max_chars``,
    labelled for a reader of English (``english``: the question's language) or of Chinese; with ``sentences``, the
    included sentences' cosines from the sentence vectors (when built)."""
    side = [h for run in retrieval.runs.values() for h in run.hits if h.path or h.side_text]
    ctx = kb.config.context
    ids = list(evidence_ids) if evidence_ids is not None else [f.chunk_id for f in retrieval.fused]
    packed = pack(slots, ids, side, kb.chunks, max_chars, ctx.max_wiki_chars, ctx.excerpt_chars,
                  labels=context_labels(english))
    return dataclasses.replace(packed, closest=closest_included(retrieval, packed.included),
                               nearness=included_nearness(retrieval, kb, packed.included) if sentences else {})


def included_nearness(retrieval: Retrieval, kb: KnowledgeBase, included: Sequence[str]) -> dict[str, float]:
    """The included chunks' sentences -> their cosine with the question as the dense channel embedded it (its
    cached vector: no second embedding); empty without sentence vectors or when the dense channel did not run."""
    if kb.sentences is None:
        return {}
    query = question_vector(kb, retrieval.runs.get(DENSE_CHANNEL))
    if query is None:
        return {}
    return kb.sentences.nearness({cid: chunk_sentences(kb.chunks[cid].text) for cid in included if cid in kb.chunks},
                                 query)


def closest_included(retrieval: Retrieval, included: Sequence[str]) -> str | None:
    """The included chunk the dense channel ranked first, None when it did not run or ranked none of them."""
    run = retrieval.runs.get(DENSE_CHANNEL)
    kept = set(included)
    return next((h.chunk_id for h in run.hits if h.chunk_id in kept), None) if run is not None else None


def pack(
    slots: dict[str, Any],
    fused_ids: Sequence[str],
    side_hits: Sequence[Hit],
    chunks: Mapping[str, Chunk],
    max_chars: int,
    max_wiki_chars: int = 600,
    excerpt_chars: int = 240,
    labels: ContextLabels = CHINESE,
) -> Packed:
    """Pure packing of already retrieved material (see the module docstring for the numbering)."""
    evidence, duplicates = _unique_evidence(fused_ids, chunks)
    budget = max_chars
    slot_block = _fit(_slot_drafts(slots, chunks, labels), budget)
    budget -= _used(slot_block)
    relations = _fit(_relation_drafts(side_hits, chunks, labels), budget)
    budget -= _used(relations)
    wiki = _fit(_wiki_drafts(side_hits, chunks, labels), min(budget, max_wiki_chars))
    budget -= _used(wiki)
    kept, omitted = _fit_evidence(evidence, chunks, budget, labels)
    drafts = [*slot_block, *relations, *wiki, *kept]
    numbers = _number([d.chunk_id for d in kept], drafts)
    pieces = [_render(d, numbers) for d in drafts]
    return Packed(
        text="\n\n".join(p.text for p in pieces),
        pieces=pieces,
        included=[str(d.chunk_id) for d in kept],
        omitted=omitted + duplicates,
        citations=[_citation(n, chunks[cid], excerpt_chars, labels) for cid, n in numbers.items()],
    )


def _unique_evidence(fused_ids: Sequence[str], chunks: Mapping[str, Chunk]) -> tuple[list[str], list[str]]:
    """Fused ids that exist, without repeated ids or repeated texts (copies of one passage)."""
    seen_ids: set[str] = set()
    seen_texts: set[str] = set()
    unique: list[str] = []
    duplicates: list[str] = []
    for cid in fused_ids:
        chunk = chunks.get(cid)
        if chunk is None or cid in seen_ids:
            continue
        seen_ids.add(cid)
        key = "".join(chunk.text.split())
        if key in seen_texts:
            duplicates.append(cid)
            continue
        seen_texts.add(key)
        unique.append(cid)
    return unique, duplicates


def _slot_drafts(slots: dict[str, Any], chunks: Mapping[str, Chunk], labels: ContextLabels) -> list[_Draft]:
    sources = slot_sources(slots)
    refs: list[str] = []
    lines = [labels.key_points]
    for key, label in labels.slots.items():
        value = slots.get(key)
        if not value or isinstance(value, dict):
            continue
        if isinstance(value, list):
            shown = labels.list_separator.join(f"{i}. {v}" if key == "steps" else str(v)
                                               for i, v in enumerate(value, 1))
        else:
            shown = str(value)
        mark = ""
        if sources.get(key) in chunks:
            if sources[key] not in refs:
                refs.append(sources[key])
            mark = _placeholder(refs.index(sources[key]))
        lines.append(f"{label}{labels.colon}{shown}{mark}")
    return [_Draft("slots", refs[0] if refs else None, "\n".join(lines), tuple(refs))] if len(lines) > 1 else []


def _relation_drafts(hits: Sequence[Hit], chunks: Mapping[str, Chunk], labels: ContextLabels) -> list[_Draft]:
    seen: set[tuple[str, ...]] = set()
    drafts: list[_Draft] = []
    for hit in sorted((h for h in hits if h.path and h.chunk_id in chunks), key=lambda h: h.rank):
        if hit.path in seen:
            continue
        seen.add(hit.path)
        drafts.append(_Draft("relation", hit.chunk_id, labels.relation + labels.path(hit.path)))  # belongs_to → 隶属
        if len(drafts) == MAX_RELATIONS:
            break
    return drafts


def _wiki_drafts(hits: Sequence[Hit], chunks: Mapping[str, Chunk], labels: ContextLabels) -> list[_Draft]:
    seen: set[str] = set()
    drafts: list[_Draft] = []
    for hit in sorted((h for h in hits if h.side_text and h.chunk_id in chunks), key=lambda h: h.rank):
        key = hit.page_id or hit.side_text
        if key in seen:
            continue
        seen.add(key)
        head = labels.wiki.format(title=hit.page_id or labels.untitled)
        drafts.append(_Draft("wiki", hit.chunk_id, head + " ".join(hit.side_text.split())))
    return drafts


def _fit(drafts: Sequence[_Draft], budget: int) -> list[_Draft]:
    """The drafts that fit, in order; one that does not fit is skipped, smaller later ones may still fit."""
    kept: list[_Draft] = []
    for draft in drafts:
        if draft.size <= budget:
            kept.append(draft)
            budget -= draft.size
    return kept


def _used(drafts: Sequence[_Draft]) -> int:
    return sum(d.size for d in drafts)


def _evidence_body(chunk: Chunk, labels: ContextLabels, text: str) -> str:
    """Where the evidence is (breadcrumb, the document header: whose figures these are, and the locator), then
    its ``text`` (a form's fields as "label：value" lines)."""
    where = " · ".join(part for part in (chunk.breadcrumb or chunk.title, chunk.context) if part)
    if chunk.locator:
        where += labels.locator_frame.format(locator=labels.locator(chunk.locator))
    return f"{where}\n{form_text(text) or text}"


def _fit_evidence(ids: Sequence[str], chunks: Mapping[str, Chunk], budget: int,
                  labels: ContextLabels) -> tuple[list[_Draft], list[str]]:
    """Evidence drafts in fused order within the budget; the first one is truncated rather than lost.

    The last sentence a chunk's window cut is completed from the next chunk (answer/window_ends.py): in the first
    ``COMPLETED_FIRST`` chunks, which the answer quotes, before later chunks are fitted; in the others with what
    the budget has left, so that it never takes a chunk's place."""
    kept: list[_Draft] = []
    omitted: list[str] = []
    for cid in ids:
        chunk = chunks[cid]
        text = completed(chunk, chunks) if len(kept) < COMPLETED_FIRST else chunk.text.strip()
        draft = _Draft("evidence", cid, _evidence_body(chunk, labels, text))
        if draft.size <= budget:
            kept.append(draft)
            budget -= draft.size
        elif not kept and budget - (draft.size - len(draft.body)) >= MIN_TRUNCATED:
            room = budget - (draft.size - len(draft.body)) - 1
            kept.append(_Draft("evidence", cid, draft.body[:room] + "…"))
            budget = 0
        else:
            omitted.append(cid)
    for i, draft in enumerate(kept[COMPLETED_FIRST:], COMPLETED_FIRST):
        chunk = chunks[str(draft.chunk_id)]
        whole = _evidence_body(chunk, labels, completed(chunk, chunks))
        extra = len(whole) - len(draft.body)
        if 0 < extra <= budget:
            kept[i] = _Draft("evidence", draft.chunk_id, whole)
            budget -= extra
    return kept, omitted


def _number(evidence_ids: Sequence[str | None], drafts: Sequence[_Draft]) -> dict[str, int]:
    """Chunk id -> citation number: evidence in fused order first, then chunks only side pieces name."""
    numbers: dict[str, int] = {}
    order = [*evidence_ids, *(cid for d in drafts for cid in (*d.refs, d.chunk_id))]
    for cid in order:
        if cid is not None and cid not in numbers:
            numbers[cid] = len(numbers) + 1
    return numbers


def _render(draft: _Draft, numbers: Mapping[str, int]) -> Piece:
    body = draft.body
    for i, cid in enumerate(draft.refs):
        body = body.replace(_placeholder(i), f"[{numbers[cid]}]")
    n = numbers.get(draft.chunk_id) if draft.chunk_id else None
    text = body if draft.kind == "slots" else f"[{n}] {body}"
    return Piece(n, draft.kind, draft.chunk_id, len(text), text)


def _citation(n: int, chunk: Chunk, excerpt_chars: int, labels: ContextLabels) -> Citation:
    """A citation as shown: its locator in the reader's language (the chunk keeps the stored form)."""
    text = " ".join(chunk.text.split())
    excerpt = text if len(text) <= excerpt_chars else text[: excerpt_chars - 1] + "…"
    return Citation(n, chunk.chunk_id, chunk.doc_id, chunk.title, chunk.breadcrumb, labels.locator(chunk.locator),
                    excerpt)
