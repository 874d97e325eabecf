"""Hot reload after a rebuild: POST /admin/reload (this worker now, the others on their next request) and SIGHUP to
gunicorn, without dropping a request."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from server_fixtures import (
    ADMIN_TOKEN,
    NEW_DOC,
    SECOND_DOC,
    Gunicorn,
    build,
    gunicorn,
    http,
)

from lambdarag.config.domain import Domain
from lambdarag.server import create_app
from lambdarag.server.holder import GENERATION_FILE

AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
NEW_QUESTION = "校园卡单次充值上限是多少？"
SECOND_QUESTION = "图书馆开放时间是几点到几点？"


@pytest.fixture
def apps(domain: Domain, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Flask, Flask]]:
    """Two apps on one domain: two workers as far as reload is concerned."""
    monkeypatch.setenv("LAMBDARAG_ADMIN_TOKEN", ADMIN_TOKEN)
    pair = (create_app(domain), create_app(domain))
    yield pair
    for app in pair:
        app.extensions["lambdarag"].store.close()


def rebuild_with(domain: Domain, doc: tuple[str, str]) -> None:
    name, text = doc
    (domain.raw_dir / name).write_text(text, encoding="utf-8")
    build(domain)


def found(app: Flask) -> bool:
    return bool(app.test_client().post("/api/ask", json={"question": NEW_QUESTION}).get_json()["found"])


def test_admin_reload_here_and_in_the_other_workers(apps: tuple[Flask, Flask], domain: Domain) -> None:
    first, second = apps
    assert not found(first) and not found(second)
    rebuild_with(domain, NEW_DOC)
    assert not found(first)  # a rebuild alone does not change what a running worker serves
    response = first.test_client().post("/admin/reload", headers=AUTH)
    assert response.status_code == 200 and response.get_json()["reloaded"] is True
    assert (domain.root / GENERATION_FILE).read_text().strip() == str(response.get_json()["generation"])
    assert found(first)
    assert found(second)  # saw the bumped counter on its next request and reloaded
    assert second.extensions["lambdarag"].holder.status()["loads"] == 2


def test_failed_reload_keeps_serving_the_old_index(apps: tuple[Flask, Flask], domain: Domain) -> None:
    first, _ = apps
    (domain.processed_dir / "chunks.jsonl").write_text("", encoding="utf-8")
    response = first.test_client().post("/admin/reload", headers=AUTH)
    assert response.status_code == 503 and "previous index is still served" in response.get_json()["error"]["message"]
    body = first.test_client().post("/api/ask", json={"question": "教职工出差住宿费标准是多少？"}).get_json()
    assert body["found"] is True


class Traffic:
    """Requests fired one after another on fresh connections while something else happens (bounded)."""

    def __init__(self, server: Gunicorn, limit: int = 400) -> None:
        self.server, self.limit = server, limit
        self.statuses: list[int] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set() and len(self.statuses) < self.limit:
            status, _, _ = http("POST", self.server.base_url + "/api/ask", {"question": "报账大厅在哪里？"})
            self.statuses.append(status)

    def __enter__(self) -> Traffic:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(60)


def worker_pids(server: Gunicorn, tries: int = 8) -> set[str]:
    pids = set()
    for _ in range(tries):
        pids.add(http("GET", server.base_url + "/healthz")[1]["X-Worker-Pid"])
    return pids


def ask_everywhere(server: Gunicorn, question: str, tries: int = 30) -> dict[str, bool]:
    """pid → whether that worker finds the answer (fresh connections reach both workers)."""
    seen: dict[str, bool] = {}
    for _ in range(tries):
        status, headers, raw = http("POST", server.base_url + "/api/ask", {"question": question})
        assert status == 200
        seen[headers["X-Worker-Pid"]] = seen.get(headers["X-Worker-Pid"], True) and json.loads(raw)["found"]
    return seen


def test_gunicorn_admin_reload_then_sighup_without_dropping_requests(domain: Domain) -> None:
    with gunicorn(domain, workers=2, threads=2, ready_workers=2) as server:
        assert not any(ask_everywhere(server, NEW_QUESTION).values())
        rebuild_with(domain, NEW_DOC)
        with Traffic(server) as traffic:
            status, headers, raw = http("POST", server.base_url + "/admin/reload", {}, headers=AUTH)
            assert status == 200, raw
            time.sleep(0.3)
        answers = ask_everywhere(server, NEW_QUESTION)
        assert len(answers) == 2 and all(answers.values()), answers  # every worker serves the new index
        assert headers["X-Worker-Pid"] in answers

        old = set(answers)
        rebuild_with(domain, SECOND_DOC)
        with Traffic(server) as traffic_hup:
            server.signal(signal.SIGHUP)  # gunicorn: fresh workers, old ones finish their requests first
            deadline = time.monotonic() + 60
            while worker_pids(server) & old and time.monotonic() < deadline:
                time.sleep(0.2)
        assert not worker_pids(server) & old, "old workers still answering after SIGHUP"
        assert all(ask_everywhere(server, SECOND_QUESTION).values())
        for run in (traffic, traffic_hup):
            assert run.statuses and set(run.statuses) == {200}, run.statuses


def test_generation_counter_counts_every_bump(tmp_path: Path) -> None:
    from lambdarag.server.holder import bump_generation, read_generation

    path = tmp_path / GENERATION_FILE
    assert read_generation(path) == 0
    threads = [threading.Thread(target=bump_generation, args=(path,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert read_generation(path) == 8
    path.write_text("garbage", encoding="ascii")
    assert read_generation(path) == -1  # differs from any real value, so every worker reloads
    assert bump_generation(path) == 1
