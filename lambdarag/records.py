"""Plain records shared by the build path and the request path, their JSON form (json_safe), and Rows: the
read-only sequence that index arrays and the chunk store serve them (and their strings) from.

Chunk ids are the common currency of every retrieval channel: graph and wiki hits are mapped
back to the chunks that mention them, so fusion ranks one id space.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar, overload

T = TypeVar("T")


def make_chunk_id(doc_id: str, n: int) -> str:
    """The id of a document's ``n``-th chunk (from 0): "<doc_id>#<nnnn>"."""
    return f"{doc_id}#{n:04d}"


def chunk_doc_id(chunk_id: str) -> str:
    """The document part of a chunk id "<doc_id>#<nnnn>" ("" for an id without one)."""
    doc_id, sep, _ = chunk_id.rpartition("#")
    return doc_id if sep else ""


def chunk_number(chunk_id: str) -> int | None:
    """The position part of a chunk id "<doc_id>#<nnnn>" (None for an id without one)."""
    _, sep, number = chunk_id.rpartition("#")
    return int(number) if sep and number.isdigit() else None


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
    context: str = ""  # the document's header: its metadata ("Contoso · 10-Q · 2023"), never shown as the excerpt

    @property
    def head(self) -> str:
        """What every chunk of the document is read with: the breadcrumb and the document header, one per line."""
        return "\n".join(part for part in (self.breadcrumb, self.context) if part)

    @property
    def index_text(self) -> str:
        """Text that is indexed and embedded: the head prefixed to the body (contextual chunking)."""
        return f"{self.head}\n{self.text}" if self.head else self.text

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
            "context": self.context,
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
            context=str(data.get("context", "")),
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
class Citation:
    """One numbered source of the context: [n] in the answer points at this chunk."""

    n: int
    chunk_id: str
    doc_id: str
    title: str
    breadcrumb: str
    locator: str
    excerpt: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def json_safe(value: Any) -> Any:
    """Plain JSON types only: tuples become lists, sets sorted lists, dataclasses dicts, others str."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(json_safe(v) for v in value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return json_safe(to_dict())
    if hasattr(value, "__dataclass_fields__"):
        return json_safe(asdict(value))
    if hasattr(value, "items"):
        return {str(k): json_safe(v) for k, v in value.items()}
    return str(value)


class Rows(Sequence[T]):
    """A sequence of items built on access by ``at(row)``, for 0 ≤ row < len, unchecked (a search's path)."""

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def at(self, row: int) -> T:
        """The item at ``row`` (0 ≤ row < len), unchecked."""

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self.at(i) for i in range(*index.indices(len(self)))]
        return self.at(range(len(self))[index])  # IndexError outside; a negative index counts from the end
