"""`extract_domain`: the incremental, failure-tolerant extract run over a domain's raw/ folder.

Unchanged files (same content hash, same settings) are skipped, changed ones redone, deleted
ones removed with their chunks. Each file is extracted in a worker process with a time limit;
a file that fails is reported with its reason and never stops the run. A file that used to
extract and now fails keeps its previous chunks until it is fixed or deleted. The chunk list
is published atomically at the end, so an interrupted run leaves the previous one in place.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from lambdarag.errors import ExtractionError
from lambdarag.ingest import store
from lambdarag.ingest.chunk import chunk_document
from lambdarag.ingest.detect import MB
from lambdarag.ingest.names import refused_entry, shown, unsafe_doc_id
from lambdarag.ingest.report import ExtractReport, Failure
from lambdarag.ingest.settings import IngestSettings
from lambdarag.ingest.store import EXTRACTOR_VERSION, FileState
from lambdarag.ingest.tags import SIDECAR_SUFFIX
from lambdarag.ingest.worker import Job, Outcome, run_jobs
from lambdarag.progress import Progress, wants_bar
from lambdarag.records import Chunk

_IGNORED_NAMES = frozenset({"Thumbs.db", "desktop.ini", "Desktop.ini"})
_SAVE_EVERY_S = 5.0


def extract_domain(
    raw_dir: Path,
    processed_dir: Path,
    settings: IngestSettings,
    progress: bool | None = None,
    *,
    workers: int | None = None,
    stage: bool = False,
) -> ExtractReport:
    """Extract every new or changed file of ``raw_dir`` into ``processed_dir``.

    Args:
        progress: show a progress bar; None shows one only when stderr is a terminal.
        workers: extraction processes (default: up to 4, one per CPU); 0 extracts in this
            process without a time limit (debugging).
        stage: write the chunk list as the staged list of a build (store.promote_staged publishes
            it when the build commits) instead of chunks.jsonl.
    """
    raw_dir, processed_dir = Path(raw_dir), Path(processed_dir)
    if not raw_dir.is_dir():
        raise ExtractionError(f"raw folder {raw_dir} does not exist", "create it and put documents in it")
    processed_dir.mkdir(parents=True, exist_ok=True)
    with _exclusive(processed_dir):
        return _Run(raw_dir, processed_dir, settings, stage).execute(wants_bar(progress), workers)


def extraction_outdated(processed_dir: Path, settings: IngestSettings) -> bool:
    """Whether the chunks were made by another extractor version, chunking or limits than ``settings`` give (after an
    upgrade or an instance.yml edit): an extraction would then redo files that did not change."""
    state = store.read_state(Path(processed_dir))
    return (state.extractor != EXTRACTOR_VERSION or state.chunking != settings.chunking_key()
            or state.limits != settings.limits_key())


def scan_raw(raw_dir: Path, follow_symlinks: bool = False) -> dict[str, Path]:
    """Files under raw/ by POSIX path relative to it, sorted; hidden, lock and backup files and tag sidecars
    (<file>.tags, ingest/tags.py) left out.

    Links to folders are not followed; unless ``follow_symlinks``, one that leads out of raw/ is listed,
    so that it is refused with its reason rather than left out without a word.
    """
    found: dict[str, Path] = {}
    for root, dirs, files in os.walk(raw_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in dirs:
            link = Path(root) / name
            if link.is_symlink() and refused_entry(raw_dir, link, follow_symlinks):
                found[link.relative_to(raw_dir).as_posix()] = link
        for name in sorted(files):
            if name.startswith((".", "~$")) or name.endswith(("~", SIDECAR_SUFFIX)) or name in _IGNORED_NAMES:
                continue
            path = Path(root) / name
            found[path.relative_to(raw_dir).as_posix()] = path
    return dict(sorted(found.items()))


def doc_id_for(source: str) -> str:
    """raw/sub/a.pdf -> "sub/a": the path relative to raw/ without its suffix."""
    return PurePosixPath(source).with_suffix("").as_posix()


class _Run:
    def __init__(self, raw_dir: Path, processed_dir: Path, settings: IngestSettings, stage: bool = False) -> None:
        self.raw_dir = raw_dir
        self.stage = stage
        self.processed = processed_dir
        self.settings = settings
        self.state = store.read_state(processed_dir)
        self.report = ExtractReport()
        self.fresh: dict[str, list[Chunk]] = {}
        self.failed_now: set[str] = set()
        self.stat: dict[str, tuple[str, int, int]] = {}  # source -> sha256, size, mtime_ns
        self.saved = time.monotonic()

    def execute(self, progress: bool, workers: int | None) -> ExtractReport:
        started = time.monotonic()
        files = scan_raw(self.raw_dir, self.settings.follow_symlinks)
        rechunk = self.state.chunking != self.settings.chunking_key()
        previous = {} if rechunk else store.chunks_by_source(self.processed)
        jobs = [job for job in self._plan(files, previous, rechunk) if job is not None]
        self._extract(jobs, progress, workers)
        self._remove([source for source in self.state.files if source not in files])
        chunks = self._assemble(files, previous, rechunk)
        self.state.extractor = EXTRACTOR_VERSION
        self.state.chunking = self.settings.chunking_key()
        self.state.limits = self.settings.limits_key()
        store.write_chunks(self.processed, chunks, self.stage)
        # staged, chunks.jsonl still holds the previous list (maybe chunked otherwise) until the build commits:
        # until then every file's chunks are read from its record (store.promote_staged marks them published)
        for entry in self.state.files.values():
            entry.published = not self.stage
        store.write_state(self.processed, self.state)
        self._finish_report(chunks, started)
        return self.report

    def _plan(self, files: dict[str, Path], previous: dict[str, list[Chunk]], rechunk: bool) -> Iterator[Job | None]:
        """A job for each file to extract; None (and a "skipped" entry) for the others."""
        redo_all = self.state.extractor != EXTRACTOR_VERSION
        retry_failed = self.state.limits != self.settings.limits_key()
        for source, path in files.items():
            old = self.state.files.get(source)
            try:
                refused = self._refused(source, path)
                sha = "" if refused else self._hash(source, path, old)
            except OSError as exc:  # vanished or unreadable: what was built from it stays
                refused = f"cannot read the file: {exc.strerror or exc}"
            if refused:
                self.report.failed.append(Failure(source, refused))
                self.failed_now.add(source)
                yield None
                continue
            stale = redo_all or old is None or old.sha256 != sha
            retry = old is not None and old.status == "failed" and retry_failed
            if stale or retry or not self._available(source, old, previous, rechunk):
                yield Job(path, source, doc_id_for(source))
                continue
            if old is not None and old.status != "failed":  # a failure is listed as one, not as skipped
                self.report.skipped.append(source)
            yield None

    def _refused(self, source: str, path: Path) -> str:
        """Why a raw entry is not read at all (a link out of raw/, a pipe, a name that is no safe doc id)."""
        refused = refused_entry(self.raw_dir, path, self.settings.follow_symlinks)
        if not refused and (why := unsafe_doc_id(doc_id_for(source))):
            refused = f"file name {shown(source)} gives an unsafe doc id ({why}): rename the file"
        return refused

    def _hash(self, source: str, path: Path, old: FileState | None) -> str:
        info = path.stat()
        if old is not None and old.size == info.st_size and old.mtime_ns == info.st_mtime_ns:
            sha = old.sha256
        elif info.st_size > self.settings.max_file_mb * MB:  # refused by size: never read it whole
            sha = f"over-cap:{info.st_size}:{info.st_mtime_ns}"
        else:
            sha = store.file_sha256(path)
        self.stat[source] = (sha, info.st_size, info.st_mtime_ns)
        return sha

    def _changed(self, source: str) -> bool:
        """Whether the file is no longer the one hashed before extraction (rewritten while it was read)."""
        _, size, mtime_ns = self.stat[source]
        try:
            info = (self.raw_dir / source).stat()
        except OSError:
            return True
        return (info.st_size, info.st_mtime_ns) != (size, mtime_ns)

    def _available(self, source: str, old: FileState | None, previous: dict[str, list[Chunk]], rechunk: bool) -> bool:
        """Whether the chunks of an unchanged file can be had without extracting it again."""
        if old is None or not old.doc_ids:
            return True
        if not rechunk and old.published and source in previous:
            return True
        return store.read_record(self.processed, source) is not None

    def _extract(self, jobs: list[Job], progress: bool, workers: int | None) -> None:
        bar = Progress(len(jobs), progress, "extract", "file", dynamic_ncols=True)
        try:
            def done(outcome: Outcome) -> None:
                self._on_done(outcome)
                bar.update(1, postfix=outcome.job.source[-40:])

            self.report.notes.extend(run_jobs(jobs, self.settings, done, workers))
        finally:
            bar.close()
            store.write_state(self.processed, self.state)  # an interrupted run resumes from here

    def _on_done(self, outcome: Outcome) -> None:
        source = outcome.job.source
        self.report.peak_worker_mb = max(self.report.peak_worker_mb, outcome.peak_mb)
        sha, size, mtime_ns = self.stat[source]
        if not outcome.error and self._changed(source):
            outcome.error = "the file changed while it was read: it is extracted again at the next run"
        if not outcome.error:
            try:
                store.write_record(self.processed, source, sha, outcome.documents, outcome.chunks)
            except OSError as exc:  # e.g. a file name too long once ".json" is added
                outcome.error = f"cannot write its record to processed/: {exc.strerror or exc}"
        if outcome.error:
            self._failed(source, outcome.error, sha, size, mtime_ns)
        else:
            self._succeeded(outcome, sha, size, mtime_ns)
        if time.monotonic() - self.saved > _SAVE_EVERY_S:
            store.write_state(self.processed, self.state)
            self.saved = time.monotonic()

    def _failed(self, source: str, reason: str, sha: str, size: int, mtime_ns: int) -> None:
        old = self.state.files.get(source)
        kept = old.doc_ids if old is not None else []
        if kept:
            reason += " (its previous version stays in the index)"
        self.state.files[source] = FileState(
            sha, "failed", reason=reason, size=size, mtime_ns=mtime_ns, doc_ids=kept,
            chunks=old.chunks if old and kept else 0, published=False,
        )
        self.failed_now.add(source)
        self.report.failed.append(Failure(source, reason))

    def _succeeded(self, outcome: Outcome, sha: str, size: int, mtime_ns: int) -> None:
        source, documents = outcome.job.source, outcome.documents
        ocr_pages = [page for doc in documents for page in doc.needs_ocr_pages]
        has_text = any(doc.blocks for doc in documents)
        status = "needs_ocr" if ocr_pages and not has_text else "done"
        pages = sum(doc.pages for doc in documents)
        self.state.files[source] = FileState(
            sha, status, size=size, mtime_ns=mtime_ns, doc_ids=[doc.doc_id for doc in documents],
            chunks=len(outcome.chunks), pages=pages, needs_ocr_pages=ocr_pages, seconds=round(outcome.seconds, 3),
            published=False,
        )
        self.fresh[source] = outcome.chunks
        if status == "done":
            self.report.done.append(source)
        self.report.pages += pages
        self.report.bytes += size
        notes = dict.fromkeys(note for doc in documents for note in doc.notes)
        self.report.notes.extend(f"{source}: {note}" for note in notes)

    def _remove(self, sources: list[str]) -> None:
        for source in sorted(sources):
            store.remove_record(self.processed, source)
            del self.state.files[source]
            self.report.removed.append(source)

    def _assemble(self, files: dict[str, Path], previous: dict[str, list[Chunk]], rechunk: bool) -> list[Chunk]:
        """The domain's chunks in raw path order; a doc_id produced by two files is refused."""
        claimed: dict[str, str] = {}
        chunks: list[Chunk] = []
        for source in files:
            entry = self.state.files.get(source)
            if entry is None or not entry.doc_ids:
                continue
            clashes = {doc_id for doc_id in entry.doc_ids if doc_id in claimed}
            if clashes and not source.lower().endswith((".jsonl", ".ndjson")):
                first = sorted(clashes)[0]
                self._clash(source, f"doc_id {first!r} is also produced by {claimed[first]}: rename one of the files")
                continue
            if clashes:
                shown = ", ".join(sorted(clashes)[:5])
                self.report.notes.append(f"{source}: {len(clashes)} doc_ids already used elsewhere, skipped: {shown}")
            claimed.update((doc_id, source) for doc_id in entry.doc_ids if doc_id not in clashes)
            own = self._chunks_for(source, previous, rechunk)
            chunks.extend(chunk for chunk in own if chunk.doc_id not in clashes)
        self.report.documents = len(claimed)
        return chunks

    def _clash(self, source: str, reason: str) -> None:
        self.report.failed = [f for f in self.report.failed if f.path != source]
        self.report.failed.append(Failure(source, reason))
        self.failed_now.add(source)
        with contextlib.suppress(ValueError):
            self.report.done.remove(source)

    def _chunks_for(self, source: str, previous: dict[str, list[Chunk]], rechunk: bool) -> list[Chunk]:
        if source in self.fresh:
            return self.fresh[source]
        if not rechunk and self.state.files[source].published and source in previous:
            return previous[source]
        record = store.read_record(self.processed, source)
        if record is None:
            return []
        if not rechunk:
            return record.chunks
        chunks = [chunk for doc in record.documents for chunk in chunk_document(doc, self.settings)]
        store.write_record(self.processed, source, record.sha256, record.documents, chunks)
        return chunks

    def _finish_report(self, chunks: list[Chunk], started: float) -> None:
        report = self.report
        for source, entry in self.state.files.items():
            if entry.status == "failed" and source not in self.failed_now:
                report.failed.append(Failure(source, f"{entry.reason} [unchanged since the last run]"))
            if entry.needs_ocr_pages:
                pages = ", ".join(str(p) for p in entry.needs_ocr_pages)
                report.needs_ocr.append(source if entry.status == "needs_ocr" else f"{source} (pages {pages})")
        report.failed.sort(key=lambda failure: failure.path)
        report.done.sort()
        report.notes.sort()
        report.chunks = len(chunks)
        report.seconds = time.monotonic() - started


@contextlib.contextmanager
def _exclusive(processed_dir: Path) -> Iterator[None]:
    """One extract run per domain at a time (an advisory lock on processed/.extract.lock)."""
    try:
        import fcntl
    except ImportError:  # not on POSIX: no lock
        yield
        return
    with (processed_dir / ".extract.lock").open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise ExtractionError(
                f"another extract run is working on {processed_dir}", "wait for it to finish"
            ) from exc
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
