"""A domain's documents as the documents API sees them: upload, delete, and the catalogue with each one's status.

A document is one raw file; its id is its doc id (the raw path without its suffix). An upload is all or nothing:
every file is streamed to a staging file under the size cap and passes the build's checks (raw_files) before
any of them enters raw/, so a bad file in a request changes nothing. Each change that reaches raw/ is one job
(build/jobs.py) whose background build serves it.

Statuses: ``pending`` (in raw/, not extracted yet, or changed since), ``extracted`` (its chunks are extracted
but the index the server answers from does not hold them yet), ``indexed`` (served), ``failed`` (with the
reason; a file that failed after a good version keeps that version served), ``deleting`` (gone from raw/, its
chunks leave the index with the next build).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import IO, Any

from lambdarag.build.jobs import Job, JobStore
from lambdarag.build.raw_files import (
    check_file,
    doc_id_owner,
    place,
    remove,
    safe_source,
    source_for,
    staging_dir,
    target_path,
)
from lambdarag.config.domain import Domain
from lambdarag.errors import InputError, NotFoundError
from lambdarag.ingest.detect import MB
from lambdarag.ingest.run import doc_id_for, scan_raw
from lambdarag.ingest.settings import IngestSettings
from lambdarag.ingest.store import FileState, file_sha256, read_record, read_state

BLOCK = 1 << 20


@dataclass(frozen=True)
class Staged:
    """An uploaded file waiting in the staging folder, checked."""

    source: str
    path: Path
    size: int
    sha256: str


def stage(domain: Domain, name: str, stream: IO[bytes], settings: IngestSettings) -> Staged:
    """Stream one uploaded file to a staging file (refused past ingest.max_file_mb) and check it like the build."""
    source = safe_source(name)
    handle, tmp = tempfile.mkstemp(prefix="upload-", suffix=Path(source).suffix, dir=staging_dir(domain.root))
    digest, size, cap = hashlib.sha256(), 0, settings.max_file_mb * MB
    try:
        with os.fdopen(handle, "wb") as out:
            while block := stream.read(BLOCK):
                size += len(block)
                if size > cap:
                    raise InputError(f"{source}: file is over the cap of {settings.max_file_mb:g} MB "
                                     "(ingest.max_file_mb)", "send a smaller file; nothing was changed")
                digest.update(block)
                out.write(block)
        check_file(Path(tmp), source, settings)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Staged(source, Path(tmp), size, digest.hexdigest())


def discard(staged: Sequence[Staged]) -> None:
    for item in staged:
        item.path.unlink(missing_ok=True)


def upload(domain: Domain, staged: Sequence[Staged]) -> tuple[list[dict[str, str]], Job | None]:
    """Move checked files into raw/ (all or none) and queue one job for those that changed."""
    try:
        _check_names(domain, staged)
        changes = [_place(domain, item) for item in staged]
    finally:
        discard(staged)
    todo = [change for change in changes if change["action"] != "unchanged"]
    return changes, JobStore(domain.root).submit("upload", todo) if todo else None


def _check_names(domain: Domain, staged: Sequence[Staged]) -> None:
    seen: set[str] = set()
    for item in staged:
        doc_id = doc_id_for(item.source)
        if doc_id in seen:
            raise InputError(f"two files of the request give the doc id {doc_id!r}", "send each document once")
        seen.add(doc_id)
        target_path(domain.raw_dir, item.source)
        if owner := doc_id_owner(domain.raw_dir, item.source):
            raise InputError(f"doc id {doc_id!r} is already given by {owner}",
                             f"send it as {owner} to replace it, or DELETE /api/documents/{doc_id} first")


def _place(domain: Domain, item: Staged) -> dict[str, str]:
    target = domain.raw_dir / item.source
    change = {"source": item.source, "doc_id": doc_id_for(item.source), "sha256": item.sha256}
    if target.is_file() and target.stat().st_size == item.size and file_sha256(target) == item.sha256:
        return {**change, "action": "unchanged"}
    action = "replaced" if target.exists() else "added"
    place(item.path, domain.raw_dir, item.source)
    return {**change, "action": action}


def delete(domain: Domain, doc_id: str) -> tuple[dict[str, str], Job]:
    """Remove the raw file of ``doc_id`` and queue the job that takes it out of every channel."""
    source = source_for(domain.raw_dir, doc_id)
    if source is None:
        carrier = _line_carrier(domain, doc_id)
        if carrier:
            raise InputError(f"document {doc_id!r} is a line of {carrier}, not a file of its own",
                             f"delete the whole file (DELETE /api/documents/{doc_id_for(carrier)}) or send the "
                             "file again without that line")
        raise NotFoundError(f"no document {doc_id!r} in domain {domain.name!r}", "GET /api/documents lists them")
    remove(domain.raw_dir, source)
    change = {"source": source, "doc_id": doc_id, "action": "removed"}
    return change, JobStore(domain.root).submit("delete", [change])


def _line_carrier(domain: Domain, doc_id: str) -> str:
    files = read_state(domain.processed_dir).files
    return next((source for source, entry in files.items() if doc_id in entry.doc_ids), "")


@dataclass(frozen=True)
class DocumentInfo:
    """One row of GET /api/documents."""

    id: str
    source: str
    title: str
    size: int
    sha256: str | None
    status: str  # pending, extracted, indexed, failed, deleting
    reason: str
    chunks: int
    doc_ids: tuple[str, ...]
    updated: str | None  # the raw file's modification time, ISO 8601 UTC

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["doc_ids"] = list(self.doc_ids)
        return data


def catalog(domain: Domain, served: Mapping[str, str]) -> list[DocumentInfo]:
    """Every document in raw/ (and those deleted but still indexed), by raw path; ``served``: doc id → title of
    the index the server answers from."""
    files = scan_raw(domain.raw_dir)
    state = read_state(domain.processed_dir).files
    rows = [_row(source, path, state.get(source), served) for source, path in files.items()]
    rows += [_gone(source, entry, served) for source, entry in state.items() if source not in files]
    return sorted(rows, key=lambda row: row.source)


def find(domain: Domain, doc_id: str, served: Mapping[str, str]) -> DocumentInfo:
    """The catalogue row of ``doc_id`` with its title, or NotFoundError."""
    row = next((row for row in catalog(domain, served) if row.id == doc_id), None)
    if row is None:
        raise NotFoundError(f"no document {doc_id!r} in domain {domain.name!r}", "GET /api/documents lists them")
    return titled(domain, row)


def titled(domain: Domain, row: DocumentInfo) -> DocumentInfo:
    """The row with the title of its extracted record when the served index does not name it."""
    if row.title or row.status == "pending":
        return row
    record = read_record(domain.processed_dir, row.source)
    title = record.documents[0].title if record is not None and record.documents else ""
    return replace(row, title=title or row.id)


def _row(source: str, path: Path, entry: FileState | None, served: Mapping[str, str]) -> DocumentInfo:
    doc_id = doc_id_for(source)
    try:
        info = path.stat()
    except OSError:
        return DocumentInfo(doc_id, source, "", 0, None, "pending", "cannot read the file", 0, (), None)
    updated = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(info.st_mtime))
    if entry is None or (entry.size, entry.mtime_ns) != (info.st_size, info.st_mtime_ns):
        why = "not extracted yet" if entry is None else "changed since its last extraction"
        return DocumentInfo(doc_id, source, "", info.st_size, None, "pending", why, 0, (), updated)
    status, reason = _status(entry, served)
    sha = None if entry.sha256.startswith("over-cap:") else entry.sha256
    title = next((served[d] for d in entry.doc_ids if d in served), "")
    return DocumentInfo(doc_id, source, title, info.st_size, sha, status, reason, entry.chunks, tuple(entry.doc_ids),
                        updated)


def _status(entry: FileState, served: Mapping[str, str]) -> tuple[str, str]:
    if entry.status == "failed":
        return "failed", entry.reason
    if entry.status == "needs_ocr" and not entry.chunks:
        return "failed", "scanned pages without a text layer: it needs OCR"
    if entry.doc_ids and all(doc_id in served for doc_id in entry.doc_ids):
        return "indexed", ""
    return "extracted", "" if entry.doc_ids else "no text found in it"


def _gone(source: str, entry: FileState, served: Mapping[str, str]) -> DocumentInfo:
    title = next((served[d] for d in entry.doc_ids if d in served), "")
    return DocumentInfo(doc_id_for(source), source, title, entry.size, entry.sha256, "deleting",
                        "removed from raw/: its chunks leave the index with the next build", entry.chunks,
                        tuple(entry.doc_ids), None)
