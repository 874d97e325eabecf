"""Extraction in worker processes, so that a file that hangs or crashes its parser is abandoned.

A few long-lived workers (forked from a forkserver that has already imported the readers)
take one file at a time over a pipe: the many-small-files case costs one round trip per file,
not one process. A worker that passes the per-file time limit is killed and replaced; one
that dies (a crash in a C library, the OOM killer) is reported and replaced too.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from lambdarag.errors import ExtractionError
from lambdarag.ingest.chunk import chunk_document
from lambdarag.ingest.document import Document
from lambdarag.ingest.extract import extract_file
from lambdarag.ingest.settings import IngestSettings
from lambdarag.records import Chunk

MAX_WORKERS = 4
# imported once in the forkserver, so that every worker starts with the readers' libraries loaded
_PRELOAD = ["lambdarag.ingest.worker", "pdfplumber", "docx", "pptx", "openpyxl", "charset_normalizer"]


@dataclass(frozen=True)
class Job:
    """One raw file to extract."""

    path: Path
    source: str  # relative to raw/, POSIX
    doc_id: str


@dataclass
class Outcome:
    """What became of a job: documents and chunks, or the reason it failed."""

    job: Job
    documents: list[Document] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0


def process(job: Job, settings: IngestSettings) -> Outcome:
    """Extract and chunk one file, turning any failure into a reason."""
    started = time.perf_counter()
    try:
        documents = extract_file(job.path, job.doc_id, settings, source=job.source)
        chunks = [chunk for doc in documents for chunk in chunk_document(doc, settings)]
        return Outcome(job, documents, chunks, seconds=time.perf_counter() - started)
    except ExtractionError as exc:
        return Outcome(job, error=str(exc), seconds=time.perf_counter() - started)
    except (Exception, RecursionError) as exc:  # e.g. MemoryError: the build goes on
        return Outcome(job, error=f"{exc.__class__.__name__}: {exc}", seconds=time.perf_counter() - started)


def default_workers(jobs: int) -> int:
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1, jobs))


def run_jobs(
    jobs: Iterable[Job],
    settings: IngestSettings,
    on_done: Callable[[Outcome], None],
    workers: int | None = None,
) -> None:
    """Run every job, calling ``on_done`` as each finishes (in the calling process)."""
    queue = deque(jobs)
    if settings.timeout_s <= 0 or workers == 0:
        while queue:
            on_done(process(queue.popleft(), settings))
        return
    _Pool(settings, workers or default_workers(len(queue))).run(queue, on_done)


class _Worker:
    def __init__(self, context: Any) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()

    def stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)
        self.process.join(timeout=1)
        self.kill()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()


class _Pool:
    def __init__(self, settings: IngestSettings, size: int) -> None:
        self.settings = settings
        self.size = size
        self.context = _context()
        self.idle: list[_Worker] = []
        self.busy: dict[Connection, tuple[_Worker, Job, float]] = {}

    def run(self, queue: deque[Job], on_done: Callable[[Outcome], None]) -> None:
        try:
            while queue or self.busy:
                while queue and len(self.busy) < self.size:
                    self._dispatch(queue.popleft())
                for outcome in self._collect():
                    on_done(outcome)
        finally:
            for worker in [*self.idle, *(w for w, _, _ in self.busy.values())]:
                worker.stop()

    def _dispatch(self, job: Job) -> None:
        worker = self.idle.pop() if self.idle else _Worker(self.context)
        worker.conn.send((job, self.settings))
        self.busy[worker.conn] = (worker, job, time.monotonic() + self.settings.timeout_s)

    def _collect(self) -> list[Outcome]:
        """Outcomes of the jobs that finished, died or ran out of time while waiting."""
        deadline = min(limit for _, _, limit in self.busy.values())
        ready = wait(list(self.busy), timeout=max(0.0, deadline - time.monotonic()))
        outcomes = [self._receive(conn) for conn in ready if isinstance(conn, Connection)]
        now = time.monotonic()
        for conn, (worker, job, limit) in list(self.busy.items()):
            if now >= limit:
                del self.busy[conn]
                worker.kill()
                reason = f"timed out after {self.settings.timeout_s:g} s: extraction abandoned"
                outcomes.append(Outcome(job, error=reason, seconds=self.settings.timeout_s))
        return outcomes

    def _receive(self, conn: Connection) -> Outcome:
        worker, job, _ = self.busy.pop(conn)
        try:
            outcome: Outcome = conn.recv()
        except (EOFError, OSError):
            worker.kill()
            code = worker.process.exitcode
            return Outcome(job, error=f"extraction process died (exit code {code}): file may be malformed")
        self.idle.append(worker)
        return outcome


def _context() -> Any:
    """forkserver where available: cheap forks that already hold the readers, no inherited threads."""
    if "forkserver" in mp.get_all_start_methods():
        context = mp.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        return context
    return mp.get_context("spawn")


def _serve(conn: Connection) -> None:
    """Worker loop: extract the files sent until told to stop (None) or the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        job, settings = message
        outcome = process(job, settings)
        try:
            conn.send(outcome)
        except Exception as exc:  # an outcome that cannot be pickled or is too large
            conn.send(Outcome(job, error=f"cannot return the result: {exc.__class__.__name__}: {exc}"))
