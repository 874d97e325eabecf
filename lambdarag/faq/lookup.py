"""The pipeline's FAQ step: the best curated entry for a question, and the citations an answer from it carries."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lambdarag.config.schema import FaqConfig
from lambdarag.errors import InputError
from lambdarag.faq.match import QuestionKeys, best_match, question_keys
from lambdarag.faq.store import FaqEntry, FaqStore
from lambdarag.records import Chunk, Citation
from lambdarag.text.tokenizer import Tokenizer

FAQ_DOC_PREFIX = "faq/"  # the doc id of an entry's own citation (an entry without cited chunks)


@dataclass(frozen=True)
class FaqLookup:
    """What the FAQ step decided: the entry that answers (None on a miss), the best entry's id and score."""

    entry: FaqEntry | None
    best_id: str | None
    score: float
    threshold: float
    entries: int
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"hit": self.entry is not None, "id": self.best_id, "score": self.score,
                                "threshold": self.threshold, "entries": self.entries, "error": self.error}
        if self.entry is not None:
            data.update(origin=self.entry.origin, source=self.entry.source)
        return data


def faq_path(root: Path, config: FaqConfig) -> Path:
    return root / config.file


def has_faq(root: Path, config: FaqConfig) -> bool:
    """The FAQ is on and its file exists."""
    return config.enabled and faq_path(root, config).is_file()


@functools.lru_cache(maxsize=8192)
def _keys(question: str, tokenizer: Tokenizer) -> QuestionKeys:
    return question_keys(question, tokenizer)


def faq_lookup(root: Path, config: FaqConfig, tokenizer: Tokenizer, question: str) -> FaqLookup | None:
    """The best entry of the domain's FAQ for ``question``; None when the FAQ is off or has no entries. A file
    that does not parse is reported (``error``) and the question goes on to retrieval."""
    if not config.enabled:
        return None
    try:
        entries = FaqStore(faq_path(root, config)).entries()
    except InputError as exc:
        return FaqLookup(None, None, 0.0, config.threshold, 0, error=str(exc))
    if not entries:
        return None
    match = best_match(_keys(question, tokenizer), [_keys(e.question, tokenizer) for e in entries],
                       config.threshold)
    best = entries[match.index] if match.index is not None else None
    return FaqLookup(best if match.hit else None, best.id if best else None, match.score, config.threshold,
                     len(entries))


def faq_citations(entry: FaqEntry, chunks: Mapping[str, Chunk], excerpt_chars: int) -> list[Citation]:
    """The entry's cited chunks (with today's text where the chunk is still indexed), or the entry itself as its
    one source when it cites none."""
    out = []
    for cite in entry.citations:
        chunk = chunks.get(str(cite["chunk_id"]))
        text = " ".join(chunk.text.split())[:excerpt_chars] if chunk else str(cite.get("excerpt", ""))
        out.append(Citation(
            n=int(cite["n"]), chunk_id=str(cite["chunk_id"]),
            doc_id=chunk.doc_id if chunk else str(cite.get("doc_id", "")),
            title=chunk.title if chunk else str(cite.get("title", "")),
            breadcrumb=chunk.breadcrumb if chunk else str(cite.get("breadcrumb", "")),
            locator=chunk.locator if chunk else str(cite.get("locator", "")), excerpt=text))
    if out:
        return out
    return [Citation(n=1, chunk_id=f"faq:{entry.id}", doc_id=FAQ_DOC_PREFIX + entry.id, title=entry.source or "FAQ",
                     breadcrumb="FAQ", locator=entry.source, excerpt=entry.answer[:excerpt_chars])]
