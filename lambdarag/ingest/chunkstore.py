"""processed/chunks.store: the chunks of chunks.jsonl in a binary file that serving workers memory-map.

A worker parsing 100k chunks from JSON spends seconds and keeps every text in its private memory; from this file it
decodes only the chunk ids at load and builds a chunk when it is asked for, and the text pages stay in the page
cache, shared by every worker. The file is written from the same chunks as chunks.jsonl, right after it, and names
that file's size, mtime and a hash of its ends: a store that does not name the chunks.jsonl beside it (a run that
died between the two, or a chunks.jsonl from before the store) is not used, and the chunks are read from
chunks.jsonl as before.

Layout: MAGIC, the header's length (8 bytes, little-endian), the header (JSON: version, counts, the chunks'
content hash, chunks.jsonl's identity, each section's offset, dtype and shape), then at 64-byte boundaries:
``spans`` (int64, chunks × 10 fields × 2: where each field's string starts and ends in ``blob``; a string two
chunks share, a title say, is stored once), ``flags`` (uint8: is_table) and ``blob`` (UTF-8).
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from lambdarag.errors import IndexMismatchError
from lambdarag.records import Chunk, Rows

MAGIC = b"LRCHUNKS"
STORE_VERSION = 1
FIELDS = ("chunk_id", "doc_id", "title", "breadcrumb", "text", "locator", "dates", "source", "doc_date", "context")
TEXT = FIELDS.index("text")
CACHED = 4096  # chunks a worker keeps built (a request reads a few hundred, most of them again in the next)
_ALIGN = 64
EDGE = 1 << 16  # bytes of each end of chunks.jsonl hashed into its identity


class ChunkHeader(NamedTuple):
    """What the documents table, the version index and the document spread read of a chunk: no text."""

    chunk_id: str
    doc_id: str
    title: str
    source: str
    doc_date: str


def content_hash(chunks: Iterable[Chunk]) -> str:
    """Content hash of a chunk set (ids and indexed text): what every index's manifest records."""
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk.chunk_id.encode("utf-8"))
        digest.update(b"\0")
        digest.update(chunk.index_text.encode("utf-8"))
        digest.update(b"\1")
    return digest.hexdigest()


def file_identity(path: Path) -> dict[str, Any]:
    """Size, mtime and a hash of the first and last EDGE bytes of a file: what the store records of the chunks.jsonl
    it was written with. A rename and a copy that keeps times (cp -a, shutil.copytree) keep all three; another
    chunk list written within one tick of the clock would also need the same size and the same edges."""
    with path.open("rb") as handle:
        stat = os.fstat(handle.fileno())
        digest = hashlib.sha256(handle.read(EDGE))
        if stat.st_size > EDGE:
            handle.seek(max(EDGE, stat.st_size - EDGE))
            digest.update(handle.read(EDGE))
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "edges": digest.hexdigest()}


def _field_values(chunk: Chunk) -> tuple[str, ...]:
    plain = all(d and "\n" not in d and not d.startswith("[") for d in chunk.dates)  # normalised dates always are
    dates = "\n".join(chunk.dates) if plain else json.dumps(list(chunk.dates), ensure_ascii=False)
    return (chunk.chunk_id, chunk.doc_id, chunk.title, chunk.breadcrumb, chunk.text, chunk.locator, dates,
            chunk.source, chunk.doc_date, chunk.context)


def _encode(chunks: Sequence[Chunk]) -> tuple[dict[str, np.ndarray], bytes]:
    """The arrays and the blob of ``chunks``; every string but the texts is stored once."""
    seen: dict[str, tuple[int, int]] = {}
    parts: list[bytes] = []
    size = 0
    spans = np.empty((len(chunks), len(FIELDS), 2), dtype=np.int64)
    for row, chunk in enumerate(chunks):
        for column, value in enumerate(_field_values(chunk)):
            span = None if column == TEXT else seen.get(value)
            if span is None:
                encoded = value.encode("utf-8")
                parts.append(encoded)
                span = (size, size + len(encoded))
                size += len(encoded)
                if column != TEXT:
                    seen[value] = span
            spans[row, column] = span
    flags = np.fromiter((c.is_table for c in chunks), dtype=np.uint8, count=len(chunks))
    return {"spans": spans, "flags": flags}, b"".join(parts)


def write_store(path: Path, chunks: Sequence[Chunk], jsonl: Path) -> None:
    """Write the store of ``chunks`` (those just written to ``jsonl``) atomically: a temporary file, then rename."""
    arrays, blob = _encode(chunks)
    sections: dict[str, Any] = {}
    offset = 0
    payload: list[bytes] = []
    for name, data in [*((n, a.tobytes()) for n, a in arrays.items()), ("blob", blob)]:
        array = arrays.get(name)
        dtype, shape = (array.dtype.str, list(array.shape)) if array is not None else ("|u1", [len(blob)])
        sections[name] = {"offset": offset, "dtype": dtype, "shape": shape}
        padding = -len(data) % _ALIGN
        payload += [data, b"\0" * padding]
        offset += len(data) + padding
    header = json.dumps({"version": STORE_VERSION, "chunks": len(chunks),
                         "digest": content_hash(chunks), "jsonl": file_identity(jsonl), "sections": sections,
                         "data_size": offset}).encode("utf-8")
    head = MAGIC + len(header).to_bytes(8, "little") + header
    _atomic_bytes(path, [head, b"\0" * (-len(head) % _ALIGN), *payload])


def _atomic_bytes(path: Path, parts: Iterable[bytes]) -> None:
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.writelines(parts)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class StoreDamaged(ValueError):
    """The store's file does not read back as what its header says."""


def open_store(path: Path, jsonl: Path) -> StoredChunks | None:
    """The store at ``path`` when it was written with ``jsonl`` as it is now; None when there is none or it names
    another chunks.jsonl. Raises StoreDamaged when the file is not a whole, consistent store."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return None
    with handle:
        if handle.read(len(MAGIC)) != MAGIC:
            raise StoreDamaged("it does not start as a chunk store")
        try:
            header = json.loads(handle.read(int.from_bytes(handle.read(8), "little")))
        except ValueError as exc:
            raise StoreDamaged(f"its header does not read ({exc})") from exc
        if not isinstance(header, dict) or header.get("version") != STORE_VERSION:
            raise StoreDamaged(f"it has format {header.get('version') if isinstance(header, dict) else '?'}, "
                               f"this version reads {STORE_VERSION}")
        try:
            if header.get("jsonl") != file_identity(jsonl):
                return None
        except FileNotFoundError:
            return None
        data_start = handle.tell() + (-handle.tell() % _ALIGN)
        if os.fstat(handle.fileno()).st_size != data_start + int(header.get("data_size", -1)):
            raise StoreDamaged("its size is not the one its header says (truncated or appended to)")
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    return StoredChunks(mapped, data_start, header)


def _section(mapped: mmap.mmap, data_start: int, spec: Any) -> np.ndarray:
    try:
        dtype, shape = np.dtype(spec["dtype"]), tuple(int(n) for n in spec["shape"])
        count = int(np.prod(shape))
        start = data_start + int(spec["offset"])
        if start < data_start or start + count * dtype.itemsize > len(mapped):
            raise StoreDamaged("a section lies outside the file")
        return np.frombuffer(mapped, dtype=dtype, count=count, offset=start).reshape(shape)
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreDamaged(f"a section is malformed ({exc})") from exc


class StoredChunks(Mapping[str, Chunk]):
    """The chunks of a store by id, in the store's order; a chunk is built when asked for (the last CACHED kept).
    Not changed once made."""

    def __init__(self, mapped: mmap.mmap, data_start: int, header: dict[str, Any]) -> None:
        sections = header.get("sections") or {}
        self._spans = _section(mapped, data_start, sections.get("spans"))
        self._flags = _section(mapped, data_start, sections.get("flags"))
        self._blob = _section(mapped, data_start, sections.get("blob"))
        self._mapped = mapped
        self._base = data_start + int(sections["blob"]["offset"])
        self.digest = str(header.get("digest", ""))
        self._check(int(header.get("chunks", -1)))
        self.ids = self._strings(0)
        self._rows = {chunk_id: row for row, chunk_id in enumerate(self.ids)}
        if len(self._rows) != len(self.ids):
            raise StoreDamaged("two chunks have one id")
        self._built = lru_cache(maxsize=CACHED)(self._build)
        self._headers: list[ChunkHeader] | None = None

    def _check(self, count: int) -> None:
        """Refuse arrays that do not fit together (a store written by other code, or damaged)."""
        spans = self._spans
        if spans.shape != (count, len(FIELDS), 2) or self._flags.shape != (count,):
            raise StoreDamaged(f"its tables do not hold {count} chunks")
        if spans.size and (spans.min() < 0 or spans.max() > self._blob.size
                           or np.any(spans[:, :, 0] > spans[:, :, 1])):
            raise StoreDamaged("a string of its table lies outside its text")
        if len(self.digest) != 64:
            raise StoreDamaged("its content hash is missing")

    def _strings(self, column: int) -> list[str]:
        """Every chunk's string of field ``column``, in order (each distinct one decoded once)."""
        mapped, base = self._mapped, self._base
        spans = self._spans[:, column, :]
        try:  # a start names one string (shared strings are stored once), but an empty one may share the next's
            _, first, inverse = np.unique(np.where(spans[:, 1] > spans[:, 0], spans[:, 0], -1), return_index=True,
                                          return_inverse=True)
            decoded = [mapped[base + start : base + end].decode("utf-8") for start, end in spans[first].tolist()]
        except UnicodeDecodeError as exc:
            raise StoreDamaged(f"its text is not UTF-8 ({exc})") from exc
        return [decoded[i] for i in inverse.reshape(-1).tolist()]

    def _build(self, row: int) -> Chunk:
        mapped, base = self._mapped, self._base
        values = [mapped[base + start : base + end].decode("utf-8") if end > start else ""
                  for start, end in self._spans[row].tolist()]
        listed = values[6]
        dates = tuple(json.loads(listed) if listed.startswith("[") else listed.split("\n")) if listed else ()
        return Chunk(values[0], values[1], values[2], values[3], values[4], values[5], bool(self._flags[row]),
                     dates, values[7], values[8], values[9])

    def __getitem__(self, chunk_id: str) -> Chunk:
        return self._built(self._rows[chunk_id])

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)

    def at(self, row: int) -> Chunk:
        """The chunk at position ``row`` of the store's order (built now, not kept: for a walk over every chunk)."""
        return self._build(row)

    def headers(self) -> list[ChunkHeader]:
        """Every chunk's id, document, title, raw path and document date, in order, without reading a text (worked
        out once)."""
        if self._headers is None:
            columns = [self.ids] + [self._strings(FIELDS.index(f)) for f in ChunkHeader._fields[1:]]
            self._headers = [ChunkHeader(*values) for values in zip(*columns, strict=True)]
        return self._headers

    def rows_containing(self, needle: str) -> list[int]:
        """The rows whose title or text holds ``needle``, in order: one search of the mapped text, nothing built."""
        encoded = needle.encode("utf-8")
        if not encoded:
            return list(range(len(self)))
        found = re.compile(re.escape(encoded)).finditer(self._mapped, self._base, self._base + self._blob.size)
        at = np.fromiter((m.start() - self._base for m in found), dtype=np.int64)
        hit = np.zeros(len(self), dtype=bool)
        for column in (FIELDS.index("title"), TEXT):
            spans = self._spans[:, column, :]
            solid = spans[spans[:, 1] > spans[:, 0]]  # the strings that are not empty: disjoint or the same one
            solid = solid[np.argsort(solid[:, 0], kind="stable")]
            inside = np.searchsorted(solid[:, 0], at, side="right") - 1
            holds = (inside >= 0) & (at + len(encoded) <= solid[inside.clip(0), 1])
            hit |= np.isin(spans[:, 0], solid[inside[holds], 0]) & (spans[:, 1] > spans[:, 0])
        return np.flatnonzero(hit).tolist()

    def rows(self) -> ChunkRows:
        """The chunks as a sequence in the store's order, with their content hash: what channel loaders take."""
        return ChunkRows(self)


class ChunkRows(Rows[Chunk]):
    """A store's chunks by position; ``digest`` is the content hash the store recorded (not worked out again)."""

    def __init__(self, store: StoredChunks) -> None:
        self.store = store
        self.digest = store.digest

    def __len__(self) -> int:
        return len(self.store)

    def at(self, row: int) -> Chunk:
        return self.store.at(row)


def chunk_ids(chunks: Sequence[Chunk]) -> list[str]:
    """The ids of ``chunks`` in order (a store's without building a chunk)."""
    return list(chunks.store.ids) if isinstance(chunks, ChunkRows) else [c.chunk_id for c in chunks]


def chunk_headers(chunks: Mapping[str, Chunk]) -> list[ChunkHeader]:
    """Every chunk's header, from a store's tables when ``chunks`` is one, else from the chunks."""
    if isinstance(chunks, StoredChunks):
        return chunks.headers()
    return [ChunkHeader(c.chunk_id, c.doc_id, c.title, c.source, c.doc_date) for c in chunks.values()]


def chunks_containing(chunks: Mapping[str, Chunk], needle: str) -> list[Chunk]:
    """The chunks whose title or text holds ``needle``, in order; a store builds only those."""
    if isinstance(chunks, StoredChunks):
        return [chunks.at(row) for row in chunks.rows_containing(needle)]
    return [c for c in chunks.values() if needle in c.title or needle in c.text]


def refused(path: Path, problem: StoreDamaged, hint: str) -> IndexMismatchError:
    """The error for a store that is there but does not read back."""
    return IndexMismatchError(f"{path} is damaged: {problem}", hint)
