"""The documents API under a real gunicorn with two workers: uploads sent at once to both workers become jobs that
one runner builds (never two builds at once), and every worker serves the new index afterwards without a signal;
a deletion then leaves every worker's answers."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
import uuid
from typing import Any

from server_fixtures import ADMIN_TOKEN, NEW_DOC, SECOND_DOC, Gunicorn, gunicorn, http
from test_server_reload import ask_everywhere

from lambdarag.build.jobs import RUNNER_LOG
from lambdarag.config.domain import Domain

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
NEW_QUESTION = "校园卡单次充值上限是多少？"
SECOND_QUESTION = "图书馆开放时间是几点到几点？"


def multipart(files: list[tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = []
    for i, (name, body) in enumerate(files):
        quoted = urllib.parse.quote(name)
        head = (f'--{boundary}\r\nContent-Disposition: form-data; name="file{i}"; filename="{quoted}"; '
                f"filename*=UTF-8''{quoted}\r\nContent-Type: application/octet-stream\r\n\r\n")
        parts.append(head.encode() + body + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def post_files(server: Gunicorn, files: list[tuple[str, bytes]]) -> tuple[int, dict[str, Any]]:
    import urllib.error
    import urllib.request

    body, content_type = multipart(files)
    request = urllib.request.Request(server.base_url + "/api/documents", data=body, method="POST",
                                     headers={**ADMIN, "Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_job(server: Gunicorn, job_id: str, timeout: float = 180) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, _, raw = http("GET", f"{server.base_url}/api/jobs/{job_id}", headers=ADMIN)
        body = json.loads(raw)
        assert status == 200, body
        if body["state"] in ("done", "failed"):
            return dict(body)
        time.sleep(0.3)
    raise AssertionError(f"job {job_id} not finished after {timeout} s:\n{server.log()}")


def test_uploads_to_two_workers_build_once_at_a_time_and_every_worker_serves_them(domain: Domain) -> None:
    with gunicorn(domain, workers=2, threads=2, ready_workers=2) as server:
        assert not any(ask_everywhere(server, NEW_QUESTION).values())
        results: list[tuple[int, dict[str, Any]]] = []
        uploads = [threading.Thread(target=lambda doc=doc: results.append(post_files(server, [(doc[0],
                                    doc[1].encode())]))) for doc in (NEW_DOC, SECOND_DOC)]
        for thread in uploads:
            thread.start()
        for thread in uploads:
            thread.join(60)
        assert sorted(status for status, _ in results) == [202, 202], results
        jobs = [wait_job(server, body["job"]["id"]) for _, body in results]
        assert all(job["state"] == "done" and job["attempts"] == 1 for job in jobs), jobs
        first, second = sorted(jobs, key=lambda job: job["started"])
        one_build = abs(first["started"] - second["started"]) < 0.5 and first["runner_pid"] == second["runner_pid"]
        assert one_build or first["finished"] <= second["started"], jobs  # built together, or one after the other
        answers = ask_everywhere(server, NEW_QUESTION)
        assert len(answers) == 2 and all(answers.values()), answers  # both workers, no SIGHUP, no /admin/reload
        assert all(ask_everywhere(server, SECOND_QUESTION).values())

        url = f"{server.base_url}/api/documents/{urllib.parse.quote('校园卡充值')}"
        status, _, raw = http("DELETE", url, headers=ADMIN)
        assert status == 202, raw
        assert wait_job(server, json.loads(raw)["job"]["id"])["state"] == "done"
        answers = ask_everywhere(server, NEW_QUESTION)
        assert len(answers) == 2 and not any(answers.values()), answers
    log = (domain.root / RUNNER_LOG).read_text(encoding="utf-8")
    assert "another build" not in log  # the runner lock kept a second build from starting
