"""No secret in any log line: an authenticated session against a real gunicorn, then every file it wrote is grepped.

The session uses every route with the API key (Bearer and X-API-Key, the official openai client too), the
admin token on the admin routes, and wrong keys and tokens (refused, rate-limited): neither the key, nor the
admin token, nor the wrong guesses may appear in gunicorn's output (access log, error log, the app's
loggers), the feedback logs, the session database or anything else under the domain folder. The same
session over the test client with every logger at DEBUG is checked record by record.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import openai
import pytest
from server_fixtures import ADMIN_TOKEN, copy_domain, gunicorn, http, shared_source

from lambdarag.config.domain import Domain, open_domain
from lambdarag.server import create_app

API_KEY = "sk-lambdarag-test-7c3f1e9a2b"
WRONG_KEY = "sk-guess-0000111122223333"
WRONG_TOKEN = "admin-guess-4444555566667777"
SECRETS = (API_KEY, WRONG_KEY, WRONG_TOKEN, ADMIN_TOKEN)
INSTANCE = "server: {auth: {enabled: true}, rate_limit: {requests_per_minute: 600, burst: 40}}\n"
QUESTION = "教职工出差住宿费标准是多少？"


@pytest.fixture
def domain(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> Domain:
    served = copy_domain(shared_source(tmp_path_factory), tmp_path / "knowledge")
    with served.instance_file.open("a", encoding="utf-8") as out:
        out.write(INSTANCE)
    return open_domain(served.name, served.root.parent)


def session(base: str) -> list[int]:
    """Every route once with the right credentials, and some with wrong ones: the statuses."""
    key, admin = {"Authorization": f"Bearer {API_KEY}"}, {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    statuses = []
    status, _, raw = http("POST", base + "/api/ask", {"question": QUESTION}, key)
    answer = json.loads(raw)
    statuses.append(status)
    for path, body in (("/api/ask", {"question": QUESTION, "stream": True, "session_id": answer["session_id"]}),
                       ("/api/search", {"question": QUESTION}), ("/api/lookup_knowledge", {"question": QUESTION}),
                       ("/api/feedback", {"request_id": answer["request_id"], "rating": "up", "comment": "好"})):
        statuses.append(http("POST", base + path, body, {"X-API-Key": API_KEY})[0])
    client = openai.OpenAI(base_url=base + "/v1", api_key=API_KEY, max_retries=0, timeout=60)
    client.chat.completions.create(model="kb", messages=[{"role": "user", "content": QUESTION}])
    client.models.list()
    for path in (f"/api/trace/{answer['request_id']}", f"/api/sessions/{answer['session_id']}/trace"):
        statuses.append(http("GET", base + path, None, admin)[0])
    statuses.append(http("POST", base + "/admin/reload", None, admin)[0])
    wrong = {"Authorization": f"Bearer {WRONG_KEY}"}
    statuses.append(http("POST", base + "/api/ask", {"question": QUESTION}, wrong)[0])
    statuses.append(http("POST", base + "/admin/reload", None, {"Authorization": f"Bearer {WRONG_TOKEN}"})[0])
    return statuses


EXPECTED = [200] * 8 + [401, 403]


def written_files(root: Path) -> list[Path]:
    return [p for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()]


def test_no_key_or_token_in_anything_gunicorn_wrote(domain: Domain) -> None:
    with gunicorn(domain, workers=1, threads=2, env={"LAMBDARAG_API_KEYS": f"{API_KEY} kb"}) as server:
        assert session(server.base_url) == EXPECTED
        log_file = server.log_file
    log = log_file.read_bytes()
    assert b"POST /api/ask" in log and b"POST /admin/reload" in log  # the access log is there to be grepped
    ratings = (domain.feedback_dir / "ratings.jsonl").read_text(encoding="utf-8")
    assert '"rating": "up"' in ratings or '"rating":"up"' in ratings
    files = [log_file, *written_files(domain.root)]
    for path in files:
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, f"{secret[:8]}… in {path}"


def test_no_key_or_token_in_any_log_record(domain: Domain, caplog: pytest.LogCaptureFixture,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAMBDARAG_API_KEYS", f"{API_KEY} kb")
    monkeypatch.setenv("LAMBDARAG_ADMIN_TOKEN", ADMIN_TOKEN)
    caplog.set_level(logging.DEBUG)
    app = create_app(domain)
    client = app.test_client()
    try:
        for headers in ({"Authorization": f"Bearer {API_KEY}"}, {"X-API-Key": WRONG_KEY}, {}):
            for path in ("/api/ask", "/api/search", "/api/lookup_knowledge", "/v1/chat/completions"):
                client.post(path, json={"question": QUESTION}, headers=headers)
        client.post("/admin/reload", headers={"Authorization": f"Bearer {WRONG_TOKEN}"})
        client.post("/admin/reload", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    finally:
        app.extensions["lambdarag"].store.close()
    assert caplog.records  # the index load and the reload log at least
    for record in caplog.records:
        text = record.getMessage() + (record.exc_text or "")
        assert not [s for s in SECRETS if s in text], text
