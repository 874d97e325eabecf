"""A real milvus-lite for the Milvus backend's tests: domains built on it, and `milvus-lite server` on loopback."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from index_fixtures import full_instance
from server_fixtures import write_corpus

from lambdarag.build.steps import build_domain
from lambdarag.config.domain import Domain, init_domain, open_domain

pytest.importorskip("pymilvus", reason="the milvus extra is not installed: pip install -e '.[milvus]'")
pytest.importorskip("milvus_lite", reason="the milvus extra is not installed: pip install -e '.[milvus]'")


def milvus_instance(base_url: str, uri: str = "", extra: str = "") -> str:
    """The index fixtures' instance.yml (fake embeddings over HTTP, LLM off) with the Milvus backend."""
    return (full_instance(base_url) + "retrieval:\n  backend: milvus\n  milvus:\n"
            f"    uri: '{uri}'\n    batch_size: 3\n{extra}")


def milvus_domain(base: Path, base_url: str, uri: str = "", extra: str = "", name: str = "kb") -> Domain:
    """A domain of the small Chinese corpus on the Milvus backend, built with every step (each must succeed)."""
    domain = init_domain(name, base)
    domain.instance_file.write_text(milvus_instance(base_url, uri, extra), encoding="utf-8")
    domain = open_domain(name, base)
    write_corpus(domain.raw_dir)
    rebuild(domain)
    return domain


def rebuild(domain: Domain) -> list[str]:
    """Every build step (each must succeed); the step summaries."""
    outcomes = build_domain(domain, progress=False)
    assert all(o.ok for o in outcomes), outcomes
    return [o.summary for o in outcomes]


def reopen(domain: Domain, instance: str) -> Domain:
    domain.instance_file.write_text(instance, encoding="utf-8")
    return open_domain(domain.name, domain.root.parent)


class LiteServer:
    """`milvus-lite server` in a child process on a loopback port; stop() kills it, start() brings it back."""

    def __init__(self, data_dir: Path, port: int) -> None:
        self.data_dir = data_dir
        self.port = port
        self.uri = f"http://127.0.0.1:{port}"
        self.log = data_dir.parent / f"milvus-lite-{port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> None:
        command = [sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(self.data_dir),
                   "--host", "127.0.0.1", "--port", str(self.port)]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"milvus-lite server exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"milvus-lite server did not listen on {self.port} within {timeout} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        self.process = None
