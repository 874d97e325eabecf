"""Evidence beyond the fused top-k: the best part of the top documents, and what says a document was repealed.

Retrieval ranks chunks, but a question is often about a document: its answer may sit in a sibling chunk
that shares few words with the question besides the topic. Two cases are read further:

- the top document: its chunk matching the question best is added when it beats every retrieved chunk of it;
- a comparison: each side (the top document and its other versions, else the two top documents) gets its
  chunk best matching the question's *aspect* — the keywords left after the words naming the documents and
  the comparison cues (区别, 变化…) — among the chunks retrieval did not bring, so both sides can be quoted.

When an evidence document has been repealed, the chunk that says so is added too, so the answer can say when.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from lambdarag.answer.asked_values import AMOUNT
from lambdarag.answer.context import Packed, Repealed
from lambdarag.answer.sentences import score_text
from lambdarag.answer.slots import document_chunks
from lambdarag.answer.split_tables import extreme_chunk
from lambdarag.answer.table_text import question_grams
from lambdarag.records import Chunk
from lambdarag.retrieval.fusion import normalized_units
from lambdarag.retrieval.versions import VersionIndex
from lambdarag.text.tokenizer import normalize

COMPARE_SIDES = 2
REPEAL_DOCS = 3  # repeal statements are brought for documents among this many top evidence chunks
INSERT_AT = 3  # added chunks are placed after this many fused chunks, so the context budget keeps them
MIN_GAIN = 0.05  # a sibling must beat the retrieved chunks of its document by this much
MIN_ASPECT = 0.3  # share of the aspect keywords a side's chunk must hold
VALUE_TIE = 0.01  # between equal matches, the chunk stating an amount or a duration
NEAR_COPY = 0.8  # share of a chunk's shingles already in the evidence that makes it a near copy (distinct_chunks)
SHINGLE = 8  # characters per shingle: long enough that two texts share one by quoting, not by vocabulary
# words that say two things are compared, not what about (the compare intent keywords are cues too)
COMPARE_CUES = frozenset({"新旧", "新版", "旧版", "两版", "前后", "新", "旧", "异同", "有何", "哪些"})


@dataclass(frozen=True)
class Added:
    """A chunk added to the evidence and why."""

    chunk_id: str
    reason: str
    lead: bool = False  # it holds the answer: it leads the evidence, retrieved or not

    def to_dict(self) -> dict[str, object]:
        return {"chunk_id": self.chunk_id, "reason": self.reason, "lead": self.lead}


def expand_evidence(question: str, keywords: Sequence[str], intent: str, fused_ids: Sequence[str],
                    chunks: Mapping[str, Chunk], versions: VersionIndex | None = None,
                    cues: Collection[str] = ()) -> list[Added]:
    """Chunks to add to the fused evidence: best siblings of the top documents, repeal statements.

    ``cues`` are words that ask for a comparison (the compare intent's keywords), not what it is about.
    """
    retrieved = [c for c in fused_ids if c in chunks]
    docs = top_docs(retrieved, chunks, COMPARE_SIDES if intent == "compare" else 1)
    added: list[Added] = []
    if intent == "compare" and docs:
        others = versions.other_versions(docs[0]) if versions is not None else []
        sides = [docs[0], *others][:COMPARE_SIDES] if others else docs
        aspect = aspect_words(keywords, [_title(d, retrieved, chunks) for d in sides], cues)
        for doc_id in sides:
            best = best_unretrieved(aspect, doc_id, retrieved, chunks)
            if best is not None:
                added.append(Added(best, f"{doc_id}: its part on {'、'.join(aspect)}"))
    elif docs:
        best = best_sibling(question, keywords, docs[0], retrieved, chunks)
        if best is not None:
            added.append(Added(best, f"best part of {docs[0]} for the question"))
        extreme = extreme_chunk(question, retrieved, chunks)
        if extreme is not None:
            added.append(Added(extreme, "the part of a split table holding the extreme asked", lead=True))
    if versions is not None:
        for doc_id in top_docs(retrieved, chunks, REPEAL_DOCS):
            repeal = versions.repeals.get(doc_id)
            if repeal is not None and repeal.chunk_id in chunks:
                added.append(Added(repeal.chunk_id, f"says that {doc_id} was repealed"))
    return _unique(added, set(retrieved))


def _title(doc_id: str, retrieved: Sequence[str], chunks: Mapping[str, Chunk]) -> str:
    mine = [chunks[c] for c in retrieved if chunks[c].doc_id == doc_id] or document_chunks(doc_id, chunks)
    return mine[0].title if mine else doc_id


def _unique(added: Sequence[Added], present: set[str]) -> list[Added]:
    out = []
    for item in added:
        if item.chunk_id not in present or item.lead:
            out.append(item)
            present.add(item.chunk_id)
    return out


def distinct_chunks(ranked_ids: Sequence[str], chunks: Mapping[str, Chunk], count: int,
                    share: float = NEAR_COPY) -> tuple[list[str], list[str]]:
    """The first ``count`` ranked chunks that are not near copies of a chunk before them, and the copies passed over.

    A chunk is a near copy when at least ``share`` of its text's character shingles (SHINGLE characters,
    whitespace dropped) are in the chunks already taken: an overlapping window of the same page, or the same
    article published twice. Packed twice, its text would only use the context budget again; the next ranked
    chunk takes its place. Chunks missing from ``chunks`` are skipped.
    """
    taken: list[str] = []
    copies: list[str] = []
    seen: set[str] = set()
    for cid in ranked_ids:
        if len(taken) >= count:
            break
        chunk = chunks.get(cid)
        if chunk is None or cid in taken:
            continue
        grams = shingles(chunk.text)
        if grams and len(grams & seen) >= share * len(grams):
            copies.append(cid)
            continue
        taken.append(cid)
        seen |= grams
    return taken, copies


def shingles(text: str, size: int = SHINGLE) -> set[str]:
    """The text's character n-grams of ``size``, normalised and without whitespace (the whole text when shorter)."""
    flat = "".join(normalize(text).split())
    return {flat[i : i + size] for i in range(max(1, len(flat) - size + 1))} if flat else set()


def with_added(fused_ids: Sequence[str], added: Sequence[Added]) -> list[str]:
    """The evidence order: the added chunks that lead, the first fused chunks, the other added ones, then the rest of
    the fused chunks."""
    leads = [a.chunk_id for a in added if a.lead]
    extra = [a.chunk_id for a in added if not a.lead]
    rest = [c for c in fused_ids if c not in leads]
    return [*leads, *rest[:INSERT_AT], *extra, *rest[INSERT_AT:]]


def top_docs(fused_ids: Sequence[str], chunks: Mapping[str, Chunk], count: int) -> list[str]:
    """The first ``count`` distinct documents of the fused chunks."""
    docs: list[str] = []
    for cid in fused_ids:
        chunk = chunks.get(cid)
        if chunk is not None and chunk.doc_id not in docs:
            docs.append(chunk.doc_id)
    return docs[:count]


def aspect_words(keywords: Sequence[str], titles: Sequence[str], cues: Collection[str]) -> list[str]:
    """The keywords a comparison is about: not in the compared documents' titles, not a cue word."""
    named = normalize(" ".join(titles))
    cue = {normalize(c) for c in (*cues, *COMPARE_CUES)}
    return [k for k in keywords if normalize(k) not in named and normalize(k) not in cue and not k.isdigit()]


def best_unretrieved(aspect: Sequence[str], doc_id: str, retrieved: Sequence[str],
                     chunks: Mapping[str, Chunk]) -> str | None:
    """The chunk of ``doc_id`` retrieval did not bring that best holds the aspect words (MIN_ASPECT at least).

    Each word weighs 1 / the number of the document's chunks holding it: "北京" in one table says more about
    where the answer is than "人员" in every article.
    """
    siblings = document_chunks(doc_id, chunks)
    if not aspect or not siblings:
        return None
    texts = [normalize(f"{c.breadcrumb} {c.text}") for c in siblings]
    weights = {k: 1.0 / df for k in aspect if (df := sum(1 for t in texts if normalize(k) in t))}
    if not weights:
        return None
    scored = [(aspect_score(weights, c), -i, c.chunk_id) for i, c in enumerate(siblings) if c.chunk_id not in retrieved]
    if not scored:
        return None
    score, _, best = max(scored)  # ties: the earlier chunk
    return best if score >= MIN_ASPECT else None


def aspect_score(weights: Mapping[str, float], chunk: Chunk) -> float:
    """The best weighted share of aspect words one sentence (or table) of the chunk holds, its breadcrumb counted."""
    total = sum(weights.values())
    best = 0.0
    keys = [(normalize(k), w) for k, w in weights.items()]
    for text in normalized_units(chunk):
        best = max(best, sum(w for k, w in keys if k in text) / total)
    return best + (VALUE_TIE if AMOUNT.search(chunk.text) else 0.0)


def best_sibling(question: str, keywords: Sequence[str], doc_id: str, retrieved: Sequence[str],
                 chunks: Mapping[str, Chunk]) -> str | None:
    """The chunk of ``doc_id`` matching the question best, if it beats the document's retrieved chunks."""
    wanted = question_grams(question)
    siblings = document_chunks(doc_id, chunks)
    if len(siblings) < 2:
        return None
    scored = [(score_text(c.index_text, keywords, wanted), -i, c.chunk_id) for i, c in enumerate(siblings)]
    have = max((s for s, _, cid in scored if cid in retrieved), default=0.0)
    best_score, _, best_id = max(scored)  # ties: the earlier chunk
    return best_id if best_score >= have + MIN_GAIN else None


def repealed_in(packed: Packed, versions: VersionIndex) -> dict[str, Repealed]:
    """Documents of the packed context repealed by a statement that is in the context too (for the answer's note)."""
    cited = {c.chunk_id for c in packed.citations}
    out: dict[str, Repealed] = {}
    for citation in packed.citations:
        repeal = versions.repeals.get(citation.doc_id)
        if repeal is not None and repeal.chunk_id in cited and citation.doc_id not in out:
            out[citation.doc_id] = Repealed(citation.title, repeal.since, repeal.chunk_id)
    return out
