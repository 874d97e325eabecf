"""The SQLite session store: turns, history windows, TTL, evidence claims, traces, many threads and processes."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from lambdarag.errors import InputError, NotFoundError
from lambdarag.records import Turn
from lambdarag.server.sessions import SessionStore, check_session_id, new_session_id


def test_turns_and_history_window(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.sqlite3")
    for i in range(5):
        assert store.add_turn("s1", f"r{i}", f"问{i}", f"完整问{i}", f"答{i}") == i + 1
    assert store.history("s1", 2) == (Turn("问3", "答3"), Turn("问4", "答4"))
    assert store.history("s1", 0) == ()
    assert [t.condensed for t in store.turns("s1")] == [f"完整问{i}" for i in range(5)]
    assert store.history("unknown", 5) == ()
    conn = sqlite3.connect(tmp_path / "s.sqlite3")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    store.close()


def test_expired_session_starts_afresh(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.sqlite3", ttl_s=60)
    store.add_turn("s1", "r1", "q", "q", "a")
    store.save_trace("r1", "s1", "ask", "q", {"stages": {}})
    assert store.purge(now=time.time() + 30) == 0
    assert store.history("s1", 5) == (Turn("q", "a"),)
    assert store.purge(now=time.time() + 120) == 1
    assert store.history("s1", 5) == ()
    with pytest.raises(NotFoundError):
        store.trace("r1")
    store.close()


def test_claim_evidence_once_per_session(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.sqlite3")
    assert store.claim_evidence("s1", "r1", ["a#1", "b#2", "a#1"]) == (["a#1", "b#2"], [])
    assert store.claim_evidence("s1", "r2", ["b#2", "c#3"]) == (["c#3"], ["b#2"])
    assert store.claim_evidence("s2", "r3", ["b#2"]) == (["b#2"], [])
    store.close()


def test_traces_by_request_and_session(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.sqlite3")
    store.add_turn("s1", "r1", "q1", "q1", "a1")
    store.save_trace("r1", "s1", "ask", "q1", {"gate": {"passed": True}})
    store.save_trace("r2", "s1", "ask", "q2", {"gate": {"passed": False}})
    assert store.trace("r1")["trace"] == {"gate": {"passed": True}}
    assert [t["request_id"] for t in store.session_traces("s1")] == ["r1", "r2"]
    assert store.has_request("r2") and not store.has_request("r9")
    with pytest.raises(NotFoundError, match="no trace"):
        store.trace("r9")
    with pytest.raises(NotFoundError, match="no session"):
        store.session_traces("nope")
    store.close()


def test_session_id_rules() -> None:
    assert check_session_id(new_session_id())
    for bad in ("", "a b", "../x", "x" * 65, "会话"):
        with pytest.raises(InputError):
            check_session_id(bad)


def test_many_threads_write_one_store(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.sqlite3")

    def work(n: int) -> None:
        for i in range(20):
            store.add_turn(f"s{n % 3}", f"r{n}-{i}", "q", "q", "a")
            store.save_trace(f"r{n}-{i}", f"s{n % 3}", "ask", "q", {"n": n})

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(len(store.turns(f"s{k}")) for k in range(3)) == 160
    seqs = [t.seq for t in store.turns("s0")]
    assert seqs == list(range(1, len(seqs) + 1))
    store.close()


def _append_turns(path: str, worker: int) -> None:
    store = SessionStore(Path(path))
    for i in range(25):
        store.add_turn("shared", f"p{worker}-{i}", f"q{worker}-{i}", "c", "a")
    store.close()


def test_processes_share_one_session(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    SessionStore(path).close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append_turns, args=(str(path), w)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    store = SessionStore(path)
    turns = store.turns("shared")
    assert len(turns) == 75
    assert [t.seq for t in turns] == list(range(1, 76))
    store.close()


def test_a_fresh_file_another_connection_writes_opens_once_the_write_ends(tmp_path: Path) -> None:
    # two gunicorn workers booting on a fresh sessions file: SQLite refuses the switch to WAL at once (no busy
    # handler) while the other connection holds any lock, which made one worker exit "failed to boot"
    path = tmp_path / "s.sqlite3"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE held (a)")
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO held VALUES (1)")  # the write lock of a database still in rollback-journal mode
    release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    release.start()
    store = SessionStore(path)
    release.join()
    store.add_turn("s", "r1", "q", "q", "a")
    assert [t.request_id for t in store.turns("s")] == ["r1"]
    assert store._connect().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()
    other.close()
