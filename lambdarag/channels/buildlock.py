"""One build of a domain at a time, and a pause hook to stop a build at a known point.

The build lock is an advisory ``fcntl.flock`` on ``<domain>/.build.lock``, held for a whole `lambdarag build` and
for every index publication (so a single-step command such as `lambdarag index` cannot swap an index in while a
build runs). A second build refuses at once with a BuildRunningError naming the holder, or waits for it up to
``wait_s`` seconds (``--wait``, or $LAMBDARAG_BUILD_WAIT_S). The kernel drops the lock when its holder dies,
SIGKILL included, so a killed build never blocks the next one. The lock is re-entrant within a process.

Pause hook (tests and operations): with LAMBDARAG_BUILD_PAUSE_AT=<point>[,<point>...] a build prints
``lambdarag: paused at <point> (pid N)`` on stderr when it reaches that point and sleeps LAMBDARAG_BUILD_PAUSE_S
seconds (600 by default) before going on, time to inspect its files or to kill it there. The points are the
steps (``extract``, ``index``, ``vectors``, ``wiki``: before the step starts), ``publish:<channel>`` (the
channel's new folder is complete, nothing swapped in) and ``commit`` / ``commit:links`` (every step done,
before the chunk list and then the index links are swapped in; see lambdarag.build.steps).
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from lambdarag.errors import BuildRunningError

LOCK_FILE = ".build.lock"
WAIT_ENV = "LAMBDARAG_BUILD_WAIT_S"
PAUSE_ENV = "LAMBDARAG_BUILD_PAUSE_AT"
PAUSE_SECONDS_ENV = "LAMBDARAG_BUILD_PAUSE_S"
_POLL_S = 0.2
_held: dict[Path, int] = {}  # lock files this process holds, with how many nested holders


@contextmanager
def build_lock(root: Path, wait_s: float | None = None, what: str = "build") -> Iterator[None]:
    """Hold the build lock of the domain folder ``root`` (refuse, or wait up to ``wait_s`` seconds, when taken)."""
    path = (root / LOCK_FILE).resolve()
    if path in _held:
        _held[path] += 1
        try:
            yield
        finally:
            _held[path] -= 1
        return
    root.mkdir(parents=True, exist_ok=True)
    with path.open("a+", encoding="utf-8") as handle:
        _acquire(handle, root.name, _wait_seconds(wait_s))
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "what": what, "since": time.time()}) + "\n")
        handle.flush()
        _held[path] = 1
        try:
            yield
        finally:
            del _held[path]
            fcntl.flock(handle, fcntl.LOCK_UN)


def _wait_seconds(wait_s: float | None) -> float:
    if wait_s is not None:
        return wait_s
    try:
        return float(os.environ.get(WAIT_ENV) or 0)
    except ValueError:
        return 0.0


def _acquire(handle: IO[str], name: str, wait_s: float) -> None:
    """flock the handle, polling until ``wait_s`` has passed; then refuse, naming the build that holds it."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                break
            time.sleep(_POLL_S)
    waited = f" (waited {wait_s:g} s)" if wait_s > 0 else ""
    raise BuildRunningError(f"another build of domain {name!r} is running{holder(handle)}{waited}",
                            "wait for it to finish, or pass --wait SECONDS (or set "
                            f"{WAIT_ENV}) to queue behind it")


def holder(handle: IO[str]) -> str:
    """' (pid N, <what> since HH:MM:SS)' from the lock file, '' when it cannot be read."""
    handle.seek(0)
    try:
        info = json.loads(handle.read())
        since = time.strftime("%H:%M:%S", time.localtime(float(info["since"])))
        return f" (pid {int(info['pid'])}, {info['what']} since {since})"
    except (ValueError, KeyError, TypeError):
        return ""


def pause_point(point: str) -> None:
    """Sleep here when $LAMBDARAG_BUILD_PAUSE_AT names ``point`` (saying so on stderr first)."""
    wanted = {p.strip() for p in os.environ.get(PAUSE_ENV, "").split(",")}
    if point not in wanted:
        return
    try:
        seconds = float(os.environ.get(PAUSE_SECONDS_ENV) or 600)
    except ValueError:
        seconds = 600.0
    print(f"lambdarag: paused at {point} (pid {os.getpid()}) for {seconds:g} s", file=sys.stderr, flush=True)
    time.sleep(seconds)
