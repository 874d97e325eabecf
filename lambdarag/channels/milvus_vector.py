"""The dense-vector channel on Milvus (retrieval.backend: milvus): the query embedded as by the local channel,
its nearest rows found by the collection's dense index (inner product of unit vectors, i.e. cosine).

The vectors are the local channel's, from its embedding cache (milvus_sync); ``build`` syncs the collection
(nothing to do when the BM25 channel just did) and publishes index/milvus-vector; ``load`` refuses a manifest
built with another embedder or from other chunks, and a collection with other vector parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from lambdarag.channels.base import BuildResult
from lambdarag.channels.manifest import reading
from lambdarag.channels.milvus_rows import DENSE, filter_expression
from lambdarag.channels.milvus_store import Searcher, target
from lambdarag.channels.milvus_sync import dense_embedder, open_served, publish_manifest, summary, sync
from lambdarag.channels.vector import VectorChannel, embedding_params, query_embedder
from lambdarag.channels.vector_background import Background, read_background, write_background
from lambdarag.errors import ServiceError, rebuild_hint
from lambdarag.models.embeddings import OpenAIEmbedder, local_available, local_unavailable_error
from lambdarag.records import Chunk, Hit
from lambdarag.scope import Scope

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain
    from lambdarag.models.embeddings import Embedder

NAME = "vector"
FOLDER = "milvus-vector"
COLLECTION_KEYS = ("schema", "dim", "embedding", "dense_index", "dense_params")


def checked_params(domain: Domain) -> dict[str, Any]:
    """What load compares between the manifest and the config: the embedder and the dense index."""
    cfg, milvus = domain.config.embedding, domain.config.retrieval.milvus
    return {"embedding": embedding_params(cfg.backend, cfg.model, cfg.dim, cfg),
            "dense_index": milvus.dense_index, "dense_params": dict(milvus.dense_params)}


def _refuse_disabled(domain: Domain) -> None:
    cfg = domain.config.embedding
    if cfg.backend == "none" or not domain.config.retrieval.channels[NAME].enabled:
        raise ServiceError("vector channel disabled: embedding.backend is none or the channel is off",
                           "set embedding.backend: local or openai, then " + rebuild_hint("build", domain.name))
    if cfg.backend == "local" and not local_available():
        raise local_unavailable_error()


def build(domain: Domain, chunks: Sequence[Chunk], progress: bool | None = None,
          embedder: Embedder | None = None) -> BuildResult:
    """Sync the collection (vectors from the cache, embedding only what it lacks); publish index/milvus-vector."""
    _refuse_disabled(domain)
    synced = sync(domain, chunks, progress, embedder)
    made = dense_embedder(domain, embedder)
    try:
        background = _background(domain, made) if made is not None and chunks else None
        publish_manifest(domain, FOLDER, chunks, synced, checked_params(domain), background)
    finally:
        if embedder is None and isinstance(made, OpenAIEmbedder):
            made.client.close()
    reused = len(chunks) - synced.embedded
    return BuildResult(NAME, len(chunks), synced.seconds, reused=reused, detail=summary(synced))


def _background(domain: Domain, embedder: Embedder) -> Callable[[Path], None]:
    """What writes the background of everyday questions, each searched in the synced collection."""
    cfg = domain.config.retrieval.milvus
    searcher, params = Searcher(target(domain), cfg.timeout_s, cfg.timeout_s), dict(cfg.search_params)

    def best(rows: np.ndarray) -> np.ndarray:
        found = [searcher.search([float(x) for x in row], DENSE, 1, params) for row in rows]
        return np.array([hits[0][1] if hits else -1.0 for hits in found], dtype=np.float32)

    return lambda folder: write_background(folder, embedder.embed_queries, best)


class MilvusVectorChannel(VectorChannel):
    """The local vector channel's query embedder and /readyz report, with the top-k done by Milvus."""

    def __init__(self, searcher: Searcher, domain: Domain, known: frozenset[str],
                 background: Background | None = None) -> None:
        dim = domain.config.embedding.dim
        super().__init__([], np.zeros((0, dim), dtype=np.float32), lambda: query_embedder(domain.config), background)
        self.searcher = searcher
        self.known = known
        self.search_params = dict(domain.config.retrieval.milvus.search_params)

    def search(self, query: str, k: int, scope: Scope | None = None, expr: str | None = None) -> list[Hit]:
        """Chunks nearest to the query's embedding, ranked 1..k; ``expr`` an optional Milvus filter expression."""
        if k <= 0 or not query.strip():
            return []
        # through the channel's query cache, as the local channel: a question asked again, and the sentence vectors'
        # reading of this one at packing (answer/context.py), are not embedded again
        vector = [float(x) for x in self.queries().embed_query(query)]
        params = {key: max(value, k) if key == "ef" else value for key, value in self.search_params.items()}
        found = self.searcher.search(vector, DENSE, k, params, filter_expression(scope, expr))
        kept = [(cid, score) for cid, score in found if cid in self.known and (scope is None or scope.allows(cid))]
        return [Hit(cid, score, rank, NAME) for rank, (cid, score) in enumerate(kept, start=1)]

    def service_state(self) -> dict[str, Any]:
        """The Milvus server as /readyz reports it (probed), with this channel's last search."""
        return self.searcher.state()


def load(domain: Domain, chunks: Sequence[Chunk] | None = None) -> MilvusVectorChannel:
    """Open the collection behind the domain's alias for vector search."""
    _refuse_disabled(domain)
    searcher, folder, known = open_served(domain, FOLDER, chunks, checked_params(domain), COLLECTION_KEYS)
    with reading(FOLDER, domain.name):
        background = read_background(folder)
    return MilvusVectorChannel(searcher, domain, known, background)
