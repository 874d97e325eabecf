"""Liked answers from the feedback logs as FAQ entries: what `lambdarag faq promote` adds.

A request qualifies when its net rating (ups minus downs in ratings.jsonl) reaches ``min_rating``, it was
answered from the knowledge base (found, not itself an FAQ answer), it was asked at or after ``since``, and the
query log kept its text (``feedback.query_text: keep``). The entry's question is the condensed question (a
follow-up's own words would not stand alone), its answer the logged answer, its citations the chunks the answer
cited, with their [n], and its source the cited documents' titles.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lambdarag.errors import InputError
from lambdarag.faq.store import FaqEntry, new_entry
from lambdarag.feedback.log import QUERY_LOG, RATINGS_LOG, read_log_family
from lambdarag.records import Chunk

SOURCE_SEPARATOR = "；"


@dataclass
class Promotion:
    """Entries to add, and the liked requests left out with why."""

    entries: list[FaqEntry] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)  # request id -> reason


def parse_since(text: str | None) -> datetime | None:
    """``2024-05-01`` or ``2024-05-01T08:00`` (UTC unless it says otherwise)."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise InputError(f"--since {text!r} is not a date", "write YYYY-MM-DD or YYYY-MM-DDTHH:MM") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def net_ratings(feedback_dir: Path) -> dict[str, int]:
    """Request id -> ups minus downs."""
    net: dict[str, int] = {}
    for record in read_log_family(feedback_dir / RATINGS_LOG):
        rid = str(record.get("request_id"))
        vote = {"up": 1, "down": -1}.get(str(record.get("rating")), 0)
        net[rid] = net.get(rid, 0) + vote
    return net


def promote(feedback_dir: Path, chunks: Mapping[str, Chunk], since: datetime | None = None,
            min_rating: int = 1) -> Promotion:
    """FAQ entries from the liked answers of the logs (the store skips the ones already there)."""
    net = net_ratings(feedback_dir)
    out = Promotion()
    for record in read_log_family(feedback_dir / QUERY_LOG):
        rid = str(record.get("request_id"))
        if net.get(rid, 0) < min_rating or rid in out.left_out:
            continue
        reason = _unusable(record, since)
        if reason:
            out.left_out[rid] = reason
            continue
        out.entries.append(_entry(record, chunks))
    return out


def _unusable(record: Mapping[str, Any], since: datetime | None) -> str | None:
    question, answer = record.get("condensed") or record.get("query"), record.get("answer")
    if not record.get("found") or record.get("answer_method") in ("faq", "not_found"):
        return f"answered {record.get('answer_method')!r}, not from the knowledge base"
    if not isinstance(question, str) or not question or question.startswith("sha256:"):
        return "the query log holds no question text (feedback.query_text is hash or drop)"
    if not isinstance(answer, str) or not answer.strip():
        return "the query log holds no answer text (logged before answers were logged, or dropped)"
    if since is not None:
        try:
            asked = datetime.fromisoformat(str(record.get("time")))
        except ValueError:
            return "no readable time"
        if asked < since:
            return "asked before --since"
    return None


def _entry(record: Mapping[str, Any], chunks: Mapping[str, Chunk]) -> FaqEntry:
    ids = [str(c) for c in record.get("citations") or []]
    numbers = record.get("citation_numbers") or list(range(1, len(ids) + 1))
    citations = []
    for n, cid in zip(numbers, ids, strict=False):
        chunk = chunks.get(cid)
        citations.append({"n": int(n), "chunk_id": cid, "doc_id": chunk.doc_id if chunk else cid.split("#")[0],
                          "title": chunk.title if chunk else "", "breadcrumb": chunk.breadcrumb if chunk else "",
                          "locator": chunk.locator if chunk else ""})
    titles = list(dict.fromkeys(str(c["title"] or c["doc_id"]) for c in citations))
    return new_entry(str(record.get("condensed") or record.get("query")), str(record["answer"]),
                     source=SOURCE_SEPARATOR.join(titles)[:500], citations=citations, origin="promoted",
                     request_id=str(record.get("request_id")))
