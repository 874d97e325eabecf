"""One build of a domain's Milvus collection (both Milvus channels call it; the second finds nothing to do).

The dictionary is the local BM25 channel's (config terms plus entity names), the vectors the vector channel's
embedding cache (index/.vector-cache/, shared with the local backend: nothing cached is embedded again). Each
channel then publishes a small local index folder (index/milvus-bm25, index/milvus-vector) with its manifest:
where the collection is, what it was built with and the chunks hash, so a stale or moved collection is refused
at load exactly like a stale local index, and a whole `lambdarag build` swaps those folders in at its commit.
The collection itself changes when the channel builds (upserts, or the alias switched to a fresh collection):
Milvus has no transaction spanning our chunk list, so until the commit the served chunk list may be older than
the collection, and the channels drop hits of chunks it does not hold.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdarag.channels import bm25 as local_bm25
from lambdarag.channels import milvus_rows as rows_
from lambdarag.channels import vector as local_vector
from lambdarag.channels.manifest import Manifest, chunks_hash, current_chunks, publish, read_manifest
from lambdarag.channels.milvus_store import (
    Searcher,
    SyncReport,
    changes,
    check_served,
    client,
    collection_params,
    current_collection,
    existing_hashes,
    fill_new,
    require_pymilvus,
    target,
    unreachable,
    upsert_changed,
)
from lambdarag.errors import LambdaRAGError
from lambdarag.ingest.chunkstore import chunk_ids
from lambdarag.progress import iterate
from lambdarag.records import Chunk
from lambdarag.text.tokenizer import Tokenizer

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain
    from lambdarag.models.embeddings import Embedder

FORMAT_VERSION = 1
TERMS_FILE = "terms.txt"


@dataclass(frozen=True)
class Synced:
    """A finished sync: what it did, the dictionary, the collection's parameters, passages newly embedded."""

    report: SyncReport
    terms: list[str]
    params: dict[str, Any]
    embedded: int
    seconds: float


def dense_embedder(domain: Domain, embedder: Embedder | None = None) -> Embedder | None:
    """The embedder whose vectors the collection holds; None when the vector channel is off or has no backend."""
    if domain.config.embedding.backend == "none" or not domain.config.retrieval.channels["vector"].enabled:
        return None
    return local_vector.build_embedder(domain, embedder)


@contextmanager
def vectors_for(domain: Domain, chunks: Sequence[Chunk], embedder: Embedder | None,
                progress: bool | None) -> Iterator[tuple[Any, int]]:
    """(row index → vector list, or None without an embedder; passages embedded now) from the vector cache."""
    if embedder is None:
        yield None, 0
        return
    with local_vector.cached_embeddings(domain, chunks, embedder, progress) as (cache, keys, embedded):
        records = cache.records()

        def vector(i: int) -> list[float]:
            return [float(x) for x in records["vec"][cache.rows[keys[i]]]]

        yield vector, embedded


def sync(domain: Domain, chunks: Sequence[Chunk], progress: bool | None = None,
         embedder: Embedder | None = None) -> Synced:
    """Bring the domain's collection to ``chunks``: upserts and deletes by content hash, or a fresh collection
    behind the alias when the parameters changed (``embedder``: instead of the config's, like vector.build).
    Any Milvus failure is a ServiceError naming the server."""
    start = time.monotonic()
    cfg = domain.config.retrieval.milvus
    where = target(domain)
    pymilvus = require_pymilvus(where.lite_file)
    terms = local_bm25.dictionary(domain, chunks, progress)
    tokenizer = Tokenizer(terms) if cfg.analyzer == "lambdarag" else None
    scalar = [rows_.scalar_row(c, rows_.token_text(tokenizer, c.index_text) if tokenizer else None)
              for c in iterate(chunks, progress, "milvus rows", "chunk")]
    embedder = dense_embedder(domain, embedder)
    try:
        cl = client(where, cfg.timeout_s)
        lite = where.lite_file or "lite" in str(cl.get_server_version()).lower()
        params = collection_params(domain, embedder.dim if embedder else 0, _embedding(domain, embedder),
                                   rows_.analyzer_params(cfg.analyzer, terms, lite))
        with vectors_for(domain, chunks, embedder, progress) as (vector, embedded):

            def rows(indices: Sequence[int]) -> list[dict[str, Any]]:
                return [{**scalar[i], rows_.DENSE: vector(i)} if vector else scalar[i] for i in indices]

            report = _write(domain, cl, pymilvus, params, scalar, rows, lite)
    except LambdaRAGError:
        raise
    except Exception as exc:  # MilvusException, gRPC and OS errors: the build step fails with one line
        raise unreachable(where, exc) from None
    return Synced(report, terms, params, embedded, time.monotonic() - start)


def _embedding(domain: Domain, embedder: Embedder | None) -> dict[str, object] | None:
    if embedder is None:
        return None
    return local_vector.embedding_params(embedder.name, embedder.model, embedder.dim, domain.config.embedding)


def _write(domain: Domain, cl: Any, pymilvus: Any, params: dict[str, Any], scalar: Sequence[dict[str, Any]],
           rows: Callable[[Sequence[int]], list[dict[str, Any]]], lite: bool) -> SyncReport:
    """Upserts and deletes in the served collection when its parameters agree and the policy allows (on
    milvus-lite ``auto`` does not: its BM25 statistics are per segment); else a fresh collection."""
    cfg, where = domain.config.retrieval.milvus, target(domain)
    current = current_collection(cl, where.alias)
    if current is not None and current[1] == params:
        ids, hashes = [r["chunk_id"] for r in scalar], [r["hash"] for r in scalar]
        changed, gone = changes(existing_hashes(cl, current[0], cfg.batch_size), ids, hashes)
        in_place = cfg.incremental == "always" or (cfg.incremental == "auto" and not lite)
        if in_place or not (changed or gone):
            return upsert_changed(cl, current[0], changed, gone, len(ids), rows, cfg.batch_size)
    schema = rows_.schema(pymilvus, cfg.analyzer, params["analyzer_params"], params["dim"])
    indexes = rows_.index_params(cl, params["dim"], cfg.dense_index, cfg.dense_params, params["bm25"])
    return fill_new(cl, where, schema, indexes, params, len(scalar), rows, cfg.batch_size,
                    current[0] if current else None)


def publish_manifest(domain: Domain, channel: str, chunks: Sequence[Chunk], synced: Synced,
                     checked: dict[str, Any], extra: Callable[[Path], None] | None = None) -> None:
    """index/<channel>: the manifest (``checked``: what load compares with the config), the dictionary, and what
    ``extra`` writes into the folder."""
    where = target(domain)

    def write(folder: Path) -> Manifest:
        (folder / TERMS_FILE).write_text("".join(f"{t}\n" for t in synced.terms), encoding="utf-8")
        if extra is not None:
            extra(folder)
        report = synced.report
        return Manifest(
            channel=channel,
            format_version=FORMAT_VERSION,
            params={**checked, "uri": where.uri, "db_name": where.db_name, "alias": where.alias},
            counts={"rows": report.rows, "upserted": report.upserted, "deleted": report.deleted},
            chunks_hash=chunks_hash(chunks),
            extra={"collection": report.collection, "mode": report.mode, "collection_params": synced.params},
        )

    publish(domain.index_dir, channel, write)


def summary(synced: Synced) -> str:
    """The build line's detail."""
    report = synced.report
    what = (f"fresh collection {report.collection}, alias switched" if report.mode == "rebuild"
            else f"{report.upserted} upserted, {report.deleted} deleted in {report.collection}")
    return f"milvus: {what}; {synced.embedded} passages embedded"


def open_served(domain: Domain, channel: str, chunks: Sequence[Chunk] | None, checked: dict[str, Any],
                keys: Sequence[str]) -> tuple[Searcher, Path, frozenset[str]]:
    """The searcher of a Milvus channel whose manifest matches the config (``checked``) and the current chunks,
    and whose collection still has the parameters (``keys`` of them) it was built with; the chunk ids served."""
    where = target(domain)
    chunks = current_chunks(domain, chunks)
    wanted = {**checked, "uri": where.uri, "db_name": where.db_name, "alias": where.alias}
    folder, manifest = read_manifest(domain.index_dir, channel, domain.name, FORMAT_VERSION, wanted,
                                     chunks_hash(chunks))
    built = manifest.extra.get("collection_params") or {}
    cfg = domain.config.retrieval.milvus
    try:
        check_served(client(where, cfg.timeout_s), where, {k: built.get(k) for k in keys}, domain.name, channel)
    except LambdaRAGError:
        raise
    except Exception as exc:  # the server does not answer: the channel is not loaded, /readyz names why
        raise unreachable(where, exc) from None
    budget = domain.config.retrieval.channels[channel.removeprefix("milvus-")].timeout_s
    return Searcher(where, budget, cfg.timeout_s), folder, frozenset(chunk_ids(chunks))
