"""The BM25 channel on Milvus (retrieval.backend: milvus): Milvus's BM25 function and sparse index over the
domain's collection, queried through its alias within the channel's time budget.

``build`` syncs the collection (lambdarag.channels.milvus_sync) and publishes index/milvus-bm25 (manifest and the
dictionary, so queries are tokenised like the rows); ``load`` refuses a stale manifest or a collection built
with other parameters, exactly like the local channel. A search that fails (server down, time-out) raises,
which the channel runner records as this channel's error for the request: the others still answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lambdarag.channels.base import BuildResult
from lambdarag.channels.manifest import reading
from lambdarag.channels.milvus_rows import SPARSE, filter_expression, token_text
from lambdarag.channels.milvus_store import Searcher
from lambdarag.channels.milvus_sync import TERMS_FILE, open_served, publish_manifest, summary, sync
from lambdarag.records import Chunk, Hit
from lambdarag.scope import Scope
from lambdarag.text.tokenizer import Tokenizer

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain
    from lambdarag.models.embeddings import Embedder

NAME = "bm25"
FOLDER = "milvus-bm25"
COLLECTION_KEYS = ("schema", "analyzer", "analyzer_params", "bm25")  # of the collection's parameters


def checked_params(domain: Domain) -> dict[str, Any]:
    """What load compares between the manifest and the config."""
    cfg = domain.config.retrieval.milvus
    return {"analyzer": cfg.analyzer, "bm25": [cfg.bm25_k1, cfg.bm25_b], "tokenizer": Tokenizer(()).name}


def build(domain: Domain, chunks: Sequence[Chunk], progress: bool | None = None,
          embedder: Embedder | None = None) -> BuildResult:
    """Sync the collection with ``chunks`` and publish index/milvus-bm25."""
    synced = sync(domain, chunks, progress, embedder)
    publish_manifest(domain, FOLDER, chunks, synced, checked_params(domain))
    reused = len(chunks) - synced.report.upserted
    return BuildResult(NAME, len(chunks), synced.seconds, reused=reused, detail=summary(synced))


class MilvusBM25Channel:
    """BM25 hits from Milvus; ``tokenizer`` (the build's dictionary) also serves the pipeline's query keywords."""

    name = NAME

    def __init__(self, searcher: Searcher, tokenizer: Tokenizer, pre_tokenized: bool, known: frozenset[str]) -> None:
        self.searcher = searcher
        self.tokenizer = tokenizer
        self.pre_tokenized = pre_tokenized
        self.known = known

    def search(self, query: str, k: int, scope: Scope | None = None, expr: str | None = None) -> list[Hit]:
        """The k best chunks for ``query``; ``expr`` an optional Milvus filter expression over the metadata."""
        text = token_text(self.tokenizer, query) if self.pre_tokenized else query
        if k <= 0 or not text.strip():
            return []
        found = self.searcher.search(text, SPARSE, k, {}, filter_expression(scope, expr))
        # milvus-lite reports a BM25 hit's distance as -score, Milvus as the score: both are |distance|
        kept = [(cid, abs(distance)) for cid, distance in found
                if cid in self.known and (scope is None or scope.allows(cid))]
        return [Hit(cid, score, rank, NAME) for rank, (cid, score) in enumerate(kept, start=1)]

    def service_state(self) -> dict[str, Any]:
        """The Milvus server as /readyz reports it (probed), with this channel's last search."""
        return self.searcher.state()


def load(domain: Domain, chunks: Sequence[Chunk] | None = None) -> MilvusBM25Channel:
    """Open the collection behind the domain's alias, refusing a stale manifest or changed parameters."""
    searcher, folder, known = open_served(domain, FOLDER, chunks, checked_params(domain), COLLECTION_KEYS)
    with reading(NAME, domain.name):
        terms = (folder / TERMS_FILE).read_text(encoding="utf-8").splitlines()
    pre_tokenized = domain.config.retrieval.milvus.analyzer == "lambdarag"
    return MilvusBM25Channel(searcher, Tokenizer(terms), pre_tokenized, known)
