"""One domain loaded for serving: its chunks, the channels that loaded, a tokenizer, the LLM and rerank clients.

A channel that is missing or stale is recorded in ``channel_errors`` and left out of retrieval;
only a domain without any extracted chunks refuses to load.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from lambdarag.channels import Channel, load_channels, sentence_vectors
from lambdarag.channels.manifest import ChunkList
from lambdarag.channels.sentence_vectors import SentenceVectors
from lambdarag.config.domain import Domain
from lambdarag.config.schema import Config
from lambdarag.errors import IndexMismatchError, LambdaRAGError, rebuild_hint
from lambdarag.ingest.chunkstore import ChunkHeader, chunk_headers
from lambdarag.ingest.store import load_chunks, open_chunks
from lambdarag.ingest.tags import document_table
from lambdarag.models.llm import LLMClient, llm_from_config
from lambdarag.models.rerank import RerankClient, reranker_from_config
from lambdarag.records import Chunk
from lambdarag.retrieval.learned import LearnedRanker, load_ranker, model_path
from lambdarag.retrieval.versions import VersionIndex, build_index
from lambdarag.scope import DocumentInfo, Filters, Scope, resolve_scope
from lambdarag.text.tokenizer import Tokenizer

log = logging.getLogger(__name__)
SCOPES_KEPT = 64  # resolved filters a loaded knowledge base keeps

@dataclass
class KnowledgeBase:
    """Everything the request path reads; immutable in use (a reload builds a new one)."""

    domain: Domain
    config: Config
    chunks: Mapping[str, Chunk]  # by chunk id, in the store's stable order
    channels: dict[str, Channel]
    channel_errors: dict[str, str]
    tokenizer: Tokenizer
    llm: LLMClient | None
    ranker: LearnedRanker | None = None  # the learned ranking stage (index/fusion/model.json), None = weighted RRF
    ranker_note: str = ""  # why there is no ranker (no model, or one refused)
    ranker_refused: bool = False  # a model is installed but could not be used: a degraded path
    reranker: RerankClient | None = None  # None when rerank.enabled is false
    sentences: SentenceVectors | None = None  # the sentence vectors (channels/sentence_vectors.py), None: see the note
    sentences_note: str = "off"  # why there are none: "off", or "unavailable: …" (a degraded path)
    loaded_at: float = field(default_factory=time.time)
    _scopes: dict[Filters, Scope | None] = field(default_factory=dict, repr=False)  # resolved filters (scope())

    @classmethod
    def load(cls, domain: Domain) -> KnowledgeBase:
        """Load a built domain; no chunks at all is an IndexMismatchError naming the build command."""
        chunks, listed = served_chunks(domain)
        channels, errors = load_channels(domain, chunks=listed)
        ranker, ranker_note = load_ranker(domain.index_dir, domain.config)
        refused = ranker is None and domain.config.retrieval.learned and model_path(domain.index_dir).exists()
        sentences, sentences_note = load_sentences(domain, listed, "vector" in channels)
        return cls(
            domain=domain,
            config=domain.config,
            chunks=chunks,
            channels=channels,
            channel_errors=errors,
            tokenizer=query_tokenizer(channels, domain.config),
            llm=llm_from_config(domain.config),
            ranker=ranker,
            ranker_note=ranker_note,
            ranker_refused=refused,
            reranker=reranker_from_config(domain.config),
            sentences=sentences,
            sentences_note=sentences_note,
        )

    @cached_property
    def versions(self) -> VersionIndex:
        """Which documents are versions of one another or repealed, read once from this knowledge base's chunks."""
        return build_index(self.chunks)

    @cached_property
    def headers(self) -> list[ChunkHeader]:
        """Every chunk's id, document, title, raw path and document date (no text), in order."""
        return chunk_headers(self.chunks)

    @cached_property
    def document_spread(self) -> float:
        """1 − documents / chunks: how much a document holds beyond one chunk, over this knowledge base (0 when
        every document is one chunk; the document channel's weight is scaled by it, see retrieve.rank)."""
        documents = len({h.doc_id for h in self.headers})
        return 1.0 - documents / len(self.chunks) if self.chunks else 0.0

    @cached_property
    def documents(self) -> list[DocumentInfo]:
        """Every document's id, title, raw path, date, tags and chunk ids: what request filters read."""
        return document_table(self.headers, self.domain.raw_dir, self.config.tags)

    @cached_property
    def titles(self) -> dict[str, str]:
        """doc id → title (its doc id when it has none) of every document, in order."""
        titles: dict[str, str] = {}
        for header in self.headers:
            titles.setdefault(header.doc_id, header.title or header.doc_id)
        return titles

    def scope(self, filters: Filters | None) -> Scope | None:
        """The documents and chunks ``filters`` allow (None when nothing is filtered); the last SCOPES_KEPT are kept,
        so a page or agent repeating its filters does not resolve them again."""
        if filters is None or filters.empty:
            return None
        scope = self._scopes.get(filters)
        if scope is None:
            scope = resolve_scope(filters, self.documents)
            if len(self._scopes) >= SCOPES_KEPT:
                self._scopes.clear()
            self._scopes[filters] = scope
        return scope

    def doc_of(self, chunk_id: str) -> str:
        """The document of a chunk id ("" for an id this knowledge base does not hold)."""
        chunk = self.chunks.get(chunk_id)
        return chunk.doc_id if chunk is not None else ""

    def entity_aliases(self) -> Mapping[str, Sequence[str]] | None:
        """The entity graph's alias index (normalised alias → node names), None when the graph is not loaded."""
        graph = self.channels.get("graph")
        aliases = getattr(graph, "aliases", None)
        return aliases if isinstance(aliases, Mapping) else None

    def dense_configured(self) -> bool:
        """Whether the domain is configured to have a vector channel (it may still have failed to load)."""
        return self.config.embedding.backend != "none" and self.config.retrieval.channels["vector"].enabled

    def background_fence(self, english: bool) -> tuple[float | None, str]:
        """The top of the vector channel's background for a question's language (retrieval/off_topic.py), or
        None and why there is none."""
        channel = self.channels.get("vector")
        if channel is None:
            return None, "no vector channel loaded"
        background = getattr(channel, "background", None)
        if background is None:
            hint = rebuild_hint("vector", self.domain.name)
            return None, f"the vector index has no background of everyday questions ({hint})"
        fence = background.fence(english)
        return fence, "" if fence is not None else "no background question in the question's language"

    def sentence_reading(self, query: np.ndarray | None, chunk_ids: Sequence[str],
                         english: bool) -> tuple[float, float] | None:
        """The not-found line's finer dense reading (retrieval/off_topic.py): the best cosine of the question's
        ``query`` vector with a sentence of ``chunk_ids`` (its evidence) and the top of the everyday questions'
        background among the sentences; None without sentence vectors, their background or a vector (the chunks
        decide)."""
        background = self.sentences.background if self.sentences is not None else None
        fence = background.fence(english) if background is not None else None
        if self.sentences is None or fence is None or query is None:
            return None  # no sentence scanned where no fence would read it
        top = self.sentences.best(chunk_ids, query)
        return (top, fence) if top is not None else None

    def health(self) -> dict[str, Any]:
        """Per channel "loaded" or its error, the LLM and reranker states, the chunk count; ok = some channel can
        answer."""
        report: dict[str, str] = {name: "loaded" for name in self.channels}
        report.update(self.channel_errors)
        services = self.service_states()
        for name, service in services.items():
            if service["state"] != "ok":
                report[name] = f"loaded, {service['state']}: {service.get('error') or 'its last search failed'}"
        fence, missing = self.background_fence(english=False)
        by_sentence = self.sentences is not None and self.sentences.background is not None
        ready = by_sentence or fence is not None
        topic = "ready" if ready else f"unavailable: {missing}" if self.dense_configured() else "off"
        return {
            "ok": bool(self.channels) and bool(self.chunks),
            "degraded": bool(self.channel_errors) or self.ranker_refused or bool(
                [s for s in services.values() if s["state"] != "ok"]) or ("vector" in self.channels and not ready)
            or self.sentences_note.startswith("unavailable"),
            "channels": report,
            **({"services": services} if services else {}),
            "llm": "configured" if self.llm is not None else "disabled",
            "learned_fusion": self.ranker_status(),
            "rerank": "configured" if self.reranker is not None else "disabled",
            "off_topic_check": topic,  # the not-found line's dense reading (retrieval/off_topic.py)
            **({"off_topic_reading": "sentences" if by_sentence else "chunks"} if ready else {}),
            # the extractive answer's sentence read by meaning (answer/closest.py)
            "sentence_vectors": f"loaded ({len(self.sentences)} sentences)" if self.sentences is not None \
                else self.sentences_note,
            "chunks": len(self.chunks),
            "loaded_at": self.loaded_at,
        }

    def service_states(self) -> dict[str, dict[str, Any]]:
        """The state of each loaded channel that searches a server (the Milvus backend), probed now."""
        states = {}
        for name, channel in self.channels.items():
            probe = getattr(channel, "service_state", None)
            if callable(probe):
                states[name] = probe()
        return states

    def ranker_status(self) -> str:
        """The learned ranking stage as /readyz reports it."""
        if self.ranker is None:
            return self.ranker_note or "no model: weighted RRF"
        heldout = self.ranker.manifest.get("heldout") or {}
        figures = f", held-out MRR {heldout.get('before')} -> {heldout.get('after')}" if heldout else ""
        return f"loaded (trained {self.ranker.manifest.get('created', '?')}{figures})"


def load_sentences(domain: Domain, chunks: Sequence[Chunk], dense: bool) -> tuple[SentenceVectors | None, str]:
    """The sentence vectors, else None and why: "off" (embedding.sentences is false, or there is no vector
    channel to embed the question) or "unavailable: …" (configured but not loadable: a degraded path)."""
    if not domain.config.embedding.sentences:
        return None, "off"
    if not dense:
        return None, "off: no vector channel loaded"
    try:
        return sentence_vectors.load(domain, chunks), ""
    except LambdaRAGError as exc:
        return None, f"unavailable: {exc.message}" + (f" ({exc.hint})" if exc.hint else "")


def served_chunks(domain: Domain) -> tuple[Mapping[str, Chunk], Sequence[Chunk]]:
    """The domain's chunks by id and in order: memory-mapped from processed/chunks.store, or, for a domain extracted
    before the store existed, parsed from chunks.jsonl; none at all is an IndexMismatchError naming the build."""
    stored = open_chunks(domain.processed_dir)
    if stored is not None and len(stored):
        return stored, stored.rows()
    try:
        listed = ChunkList(load_chunks(domain.processed_dir))
    except FileNotFoundError:
        listed = ChunkList()
    if not listed:
        raise IndexMismatchError(f"domain {domain.name!r} has no extracted chunks in {domain.processed_dir}",
                                 rebuild_hint("build", domain.name))
    log.warning("domain %r: no chunk store for its chunks.jsonl, parsed it instead (slower, every text in each "
                "worker's memory); to write one, %s", domain.name, rebuild_hint("extract", domain.name))
    return {c.chunk_id: c for c in listed}, listed


def query_tokenizer(channels: Mapping[str, Channel], config: Config) -> Tokenizer:
    """The BM25 index's tokenizer (its dictionary includes the build's entity names), else config.query.terms."""
    tokenizer = getattr(channels.get("bm25"), "tokenizer", None)
    return tokenizer if isinstance(tokenizer, Tokenizer) else Tokenizer(config.query.terms)
