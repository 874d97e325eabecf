"""Sentence vectors: every candidate sentence of every text chunk embedded with the vector channel's model, so that
the extractive answer reads which evidence sentence is closest in meaning to the question at the cost of a look-up
(answer/closest.py). Not a retrieval channel: nothing is searched by it. Which sentences a chunk has is the answer's
to say (answer/units.chunk_sentences): the builder and the reader are given them.

Layout of index/sentences/ (published atomically by manifest.publish, like a channel's folder):
    vectors.npy    float16 (m, dim), L2-normalised; rows offsets[i]..offsets[i+1] are chunk ids[i]'s sentences
    offsets.npy    int64 (n + 1)
    keys.npy       uint64 (m,): each row's sentence digest, checked at read time (a sentence split otherwise
                   since the build is left out, never misread; rebuild after changing the split)
    ids.json       chunk ids
    background.json  the best cosine each everyday question reaches among the sentences (channels/vector_background.py):
                   the not-found line reads a question against the sentences of its evidence (retrieval/off_topic.py)
    manifest.json  embedding backend, model, dim and passage prefix, chunks_hash, and (extra "sentences") one
                   digest of every sentence's cache key: the same index is not written again

Built in the vectors step after the vector channel when embedding.sentences is true, through an embedding cache of
its own (index/.vector-cache/<backend>-<model>-<dim>-<tag>-sentences/, so neither cache's compaction drops the
other's records): a sentence shared by chunks is embedded once, a rebuild embeds only new sentences, a killed build
resumes. Embedding them costs 0.7-0.8 times the CPU of the chunk vectors with the local model (BENCHMARKS.md
"Sentence vectors").
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lambdarag.channels.base import BuildResult
from lambdarag.channels.manifest import (
    Manifest,
    chunks_hash,
    current_chunks,
    publish,
    read_manifest,
    reading,
    refuse_stale,
)
from lambdarag.channels.vector import (
    EmbeddingCache,
    build_embedder,
    embed_into,
    embedding_params,
    passage_key,
    write_vectors,
)
from lambdarag.channels.vector_background import Background, read_background, write_background
from lambdarag.errors import IndexMismatchError, ServiceError, rebuild_hint
from lambdarag.models.embeddings import Embedder, OpenAIEmbedder
from lambdarag.records import Chunk

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain

NAME = "sentences"
FORMAT_VERSION = 1


def sentence_digest(text: str) -> int:
    """The 64-bit digest keys.npy holds for a sentence."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def params(domain: Domain, embedder: Embedder | None = None) -> dict[str, object]:
    """What the manifest records and the loader compares (the ``embedder``'s, else the config's): a change to
    any of these needs a rebuild; the query prefix shapes only query vectors and is left out."""
    cfg = domain.config.embedding
    made = (embedder.name, embedder.model, embedder.dim) if embedder is not None else (cfg.backend, cfg.model, cfg.dim)
    return {k: v for k, v in embedding_params(*made, cfg).items() if k != "query_prefix"}


def build(domain: Domain, chunks: Sequence[Chunk], sentences: Sequence[Sequence[str]], progress: bool | None = None,
          embedder: Embedder | None = None) -> BuildResult:
    """Embed the ``sentences`` (each chunk's, in chunk order) not in the cache yet, then publish vectors.npy,
    offsets.npy, keys.npy, ids.json."""
    if len(sentences) != len(chunks):
        raise ValueError(f"sentences of {len(sentences)} chunks given for {len(chunks)} chunks")
    made = build_embedder(domain, embedder)
    try:
        return _build(domain, chunks, sentences, progress, made)
    finally:
        if embedder is None and isinstance(made, OpenAIEmbedder):
            made.client.close()


def _build(domain: Domain, chunks: Sequence[Chunk], texts: Sequence[Sequence[str]], progress: bool | None,
           embedder: Embedder) -> BuildResult:
    start = time.monotonic()
    prefix = domain.config.embedding.passage_prefix
    flat = [t for sentences in texts for t in sentences]
    keys = [passage_key(prefix, t) for t in flat]
    made, digest = params(domain, embedder), _sentences_hash(keys)
    if _up_to_date(domain, made, chunks_hash(chunks), digest):
        model = f"{embedder.name}/{embedder.model}/{embedder.dim}"
        detail = f"{len(flat)} sentences, 0 embedded (index up to date), {model}"
        return BuildResult(NAME, len(flat), time.monotonic() - start, reused=len(flat), detail=detail)
    folder = EmbeddingCache.folder_for(domain.index_dir, embedder.name, embedder.model, embedder.dim)
    with EmbeddingCache(folder.with_name(folder.name + "-" + NAME), embedder.dim).opened() as cache:
        todo = dict((k, t) for k, t in zip(keys, flat, strict=True) if k not in cache.rows)
        # similar lengths batched together: a batch is padded to its longest sentence
        embed_into(cache, sorted(todo.items(), key=lambda item: len(item[1])), embedder,
                   domain.config.embedding.batch_size, progress, NAME)
        counts = {"chunks": len(chunks), "sentences": len(flat), "embedded": len(todo)}

        def write(out: Path) -> Manifest:
            write_vectors(out, cache, keys, embedder.dim, np.float16)
            offsets = np.cumsum([0, *(len(s) for s in texts)], dtype=np.int64)
            np.save(out / "offsets.npy", offsets)
            np.save(out / "keys.npy", np.array([sentence_digest(t) for t in flat], dtype=np.uint64))
            (out / "ids.json").write_text(json.dumps([c.chunk_id for c in chunks], ensure_ascii=False), "utf-8")
            write_background(out, embedder.embed_queries)
            return Manifest(NAME, FORMAT_VERSION, made, counts, chunks_hash(chunks), extra={"sentences": digest})

        publish(domain.index_dir, NAME, write)
        cache.compact(set(keys))
    detail = f"{len(flat)} sentences, {len(todo)} embedded, {embedder.name}/{embedder.model}/{embedder.dim}"
    return BuildResult(NAME, len(flat), time.monotonic() - start, reused=len(flat) - len(todo), detail=detail)


def _sentences_hash(keys: Sequence[bytes]) -> str:
    """One digest of every sentence's cache key in order: the same chunks split otherwise give another."""
    return hashlib.sha256(b"".join(keys)).hexdigest()


def _up_to_date(domain: Domain, made: dict[str, object], chunks_digest: str, digest: str) -> bool:
    """Whether the published index holds these sentences of these chunks, embedded with these parameters (then
    nothing is embedded, written or published again), as the vector channel's own check does for its chunks."""
    try:
        folder, manifest = read_manifest(domain.index_dir, NAME, domain.name, FORMAT_VERSION, made, chunks_digest)
        # an index built before the background gets one (its sentences all in the cache: none embedded again)
        return manifest.extra.get("sentences") == digest and read_background(folder) is not None
    except (IndexMismatchError, OSError, ValueError):
        return False


class SentenceVectors:
    """A published sentence index, memory-mapped."""

    def __init__(self, ids: Sequence[str], offsets: np.ndarray, keys: np.ndarray, vectors: np.ndarray,
                 background: Background | None = None) -> None:
        self.row_of = {cid: i for i, cid in enumerate(ids)}
        self.offsets, self.keys, self.vectors = offsets, keys, vectors
        self.background = background  # None: an index built before it (the not-found line reads the chunks)

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    def nearness(self, sentences: Mapping[str, Sequence[str]], query: np.ndarray) -> dict[str, float]:
        """Each of the given chunks' sentences (chunk id -> its sentences, as built) -> its cosine with the unit
        ``query`` vector; a sentence whose digest does not match its row (split otherwise than at build time) is
        left out, and so is a chunk not in the index."""
        out: dict[str, float] = {}
        q = np.asarray(query, dtype=np.float32)
        for cid, texts in sentences.items():
            row = self.row_of.get(cid)
            if row is None:
                continue
            start, end = int(self.offsets[row]), int(self.offsets[row + 1])
            if len(texts) != end - start:
                continue
            cosines = self.vectors[start:end].astype(np.float32) @ q
            for i, text in enumerate(texts):
                if int(self.keys[start + i]) == sentence_digest(text):
                    out[text] = max(float(cosines[i]), out.get(text, -1.0))
        return out

    def best(self, chunk_ids: Iterable[str], query: np.ndarray) -> float | None:
        """The highest cosine of the unit ``query`` vector with a sentence of the given chunks (their sentences as
        built), None when none of them is in the index."""
        spans = [(int(self.offsets[r]), int(self.offsets[r + 1])) for r in map(self.row_of.get, chunk_ids)
                 if r is not None]
        rows = np.concatenate([np.arange(a, b) for a, b in spans]) if spans else np.empty(0, dtype=np.int64)
        if not rows.size:
            return None
        return float(np.max(self.vectors[rows].astype(np.float32) @ np.asarray(query, dtype=np.float32)))


def load(domain: Domain, chunks: Sequence[Chunk] | None = None) -> SentenceVectors:
    """Open the published index; refuse one built with another model or from other chunks."""
    rebuild = rebuild_hint(NAME, domain.name)
    if domain.config.embedding.backend == "none":
        raise ServiceError("sentence vectors disabled: embedding.backend is none", "enable a backend")
    folder, manifest = read_manifest(domain.index_dir, NAME, domain.name, FORMAT_VERSION, params(domain))
    refuse_stale(NAME, domain.name, manifest, chunks_hash(current_chunks(domain, chunks)))
    with reading(NAME, domain.name):
        vectors = np.load(folder / "vectors.npy", mmap_mode="r")
        offsets = np.load(folder / "offsets.npy")
        keys = np.load(folder / "keys.npy", mmap_mode="r")
        ids = json.loads((folder / "ids.json").read_text(encoding="utf-8"))
        background = read_background(folder)
    if offsets.shape != (len(ids) + 1,) or keys.shape[0] != vectors.shape[0] or vectors.shape[0] != offsets[-1]:
        raise IndexMismatchError(f"{NAME} index is damaged: {vectors.shape[0]} vectors for {len(ids)} chunks",
                                 rebuild)
    return SentenceVectors(ids, offsets, keys, vectors, background)
