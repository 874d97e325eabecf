"""Background builds of a domain: a file-based job queue and the one runner process that works it.

Every change made through the documents API (an upload, a deletion) is one job in ``<domain>/jobs.json``
(``id``, ``kind``, ``state`` queued → running → done | failed, ``changes``, per-step progress, ``error``, the
changed files that failed to extract and why). The file is read and rewritten under an ``fcntl`` lock
(``.jobs.lock``), so every gunicorn worker, the runner and a CLI see one queue, and a record outlives the
process that wrote it.

The runner is ``lambdarag jobs work --domain NAME``, started in its own session by ``kick`` (after each change,
and when a job is looked up while nothing works the queue). It holds ``.jobs.runner.lock`` while it works, so
however many workers kick it there is one runner per domain; it takes every queued job at once and runs one
build for them (the raw/ changes are already in place, so one build covers them all), under the domain's build
lock (a `lambdarag build` or `lambdarag sync` running meanwhile is waited for). When the build has committed it
bumps the reload generation (build/generation.py): each serving worker loads the new index on its next request.
The runner opens the domain from disk (its instance.yml), as `lambdarag build` does. A runner that dies midway
(SIGKILL, a reboot) leaves its jobs ``running`` with the runner lock free: the next runner puts them back in the
queue (at most MAX_ATTEMPTS times), and the build transaction has left the previous index serving meanwhile.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lambdarag.build.generation import announce_new_index
from lambdarag.build.steps import STEPS, StepOutcome, build_domain
from lambdarag.config.domain import Domain
from lambdarag.errors import LambdaRAGError
from lambdarag.ingest.store import atomic_write

JOBS_FILE = "jobs.json"
QUEUE_LOCK = ".jobs.lock"
RUNNER_LOCK = ".jobs.runner.lock"
RUNNER_LOG = "jobs.log"
KEEP_FINISHED = 200  # finished job records kept in jobs.json, newest first
MAX_ATTEMPTS = 3  # a job whose build was interrupted this often is failed instead of run again
BUILD_WAIT_S = 3600.0  # how long a job waits for another build of the domain (a CLI build) to finish
MAX_LOG_BYTES = 5 * 1024 * 1024  # jobs.log is started afresh beyond this
ACTIVE = ("queued", "running")


@dataclass
class Job:
    """One change of a domain and the build that serves it."""

    id: str
    kind: str  # "upload" or "delete"
    changes: list[dict[str, str]]  # {"source", "doc_id", "action": added | replaced | removed}
    state: str = "queued"  # queued, running, done, failed
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)  # {"step", "state", "seconds", "summary"}
    error: str = ""
    failed_files: list[dict[str, str]] = field(default_factory=list)  # {"source", "reason"}: its changes that failed
    attempts: int = 0
    runner_pid: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def step(self, name: str) -> dict[str, Any]:
        found = next((s for s in self.steps if s["step"] == name), None)
        if found is None:
            found = {"step": name, "state": "pending", "seconds": None, "summary": ""}
            self.steps.append(found)
        return found


def _from_dict(data: dict[str, Any]) -> Job:
    known = Job.__dataclass_fields__
    return Job(**{k: v for k, v in data.items() if k in known})


class JobStore:
    """The job records of one domain, in ``<domain>/jobs.json``."""

    def __init__(self, domain_root: Path) -> None:
        self.root = domain_root
        self.path = domain_root / JOBS_FILE

    @contextmanager
    def _locked(self, write: bool = True) -> Iterator[list[Job]]:
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / QUEUE_LOCK).open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            jobs = self._read()
            yield jobs
            if write:
                atomic_write(self.path, [_dump(_pruned(jobs))])

    def _read(self) -> list[Job]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [_from_dict(item) for item in data["jobs"]]
        except FileNotFoundError:
            return []
        except (ValueError, KeyError, TypeError):  # a damaged file: start a fresh queue rather than fail every call
            self.path.replace(self.path.with_suffix(".damaged.json"))
            return []

    def submit(self, kind: str, changes: Sequence[dict[str, str]]) -> Job:
        job = Job(uuid.uuid4().hex, kind, list(changes))
        for name in (*STEPS, "commit"):
            job.step(name)
        with self._locked() as jobs:
            jobs.append(job)
        return job

    def get(self, job_id: str) -> Job | None:
        with self._locked(write=False) as jobs:
            return next((job for job in jobs if job.id == job_id), None)

    def all(self) -> list[Job]:
        with self._locked(write=False) as jobs:
            return list(jobs)

    def pending(self) -> bool:
        """Whether some job is queued or running."""
        return any(job.state in ACTIVE for job in self.all())

    def queued(self) -> bool:
        return any(job.state == "queued" for job in self.all())

    def take_queued(self) -> list[Job]:
        """Every queued job, now marked running by this process."""
        with self._locked() as jobs:
            taken = [job for job in jobs if job.state == "queued"]
            for job in taken:
                job.state, job.started, job.runner_pid = "running", time.time(), os.getpid()
                job.attempts += 1
            return taken

    def update(self, ids: Sequence[str], change: Callable[[Job], None]) -> None:
        with self._locked() as jobs:
            for job in jobs:
                if job.id in ids:
                    change(job)

    def requeue_stale(self) -> None:
        """Jobs left running by a runner that died: queued again, or failed after MAX_ATTEMPTS."""
        with self._locked() as jobs:
            for job in (j for j in jobs if j.state == "running"):
                if job.attempts >= MAX_ATTEMPTS:
                    _finish(job, f"the build was interrupted {job.attempts} times (see {RUNNER_LOG})", [])
                else:
                    job.state = "queued"
                    job.error = f"restarted: the runner (pid {job.runner_pid}) stopped during attempt {job.attempts}"


def _dump(jobs: list[Job]) -> str:
    return json.dumps({"version": 1, "jobs": [job.to_dict() for job in jobs]}, ensure_ascii=False, indent=1)


def _pruned(jobs: list[Job]) -> list[Job]:
    """Active jobs and the newest KEEP_FINISHED finished ones, oldest first."""
    finished = sorted((j for j in jobs if j.state not in ACTIVE), key=lambda j: j.finished or 0.0)
    keep = {id(j) for j in finished[-KEEP_FINISHED:]} | {id(j) for j in jobs if j.state in ACTIVE}
    return [job for job in jobs if id(job) in keep]


def _finish(job: Job, error: str, failed_files: list[dict[str, str]]) -> None:
    job.state = "failed" if error else "done"
    job.error = error
    job.failed_files = failed_files
    job.finished = time.time()
    if not error:
        job.step("commit").update(state="done")


def _mark(job: Job, step: str, outcome: StepOutcome | None) -> None:
    entry = job.step(step)
    if outcome is None:
        entry.update(state="running")
        return
    first = outcome.summary.splitlines()[0] if outcome.summary else ""
    state = "failed" if not outcome.ok and not _file_failures_only(outcome) else "done"
    entry.update(state=state, seconds=round(outcome.seconds, 3), summary=first)


def _file_failures_only(outcome: StepOutcome) -> bool:
    """An extract step that ran and only some files failed (reported per file, not a failed build)."""
    return outcome.extract is not None


def build_error(outcomes: Sequence[StepOutcome]) -> str:
    """Why a build did not serve everything it should ("" when every channel step succeeded)."""
    return "; ".join(f"step {o.step} {o.summary}" for o in outcomes if not o.ok and not _file_failures_only(o))


def file_failures(outcomes: Sequence[StepOutcome], sources: Sequence[str]) -> list[dict[str, str]]:
    """The extract failures among ``sources`` (the files a job or a sync changed), with their reasons."""
    wanted = set(sources)
    report = next((o.extract for o in outcomes if o.extract is not None), None)
    failures = report.failed if report is not None else []
    return [{"source": f.path, "reason": f.reason} for f in failures if f.path in wanted]


def run_batch(domain: Domain, store: JobStore, batch: Sequence[Job]) -> None:
    """One build for ``batch``; each job ends done (its build committed) or failed (with the reason)."""
    ids = [job.id for job in batch]
    sources = [c["source"] for job in batch for c in job.changes]
    try:
        outcomes = build_domain(domain, progress=False, wait_s=BUILD_WAIT_S,
                                on_step=lambda step, outcome: store.update(ids, lambda j: _mark(j, step, outcome)))
    except LambdaRAGError as exc:
        _fail_all(store, ids, str(exc))
        return
    except Exception as exc:  # an unexpected failure still ends the job, with the traceback in jobs.log
        traceback.print_exc()
        _fail_all(store, ids, f"{type(exc).__name__}: {exc}")
        return
    announce_new_index(domain.root)
    error, failures = build_error(outcomes), file_failures(outcomes, sources)
    store.update(ids, lambda j: _finish(j, error, [f for f in failures if _changed(j, f["source"])]))


def _fail_all(store: JobStore, ids: Sequence[str], error: str) -> None:
    store.update(ids, lambda j: _finish(j, error, []))


def _changed(job: Job, source: str) -> bool:
    return any(change["source"] == source for change in job.changes)


@contextmanager
def runner_lock(domain_root: Path) -> Iterator[bool]:
    """Hold the domain's runner lock (True), or yield False at once when another runner holds it."""
    domain_root.mkdir(parents=True, exist_ok=True)
    with (domain_root / RUNNER_LOCK).open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def runner_busy(domain_root: Path) -> bool:
    with runner_lock(domain_root) as got:
        return not got


def work(domain: Domain) -> int:
    """Run the domain's queued jobs until none is left (0 at once when another runner has them); jobs run."""
    store, ran = JobStore(domain.root), 0
    while True:
        with runner_lock(domain.root) as got:
            if not got:
                return ran
            store.requeue_stale()
            while batch := store.take_queued():
                print(f"[jobs] building for {len(batch)} job(s): {', '.join(j.id for j in batch)}", file=sys.stderr)
                run_batch(domain, store, batch)
                ran += len(batch)
        if not store.queued():  # a job queued while this runner was letting go of the lock is not left behind
            return ran


def kick(domain: Domain) -> bool:
    """Start a runner process for the domain unless one is working; True when one was started."""
    if runner_busy(domain.root):
        return False
    log_path = domain.root / RUNNER_LOG
    if log_path.exists() and log_path.stat().st_size > MAX_LOG_BYTES:
        log_path.replace(log_path.with_suffix(".log.1"))
    cmd = [sys.executable, "-m", "lambdarag", "jobs", "work", "--domain", domain.name,
           "--base-dir", str(domain.root.parent)]
    with log_path.open("ab") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)  # its own session: a worker restart does not stop it
    threading.Thread(target=proc.wait, name="jobs-runner-reaper", daemon=True).start()
    return True
