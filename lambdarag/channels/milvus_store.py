"""The Milvus side of retrieval.backend: milvus: the connection, one collection per domain behind an alias, searches.

A domain's rows (chunk id, doc id, the indexed text with its contextual header, BM25 sparse vector made by
Milvus's BM25 function, dense vector, metadata) live in collection ``<alias>__v<stamp>``; queries go to the
alias ``<collection_prefix><domain>``. A build compares the collection's parameters (a collection property)
with the config's: when they agree it upserts the rows whose content hash changed and deletes the rows of
chunks that are gone; otherwise it fills a fresh collection and switches the alias to it in one call, keeping
the previous collection until the next rebuild (queries in flight finish on it; alter_alias back undoes it).
Rows are built in lambdarag.channels.milvus_rows; pymilvus is imported only when a domain uses Milvus.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from lambdarag.config.load import secret
from lambdarag.errors import IndexMismatchError, LambdaRAGError, ServiceError, rebuild_hint
from lambdarag.models.health import Outcome

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain

INSTALL_HINT = "install the milvus extra: pip install -e '.[milvus]' (or set retrieval.backend: local)"
PARAMS_KEY = "lambdarag.params"  # the collection property holding what it was built with
SCHEMA_VERSION = 1
PROBE_TIMEOUT_S = 1.0
NOT_LOADED = 101  # Milvus's error code for a search of a collection that is not loaded
_STAMP_RE = r"__v\d{14}_\d+"
_clients: dict[tuple[int, str, str, str], Any] = {}  # (pid, uri, db, token digest) → MilvusClient
_clients_lock = threading.Lock()


def require_pymilvus(lite_file: bool = False) -> ModuleType:
    """pymilvus (and milvus-lite for a .db file), or the one-line error naming the install command."""
    try:
        pymilvus = importlib.import_module("pymilvus")
        if lite_file:
            importlib.import_module("milvus_lite")
    except ImportError as exc:
        raise LambdaRAGError(f"retrieval.backend is milvus but {exc.name or 'pymilvus'} is not installed",
                             INSTALL_HINT) from None
    return pymilvus


@dataclass(frozen=True)
class Target:
    """Where one domain's collection lives."""

    uri: str  # an absolute .db path (milvus-lite in this process) or a server URL
    db_name: str
    alias: str
    token: str | None

    @property
    def lite_file(self) -> bool:
        return "://" not in self.uri

    def where(self) -> str:
        """The address for messages (never the token)."""
        return f"{self.uri}{'/' + self.db_name if self.db_name else ''} alias {self.alias}"


def collection_alias(prefix: str, domain_name: str) -> str:
    """prefix + domain name in the letters Milvus allows ('-' becomes '_', plus a digest so names stay apart)."""
    safe = re.sub(r"[^A-Za-z0-9_]", "_", domain_name)
    if safe != domain_name:
        safe += "_" + hashlib.sha256(domain_name.encode()).hexdigest()[:6]
    return prefix + safe


def target(domain: Domain) -> Target:
    """The domain's Milvus target from retrieval.milvus ("" = index/milvus.db; relative .db paths: domain folder)."""
    cfg = domain.config.retrieval.milvus
    uri = cfg.uri.strip() or str(domain.index_dir / "milvus.db")
    if "://" not in uri:
        path = Path(uri)
        uri = str(path if path.is_absolute() else (domain.root / path).resolve())
    return Target(uri, cfg.db_name, collection_alias(cfg.collection_prefix, domain.name), secret(cfg.token_env))


def client(where: Target, timeout_s: float) -> Any:
    """The process's MilvusClient for ``where`` (one per process: gRPC channels do not survive a fork)."""
    pymilvus = require_pymilvus(where.lite_file)
    # failures reach the caller as exceptions and are reported (trace, /readyz, the build line); pymilvus would
    # also log each one with its traceback, once per failed search while a server is down
    logging.getLogger("pymilvus").setLevel(logging.CRITICAL)
    token_tag = hashlib.sha256((where.token or "").encode()).hexdigest()[:8]
    key = (os.getpid(), where.uri, where.db_name, token_tag)
    with _clients_lock:
        if key not in _clients:
            if where.lite_file:
                Path(where.uri).parent.mkdir(parents=True, exist_ok=True)
            try:
                _clients[key] = pymilvus.MilvusClient(uri=where.uri, token=where.token or "", db_name=where.db_name,
                                                      timeout=timeout_s)
            except Exception as exc:  # pymilvus raises MilvusException, grpc or OS errors alike
                raise unreachable(where, exc, opening=True) from None
        return _clients[key]


def forget_client(where: Target) -> None:
    """Close and drop this process's client for ``where`` (tests, and a server that went away for good)."""
    with _clients_lock:
        for key in [k for k in _clients if k[0] == os.getpid() and k[1] == where.uri and k[2] == where.db_name]:
            try:
                _clients.pop(key).close()
            except Exception:  # closing a client of a dead server may raise; it is dropped either way
                continue


def unreachable(where: Target, exc: BaseException, opening: bool = False) -> ServiceError:
    """The error for a Milvus call that failed, naming the address and the cause in one line."""
    reason = " ".join(str(getattr(exc, "message", "") or exc).split())[:300]
    if opening and where.lite_file:
        hint = ("a milvus-lite file is open in one process at a time (a server worker or a build may hold it): "
                "for several processes run `milvus-lite server` or Milvus Standalone and set retrieval.milvus.uri")
    else:
        hint = ("check that the server runs, that retrieval.milvus.uri / token_env are right and that it answers "
                "within the channel's budget (retrieval.channels.<name>.timeout_s; milvus-lite slows past ~10^4 "
                "rows: docs/SCALING.md)")
    return ServiceError(f"Milvus at {where.where()} failed ({type(exc).__name__}: {reason})", hint)


def collection_params(domain: Domain, dim: int, embedding: Mapping[str, object] | None,
                      analyzer: Mapping[str, Any]) -> dict[str, Any]:
    """What a collection is built with: a change to any of these needs a fresh collection, not upserts."""
    cfg = domain.config.retrieval.milvus
    return {
        "schema": SCHEMA_VERSION,
        "analyzer": cfg.analyzer,
        "analyzer_params": dict(analyzer),
        "dim": dim,
        "embedding": dict(embedding) if embedding else None,
        "dense_index": cfg.dense_index,
        "dense_params": dict(cfg.dense_params),
        "bm25": [cfg.bm25_k1, cfg.bm25_b],
    }


def current_collection(cl: Any, alias: str) -> tuple[str, dict[str, Any]] | None:
    """(collection the alias points at, its build parameters), or None when no build collection carries it."""
    # asked per build collection: describing a missing alias would log a pymilvus error with a traceback
    pointed = [name for name in build_collections(cl, alias) if alias in cl.list_aliases(name).get("aliases", [])]
    if not pointed:
        return None
    info = cl.describe_collection(pointed[0])
    try:
        params = json.loads(info.get("properties", {}).get(PARAMS_KEY, "null")) or {}
    except ValueError:
        params = {}
    return pointed[0], params


def new_collection_name(alias: str) -> str:
    """``<alias>__v<time>_<n>``: the stamp sorts by time, so the newest build is the last name."""
    return f"{alias}__v{time.strftime('%Y%m%d%H%M%S')}_{time.monotonic_ns() % 1_000_000}"


def build_collections(cl: Any, alias: str) -> list[str]:
    """Every collection a build made for ``alias`` (current, previous and abandoned ones)."""
    pattern = re.compile(re.escape(alias) + _STAMP_RE)
    return sorted(name for name in cl.list_collections() if pattern.fullmatch(name))


def switch_alias(cl: Any, alias: str, collection: str, previous: str | None) -> list[str]:
    """Point ``alias`` at ``collection`` in one call; drop every older build collection except ``previous``."""
    if previous is None:
        cl.create_alias(collection, alias)
    else:
        cl.alter_alias(collection, alias)
    dropped = [name for name in build_collections(cl, alias) if name not in (collection, previous)]
    for name in dropped:
        cl.drop_collection(name)
    return dropped


def existing_hashes(cl: Any, collection: str, batch: int) -> dict[str, str]:
    """chunk id → content hash of every row of ``collection``."""
    out: dict[str, str] = {}
    iterator = cl.query_iterator(collection, batch_size=min(batch, 16_384), filter="", output_fields=["hash"])
    try:
        while rows := iterator.next():
            out.update((str(r["chunk_id"]), str(r["hash"])) for r in rows)
    finally:
        iterator.close()
    return out


def in_batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass(frozen=True)
class SyncReport:
    """What one build did to the collection."""

    collection: str
    mode: str  # "rebuild" (fresh collection, alias switched) | "incremental" (upserts and deletes)
    upserted: int
    deleted: int
    rows: int
    dropped: tuple[str, ...] = ()


def changes(stored: Mapping[str, str], ids: Sequence[str], hashes: Sequence[str]) -> tuple[list[int], list[str]]:
    """(rows whose content hash differs from the stored one, stored ids no chunk has any more)."""
    changed = [i for i, (cid, digest) in enumerate(zip(ids, hashes, strict=True)) if stored.get(cid) != digest]
    return changed, sorted(set(stored) - set(ids))


def upsert_changed(cl: Any, collection: str, changed: Sequence[int], gone: Sequence[str], total: int,
                   rows: Callable[[Sequence[int]], list[dict[str, Any]]], batch: int) -> SyncReport:
    """Upsert the changed rows and delete the gone ids in place."""
    for part in in_batches(changed, batch):
        cl.upsert(collection, rows(part))
    for id_part in in_batches(gone, batch):
        cl.delete(collection, ids=list(id_part))
    if changed or gone:
        cl.flush(collection)
    return SyncReport(collection, "incremental", len(changed), len(gone), total)


def fill_new(cl: Any, where: Target, schema: Any, index_params: Any, params: Mapping[str, Any], count: int,
             rows: Callable[[Sequence[int]], list[dict[str, Any]]], batch: int,
             previous: str | None) -> SyncReport:
    """A fresh collection with every row, indexed and loaded, then the alias switched to it."""
    name = new_collection_name(where.alias)
    cl.create_collection(name, schema=schema, index_params=index_params,
                         properties={PARAMS_KEY: json.dumps(params, sort_keys=True, ensure_ascii=False)})
    try:
        for part in in_batches(range(count), batch):
            cl.insert(name, rows(part))
        cl.flush(name)
        cl.load_collection(name)
    except BaseException:
        cl.drop_collection(name)
        raise
    dropped = switch_alias(cl, where.alias, name, previous)
    return SyncReport(name, "rebuild", count, 0, count, tuple(dropped))


def check_served(cl: Any, where: Target, wanted: Mapping[str, Any], domain: str, channel: str) -> str:
    """The collection behind the alias, refused (naming the rebuild) when missing or built with other params."""
    found = current_collection(cl, where.alias)
    if found is None:
        raise IndexMismatchError(f"{channel}: Milvus collection alias {where.alias} does not exist at {where.uri}",
                                 rebuild_hint("build", domain))
    name, params = found
    for key, want in wanted.items():
        if params.get(key) != want:
            raise IndexMismatchError(f"{channel}: Milvus collection {name} built with {key}={params.get(key)!r}, "
                                     f"config says {want!r}", rebuild_hint("build", domain))
    return name


class Searcher:
    """One domain's alias, searched with the channel's time budget; the last call's outcome for /readyz."""

    def __init__(self, where: Target, timeout_s: float, connect_timeout_s: float) -> None:
        self.where = where
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.outcome = Outcome()

    def search(self, data: Any, field: str, k: int, params: Mapping[str, Any],
               expr: str | None = None) -> list[tuple[str, float]]:
        """(chunk id, raw distance) of the k best rows; ``expr`` a Milvus filter expression over the metadata."""
        start = time.perf_counter()
        request = {"data": [data], "anns_field": field, "limit": k, "filter": expr or "", "output_fields": ["chunk_id"],
                   "search_params": {"params": dict(params)} if params else {}, "timeout": self.timeout_s}
        try:
            cl = client(self.where, self.connect_timeout_s)
            try:
                result = cl.search(self.where.alias, **request)
            except Exception as exc:
                if getattr(exc, "code", None) != NOT_LOADED:
                    raise
                # a restarted milvus-lite server holds its collections released: load it again, once
                cl.load_collection(self.where.alias, timeout=self.timeout_s)
                result = cl.search(self.where.alias, **request)
        except ServiceError as exc:
            self.outcome.record("error", str(exc), (time.perf_counter() - start) * 1000)
            raise
        except Exception as exc:  # a dead or slow server: the channel degrades, the request goes on
            error = unreachable(self.where, exc)
            self.outcome.record("error", str(error), (time.perf_counter() - start) * 1000)
            raise error from None
        self.outcome.record("ok", ms=(time.perf_counter() - start) * 1000)
        return [(str(hit["entity"]["chunk_id"]), float(hit["distance"])) for hit in (result[0] if result else [])]

    def state(self) -> dict[str, Any]:
        """Probe the server (a cheap call, PROBE_TIMEOUT_S at most) beside the last search's outcome."""
        start = time.perf_counter()
        try:
            version = client(self.where, self.connect_timeout_s).get_server_version(timeout=PROBE_TIMEOUT_S)
        except Exception as exc:  # any failure to answer is "unreachable"; the reason says which
            reason = str(exc) if isinstance(exc, ServiceError) else str(unreachable(self.where, exc))
            return {"state": "unreachable", "uri": self.where.uri, "alias": self.where.alias, "error": reason,
                    "calls": self.outcome.report()}
        calls = self.outcome.report()
        return {"state": "degraded" if calls["state"] == "degraded" else "ok", "uri": self.where.uri,
                "alias": self.where.alias, "server": str(version),
                "probe_ms": round((time.perf_counter() - start) * 1000, 2), "calls": calls}
