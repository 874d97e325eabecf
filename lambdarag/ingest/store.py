"""What an extract run leaves in a domain's processed/ folder, and how it is read back.

processed/
  chunks.jsonl          every chunk of the domain, one JSON object a line, in a stable order
                        (raw file path, then document, then chunk); rewritten atomically at
                        the end of each run, so readers never see a half-written file
  chunks.store          the same chunks, memory-mapped by serving workers (ingest/chunkstore.py): written
                        right after chunks.jsonl from the same list, and used only while it names that file
  .chunks.staged.jsonl  the same, written by the extract step of a `lambdarag build`: it becomes
                        chunks.jsonl only when the whole build commits (promote_staged), so the
                        served chunks and indexes change together; .chunks.staged.store beside it
  state.json            per raw file: content hash, status (done / needs_ocr / failed), reason,
                        doc_ids, chunk count, seconds; plus the settings the chunks were made with
  docs/<raw path>.json  per raw file, readable: its documents (title, sections, typed blocks
                        with locators) each with its chunks
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lambdarag.errors import IndexMismatchError, rebuild_hint
from lambdarag.ingest.chunkstore import StoreDamaged, StoredChunks, open_store, refused, write_store
from lambdarag.ingest.document import Document
from lambdarag.records import Chunk

CHUNKS_FILE = "chunks.jsonl"
STAGED_FILE = ".chunks.staged.jsonl"
STORE_FILE = "chunks.store"
STAGED_STORE_FILE = ".chunks.staged.store"
STATE_FILE = "state.json"
DOCS_DIR = "docs"
STATE_VERSION = 1
EXTRACTOR_VERSION = 21  # bump when extraction output changes: every file is then redone

def _extract_hint(processed_dir: Path) -> str:
    """The command that fills processed/, naming the domain (processed/ sits in the domain's folder)."""
    return rebuild_hint("extract", processed_dir.resolve().parent.name)


class ChunksMissingError(IndexMismatchError, FileNotFoundError):
    """processed/chunks.jsonl does not exist: extraction has not run (to the end) yet."""


@dataclass
class FileState:
    """The last outcome for one raw file."""

    sha256: str
    status: str  # "done", "needs_ocr" or "failed"
    size: int = 0  # with mtime_ns: when both are unchanged, the hash is not recomputed
    mtime_ns: int = 0
    reason: str = ""  # why it failed
    doc_ids: list[str] = field(default_factory=list)  # documents currently served from it
    chunks: int = 0
    pages: int = 0
    needs_ocr_pages: list[int] = field(default_factory=list)
    seconds: float = 0.0
    published: bool = True  # False until chunks.jsonl holds this outcome (a run may be interrupted)


@dataclass
class State:
    """processed/state.json: file states and the settings they were produced with."""

    extractor: int = EXTRACTOR_VERSION
    chunking: dict[str, Any] = field(default_factory=dict)
    limits: dict[str, Any] = field(default_factory=dict)
    files: dict[str, FileState] = field(default_factory=dict)


def load_chunks(processed_dir: Path, staged: bool = False) -> list[Chunk]:
    """All chunks of the domain in a stable order (raw file, document, chunk number); with ``staged``, those of
    the build under way when its extract step has written them."""
    path = Path(processed_dir) / CHUNKS_FILE
    if staged and (Path(processed_dir) / STAGED_FILE).is_file():
        path = Path(processed_dir) / STAGED_FILE
    if not path.is_file():
        raise ChunksMissingError(f"no extracted chunks in {processed_dir}", _extract_hint(processed_dir))
    chunks = []
    with path.open("rb") as handle:  # bytes, so a damaged file is refused by line like any other bad line
        for number, line in enumerate(handle, start=1):
            if line.strip():
                chunks.append(_chunk_from_line(line, path, number))
    return chunks


def open_chunks(processed_dir: Path) -> StoredChunks | None:
    """The served chunks from chunks.store, memory-mapped; None when there is no store for the chunks.jsonl beside
    it (a domain extracted before the store existed: read chunks.jsonl). A damaged store is an IndexMismatchError
    naming the extract command, which writes it again."""
    path = Path(processed_dir) / STORE_FILE
    try:
        return open_store(path, Path(processed_dir) / CHUNKS_FILE)
    except StoreDamaged as exc:
        raise refused(path, exc, _extract_hint(processed_dir)) from exc


def _chunk_from_line(line: bytes, path: Path, number: int) -> Chunk:
    try:
        return Chunk.from_dict(json.loads(line.decode("utf-8")))
    except (ValueError, KeyError, TypeError) as exc:  # UnicodeDecodeError is a ValueError
        raise IndexMismatchError(f"{path}: line {number} is not a chunk ({exc})", _extract_hint(path.parent)) from exc


def chunks_by_source(processed_dir: Path) -> dict[str, list[Chunk]]:
    """The previous run's chunks grouped by raw file ({} when there is no usable chunks.jsonl)."""
    try:
        chunks = load_chunks(processed_dir)
    except IndexMismatchError:
        return {}
    grouped: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        grouped.setdefault(chunk.source, []).append(chunk)
    return grouped


def write_chunks(processed_dir: Path, chunks: Iterable[Chunk], staged: bool = False) -> None:
    """chunks.jsonl, then chunks.store from the same chunks (or, ``staged``, the build's staged pair that
    promote_staged turns into them)."""
    chunks = list(chunks)
    lines = (json.dumps(chunk.to_dict(), ensure_ascii=False) + "\n" for chunk in chunks)
    jsonl = Path(processed_dir) / (STAGED_FILE if staged else CHUNKS_FILE)
    atomic_write(jsonl, lines)
    write_store(Path(processed_dir) / (STAGED_STORE_FILE if staged else STORE_FILE), chunks, jsonl)
    if not staged:
        discard_staged(processed_dir)  # a staged list older than this one must never be promoted


def discard_staged(processed_dir: Path) -> None:
    """Remove a staged chunk list (one left by a build that died before it committed)."""
    (Path(processed_dir) / STAGED_FILE).unlink(missing_ok=True)
    (Path(processed_dir) / STAGED_STORE_FILE).unlink(missing_ok=True)


def promote_staged(processed_dir: Path) -> bool:
    """Make the staged chunk list chunks.jsonl (one rename) and mark every file state published; False when none."""
    staged = Path(processed_dir) / STAGED_FILE
    if not staged.is_file():
        return False
    os.replace(staged, Path(processed_dir) / CHUNKS_FILE)
    # the staged store names the staged file's size and mtime, which the rename keeps; until it is renamed too, the
    # old store names another file and is not used
    staged_store = Path(processed_dir) / STAGED_STORE_FILE
    if staged_store.is_file():
        os.replace(staged_store, Path(processed_dir) / STORE_FILE)
    else:
        (Path(processed_dir) / STORE_FILE).unlink(missing_ok=True)
    state = read_state(processed_dir)
    if state.extractor >= 0:
        for entry in state.files.values():
            entry.published = True
        write_state(processed_dir, state)
    return True


def record_path(processed_dir: Path, source: str) -> Path:
    return Path(processed_dir) / DOCS_DIR / f"{source}.json"


def write_record(
    processed_dir: Path, source: str, sha256: str, documents: list[Document], chunks: list[Chunk]
) -> None:
    """docs/<source>.json: the structured documents of one raw file, each with its chunks."""
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for chunk in chunks:
        by_doc.setdefault(chunk.doc_id, []).append(chunk.to_dict())
    record = {
        "source": source,
        "sha256": sha256,
        "documents": [{**doc.to_dict(), "chunks": by_doc.get(doc.doc_id, [])} for doc in documents],
    }
    # not fsynced: a record lost in a crash is detected on read and its file extracted again
    text = json.dumps(record, ensure_ascii=False, indent=1)
    atomic_write(record_path(processed_dir, source), [text], durable=False)


@dataclass(frozen=True)
class Record:
    """docs/<source>.json read back."""

    sha256: str
    documents: list[Document]
    chunks: list[Chunk]


def read_record(processed_dir: Path, source: str) -> Record | None:
    """The documents and chunks stored for a raw file, or None when missing or unreadable."""
    try:
        data = json.loads(record_path(processed_dir, source).read_text(encoding="utf-8"))
        documents = [Document.from_dict(d) for d in data["documents"]]
        chunks = [Chunk.from_dict(c) for d in data["documents"] for c in d.get("chunks", ())]
        return Record(str(data.get("sha256", "")), documents, chunks)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remove_record(processed_dir: Path, source: str) -> None:
    path = record_path(processed_dir, source)
    path.unlink(missing_ok=True)
    docs_root = Path(processed_dir) / DOCS_DIR
    for parent in path.parents:  # prune emptied sub-folders
        if parent == docs_root or docs_root not in parent.parents:
            break
        try:
            parent.rmdir()
        except OSError:
            break


def read_state(processed_dir: Path) -> State:
    """The previous state, or an empty one (everything is then extracted)."""
    try:
        data = json.loads((Path(processed_dir) / STATE_FILE).read_text(encoding="utf-8"))
        if data.get("version") != STATE_VERSION:
            return State(extractor=-1)
        files = {source: FileState(**entry) for source, entry in data["files"].items()}
        return State(int(data["extractor"]), dict(data["chunking"]), dict(data["limits"]), files)
    except (OSError, ValueError, KeyError, TypeError):
        return State(extractor=-1)


def write_state(processed_dir: Path, state: State) -> None:
    data = {
        "version": STATE_VERSION,
        "extractor": state.extractor,
        "chunking": state.chunking,
        "limits": state.limits,
        "files": {source: asdict(entry) for source, entry in sorted(state.files.items())},
    }
    atomic_write(Path(processed_dir) / STATE_FILE, [json.dumps(data, ensure_ascii=False, indent=1)])


def atomic_write(path: Path, parts: Iterable[str], durable: bool = True) -> None:
    """Write to a temporary file beside ``path`` (fsynced when ``durable``), then rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.writelines(parts)
            out.flush()
            if durable:
                os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
