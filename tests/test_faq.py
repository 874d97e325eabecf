"""Curated answers: the store, the match threshold measured on the demo, /api/faq and /api/ask through the real
Flask app, and `lambdarag faq promote` from a feedback log written by real /api/ask and /api/feedback calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from faq_paraphrases import PARAPHRASES
from flask.testing import FlaskClient
from server_fixtures import ADMIN_TOKEN, ROOT

from lambdarag.config.domain import Domain
from lambdarag.config.load import load_config
from lambdarag.errors import InputError
from lambdarag.faq.match import best_match, question_keys, similarity
from lambdarag.faq.store import FaqStore, new_entry, read_entries
from lambdarag.text.tokenizer import Tokenizer

AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
DEMO_QUESTIONS = ROOT / "lambdarag" / "demo" / "questions.jsonl"
FAQ_QUESTION = "出差住宿费标准是多少？"
FAQ_ANSWER = "教职工出差住宿费每人每天不超过500元。"


def test_store_round_trip_and_duplicates(tmp_path: Path) -> None:
    store = FaqStore(tmp_path / "faq.jsonl")
    assert store.entries() == ()
    first = new_entry("发票丢了怎么办？", "先开具遗失证明。", source="报销须知")
    added, skipped = store.add([first, new_entry("发票丢了怎么办", "重复")])  # same question but punctuation
    assert added == [first] and len(skipped) == 1
    assert store.entries() == (first,) == read_entries(store.path)
    assert json.loads(store.path.read_text(encoding="utf-8")) == first.to_dict()
    promoted = new_entry("报账大厅在哪？", "行政楼一层。", origin="promoted", request_id="r1")
    assert store.add([promoted])[0] == [promoted]
    assert store.add([new_entry("报账大厅位置？", "同上", origin="promoted", request_id="r1")])[0] == []
    assert store.remove(first.id) == first and store.remove(first.id) is None
    assert store.entries() == (promoted,)
    assert not list(tmp_path.glob(".faq.jsonl.*.tmp"))


def test_a_hand_broken_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "faq.jsonl"
    path.write_text(json.dumps(new_entry("q?", "a").to_dict()) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 2"):
        read_entries(path)
    path.write_text('{"id": "x", "question": "", "answer": "a"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="'question'"):
        read_entries(path)


def test_the_threshold_separates_paraphrases_from_the_other_demo_questions() -> None:
    """Ten demo questions as FAQ entries: their paraphrases match them, the demo's other questions match none."""
    tokenizer, threshold = Tokenizer(), load_config().faq.threshold
    questions = [json.loads(line)["question"] for line in DEMO_QUESTIONS.read_text(encoding="utf-8").splitlines()]
    faq = list(PARAPHRASES)
    assert set(faq) <= set(questions)
    keys = [question_keys(q, tokenizer) for q in faq]
    paraphrase_scores = []
    for i, question in enumerate(faq):
        assert best_match(keys[i], keys, threshold).score == 1.0
        for paraphrase in PARAPHRASES[question]:
            match = best_match(question_keys(paraphrase, tokenizer), keys, threshold)
            assert match.hit and match.index == i, (paraphrase, match)
            paraphrase_scores.append(match.score)
    others = [best_match(question_keys(q, tokenizer), keys, threshold) for q in questions if q not in faq]
    assert not [m for m in others if m.hit]
    # the figures docs/FAQ.md records: lowest paraphrase 0.667, highest other question 0.569
    assert min(paraphrase_scores) == pytest.approx(0.6667, abs=1e-3)
    assert max(m.score for m in others) == pytest.approx(0.5686, abs=1e-3)


def test_similarity_is_symmetric_and_bounded() -> None:
    tokenizer = Tokenizer()
    a, b = question_keys("报账大厅几点开门？", tokenizer), question_keys("报账大厅的开门时间", tokenizer)
    assert similarity(a, b) == similarity(b, a) and 0 < similarity(a, b) < 1
    assert similarity(a, question_keys("", tokenizer)) == 0.0


def error_of(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.get_json()
    body: dict[str, Any] = response.get_json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    return body["error"]


@pytest.mark.parametrize(("body", "field"), [
    ({"answer": "a"}, "question"),
    ({"question": "q", "answer": ""}, "answer"),
    ({"question": 3, "answer": "a"}, "question"),
    ({"question": "q", "answer": "a", "extra": 1}, "extra"),
    ({"question": "q", "answer": "a", "citations": "x"}, "citations"),
    ({"question": "q", "answer": "a", "citations": [{"title": "no chunk id"}]}, "chunk_id"),
    ({"question": "q\x00", "answer": "a"}, "question"),
    ({"question": "q" * 1001, "answer": "a"}, "question"),
])
def test_bad_faq_input_is_a_400(client: FlaskClient, domain: Domain, body: dict[str, Any], field: str) -> None:
    error = error_of(client.post("/api/faq", json=body, headers=AUTH), 400)
    assert field in error["message"] and error["code"] == "bad_request"
    assert not (domain.root / "faq.jsonl").exists()  # nothing half-written


def test_faq_routes_need_the_admin_token_and_answer_in_the_error_shape(client: FlaskClient) -> None:
    error_of(client.get("/api/faq"), 401)
    error_of(client.post("/api/faq", json={"question": "q", "answer": "a"}), 401)
    error_of(client.delete("/api/faq/abc", headers={"Authorization": "Bearer wrong"}), 403)
    error_of(client.delete("/api/faq/abc", headers=AUTH), 404)
    error_of(client.delete("/api/faq/a.b", headers=AUTH), 400)
    error_of(client.post("/api/faq", data="{", headers={**AUTH, "Content-Type": "application/json"}), 400)


def test_ask_is_answered_from_the_faq_with_its_source_and_traced(client: FlaskClient, domain: Domain) -> None:
    body = {"question": FAQ_QUESTION, "answer": FAQ_ANSWER, "source": "差旅费报销办法 第二章"}
    made = client.post("/api/faq", json=body, headers=AUTH)
    assert made.status_code == 201
    entry = made.get_json()["entry"]
    error_of(client.post("/api/faq", json={"question": FAQ_QUESTION + " ", "answer": "x"}, headers=AUTH), 409)
    assert [e["id"] for e in client.get("/api/faq", headers=AUTH).get_json()["entries"]] == [entry["id"]]

    hit = client.post("/api/ask", json={"question": "出差的住宿费标准是多少"}).get_json()
    assert hit["answer"] == FAQ_ANSWER and hit["answer_method"] == "faq" and hit["found"]
    assert [(c["title"], c["locator"]) for c in hit["citations"]] == [("差旅费报销办法 第二章",) * 2]
    trace = client.get(f"/api/trace/{hit['request_id']}", headers=AUTH).get_json()["trace"]
    assert trace["faq"]["hit"] is True and trace["faq"]["id"] == entry["id"]
    assert trace["faq"]["score"] >= trace["faq"]["threshold"] == load_config().faq.threshold
    assert "channels" not in trace  # answered before retrieval

    miss = client.post("/api/ask", json={"question": "报账大厅的联系电话是多少？"}).get_json()
    assert miss["answer_method"] != "faq"
    trace = client.get(f"/api/trace/{miss['request_id']}", headers=AUTH).get_json()["trace"]
    assert trace["faq"]["hit"] is False and trace["faq"]["id"] == entry["id"]
    assert trace["faq"]["score"] < trace["faq"]["threshold"] and "channels" in trace

    assert client.delete(f"/api/faq/{entry['id']}", headers=AUTH).status_code == 200
    again = client.post("/api/ask", json={"question": "出差的住宿费标准是多少"}).get_json()
    assert again["answer_method"] != "faq"


def test_a_broken_faq_file_degrades_to_retrieval(client: FlaskClient, domain: Domain) -> None:
    (domain.root / "faq.jsonl").write_text("{broken\n", encoding="utf-8")
    result = client.post("/api/ask", json={"question": FAQ_QUESTION}).get_json()
    assert result["found"] and result["answer_method"] != "faq"
    trace = client.get(f"/api/trace/{result['request_id']}", headers=AUTH).get_json()["trace"]
    assert "line 1" in trace["faq"]["error"] and any(d["stage"] == "faq" for d in trace["degraded"])


def faq_cli(domain: Domain, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "lambdarag", "faq", *args, "--domain", domain.name,
               "--base-dir", str(domain.root.parent)]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_promote_liked_answers_from_a_real_feedback_log(client: FlaskClient, domain: Domain) -> None:
    liked = client.post("/api/ask", json={"question": "报账大厅的联系电话是多少？"}).get_json()
    disliked = client.post("/api/ask", json={"question": "科研项目劳务费发放标准是多少？"}).get_json()
    assert liked["found"] and liked["citations"]
    for result, rating in ((liked, "up"), (disliked, "down")):
        assert client.post("/api/feedback", json={"request_id": result["request_id"], "rating": rating}).status_code \
            == 200

    assert "would add" in faq_cli(domain, "promote", "--dry-run").stdout
    assert not (domain.root / "faq.jsonl").exists()
    done = faq_cli(domain, "promote")
    assert done.returncode == 0 and "1 added, 0 already there" in done.stderr, done.stderr
    (entry,) = FaqStore(domain.root / "faq.jsonl").entries()
    assert (entry.origin, entry.request_id, entry.question) == ("promoted", liked["request_id"], liked["condensed"])
    assert entry.answer == liked["answer"]
    assert [c["chunk_id"] for c in entry.citations] == [c["chunk_id"] for c in liked["citations"]]
    assert entry.source == "；".join(dict.fromkeys(c["title"] for c in liked["citations"]))
    assert "0 added, 1 already there" in faq_cli(domain, "promote").stderr
    assert "0 added" in faq_cli(domain, "promote", "--since", "2999-01-01").stderr
    assert faq_cli(domain, "promote", "--since", "soon").returncode == 2

    again = client.post("/api/ask", json={"question": "报账大厅联系电话是多少"}).get_json()
    assert again["answer_method"] == "faq" and again["answer"] == liked["answer"]
    assert [c["chunk_id"] for c in again["citations"]] == [c["chunk_id"] for c in liked["citations"]]


def test_faq_cli_add_list_remove(domain: Domain) -> None:
    assert faq_cli(domain, "add", "--question", "图书馆几点开门？", "--answer", "8:00。").returncode == 0
    assert faq_cli(domain, "add", "--question", "图书馆几点开门", "--answer", "x").returncode == 2
    (line,) = faq_cli(domain, "list", "--json").stdout.splitlines()
    entry_id = json.loads(line)["id"]
    assert faq_cli(domain, "remove", entry_id).returncode == 0
    assert faq_cli(domain, "remove", entry_id).returncode == 2
    assert faq_cli(domain, "list").stdout == ""


def test_stream_and_openai_routes_answer_from_the_faq(client: FlaskClient) -> None:
    body = {"question": FAQ_QUESTION, "answer": FAQ_ANSWER, "source": "差旅费报销办法"}
    assert client.post("/api/faq", json=body, headers=AUTH).status_code == 201
    stream = client.post("/api/ask", json={"question": "出差的住宿费标准是多少", "stream": True}).get_data(as_text=True)
    events = [block for block in stream.split("\n\n") if block.strip()]
    result = json.loads(events[-1].split("data: ", 1)[1])
    assert result["answer"] == FAQ_ANSWER and result["answer_method"] == "faq"
    assert FAQ_ANSWER in stream.split("event: result")[0]  # the deltas carried it before the final result
    messages = [{"role": "user", "content": "出差住宿费的标准是多少？"}]
    chat = client.post("/v1/chat/completions", json={"model": "kb", "messages": messages}).get_json()
    assert chat["choices"][0]["message"]["content"].startswith(FAQ_ANSWER)


def test_a_liked_faq_answer_is_no_weight_tuning_sample(client: FlaskClient, domain: Domain) -> None:
    from lambdarag.tuning.samples import samples_from_logs

    body = {"question": FAQ_QUESTION, "answer": FAQ_ANSWER + "[1]", "source": "差旅费报销办法"}
    assert client.post("/api/faq", json=body, headers=AUTH).status_code == 201
    hit = client.post("/api/ask", json={"question": FAQ_QUESTION}).get_json()
    assert hit["answer_method"] == "faq"
    client.post("/api/feedback", json={"request_id": hit["request_id"], "rating": "up"})
    samples, stats = samples_from_logs(domain.feedback_dir)
    assert stats["liked"] == 1 and samples == []
    assert "left out" in faq_cli(domain, "promote").stderr  # and not promoted again


def test_every_gunicorn_worker_sees_a_change_at_its_next_question(domain: Domain) -> None:
    from server_fixtures import gunicorn, http

    first = {"question": "报账大厅在哪里？", "answer": "行政楼一层。", "source": "财务处联系方式"}
    second = {"question": FAQ_QUESTION, "answer": FAQ_ANSWER, "source": "差旅费报销办法"}
    with gunicorn(domain, workers=2, threads=2, ready_workers=2) as server:
        assert http("POST", server.base_url + "/api/faq", first, AUTH)[0] == 201
        warmed = set()  # workers that have read the file with the first entry only
        for _ in range(10):
            status, headers, raw = http("POST", server.base_url + "/api/ask", {"question": "报账大厅在哪里"})
            assert json.loads(raw)["answer_method"] == "faq"
            warmed.add(headers["X-Worker-Pid"])
        assert http("POST", server.base_url + "/api/faq", second, AUTH)[0] == 201
        answered = set()
        for _ in range(10):
            status, headers, raw = http("POST", server.base_url + "/api/ask", {"question": "出差的住宿费标准是多少"})
            assert status == 200 and json.loads(raw)["answer"] == FAQ_ANSWER
            answered.add(headers["X-Worker-Pid"])
    assert warmed & answered  # a worker that had cached the old file answered from the new one
