"""The channel contract and registry.

Every channel module (bm25, vector, graph, wiki, document) defines:
    build(domain: Domain, chunks: Sequence[Chunk], progress: bool | None = None) -> BuildResult
    load(domain: Domain, chunks: list[Chunk] | None = None) -> Channel
                                        # raises IndexMismatchError when missing or stale
and its Channel answers search(query, k, scope=None) -> list[Hit] over chunk ids. With a Scope (lambdarag/scope.py,
a request's filters resolved), a channel ranks only the scope's chunks (the document channel: its documents): it
restricts its candidates before it ranks them, never by trimming its top k afterwards, so k hits come back when k
allowed ones match.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Protocol

import numpy as np

from lambdarag.channels.manifest import ChunkList
from lambdarag.errors import LambdaRAGError, rebuild_hint
from lambdarag.ingest.chunkstore import ChunkRows
from lambdarag.records import Chunk, Hit
from lambdarag.scope import Scope

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain

CHANNEL_MODULES: dict[str, str] = {
    "bm25": "lambdarag.channels.bm25",
    "vector": "lambdarag.channels.vector",
    "graph": "lambdarag.channels.graph",
    "wiki": "lambdarag.channels.wiki",
    "document": "lambdarag.channels.document",
}
# retrieval.backend: milvus puts these channels in a Milvus collection; the others stay local files
BACKEND_MODULES: dict[str, dict[str, str]] = {
    "milvus": {"bm25": "lambdarag.channels.milvus_bm25", "vector": "lambdarag.channels.milvus_vector"},
}


class Channel(Protocol):
    """A loaded, read-only index answering queries with chunk-id hits."""

    name: str

    def search(self, query: str, k: int, scope: Scope | None = None) -> list[Hit]: ...


SCOPES_KEPT = 8  # scopes whose rows a channel keeps


class ScopeRows:
    """A channel's index rows of the scopes it was searched with last: a KnowledgeBase hands out the same Scope
    object for the same filters, so a repeated filter maps its ids to rows once."""

    def __init__(self, row_of: dict[str, int], documents: bool = False) -> None:
        self.row_of = row_of  # chunk id (document id when ``documents``) -> row of the channel's index
        self.documents = documents
        self._kept: list[tuple[Scope, np.ndarray]] = []
        self._lock = threading.Lock()

    def rows(self, scope: Scope) -> np.ndarray:
        """The rows of the scope's ids this index holds, ascending (ids it does not hold are skipped)."""
        with self._lock:
            for kept, rows in self._kept:
                if kept is scope:
                    return rows
        ids = scope.doc_ids if self.documents else scope.chunk_ids
        row_of = self.row_of
        rows = np.fromiter((row_of[i] for i in ids if i in row_of), dtype=np.int64)
        rows.sort()
        with self._lock:
            self._kept = [*self._kept[-(SCOPES_KEPT - 1):], (scope, rows)]
        return rows


def scoped_scores(scores: np.ndarray, rows: np.ndarray, fill: float) -> np.ndarray:
    """``scores`` with every row but ``rows`` set to ``fill`` (0 for BM25: never a hit)."""
    out = np.full(scores.shape, fill, dtype=scores.dtype)
    out[rows] = scores[rows]
    return out


@dataclass(frozen=True)
class BuildResult:
    """What one channel build did, for the closing summary."""

    channel: str
    items: int  # documents / vectors / nodes / pages in the published index
    seconds: float
    reused: int = 0  # items carried over unchanged (incremental builds)
    detail: str = ""


def channel_module(name: str, backend: str = "local") -> ModuleType:
    """The module implementing channel ``name`` for ``backend`` (retrieval.backend); unknown names list the
    registry's keys."""
    if name not in CHANNEL_MODULES:
        raise LambdaRAGError(f"unknown channel {name!r}", f"known channels: {', '.join(CHANNEL_MODULES)}")
    return importlib.import_module(BACKEND_MODULES.get(backend, {}).get(name, CHANNEL_MODULES[name]))


def load_channels(
    domain: Domain, names: Sequence[str] | None = None, chunks: Sequence[Chunk] | None = None
) -> tuple[dict[str, Channel], dict[str, str]]:
    """Load the enabled channels; a channel that cannot load is reported, never fatal.

    ``chunks``, when the caller already read them, saves every channel re-reading chunks.jsonl
    to check its manifest's chunks hash.
    """
    wanted = names if names is not None else [
        n for n, c in domain.config.retrieval.channels.items() if c.enabled
    ]
    loaded: dict[str, Channel] = {}
    errors: dict[str, str] = {}
    if chunks is not None and not isinstance(chunks, ChunkList | ChunkRows):
        chunks = ChunkList(chunks)  # their hash, which every channel's manifest check needs, worked out once
    for name in wanted:
        try:
            loaded[name] = channel_module(name, domain.config.retrieval.backend).load(domain, chunks)
        except LambdaRAGError as exc:
            errors[name] = str(exc)
        except ImportError as exc:
            errors[name] = f"{type(exc).__name__}: {exc}"
        except (OSError, ValueError, EOFError) as exc:  # damage a channel's checks did not foresee: name the rebuild
            errors[name] = f"{name} index of domain {domain.name!r} could not be read ({type(exc).__name__}: " \
                           f"{exc}): {rebuild_hint(name, domain.name)}"
    return loaded, errors
