"""Feedback logs: concurrent appends never interleave, rotation by size, privacy keep / hash / drop."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import threading
from pathlib import Path

import pytest

from lambdarag.config.load import load_config
from lambdarag.config.schema import FeedbackConfig
from lambdarag.errors import InputError
from lambdarag.feedback.log import MISSING_LOG, QUERY_LOG, RATINGS_LOG, FeedbackLog
from lambdarag.pipeline.log import query_record
from lambdarag.pipeline.result import Result
from lambdarag.records import Citation


def settings(**changes: object) -> FeedbackConfig:
    return dataclasses.replace(load_config().feedback, **changes)  # type: ignore[arg-type]


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_many_threads_write_exactly_n_well_formed_lines(tmp_path: Path) -> None:
    log = FeedbackLog(tmp_path, settings())
    threads, per_thread = 16, 50
    payload = "长" * 3000  # lines far above PIPE_BUF (4096 bytes) still arrive whole

    def work(t: int) -> None:
        for i in range(per_thread):
            log.log_query({"request_id": f"{t}-{i}", "query": payload, "n": i})

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    records = lines(tmp_path / QUERY_LOG)
    assert len(records) == threads * per_thread
    assert {r["request_id"] for r in records} == {f"{t}-{i}" for t in range(threads) for i in range(per_thread)}
    assert all(r["query"] == payload for r in records)


def _process_writer(directory: str, worker: int) -> None:
    log = FeedbackLog(Path(directory), settings())
    for i in range(100):
        log.log_missing({"request_id": f"p{worker}-{i}", "query": "问" * 1500})


def test_processes_append_without_interleaving(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_process_writer, args=(str(tmp_path), w)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    assert len(lines(tmp_path / MISSING_LOG)) == 400


def test_rotation_by_size_keeps_the_configured_number_of_files(tmp_path: Path) -> None:
    log = FeedbackLog(tmp_path, settings(rotate_mb=0.001, keep_rotated=2))  # ~1 KB
    for i in range(40):
        log.log_query({"request_id": str(i), "query": "x" * 200})
    names = sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock"))
    assert names == [QUERY_LOG, f"{QUERY_LOG}.1", f"{QUERY_LOG}.2"]
    current, newest, older = (lines(tmp_path / n) for n in (QUERY_LOG, f"{QUERY_LOG}.1", f"{QUERY_LOG}.2"))
    ids = [int(str(r["request_id"])) for r in (*older, *newest, *current)]
    assert ids == sorted(ids) and ids[-1] == 39  # rotation kept order: .2 oldest, .1, then the live file
    assert all((tmp_path / n).stat().st_size < 1100 + 300 for n in names)


def test_rotation_under_concurrency_loses_no_line_while_keeping_everything(tmp_path: Path) -> None:
    log = FeedbackLog(tmp_path, settings(rotate_mb=0.01, keep_rotated=1000))

    def work(t: int) -> None:
        for i in range(60):
            log.log_query({"request_id": f"{t}-{i}", "query": "y" * 100})

    pool = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    files = [p for p in tmp_path.iterdir() if p.name.startswith(QUERY_LOG) and not p.name.endswith(".lock")]
    records = [r for f in files for r in lines(f)]
    assert len(files) > 2 and len(records) == 480


def test_keep_zero_discards_the_full_log(tmp_path: Path) -> None:
    log = FeedbackLog(tmp_path, settings(rotate_mb=0.001, keep_rotated=0))
    for i in range(20):
        log.log_query({"request_id": str(i), "query": "z" * 200})
    assert not list(tmp_path.glob(f"{QUERY_LOG}.*[0-9]"))
    assert (tmp_path / QUERY_LOG).stat().st_size < 1400


@pytest.mark.parametrize("mode", ["keep", "hash", "drop"])
def test_privacy_applies_to_query_and_condensed_in_every_log(tmp_path: Path, mode: str) -> None:
    log = FeedbackLog(tmp_path, settings(query_text=mode))
    record = {"request_id": "r1", "query": "她的电话是多少？", "condensed": "张敏的电话是多少？", "intent": "person"}
    log.log_query(record)
    log.log_missing(record)
    for name in (QUERY_LOG, MISSING_LOG):
        (line,) = lines(tmp_path / name)
        assert line["intent"] == "person" and line["request_id"] == "r1"
        if mode == "keep":
            assert line["query"] == "她的电话是多少？" and line["condensed"] == "张敏的电话是多少？"
        elif mode == "hash":
            assert line["query"] == "sha256:" + hashlib.sha256("她的电话是多少？".encode()).hexdigest()
            assert str(line["condensed"]).startswith("sha256:")
        else:
            assert line["query"] is None and line["condensed"] is None
            assert "电话" not in (tmp_path / name).read_text(encoding="utf-8")


def test_ratings_are_validated_and_joined_by_request_id(tmp_path: Path) -> None:
    log = FeedbackLog(tmp_path, settings())
    log.log_rating("abc", "up", None)
    log.log_rating("abc", "down", "电话不对")
    assert [(r["request_id"], r["rating"], r["comment"]) for r in lines(tmp_path / RATINGS_LOG)] == [
        ("abc", "up", None), ("abc", "down", "电话不对")]
    with pytest.raises(InputError, match="up"):
        log.log_rating("abc", "meh", None)
    with pytest.raises(InputError):
        log.log_rating("", "up", None)


def test_query_record_carries_the_request_summary(tmp_path: Path) -> None:
    trace = {
        "weights": {"bm25": 1.0, "vector": 0.5},
        "channels": {"bm25": {"top": [{"chunk_id": "a#1", "score": 3.2}], "error": None},
                     "graph": {"top": [], "error": "not loaded"}},
        "fused": [{"chunk_id": "a#1", "score": 0.016}],
        "gate": {"overlap": 0.8, "passed": True},
    }
    result = Result("rid", "sid", "住宿标准？", "住宿标准？", True, "500元[1]。",
                    [Citation(1, "a#1", "a", "t", "b", "", "e")], "fact", {"fact": 1.5}, {}, "PRECISE", "ctx",
                    timings={"retrieve": 12.5}, trace=trace)
    record = query_record(result)
    assert record["request_id"] == "rid" and record["session_id"] == "sid"
    assert record["channels"] == {"bm25": ["a#1"], "graph": []} and record["channel_errors"] == {"graph": "not loaded"}
    assert record["fused"] == ["a#1"] and record["weights"] == {"bm25": 1.0, "vector": 0.5}
    assert record["gate"]["passed"] is True and record["found"] is True and record["answer_chars"] == 8
    assert record["latency_ms"] == {"retrieve": 12.5} and record["intent_scores"] == {"fact": 1.5}
