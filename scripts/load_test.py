"""Load test: a real gunicorn on the demo domain, concurrent clients, a rebuild and both reloads mid-run.

    python scripts/load_test.py                                    # 4 workers, 50 clients, 60 s, one reload cycle
    python scripts/load_test.py --clients 8 --duration 10 --json out.json

Everything runs on loopback in a temporary folder: the demo domain (lambdarag.demo) is generated and built there
without vectors (BM25, document, graph and wiki channels; embedding a corpus would only slow the set-up), then
served by `lambdarag serve` (gunicorn, gthread workers). Each client is a thread that, until the time is up, asks a
demo question in a new session (/api/ask), starts a session and follows it up at once, follows up one of its
earlier sessions, or searches (/api/search); every request on a fresh connection, so the kernel may hand it to any
worker. Mid-run, each reload cycle adds a document to raw/, runs the real `lambdarag build` CLI, sends SIGHUP to
the gunicorn master, waits for the old workers to leave, and POSTs /admin/reload (admin token from the
environment, made up for the run).

Checks (exit status 1 when one fails):
  failures     every request answered 200 with its body (an answer, or hits); no connection error, no time-out
  sessions     every session's stored turns are exactly the client's requests in it, in order (whatever worker
               answered each), and follow-ups landed on other workers than their session's first request
  query log    the feedback query_log.jsonl and its rotated files hold one whole JSON line per answered /api/ask
               (the same request ids, none missing, none twice, none torn); it rotates several times meanwhile
  access log   gunicorn logged one parseable access line per request sent
  reloads      the rebuild, SIGHUP and /admin/reload each succeeded, and afterwards every worker answers from
               the rebuilt index (the added document is found)
Reported: requests, status counts, p50/p95/p99 per route, throughput, the reload cycle's timings.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _bootstrap  # noqa: F401

from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.demo.generate import QUESTIONS_FILE, generate

DOMAIN = "demo"
ROOT = Path(__file__).resolve().parent.parent
INSTANCE_YML = """
retrieval:
  channels:
    vector: {enabled: false}
embedding:
  backend: none
feedback: {rotate_mb: 0.25, keep_rotated: 1000}  # rotate often under load; keep every line for the count
"""
BUILD_STEPS = "extract,index,wiki"
# gunicorn_conf.access_log_format: '%(h)s "%(r)s" %(s)s %(b)s %(L)ss pid=%(p)s' (%(p)s is "<pid>")
ACCESS_LINE = re.compile(r'^\S+ "(?P<method>[A-Z]+) (?P<path>\S+) HTTP/1\.[01]" (?P<st>\d{3}) \S+ [\d.]+s pid=<\d+>$')
MIX = (("ask", 0.35), ("pair", 0.15), ("follow", 0.15), ("search", 0.35))  # what a client does next, by weight
REQUEST_TIMEOUT_S = 60.0


# ---- the domain and the server ------------------------------------------------------------------------------------

def added_document(n: int) -> tuple[str, str, str]:
    """(file name, text, a question only it answers) of the document the n-th reload cycle adds."""
    name = f"校园卡充值办法{n}.md"
    text = (f"# 校园卡充值办法（第{n}版）\n\n## 充值方式\n\n校园卡可在圈存机或微信公众号“江城校园卡{n}号”充值，"
            f"单次充值上限为{1000 + n}元。\n")
    return name, text, f"校园卡单次充值上限是多少元？江城校园卡{n}号"


def prepare(base: Path) -> Domain:
    """The demo domain under ``base``, generated and built without vectors."""
    from lambdarag.build.steps import build_domain

    domain = init_domain(DOMAIN, base)
    domain.instance_file.write_text(INSTANCE_YML, encoding="utf-8")
    domain = open_domain(DOMAIN, base)
    generate(domain.raw_dir)
    failed = [o for o in build_domain(domain, BUILD_STEPS.split(","), progress=False) if not o.ok]
    if failed:
        raise SystemExit(f"building the demo domain failed: {failed}")
    return domain


def child_env(**extra: str) -> dict[str, str]:
    """The environment for the processes the test starts: this checkout first on the import path (extraction
    workers are started by a forkserver, which takes its path from the environment, not from the parent)."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "PYTHONUNBUFFERED": "1", **extra}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """`lambdarag serve` (gunicorn) on a free loopback port, its output in a log file."""

    def __init__(self, domain: Domain, workers: int, threads: int, token: str, log_file: Path) -> None:
        self.port, self.workers, self.log_file = free_port(), workers, log_file
        env = child_env(LAMBDARAG_ADMIN_TOKEN=token)
        cmd = [sys.executable, "-m", "lambdarag", "serve", "--domain", domain.name, "--base-dir",
               str(domain.root.parent), "--port", str(self.port), "--workers", str(workers), "--threads", str(threads)]
        self._log = open(log_file, "wb")  # noqa: SIM115 (closed in stop())
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 120.0) -> set[str]:
        """Until every worker has answered /healthz; their pids."""
        deadline, pids = time.monotonic() + timeout, set()
        while time.monotonic() < deadline and len(pids) < self.workers:
            if self.proc.poll() is not None:
                raise SystemExit(f"gunicorn exited with {self.proc.returncode}: see {self.log_file}")
            try:
                status, headers, _ = request(self.port, "GET", "/healthz", timeout=5)
            except OSError:
                time.sleep(0.2)
                continue
            if status == 200:
                pids.add(headers.get("X-Worker-Pid", ""))
            time.sleep(0.02)
        if len(pids) < self.workers:
            raise SystemExit(f"gunicorn did not start {self.workers} workers in {timeout:g} s: see {self.log_file}")
        return pids

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()


def request(port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
            timeout: float = REQUEST_TIMEOUT_S) -> tuple[int, dict[str, str], bytes]:
    """One request on its own connection: (status, headers, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", "Connection": "close",
                                                       **(headers or {})})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


# ---- the clients --------------------------------------------------------------------------------------------------

@dataclass
class Sample:
    route: str  # ask | follow-up | search
    status: int  # 0: no HTTP answer (connection error, time-out)
    ms: float
    pid: str = ""
    error: str = ""


@dataclass
class Tally:
    """What every client did, shared under a lock."""

    samples: list[Sample] = field(default_factory=list)
    ask_ids: list[str] = field(default_factory=list)  # request ids of answered /api/ask, follow-ups included
    sessions: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # session → (request id, worker pid)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, sample: Sample, body: dict[str, Any] | None) -> None:
        with self.lock:
            self.samples.append(sample)
            if body is None or sample.route == "search":
                return
            self.ask_ids.append(body["request_id"])
            self.sessions.setdefault(body["session_id"], []).append((body["request_id"], sample.pid))


def questions() -> tuple[list[str], list[tuple[str, str]]]:
    """The demo questions: single ones, and (first, follow-up) pairs."""
    rows = [json.loads(line) for line in QUESTIONS_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    singles = [r["question"] for r in rows if not r.get("history")]
    pairs = [(r["history"][-1]["question"], r["question"]) for r in rows if r.get("history")]
    return singles, pairs


def call(port: int, tally: Tally, route: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """One request of a client, recorded; the body when it is a whole answer, else None (a failure)."""
    path = "/api/search" if route == "search" else "/api/ask"
    started = time.perf_counter()
    try:
        status, headers, raw = request(port, "POST", path, body)
    except (OSError, http.client.HTTPException) as exc:
        tally.add(Sample(route, 0, (time.perf_counter() - started) * 1000, error=f"{type(exc).__name__}: {exc}"), None)
        return None
    sample = Sample(route, status, (time.perf_counter() - started) * 1000, headers.get("X-Worker-Pid", ""))
    parsed = whole_answer(route, status, raw, body.get("session_id"))
    if parsed is None:
        sample.error = raw[:200].decode("utf-8", "replace")
    tally.add(sample, parsed)
    return parsed


def whole_answer(route: str, status: int, raw: bytes, session: str | None) -> dict[str, Any] | None:
    """The body of a good answer: 200, JSON, with its answer (or hits), in the session it was sent in."""
    if status != 200:
        return None
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    if route == "search":
        return body if isinstance(body.get("hits"), list) else None
    good = isinstance(body.get("answer"), str) and body["answer"] and body.get("request_id")
    return body if good and (session is None or body.get("session_id") == session) else None


def client(port: int, tally: Tally, going: Callable[[], bool], seed: int) -> None:
    """One client while ``going()``: new questions, sessions and their follow-ups, searches."""
    rng = random.Random(seed)
    singles, pairs = questions()
    mine: list[str] = []  # this client's sessions
    actions, weights = zip(*MIX, strict=True)
    while going():
        action = rng.choices(actions, weights)[0]
        if action == "search":
            call(port, tally, "search", {"question": rng.choice(singles)})
        elif action == "ask":
            call(port, tally, "ask", {"question": rng.choice(singles)})
        elif action == "pair" or not mine:
            first, then = rng.choice(pairs)
            body = call(port, tally, "ask", {"question": first})
            if body is not None:
                mine.append(body["session_id"])
                call(port, tally, "follow-up", {"question": then, "session_id": body["session_id"]})
        else:
            call(port, tally, "follow-up", {"question": rng.choice(pairs)[1], "session_id": rng.choice(mine)})


# ---- the reload cycle ---------------------------------------------------------------------------------------------

def reload_cycle(server: Server, domain: Domain, token: str, n: int) -> dict[str, Any]:
    """Add a document, rebuild with the CLI, SIGHUP the master, wait for the old workers to go, POST /admin/reload."""
    name, text, _ = added_document(n)
    (domain.raw_dir / name).write_text(text, encoding="utf-8")
    started = time.monotonic()
    build = subprocess.run([sys.executable, "-m", "lambdarag", "build", "--domain", domain.name, "--base-dir",
                            str(domain.root.parent), "--steps", BUILD_STEPS, "--wait", "120"],
                           cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=300)
    built = time.monotonic()
    old = worker_pids(server.port)
    server.proc.send_signal(signal.SIGHUP)
    gone = wait_for_new_workers(server, old)
    swapped = time.monotonic()
    status, _, raw = request(server.port, "POST", "/admin/reload", {}, {"Authorization": f"Bearer {token}"})
    return {"cycle": n, "build_exit": build.returncode, "build_s": round(built - started, 2),
            "sighup_workers_replaced": gone, "sighup_to_new_workers_only_s": round(swapped - built, 2),
            "admin_reload_status": status, "admin_reload_s": round(time.monotonic() - swapped, 2),
            "build_tail": build.stdout.strip().splitlines()[-1:] + build.stderr.strip().splitlines()[-2:],
            "admin_reload_body": json.loads(raw) if status == 200 else raw[:300].decode("utf-8", "replace")}


def worker_pids(port: int, tries: int = 4) -> set[str]:
    """The worker pids that answer ``tries`` /healthz probes (each on its own connection)."""
    pids = set()
    for _ in range(tries):
        try:
            status, headers, _ = request(port, "GET", "/healthz", timeout=10)
        except OSError:
            continue
        if status == 200:
            pids.add(headers.get("X-Worker-Pid", ""))
    return pids


def wait_for_new_workers(server: Server, old: set[str], timeout: float = 90.0) -> bool:
    """Until probes reach new workers only: every old worker has stopped accepting (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen = worker_pids(server.port)
        if seen and not seen & old:
            return True
        time.sleep(0.1)
    return False


# ---- the checks ---------------------------------------------------------------------------------------------------

def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of ``values``."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)] if ordered else float("nan")


def latency_table(samples: list[Sample]) -> dict[str, dict[str, float]]:
    table = {}
    for route in sorted({s.route for s in samples}):
        ms = [s.ms for s in samples if s.route == route]
        table[route] = {"requests": len(ms), "p50_ms": round(percentile(ms, 50), 1),
                        "p95_ms": round(percentile(ms, 95), 1), "p99_ms": round(percentile(ms, 99), 1),
                        "max_ms": round(max(ms), 1)}
    return table


def check_sessions(port: int, tally: Tally, token: str) -> dict[str, Any]:
    """Every session's stored turns are the client's request ids in it, in order; sessions crossed workers."""
    broken = []
    for sid, turns in tally.sessions.items():
        auth = {"Authorization": f"Bearer {token}"}
        status, _, raw = request(port, "GET", f"/api/sessions/{sid}/trace", headers=auth)
        stored = [t["request_id"] for t in json.loads(raw)["turns"]] if status == 200 else None
        if stored != [rid for rid, _ in turns]:
            broken.append({"session_id": sid, "sent": [rid for rid, _ in turns], "stored": stored})
    multi = [turns for turns in tally.sessions.values() if len(turns) > 1]
    crossed = sum(1 for turns in multi if len({pid for _, pid in turns}) > 1)
    follow_ups = sum(1 for s in tally.samples if s.route == "follow-up")
    return {"ok": not broken and follow_ups > 0 and crossed > 0, "sessions": len(tally.sessions),
            "multi_turn_sessions": len(multi), "follow_ups": follow_ups,
            "sessions_answered_by_several_workers": crossed, "broken": broken[:5]}


def read_lines(folder: Path, name: str) -> list[str]:
    """Every line of a log and its rotated files (NAME, NAME.1, NAME.2, ...)."""
    files = [p for p in folder.glob(f"{name}*") if re.fullmatch(re.escape(name) + r"(\.\d+)?", p.name)]
    return [line for path in files for line in path.read_bytes().decode("utf-8").split("\n") if line]


def check_query_log(domain: Domain, ask_ids: list[str]) -> dict[str, Any]:
    """One whole JSON line per answered /api/ask: the same request ids, none missing, none twice, none torn."""
    lines = read_lines(domain.feedback_dir, "query_log.jsonl")
    ids, torn = [], 0
    for line in lines:
        try:
            ids.append(json.loads(line)["request_id"])
        except (ValueError, KeyError, TypeError):
            torn += 1
    rotated = len([p for p in domain.feedback_dir.glob("query_log.jsonl.*") if p.suffix[1:].isdigit()])
    missing, extra = Counter(ask_ids) - Counter(ids), Counter(ids) - Counter(ask_ids)
    return {"ok": not torn and not missing and not extra and len(lines) == len(ask_ids), "lines": len(lines),
            "answered_asks": len(ask_ids), "torn": torn, "missing": len(missing), "unexpected": len(extra),
            "rotated_files": rotated}


def check_access_log(log_file: Path, sent: Counter[str]) -> dict[str, Any]:
    """gunicorn's access log: one parseable line per request sent to each route (other lines are the app's)."""
    logged: Counter[str] = Counter()
    for line in log_file.read_text(encoding="utf-8", errors="replace").splitlines():
        match = ACCESS_LINE.match(line)
        if match and match["path"] in sent:
            logged[match["path"]] += 1
    return {"ok": logged == sent, "sent": dict(sent), "logged": dict(logged)}


def check_rebuilt_index(port: int, tally: Tally, cycles: int, workers: int) -> dict[str, Any]:
    """After the reloads every worker finds the last added document (asked until each worker has answered)."""
    if not cycles:
        return {"ok": True, "skipped": "no reload cycle"}
    question = added_document(cycles)[2]
    found: dict[str, bool] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(found) < workers:
        body = call(port, tally, "ask", {"question": question})
        pid = tally.samples[-1].pid
        if body is not None:
            found[pid] = found.get(pid, True) and bool(body["found"]) and str(1000 + cycles) in body["answer"]
    return {"ok": len(found) >= workers and all(found.values()), "workers": found}


# ---- the run ------------------------------------------------------------------------------------------------------

def run_load(server: Server, domain: Domain, token: str,
             args: argparse.Namespace) -> tuple[Tally, list[dict[str, Any]]]:
    """The clients for ``args.duration`` seconds (longer if the reload cycles are not done by then, so that every
    cycle runs under load), the reload cycles at their fractions of the duration meanwhile."""
    tally, cycles, done = Tally(), [], threading.Event()
    started = time.monotonic()

    def reloads() -> None:
        try:
            for n, fraction in enumerate(args.reload_at, start=1):
                time.sleep(max(0.0, started + fraction * args.duration - time.monotonic()))
                cycles.append(reload_cycle(server, domain, token, n))
        finally:
            done.set()

    def until() -> bool:
        return time.monotonic() < started + args.duration or not done.is_set()

    threads = [threading.Thread(target=client, args=(server.port, tally, until, args.seed + i), daemon=True)
               for i in range(args.clients)]
    threads.append(threading.Thread(target=reloads, daemon=True))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(args.duration + 900)
    return tally, cycles


def reload_check(cycles: list[dict[str, Any]], wanted: int) -> dict[str, Any]:
    good = [c for c in cycles if c["build_exit"] == 0 and c["sighup_workers_replaced"]
            and c["admin_reload_status"] == 200]
    return {"ok": len(good) == wanted == len(cycles), "cycles": cycles}


def summary(tally: Tally, duration: float) -> dict[str, Any]:
    failures = [s for s in tally.samples if s.status != 200 or s.error]
    return {"requests": len(tally.samples), "throughput_rps": round(len(tally.samples) / duration, 1),
            "status": dict(Counter(str(s.status) for s in tally.samples)), "latency": latency_table(tally.samples),
            "failures": len(failures), "failure_examples": [vars(f) for f in failures[:5]],
            "workers_seen": len({s.pid for s in tally.samples if s.pid})}


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    token = secrets.token_hex(16)
    domain = prepare(workdir / "knowledge")
    server = Server(domain, args.workers, args.threads, token, workdir / "gunicorn.log")
    try:
        server.wait_ready()
        load_started = time.monotonic()
        tally, cycles = run_load(server, domain, token, args)
        elapsed = time.monotonic() - load_started
        load = summary(tally, elapsed)
        checks = {"failures": {"ok": load["failures"] == 0, "failures": load["failures"]},
                  "reloads": reload_check(cycles, len(args.reload_at)),
                  "rebuilt_index": check_rebuilt_index(server.port, tally, len(cycles), args.workers),
                  "sessions": check_sessions(server.port, tally, token)}
    finally:
        server.stop()
    sent = Counter("/api/search" if s.route == "search" else "/api/ask" for s in tally.samples)
    checks["query_log"] = check_query_log(domain, tally.ask_ids)
    checks["access_log"] = check_access_log(server.log_file, sent)
    settings = {k: getattr(args, k) for k in ("workers", "threads", "clients", "duration", "reload_at", "seed")}
    return {"settings": settings, "load_seconds": round(elapsed, 1), **load, "checks": checks,
            "ok": all(c["ok"] for c in checks.values())}


def print_report(report: dict[str, Any]) -> None:
    s = report["settings"]
    print(f"gunicorn {s['workers']} workers × {s['threads']} threads, {s['clients']} clients, "
          f"{report['load_seconds']} s, reloads at {s['reload_at']}")
    print(f"requests {report['requests']} ({report['throughput_rps']}/s), status {report['status']}, "
          f"failures {report['failures']}, workers seen {report['workers_seen']}")
    print(f"{'route':<10} {'requests':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for route, row in report["latency"].items():
        print(f"{route:<10} {row['requests']:>8} {row['p50_ms']:>8} {row['p95_ms']:>8} {row['p99_ms']:>8} "
              f"{row['max_ms']:>8}")
    for name, check in report["checks"].items():
        details = {k: v for k, v in check.items() if k not in ("ok", "cycles")}
        print(f"[{'ok' if check['ok'] else 'FAIL'}] {name}: {json.dumps(details, ensure_ascii=False)}")
        for cycle in check.get("cycles", []):
            print("       " + json.dumps({k: v for k, v in cycle.items() if k != "admin_reload_body"},
                                         ensure_ascii=False))
    print("all checks passed" if report["ok"] else "SOME CHECKS FAILED")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes (4)")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (4, the config's default)")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (50)")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load (60)")
    parser.add_argument("--reload-at", type=lambda v: [float(x) for x in v.split(",") if x.strip()], default=[0.3],
                        help="when reload cycles start, as fractions of the duration, comma-separated (0.3); '' = none")
    parser.add_argument("--seed", type=int, default=14, help="seed of the clients' choices")
    parser.add_argument("--json", type=Path, help="also write the report here as JSON")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.update(child_env())  # for the extraction workers of the first build, which runs in this process
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="lambdarag-load-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        report = run(args, workdir)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
