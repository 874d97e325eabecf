"""Filters (a request's restriction to some documents) and Scope (the documents and chunks it allows), pure.

``parse_filters`` reads the JSON ``filters`` object of a request (every fault a FilterError: 400 in the one error
shape); ``resolve_scope`` turns it into a Scope once per request from the documents' metadata; every channel then
keeps to the Scope's chunks *before* it ranks (``Channel.search(query, k, scope)``), so k allowed hits come back
whenever k allowed ones match. This module sits below options.py (PipelineOptions carries the filters), so it
imports nothing of the package but errors.

Matching — the fields AND together, a list matches any of its values:

- ``doc_ids``: the document id is one of them (exact: the raw path relative to raw/ without its suffix);
- ``title``: the title contains the text (a substring, case and width folded: NFKC + casefold);
- ``source_prefix``: the raw file's path relative to raw/ starts with it ("policies/" or "policies/travel");
- ``date_from`` / ``date_to``: YYYY, YYYY-MM or YYYY-MM-DD, inclusive, a coarse bound covering its whole period
  (from "2023" = 2023-01-01, to "2023" = 2023-12-31); the document's own date (``Chunk.doc_date``, what the
  recency boost reads) must overlap the range, a coarse one over its whole period; an undated document is out;
- ``tags``: the document carries at least one of them (tags come from the ``tags:`` rules of instance.yml and
  the sidecar file raw/<file>.tags: see ingest/tags.py).
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Any

from lambdarag.errors import InputError

FIELDS = ("doc_ids", "title", "source_prefix", "date_from", "date_to", "tags")
MAX_VALUES = 1000  # entries of a list field
MAX_CHARS = 500  # characters of one string value
_DATE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")
DATE_HINT = "write dates as YYYY, YYYY-MM or YYYY-MM-DD"


class FilterError(InputError):
    """A ``filters`` object that cannot be used: a wrong type, an unknown key, a bad date, an empty range."""

    def __init__(self, key: str, message: str, hint: str = "") -> None:
        self.param = f"filters.{key}" if key else "filters"
        super().__init__(f"field {self.param!r}: {message}", hint or f"known filters: {', '.join(FIELDS)}")


@dataclass(frozen=True)
class Filters:
    """What a request may retrieve from; an empty Filters allows everything."""

    doc_ids: tuple[str, ...] = ()
    title: str = ""
    source_prefix: str = ""
    date_from: date | None = None
    date_to: date | None = None
    tags: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return self == Filters()

    def to_dict(self) -> dict[str, Any]:
        """The filters that are set, as JSON (dates ISO)."""
        out: dict[str, Any] = {"doc_ids": list(self.doc_ids), "title": self.title,
                               "source_prefix": self.source_prefix,
                               "date_from": self.date_from.isoformat() if self.date_from else None,
                               "date_to": self.date_to.isoformat() if self.date_to else None,
                               "tags": list(self.tags)}
        return {k: v for k, v in out.items() if v not in (None, "", [])}


def parse_filters(obj: object) -> Filters:
    """A Filters from the JSON value of ``filters`` (None or {} = no filter); a FilterError says what is wrong."""
    if obj is None:
        return Filters()
    if not isinstance(obj, Mapping):
        raise FilterError("", f"must be an object, got {type(obj).__name__}")
    unknown = sorted(str(k) for k in obj if k not in FIELDS)
    if unknown:
        raise FilterError(unknown[0], "unknown filter")
    filters = Filters(
        doc_ids=_strings(obj, "doc_ids"), title=_text(obj, "title"), source_prefix=_text(obj, "source_prefix"),
        date_from=_bound(obj, "date_from", last=False), date_to=_bound(obj, "date_to", last=True),
        tags=_strings(obj, "tags"),
    )
    if filters.date_from and filters.date_to and filters.date_from > filters.date_to:
        raise FilterError("date_from", f"{filters.date_from} is after date_to {filters.date_to}",
                          "give date_from on or before date_to")
    return filters


def _text(obj: Mapping[str, Any], key: str) -> str:
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FilterError(key, f"must be a string, got {type(value).__name__}")
    value = value.strip()
    if not value or len(value) > MAX_CHARS:
        raise FilterError(key, f"must be 1 to {MAX_CHARS} characters, got {len(value)}")
    return value


def _strings(obj: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = obj.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise FilterError(key, "must be a list of non-empty strings")
    if not value or len(value) > MAX_VALUES or any(len(v) > MAX_CHARS for v in value):
        raise FilterError(key, f"must hold 1 to {MAX_VALUES} values of at most {MAX_CHARS} characters")
    return tuple(dict.fromkeys(v.strip() for v in value))


def _bound(obj: Mapping[str, Any], key: str, last: bool) -> date | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise FilterError(key, f"must be a date string, got {type(value).__name__}", DATE_HINT)
    period = date_period(value.strip())
    if period is None:
        raise FilterError(key, f"is not a date: {value[:40]!r}", DATE_HINT)
    return period[1] if last else period[0]


def date_period(value: str) -> tuple[date, date] | None:
    """The first and last day a date "YYYY", "YYYY-MM" or "YYYY-MM-DD" covers; None when it is not one."""
    match = _DATE.match(value)
    if not match:
        return None
    year, month, day = (int(g) if g else None for g in match.groups())
    assert year is not None
    try:
        if month is None:
            return date(year, 1, 1), date(year, 12, 31)
        if day is None:
            return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])
        return date(year, month, day), date(year, month, day)
    except ValueError:
        return None


@dataclass(frozen=True)
class DocumentInfo:
    """What filters read of one document: from its chunks (id, title, raw path, date) and its tags."""

    doc_id: str
    title: str
    source: str
    date: str  # normalised like Chunk.doc_date; "" unknown
    tags: tuple[str, ...]
    chunk_ids: tuple[str, ...]

    @cached_property
    def folded_title(self) -> str:
        """The title case and width folded, once per document (the title filter compares it per request)."""
        return fold(self.title)


def fold(text: str) -> str:
    """Case and width folded, for the title match."""
    return unicodedata.normalize("NFKC", text).casefold()


def matches(filters: Filters, doc: DocumentInfo) -> bool:
    """Whether ``doc`` passes every filter that is set."""
    if filters.doc_ids and doc.doc_id not in filters.doc_ids:
        return False
    if filters.title and fold(filters.title) not in doc.folded_title:
        return False
    if filters.source_prefix and not doc.source.startswith(filters.source_prefix):
        return False
    if filters.tags and not set(filters.tags) & set(doc.tags):
        return False
    return _dated_within(filters, doc.date)


def _dated_within(filters: Filters, value: str) -> bool:
    if filters.date_from is None and filters.date_to is None:
        return True
    period = date_period(value)
    if period is None:
        return False
    return (filters.date_from is None or period[1] >= filters.date_from) and \
        (filters.date_to is None or period[0] <= filters.date_to)


@dataclass(frozen=True)
class Scope:
    """The documents and chunks a request may retrieve (resolved from its Filters); channels rank only these."""

    filters: Filters
    doc_ids: frozenset[str]
    chunk_ids: frozenset[str]
    of_documents: int = 0  # documents in the knowledge base, for the trace
    of_chunks: int = 0

    @property
    def empty(self) -> bool:
        """Nothing is allowed: every channel returns no hits and the answer is "not found"."""
        return not self.chunk_ids

    def allows(self, chunk_id: str) -> bool:
        return chunk_id in self.chunk_ids

    def summary(self) -> dict[str, Any]:
        """The trace's record: the filters and how much of the knowledge base they leave."""
        return {"filters": self.filters.to_dict(), "documents": len(self.doc_ids), "chunks": len(self.chunk_ids),
                "of_documents": self.of_documents, "of_chunks": self.of_chunks}


def resolve_scope(filters: Filters | None, documents: Sequence[DocumentInfo]) -> Scope | None:
    """The Scope of ``filters`` over ``documents``; None when nothing is filtered (every channel searches all)."""
    if filters is None or filters.empty:
        return None
    allowed = [d for d in documents if matches(filters, d)]
    chunks = frozenset(c for d in allowed for c in d.chunk_ids)
    total = sum(len(d.chunk_ids) for d in documents)
    return Scope(filters, frozenset(d.doc_id for d in allowed), chunks, len(documents), total)
