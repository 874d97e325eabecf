"""The documents API (issue 17, point 1) through the real Flask app: uploads and deletions reach raw/, a real
background runner (`lambdarag jobs work`, started by the app) builds them, and the app serves the new index; bad
uploads are 400s that change nothing; only the admin token or a write-scoped key may use it."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from server_fixtures import ADMIN_TOKEN, NEW_DOC, cited, wait_job

from lambdarag.build.generation import GENERATION_FILE, read_generation
from lambdarag.build.jobs import JOBS_FILE
from lambdarag.config.domain import Domain, open_domain
from lambdarag.ingest.store import load_chunks
from lambdarag.server import create_app

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
NEW_QUESTION = "校园卡单次充值上限是多少？"
OLD_QUESTION = "教职工出差住宿费标准是多少？"
OLD_DOC = "差旅费报销办法"


AppFactory = Callable[..., FlaskClient]


@pytest.fixture
def make_client(domain: Domain, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppFactory]:
    apps: list[Flask] = []
    monkeypatch.setenv("LAMBDARAG_ADMIN_TOKEN", ADMIN_TOKEN)

    def make(extra_yml: str = "", env: dict[str, str] | None = None) -> FlaskClient:
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        if extra_yml:
            with domain.instance_file.open("a", encoding="utf-8") as out:
                out.write(extra_yml)
        app = create_app(open_domain(domain.name, domain.root.parent))
        apps.append(app)
        return app.test_client()

    yield make
    for app in apps:
        app.extensions["lambdarag"].store.close()


@pytest.fixture
def client(make_client: AppFactory) -> FlaskClient:
    return make_client()


def upload(client: FlaskClient, files: list[tuple[str, bytes]], headers: dict[str, str] | None = None) -> Any:
    data = {f"file{i}": (io.BytesIO(body), name) for i, (name, body) in enumerate(files)}
    return client.post("/api/documents", data=data, headers=ADMIN if headers is None else headers,
                       content_type="multipart/form-data")


def error_of(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    return str(body["error"]["message"])


def raw_listing(domain: Domain) -> dict[str, bytes]:
    return {p.relative_to(domain.raw_dir).as_posix(): p.read_bytes() for p in sorted(domain.raw_dir.rglob("*"))
            if p.is_file()}


def test_upload_then_the_question_cites_the_new_document(client: FlaskClient, domain: Domain) -> None:
    assert "校园卡充值" not in cited(client, NEW_QUESTION)
    generation = read_generation(domain.root / GENERATION_FILE)
    response = upload(client, [(NEW_DOC[0], NEW_DOC[1].encode())])
    assert response.status_code == 202, response.get_json()
    body = response.get_json()
    assert body["documents"][0]["action"] == "added" and body["documents"][0]["doc_id"] == "校园卡充值"
    assert (domain.raw_dir / NEW_DOC[0]).read_text(encoding="utf-8") == NEW_DOC[1]
    job = wait_job(client, body["job"]["id"])
    assert job["state"] == "done", job
    assert [s["state"] for s in job["steps"]] == ["done"] * 5 and job["kind"] == "upload"
    assert read_generation(domain.root / GENERATION_FILE) > generation  # the workers are told to reload
    assert "校园卡充值" in cited(client, NEW_QUESTION)
    row = client.get("/api/documents/校园卡充值", headers=ADMIN).get_json()
    assert row["status"] == "indexed" and row["chunks"] >= 1 and row["title"] == "校园卡充值办法"
    assert row["sha256"] == body["documents"][0]["sha256"] and row["size"] == len(NEW_DOC[1].encode())
    again = upload(client, [(NEW_DOC[0], NEW_DOC[1].encode())])
    assert again.status_code == 200 and again.get_json()["job"] is None  # same content: nothing to build
    assert again.get_json()["documents"][0]["action"] == "unchanged"


def test_delete_then_the_question_no_longer_cites_it(client: FlaskClient, domain: Domain) -> None:
    assert OLD_DOC in cited(client, OLD_QUESTION)
    response = client.delete(f"/api/documents/{OLD_DOC}", headers=ADMIN)
    assert response.status_code == 202, response.get_json()
    assert not (domain.raw_dir / f"{OLD_DOC}.md").exists()
    listed = client.get("/api/documents", headers=ADMIN).get_json()["documents"]
    assert next(r for r in listed if r["id"] == OLD_DOC)["status"] in ("deleting", "indexed")
    job = wait_job(client, response.get_json()["job"]["id"])
    assert job["state"] == "done", job
    assert OLD_DOC not in cited(client, OLD_QUESTION)
    assert all(c.doc_id != OLD_DOC for c in load_chunks(domain.processed_dir))
    error_of(client.get(f"/api/documents/{OLD_DOC}", headers=ADMIN), 404, "not_found")
    error_of(client.delete(f"/api/documents/{OLD_DOC}", headers=ADMIN), 404, "not_found")


def test_listing_is_paged_with_statuses(client: FlaskClient) -> None:
    first = client.get("/api/documents?limit=2", headers=ADMIN).get_json()
    assert first["total"] == 3 and len(first["documents"]) == 2 and first["offset"] == 0
    rest = client.get("/api/documents?offset=2&limit=2", headers=ADMIN).get_json()
    rows = first["documents"] + rest["documents"]
    assert sorted(r["source"] for r in rows) == ["差旅费报销办法.md", "科研经费管理.md", "财务处联系方式.md"]
    for row in rows:
        assert row["status"] == "indexed" and row["chunks"] > 0 and len(row["sha256"]) == 64 and row["updated"]
        assert set(row) == {"id", "source", "title", "size", "sha256", "status", "reason", "chunks", "doc_ids",
                            "updated"}
    error_of(client.get("/api/documents?limit=0", headers=ADMIN), 400, "bad_request")
    error_of(client.get("/api/documents?offset=-1", headers=ADMIN), 400, "bad_request")


BAD_UPLOADS = [
    ("tool.exe", b"MZ\x90\x00binary", "unsupported file type .exe"),
    ("old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600, "legacy Office format"),
    ("empty.md", b"", "file is empty"),
    ("fake.pdf", b"just some text, not a pdf", "not a valid PDF file"),
    ("../escape.md", b"# x\n\ntext", "not a plain relative path"),
    ("sub/../../escape.md", b"# x\n\ntext", "not a plain relative path"),
    ("/etc/cron.d/x.md", b"# x\n\ntext", "not a plain relative path"),
    ("..\\escape.md", b"# x\n\ntext", "escape.md"),  # the form decoder may drop the backslash: refused either way
    (".hidden.md", b"# x\n\ntext", "hidden"),
    ("big.md", b"# big\n\n" + "很长的文本。".encode() * 1200, "over the cap"),
]


@pytest.mark.parametrize(("name", "body", "fragment"), BAD_UPLOADS, ids=[b[0] for b in BAD_UPLOADS])
def test_a_bad_upload_is_a_400_and_changes_nothing(make_client: AppFactory, domain: Domain, name: str, body: bytes,
                                                   fragment: str) -> None:
    client = make_client("ingest: {max_file_mb: 0.01}\n")  # 10 KB: the "big" file is 21 KB
    before = raw_listing(domain)
    response = upload(client, [(NEW_DOC[0], NEW_DOC[1].encode()), (name, body)])  # a good file beside the bad one
    assert fragment in error_of(response, 400, "bad_request")
    assert raw_listing(domain) == before  # the good file of the same request did not go in either
    assert not (domain.root / JOBS_FILE).exists()
    assert not list((domain.root / ".staging").iterdir())
    assert OLD_DOC in cited(client, OLD_QUESTION)


def test_malformed_upload_requests(make_client: AppFactory) -> None:
    client = make_client("documents: {max_files: 2}\ningest: {max_file_mb: 0.01}\n")
    error_of(client.post("/api/documents", json={"file": "x"}, headers=ADMIN), 415, "unsupported_media_type")
    error_of(client.post("/api/documents", data={"note": "no file"}, headers=ADMIN,
                         content_type="multipart/form-data"), 400, "bad_request")
    three = [(f"d{i}.md", b"# t\n\ntext") for i in range(3)]
    assert "the cap is 2" in error_of(upload(client, three), 400, "bad_request")
    huge = b"--b\r\nContent-Disposition: form-data; name=f; filename=a.md\r\n\r\n" + b"x" * 1_200_000 + b"\r\n--b--\r\n"
    response = client.post("/api/documents", data=huge, headers=ADMIN, content_type="multipart/form-data; boundary=b")
    error_of(response, 413, "payload_too_large")  # the request cap: 2 files × 10 KB + 1 MB of form
    clash = upload(client, [("差旅费报销办法.txt", "另一份".encode())])
    assert "already given by 差旅费报销办法.md" in error_of(clash, 400, "bad_request")


KEYS = "read-key kb; write-key kb read,write; only-write kb write; other-domain other read,write"


@pytest.mark.parametrize(("headers", "status"), [
    ({}, 401),
    ({"Authorization": "Bearer no-such-key"}, 401),
    ({"Authorization": "Bearer read-key"}, 403),
    ({"X-API-Key": "read-key"}, 403),
    ({"Authorization": "Bearer other-domain"}, 403),
])
def test_only_the_admin_token_or_a_write_key_may_change_documents(make_client: AppFactory, domain: Domain,
                                                                  headers: dict[str, str], status: int) -> None:
    client = make_client("server: {auth: {enabled: true}}\n", {"LAMBDARAG_API_KEYS": KEYS})
    before = raw_listing(domain)
    code = "unauthorized" if status == 401 else "forbidden"
    error_of(upload(client, [(NEW_DOC[0], NEW_DOC[1].encode())], headers), status, code)
    error_of(client.delete(f"/api/documents/{OLD_DOC}", headers=headers), status, code)
    error_of(client.get("/api/documents", headers=headers), status, code)
    error_of(client.get(f"/api/jobs/{'0' * 32}", headers=headers), status, code)
    assert raw_listing(domain) == before


def test_write_scope_and_admin_token_are_let_in(make_client: AppFactory) -> None:
    client = make_client("server: {auth: {enabled: true}}\n", {"LAMBDARAG_API_KEYS": KEYS})
    for headers in ({"Authorization": "Bearer write-key"}, {"X-API-Key": "only-write"}, ADMIN):
        assert client.get("/api/documents", headers=headers).status_code == 200
    ask = {"question": OLD_QUESTION}
    assert client.post("/api/ask", json=ask, headers={"Authorization": "Bearer write-key"}).status_code == 200
    assert client.post("/api/ask", json=ask, headers={"Authorization": "Bearer read-key"}).status_code == 200
    error_of(client.post("/api/ask", json=ask, headers={"X-API-Key": "only-write"}), 403, "forbidden")


def test_a_write_key_may_also_curate_the_faq(make_client: AppFactory) -> None:
    client = make_client("server: {auth: {enabled: true}}\n", {"LAMBDARAG_API_KEYS": KEYS})
    entry = {"question": "校园卡在哪里补办？", "answer": "在服务大厅补办。"}
    error_of(client.post("/api/faq", json=entry, headers={"Authorization": "Bearer read-key"}), 403, "forbidden")
    assert client.post("/api/faq", json=entry, headers={"Authorization": "Bearer write-key"}).status_code == 201
    assert client.get("/api/faq", headers={"X-API-Key": "only-write"}).status_code == 200


def test_without_keys_only_the_admin_token(client: FlaskClient) -> None:
    error_of(client.get("/api/documents"), 401, "unauthorized")
    error_of(client.get("/api/documents", headers={"Authorization": "Bearer wrong"}), 403, "forbidden")
    error_of(client.get("/api/jobs/not-a-job", headers=ADMIN), 404, "not_found")


def test_a_job_left_running_by_a_dead_runner_is_run_again(client: FlaskClient, domain: Domain) -> None:
    (domain.raw_dir / NEW_DOC[0]).write_text(NEW_DOC[1], encoding="utf-8")
    from lambdarag.build.jobs import JobStore

    store = JobStore(domain.root)
    job = store.submit("upload", [{"source": NEW_DOC[0], "doc_id": "校园卡充值", "action": "added"}])
    assert store.take_queued()[0].state == "running"  # as a runner that was SIGKILLed then would have left it
    record = json.loads((domain.root / JOBS_FILE).read_text(encoding="utf-8"))["jobs"][0]
    assert record["state"] == "running" and record["attempts"] == 1
    finished = wait_job(client, job.id)  # looking it up starts a runner, which takes it up again
    assert finished["state"] == "done" and finished["attempts"] == 2, finished
    assert "校园卡充值" in cited(client, NEW_QUESTION)


def test_an_upload_larger_than_the_json_body_cap_goes_in(client: FlaskClient, domain: Domain) -> None:
    body = ("# 大文件\n\n" + "本段落用于检验上传大小上限。" * 20_000).encode()  # ~800 KB; max_body_bytes: 64 KB
    assert len(body) > domain.config.server.max_body_bytes * 10
    form = (b"--b\r\nContent-Disposition: form-data; name=f; filename*=UTF-8''%E5%A4%A7%E6%96%87%E4%BB%B6.md\r\n\r\n"
            + body + b"\r\n--b--\r\n")  # bytes, not the test client's form encoder (which spools to a file)
    response = client.post("/api/documents", data=form, headers=ADMIN, content_type="multipart/form-data; boundary=b")
    assert response.status_code == 202, response.get_json()
    assert (domain.raw_dir / "大文件.md").read_bytes() == body
    assert wait_job(client, response.get_json()["job"]["id"])["state"] == "done"


def test_a_job_reports_its_progress_and_the_document_its_status(make_client: AppFactory, domain: Domain,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    client = make_client()
    monkeypatch.setenv("LAMBDARAG_BUILD_PAUSE_AT", "commit")  # the runner inherits it: it stops before its commit
    monkeypatch.setenv("LAMBDARAG_BUILD_PAUSE_S", "5")
    changed = NEW_DOC[1].replace("1000元", "2000元").encode()
    response = upload(client, [(NEW_DOC[0], NEW_DOC[1].encode())])
    job_id = response.get_json()["job"]["id"]
    deadline = time.monotonic() + 120
    while (job := client.get(f"/api/jobs/{job_id}", headers=ADMIN).get_json())["state"] != "running" or \
            job["steps"][-1]["state"] != "running":
        assert time.monotonic() < deadline and job["state"] != "done", job
        time.sleep(0.05)
    assert [s["state"] for s in job["steps"]] == ["done", "done", "done", "done", "running"]
    assert "1 extracted" in job["steps"][0]["summary"]
    row = client.get("/api/documents/校园卡充值", headers=ADMIN).get_json()
    assert row["status"] == "extracted"  # extracted, not in the index this worker answers from yet
    assert wait_job(client, job_id)["state"] == "done"
    assert client.get("/api/documents/校园卡充值", headers=ADMIN).get_json()["status"] == "indexed"
    monkeypatch.delenv("LAMBDARAG_BUILD_PAUSE_AT")
    replaced = upload(client, [(NEW_DOC[0], changed)]).get_json()
    assert replaced["documents"][0]["action"] == "replaced"
    assert wait_job(client, replaced["job"]["id"])["state"] == "done"
    later = make_client()  # another worker (or one started after a restart) reads the same job records
    assert later.get(f"/api/jobs/{job_id}", headers=ADMIN).get_json()["state"] == "done"
    answer = later.post("/api/ask", json={"question": NEW_QUESTION}).get_json()
    assert "2000元" in answer["answer"]


def test_a_line_of_a_jsonl_file_is_not_deleted_alone(client: FlaskClient) -> None:
    lines = [{"doc_id": f"通知/{n}", "title": f"通知{n}", "text": f"第{n}号通知的正文内容，供检索使用。"}
             for n in (1, 2)]
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    job = upload(client, [("notices.jsonl", text.encode())]).get_json()["job"]
    assert wait_job(client, job["id"])["state"] == "done"
    row = client.get("/api/documents/notices", headers=ADMIN).get_json()
    assert row["doc_ids"] == ["通知/1", "通知/2"] and row["status"] == "indexed"
    assert "is a line of notices.jsonl" in error_of(client.delete("/api/documents/通知/1", headers=ADMIN), 400,
                                                    "bad_request")
    assert client.delete("/api/documents/notices", headers=ADMIN).status_code == 202
