"""A real gunicorn under load for the scale benchmark: requests/s, latency, CPU per request and worker memory.

The server and the one-request client are scripts/load_test.py's (``Server``, ``request``); this module adds what the
benchmark measures around them: closed-loop clients on one route for a fixed time, the workers' CPU seconds from
/proc (so a figure is CPU per request, stable on a shared machine), and each worker's RSS, PSS and private memory
from /proc/<pid>/smaps_rollup (pages of memory-mapped index files shared between workers count in RSS, not in
private memory).
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from load_test import Server, request  # noqa: E402  (scripts/load_test.py: the real gunicorn and the client)

from lambdarag.config.domain import Domain  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); nan for no values."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)] if ordered else float("nan")


def children(pid: int) -> list[int]:
    """The direct children of a process (gunicorn's workers, for its master)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return sorted(found)


def cpu_seconds(pids: Sequence[int]) -> float:
    """User + system CPU seconds the processes have used so far (processes gone since count 0)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / CLK_TCK


def memory_mb(pid: int) -> dict[str, float]:
    """RSS, PSS and private (clean + dirty) memory of one process in MB, from smaps_rollup."""
    values: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, _, rest = line.partition(":")
        if rest.strip().endswith("kB"):
            values[key] = int(rest.split()[0]) / 1024
    return {"rss": values.get("Rss", 0.0), "pss": values.get("Pss", 0.0),
            "private": values.get("Private_Clean", 0.0) + values.get("Private_Dirty", 0.0)}


@dataclass
class Phase:
    """One route driven by N clients for a while: what the clients saw and what the workers spent."""

    label: str
    ms: list[float]
    failures: int
    seconds: float
    cpu_s: float

    @property
    def rps(self) -> float:
        return len(self.ms) / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms_per_request(self) -> float:
        return self.cpu_s * 1000 / len(self.ms) if self.ms else float("nan")

    def row(self) -> dict[str, Any]:
        return {"label": self.label, "requests": len(self.ms), "failures": self.failures, "rps": self.rps,
                "p50_ms": percentile(self.ms, 50), "p95_ms": percentile(self.ms, 95),
                "p99_ms": percentile(self.ms, 99), "cpu_ms_per_request": self.cpu_ms_per_request}


class Served:
    """`lambdarag serve` of one built domain: started, waited for, measured, stopped."""

    def __init__(self, domain: Domain, workers: int, threads: int, log_file: Path) -> None:
        self.server = Server(domain, workers, threads, "bench-admin-token", log_file)
        started = time.perf_counter()
        try:
            self.server.wait_ready(timeout=600)
        except BaseException:
            self.server.stop()
            raise
        self.ready_s = time.perf_counter() - started
        self.port = self.server.port

    def workers(self) -> list[int]:
        return children(self.server.proc.pid)

    def memory(self) -> list[dict[str, float]]:
        return [memory_mb(pid) for pid in self.workers()]

    def drive(self, label: str, route: str, bodies: Sequence[dict[str, Any]], clients: int,
              duration: float) -> Phase:
        """``clients`` closed-loop clients POSTing ``bodies`` in turn to ``route`` for ``duration`` seconds."""
        ms: list[float] = []
        failures = [0]
        lock = threading.Lock()
        end = time.monotonic() + duration
        pids = self.workers()
        cpu_before = cpu_seconds(pids)

        def client(offset: int) -> None:
            i = offset
            while time.monotonic() < end:
                body = bodies[i % len(bodies)]
                i += clients
                start = time.perf_counter()
                try:
                    status, _, raw = request(self.port, "POST", route, body)
                    good = status == 200 and bool(json.loads(raw))
                except (OSError, ValueError):
                    good = False
                took = (time.perf_counter() - start) * 1000
                with lock:
                    if good:
                        ms.append(took)
                    else:
                        failures[0] += 1

        started = time.monotonic()
        threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(duration + 120)
        seconds = time.monotonic() - started
        return Phase(label, ms, failures[0], seconds, cpu_seconds(pids) - cpu_before)

    def stop(self) -> None:
        self.server.stop()
