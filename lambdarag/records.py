"""Plain records shared by the build path and the request path.

Chunk ids are the common currency of every retrieval channel: graph and wiki hits are mapped
back to the chunks that mention them, so fusion ranks one id space.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of a document."""

    chunk_id: str  # "<doc_id>#<n>", stable for unchanged input
    doc_id: str
    title: str
    breadcrumb: str  # "title > section > subsection"
    text: str  # the body, without the breadcrumb
    locator: str = ""  # "第3页" / "第2张幻灯片" / "工作表 收费表" / ""
    is_table: bool = False
    dates: tuple[str, ...] = ()  # normalised "2023", "2023-03" or "2023-03-01"
    source: str = ""  # the raw file, relative to the domain's raw/
    doc_date: str = ""  # the document's own date (published / issued), normalised like ``dates``; "" unknown

    @property
    def index_text(self) -> str:
        """Text that is indexed: the breadcrumb prefixed to the body (contextual chunking)."""
        return f"{self.breadcrumb}\n{self.text}" if self.breadcrumb else self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "title": self.title,
            "breadcrumb": self.breadcrumb,
            "text": self.text,
            "locator": self.locator,
            "is_table": self.is_table,
            "dates": list(self.dates),
            "source": self.source,
            "doc_date": self.doc_date,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chunk:
        return cls(
            chunk_id=str(data["chunk_id"]),
            doc_id=str(data["doc_id"]),
            title=str(data.get("title", "")),
            breadcrumb=str(data.get("breadcrumb", "")),
            text=str(data["text"]),
            locator=str(data.get("locator", "")),
            is_table=bool(data.get("is_table", False)),
            dates=tuple(data.get("dates", ())),
            source=str(data.get("source", "")),
            doc_date=str(data.get("doc_date", "")),
        )


@dataclass(frozen=True)
class Hit:
    """What every channel's search returns: one chunk, its score and rank in that channel."""

    chunk_id: str
    score: float
    rank: int  # 1-based within the channel
    channel: str
    entities: tuple[str, ...] = ()  # entities matched or reached (graph, wiki)
    page_id: str | None = None  # wiki page the hit came from
    path: tuple[str, ...] = ()  # relation path, e.g. ("预算科", "belongs_to", "财务处"); see graph.PATH_LABELS
    side_text: str = ""  # side information for the context (wiki page excerpt)
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Turn:
    """One earlier exchange of a session, as condensation and the LLM see it."""

    question: str
    answer: str


@dataclass(frozen=True)
class PipelineOptions:
    """Per-request knobs: ablations for evaluation and the injectable "today"."""

    channels: tuple[str, ...] | None = None  # None = every enabled channel
    uniform_weights: bool = False  # RRF with weight 1 for every channel instead of the intent's
    gate: bool = True  # corrective gate (rewrite and retry once)
    entity_expansion: bool = True  # entity-enhanced BM25 query
    use_llm: bool = True  # False forces the embedded default even when an LLM is configured
    today: date | None = None  # "today" for temporal expansion; None = the real date
    log: bool = True  # append to the feedback logs
