"""Helpers for the server tests: tiny real domains in tmp_path, and a real gunicorn on a free loopback port."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lambdarag.config.domain import Domain, init_domain, open_domain

ROOT = Path(__file__).resolve().parents[1]
ADMIN_TOKEN = "test-admin-token"
# Only the BM25 channel: the server layer under test is the same with one channel as with four,
# and the embedding model and graph build would dominate every fixture's time (the channels have
# their own tests).
INSTANCE_YML = """
retrieval:
  channels:
    vector: {enabled: false}
    graph: {enabled: false}
    wiki: {enabled: false}
embedding:
  backend: none
"""
BUILD_STEPS = ("extract", "index")

CORPUS: dict[str, str] = {
    "差旅费报销办法.md": """# 差旅费报销办法

## 第一章 总则

为规范差旅费管理，根据学校财务制度，制定本办法。本办法由财务处负责解释。

## 第二章 住宿费标准

教职工出差住宿费标准为每人每天不超过500元，超出部分由个人承担。

## 第三章 报销流程

出差结束后30天内，报销人登录网上报销系统填写差旅费报销单，附发票和行程单，经部门负责人审批后提交报账大厅。
""",
    "财务处联系方式.md": """# 财务处联系方式

## 报账大厅

报账大厅位于行政楼一层，联系电话 027-88886666，负责人张明。

## 预算科

预算科隶属财务处，负责学校年度预算编制，联系人李华，邮箱 budget@example.edu.cn。
""",
    "科研经费管理.md": """# 科研经费管理办法

## 劳务费

科研项目劳务费发放标准为每人每月不超过3000元，须经项目负责人签字。

## 设备费

单价10万元以上的设备采购须进行政府采购招标。
""",
}

NEW_DOC = ("校园卡充值.md", """# 校园卡充值办法

## 充值方式

校园卡可在圈存机或微信公众号“江城校园卡”充值，单次充值上限为1000元。
""")
SECOND_DOC = ("图书馆开放时间.md", """# 图书馆开放时间

## 开放时间

图书馆开放时间为每天8:00至22:00，寒暑假另行通知。
""")


def bare_domain(base: Path, name: str = "kb") -> Domain:
    """A fresh domain with the test instance.yml and no documents (its index does not load)."""
    domain = init_domain(name, base)
    domain.instance_file.write_text(INSTANCE_YML, encoding="utf-8")
    return open_domain(name, base)


def write_corpus(raw_dir: Path, docs: dict[str, str] | None = None) -> None:
    raw_dir.mkdir(parents=True, exist_ok=True)
    for name, text in (docs or CORPUS).items():
        (raw_dir / name).write_text(text, encoding="utf-8")


def build(domain: Domain) -> None:
    """Run the real build path (extract, BM25 index); every step must succeed."""
    from lambdarag.build.steps import build_domain

    outcomes = build_domain(domain, steps=BUILD_STEPS, progress=False)
    failed = [o for o in outcomes if not o.ok]
    assert not failed, failed


def built_domain(base: Path, name: str = "kb") -> Domain:
    """A domain with the small Chinese corpus, extracted and indexed."""
    domain = bare_domain(base, name)
    write_corpus(domain.raw_dir)
    build(domain)
    return domain


_SHARED: dict[str, Domain] = {}


def shared_source(tmp_path_factory: Any) -> Domain:
    """One built domain for the whole test session (built once); tests work on copy_domain() copies of it."""
    if "source" not in _SHARED:
        _SHARED["source"] = built_domain(tmp_path_factory.mktemp("server-source"))
    return _SHARED["source"]


def copy_domain(source: Domain, base: Path) -> Domain:
    """A private copy of a built domain (for tests that rebuild or write to it)."""
    target = base / source.name
    shutil.copytree(source.root, target, symlinks=True)
    for leftover in ("sessions.sqlite3", "sessions.sqlite3-wal", "sessions.sqlite3-shm"):
        (target / leftover).unlink(missing_ok=True)
    shutil.rmtree(target / "feedback", ignore_errors=True)
    return open_domain(source.name, base)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http(method: str, url: str, body: Any = None, headers: dict[str, str] | None = None,
         timeout: float = 60.0) -> tuple[int, dict[str, str], bytes]:
    """One loopback HTTP request with the standard library: (status, headers, body)."""
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json",
                                                                          **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


class Gunicorn:
    """A real gunicorn serving a domain through `lambdarag serve`, on a free 127.0.0.1 port."""

    def __init__(self, domain: Domain, workers: int = 2, threads: int = 4, log_file: Path | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.domain = domain
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_file = log_file or domain.root.parent / f"gunicorn-{self.port}.log"
        env = {**os.environ, "LAMBDARAG_ADMIN_TOKEN": ADMIN_TOKEN, "PYTHONUNBUFFERED": "1", **(env or {})}
        cmd = [sys.executable, "-m", "lambdarag", "serve", "--domain", domain.name,
               "--base-dir", str(domain.root.parent), "--port", str(self.port),
               "--workers", str(workers), "--threads", str(threads)]
        self._log = open(self.log_file, "wb")  # noqa: SIM115 (closed in stop())
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 90.0, workers: int = 1) -> None:
        """Until /healthz answers (and, with workers > 1, that many distinct pids have answered)."""
        deadline = time.monotonic() + timeout
        pids: set[str] = set()
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}:\n{self.log()}")
            try:
                status, headers, _ = http("GET", self.base_url + "/healthz", timeout=5)
            except OSError:
                time.sleep(0.2)
                continue
            if status == 200:
                pids.add(headers.get("X-Worker-Pid", ""))
                if len(pids) >= workers:
                    return
            time.sleep(0.05)
        raise RuntimeError(f"gunicorn did not become ready in {timeout} s:\n{self.log()}")

    def log(self) -> str:
        """The log's last 4000 characters, without the health checks' access lines (wait_ready's polling would
        push a worker's boot traceback out of them)."""
        self._log.flush()
        lines = self.log_file.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        return "".join(line for line in lines if '"GET /healthz ' not in line)[-4000:]

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()


@contextmanager
def gunicorn(domain: Domain, workers: int = 2, threads: int = 4, ready_workers: int = 1,
             env: dict[str, str] | None = None) -> Iterator[Gunicorn]:
    """Start gunicorn (with these extra environment variables), wait until it answers, always stop it."""
    server = Gunicorn(domain, workers=workers, threads=threads, env=env)
    try:
        server.wait_ready(workers=ready_workers)
        yield server
    finally:
        server.stop()


def wait_job(client: Any, job_id: str, timeout: float = 180) -> dict[str, Any]:
    """Poll a Flask test client's GET /api/jobs/<id> (admin token) until the job is done or failed."""
    deadline = time.monotonic() + timeout
    body: dict[str, Any] = {}
    while time.monotonic() < deadline:
        body = client.get(f"/api/jobs/{job_id}", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).get_json()
        if body["state"] in ("done", "failed"):
            return dict(body)
        time.sleep(0.3)
    raise AssertionError(f"job {job_id} not finished after {timeout} s: {body}")


def cited(client: Any, question: str) -> set[str]:
    """The doc ids /api/ask cites for ``question`` (none when it answers "not found")."""
    body = client.post("/api/ask", json={"question": question}).get_json()
    return {c["doc_id"] for c in body["citations"]} if body["found"] else set()
