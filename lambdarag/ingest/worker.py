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
import resource
import signal
import sys
import time
import types
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from lambdarag.errors import ExtractionError
from lambdarag.ingest.chunk import chunk_document
from lambdarag.ingest.detect import TEXT_KINDS, detect
from lambdarag.ingest.document import Document
from lambdarag.ingest.extract import extract_file
from lambdarag.ingest.settings import IngestSettings
from lambdarag.records import Chunk

MAX_WORKERS = 4
_INLINE_MAX_BYTES = 256 * 1024
_START_TIMEOUT_S = 60.0  # a worker forks from the preloaded forkserver: normally milliseconds
_READY = "ready"
MAX_REASON_CHARS = 400  # a parser's message can quote kilobytes of the damaged bytes
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
    peak_mb: float = 0.0  # peak resident memory of the worker process that extracted it (0: in this process)
    retire: bool = False  # the worker ran out of memory on it: replace the process rather than reuse it


def process(job: Job, settings: IngestSettings) -> Outcome:
    """Extract and chunk one file, turning any failure into a reason."""
    started = time.perf_counter()
    try:
        documents = extract_file(job.path, job.doc_id, settings, source=job.source)
        chunks = [chunk for doc in documents for chunk in chunk_document(doc, settings)]
        return Outcome(job, documents, chunks, seconds=time.perf_counter() - started)
    except ExtractionError as exc:
        error = str(exc)
    except (Exception, RecursionError) as exc:  # e.g. MemoryError: the build goes on
        error = f"{exc.__class__.__name__}: {exc}"
    return Outcome(job, error=bounded(error), seconds=time.perf_counter() - started)


def bounded(reason: str) -> str:
    """A failure reason on one line of at most MAX_REASON_CHARS characters."""
    line = " ".join(reason.split())
    return line if len(line) <= MAX_REASON_CHARS else line[: MAX_REASON_CHARS - 1] + "…"


def limit_memory(max_mb: float) -> None:
    """Cap this process's address space (RLIMIT_AS) at ``max_mb``; an allocation beyond fails with MemoryError."""
    if max_mb <= 0:
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = int(max_mb * 1024 * 1024)
    resource.setrlimit(resource.RLIMIT_AS, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def peak_rss_mb() -> float:
    """This process's peak resident memory so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def address_peak_mb() -> float:
    """This process's peak address space so far (VmPeak; 0 where /proc is not there)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return 0.0
    return next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmPeak:")), 0.0)


def process_capped(job: Job, settings: IngestSettings) -> Outcome:
    """``process`` under the memory cap; a failure during which the address space reached the cap is said to be
    one (parsers report a failed allocation in their own words: MemoryError, "unknown error"...)."""
    limit_memory(settings.max_memory_mb)
    before = address_peak_mb()
    outcome = process(job, settings)
    after = address_peak_mb()
    cap = settings.max_memory_mb
    if outcome.error and cap > 0 and ("MemoryError" in outcome.error or (after > before and after >= 0.9 * cap)):
        outcome.error = bounded(f"out of memory (cap ingest.max_memory_mb = {cap:g} MB): {outcome.error}")
        outcome.retire = True
    outcome.peak_mb = peak_rss_mb()
    return outcome


def default_workers(jobs: int) -> int:
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1, jobs))


def run_jobs(
    jobs: Iterable[Job],
    settings: IngestSettings,
    on_done: Callable[[Outcome], None],
    workers: int | None = None,
) -> list[str]:
    """Run every job, calling ``on_done`` as each finishes (in the calling process).

    Returns notes for the report: when no worker process can be started, the remaining
    files are extracted in this process, without the time limit, and a note says so.
    """
    queue = deque(jobs)
    notes: list[str] = []
    if settings.timeout_s > 0 and workers != 0 and queue:
        cheap = {id(job): _cheap(job, settings) for job in queue}
        inline = deque(job for job in queue if cheap[id(job)])
        queue = deque(job for job in queue if not cheap[id(job)])
        pool = _Pool(settings, workers or default_workers(len(queue)))
        pool.run(queue, inline, on_done)
        if pool.broken:
            notes.append(f"worker processes unavailable ({pool.broken}): files extracted without the time limit")
    while queue:
        on_done(process(queue.popleft(), settings))
    return notes


def _cheap(job: Job, settings: IngestSettings) -> bool:
    """A small text file (by content, not only by name): linear parsers, milliseconds, cannot hang.

    These run in the build process itself, which keeps the many-small-files case at the
    cost of the extraction alone; everything else goes to a worker with the time limit.
    """
    try:
        if job.path.stat().st_size > _INLINE_MAX_BYTES:
            return False
        return detect(job.path, settings).kind in TEXT_KINDS
    except (ExtractionError, OSError):
        return True  # refused before any parser runs: the reason is found again at once


class _WorkerStartError(Exception):
    """A worker process did not come up (it died or never said it was ready)."""


class _Worker:
    def __init__(self, context: Any) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)
        with _main_module_hidden():
            self.process.start()
        child.close()
        try:
            ready = self.conn.poll(_START_TIMEOUT_S) and self.conn.recv() == _READY
        except (EOFError, OSError):
            ready = False
        if not ready:
            self.kill()
            raise _WorkerStartError(f"a worker exited with code {self.process.exitcode} on start")

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
        self.broken = ""  # why no worker could be started, if so

    def run(self, queue: deque[Job], inline: deque[Job], on_done: Callable[[Outcome], None]) -> None:
        """Run the queue in workers and ``inline`` here meanwhile; if workers cannot start, the
        rest of the queue is left for the caller."""
        try:
            while (queue and not self.broken) or self.busy or inline:
                while queue and not self.broken and len(self.busy) < self.size:
                    self._dispatch(queue)
                if inline:
                    on_done(process(inline.popleft(), self.settings))
                if self.busy:
                    for outcome in self._collect(block=not inline):
                        on_done(outcome)
        finally:
            for worker in [*self.idle, *(w for w, _, _ in self.busy.values())]:
                worker.stop()

    def _dispatch(self, queue: deque[Job]) -> None:
        try:
            worker = self.idle.pop() if self.idle else _Worker(self.context)
        except _WorkerStartError as exc:
            self.broken = str(exc)
            return
        job = queue.popleft()
        worker.conn.send((job, self.settings))
        self.busy[worker.conn] = (worker, job, time.monotonic() + self.settings.timeout_s)

    def _collect(self, block: bool) -> list[Outcome]:
        """Outcomes of the jobs that finished, died or ran out of time (waiting if ``block``)."""
        deadline = min(limit for _, _, limit in self.busy.values())
        ready = wait(list(self.busy), timeout=max(0.0, deadline - time.monotonic()) if block else 0.0)
        outcomes = [self._receive(conn) for conn in ready if isinstance(conn, Connection)]
        now = time.monotonic()
        for conn, (worker, job, limit) in list(self.busy.items()):
            if now >= limit:
                del self.busy[conn]
                worker.kill()
                reason = (f"timed out after {self.settings.timeout_s:g} s: extraction abandoned "
                          "(raise ingest.timeout_s if the file is just very large)")
                outcomes.append(Outcome(job, error=reason, seconds=self.settings.timeout_s))
        return outcomes

    def _receive(self, conn: Connection) -> Outcome:
        worker, job, _ = self.busy.pop(conn)
        try:
            outcome: Outcome = conn.recv()
        except (EOFError, OSError):
            worker.kill()
            code = worker.process.exitcode
            why = "killed, out of memory?" if code == -signal.SIGKILL else "the file may be malformed"
            return Outcome(job, error=f"extraction process died (exit code {code}): {why}")
        if outcome.retire:
            worker.stop()
        else:
            self.idle.append(worker)
        return outcome


def _context() -> Any:
    """forkserver where available: cheap forks that already hold the readers, no inherited threads."""
    if "forkserver" in mp.get_all_start_methods():
        context = mp.get_context("forkserver")
        context.set_forkserver_preload(_PRELOAD)
        return context
    return mp.get_context("spawn")


@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Start a worker without making it re-run the parent's main script.

    spawn and forkserver children re-import ``__main__`` from its file; a script without an
    ``if __name__ == "__main__"`` guard (or a program read from stdin) would run again in
    every worker. Workers need nothing from it: hide it while the process starts.
    """
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def _serve(conn: Connection) -> None:
    """Worker loop: extract the files sent until told to stop (None) or the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    conn.send(_READY)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        job, settings = message
        outcome = process_capped(job, settings)
        try:
            conn.send(outcome)
        except Exception as exc:  # an outcome that cannot be pickled or is too large
            conn.send(Outcome(job, error=f"cannot return the result: {exc.__class__.__name__}: {exc}"))
