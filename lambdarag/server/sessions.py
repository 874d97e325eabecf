"""Server-side state shared by every gunicorn worker: sessions, their turns, returned evidence, traces.

One SQLite file in the domain's folder (``sessions.sqlite3``) in WAL mode: readers never block
the single writer, every worker and thread sees every committed turn, so a follow-up question can
land on any worker. Each thread keeps its own connection (sqlite3 connections are not shared
across threads); ``busy_timeout`` makes concurrent writers wait instead of failing.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lambdarag.errors import InputError, NotFoundError
from lambdarag.records import Turn

SESSION_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
BUSY_TIMEOUT_MS = 10_000
SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS turns (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    request_id TEXT NOT NULL,
    question TEXT NOT NULL,
    condensed TEXT NOT NULL,
    answer TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS evidence (
    session_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    PRIMARY KEY (session_id, chunk_id)
);
CREATE TABLE IF NOT EXISTS traces (
    request_id TEXT PRIMARY KEY,
    session_id TEXT,
    kind TEXT NOT NULL,
    question TEXT NOT NULL,
    created REAL NOT NULL,
    trace TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS traces_by_session ON traces (session_id, created);
"""


def _switch_to_wal(conn: sqlite3.Connection) -> None:
    """Put the database in WAL mode, waiting out another process's lock.

    Switching the journal mode needs the database to itself, and SQLite reports "database is locked"
    at once, without calling the busy handler, while any other connection reads or writes it: two
    gunicorn workers opening a fresh sessions file together made one fail to boot. WAL mode is a
    property of the file, so once one connection has switched it the others' switch is a no-op.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def new_session_id() -> str:
    """A fresh random session id."""
    return uuid.uuid4().hex


def check_session_id(session_id: str) -> str:
    """Session ids are 1-64 letters, digits, '-' or '_' (they travel in URLs and logs)."""
    if not SESSION_ID_PATTERN.match(session_id):
        raise InputError(
            f"invalid session_id {session_id[:80]!r}",
            "use 1-64 letters, digits, '-' or '_', or omit it to start a new session",
        )
    return session_id


@dataclass(frozen=True)
class StoredTurn:
    """One answered question of a session, as stored."""

    seq: int
    request_id: str
    question: str
    condensed: str
    answer: str
    created: float

    def to_turn(self) -> Turn:
        return Turn(question=self.question, answer=self.answer)


class SessionStore:
    """Sessions, turns, returned evidence ids and traces in one SQLite database (WAL mode)."""

    def __init__(self, path: Path, ttl_s: float = 86_400.0) -> None:
        self.path = Path(path)
        self.ttl_s = ttl_s
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._connect().executescript(SCHEMA)  # executescript manages its own transaction

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            _switch_to_wal(conn)
            conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL survives process crashes
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        # BEGIN IMMEDIATE takes the write lock up front, so two workers never deadlock upgrading
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        """Close every thread's connection (tests, shutdown)."""
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()

    def check_writable(self) -> None:
        """Take and release the write lock (readiness: the database file is writable)."""
        with self._write():
            pass

    def exists(self, session_id: str) -> bool:
        row = self._connect().execute("SELECT 1 FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return row is not None

    def history(self, session_id: str, max_turns: int) -> tuple[Turn, ...]:
        """The last ``max_turns`` turns of a live session, oldest first (empty for new or expired)."""
        return tuple(t.to_turn() for t in self.turns(session_id, max_turns))

    def turns(self, session_id: str, limit: int | None = None) -> list[StoredTurn]:
        """Stored turns of a session, oldest first; expired sessions have none."""
        if limit == 0 or not self._live(session_id):
            return []
        rows = self._connect().execute(
            "SELECT seq, request_id, question, condensed, answer, created FROM turns"
            " WHERE session_id = ? ORDER BY seq DESC LIMIT ?",
            (session_id, -1 if limit is None else limit),
        ).fetchall()
        return [StoredTurn(*row) for row in reversed(rows)]

    def _live(self, session_id: str) -> bool:
        row = self._connect().execute("SELECT updated FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return row is not None and time.time() - row[0] <= self.ttl_s

    def add_turn(self, session_id: str, request_id: str, question: str, condensed: str, answer: str) -> int:
        """Append a turn to the session (creating it); returns the turn's sequence number."""
        now = time.time()
        with self._write() as db:
            self._touch(db, session_id, now)
            row = db.execute("SELECT COALESCE(MAX(seq), 0) FROM turns WHERE session_id = ?", (session_id,)).fetchone()
            seq = int(row[0]) + 1
            db.execute(
                "INSERT INTO turns (session_id, seq, request_id, question, condensed, answer, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, seq, request_id, question, condensed, answer, now),
            )
        return seq

    def _touch(self, db: sqlite3.Connection, session_id: str, now: float) -> None:
        row = db.execute("SELECT updated FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        if row is not None and now - row[0] > self.ttl_s:
            self._forget(db, session_id)  # an expired session starts afresh under the same id
            row = None
        if row is None:
            db.execute("INSERT INTO sessions (session_id, created, updated) VALUES (?, ?, ?)", (session_id, now, now))
        else:
            db.execute("UPDATE sessions SET updated = ? WHERE session_id = ?", (now, session_id))

    def _forget(self, db: sqlite3.Connection, session_id: str) -> None:
        for table in ("turns", "evidence", "sessions"):
            db.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))

    def claim_evidence(self, session_id: str, request_id: str, chunk_ids: Iterable[str]) -> tuple[list[str], list[str]]:
        """Record chunk ids as returned in this session; returns (new ids, ids returned before), in order."""
        fresh: list[str] = []
        seen: list[str] = []
        with self._write() as db:
            self._touch(db, session_id, time.time())
            for chunk_id in dict.fromkeys(chunk_ids):
                cur = db.execute(
                    "INSERT OR IGNORE INTO evidence (session_id, chunk_id, request_id) VALUES (?, ?, ?)",
                    (session_id, chunk_id, request_id),
                )
                (fresh if cur.rowcount else seen).append(chunk_id)
        return fresh, seen

    def save_trace(self, request_id: str, session_id: str | None, kind: str, question: str,
                   trace: dict[str, Any]) -> None:
        """Store a request's trace so any worker can serve it."""
        text = json.dumps(trace, ensure_ascii=False, default=str)
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO traces (request_id, session_id, kind, question, created, trace)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (request_id, session_id, kind, question, time.time(), text),
            )

    def has_request(self, request_id: str) -> bool:
        row = self._connect().execute("SELECT 1 FROM traces WHERE request_id = ?", (request_id,)).fetchone()
        return row is not None

    def trace(self, request_id: str) -> dict[str, Any]:
        """The stored trace of one request; unknown ids raise NotFoundError."""
        row = self._connect().execute(
            "SELECT request_id, session_id, kind, question, created, trace FROM traces WHERE request_id = ?",
            (request_id,),
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no trace for request_id {request_id[:80]!r}",
                                "use the request_id returned by /api/ask, /api/search or /api/lookup_knowledge")
        return _trace_row(row)

    def session_traces(self, session_id: str) -> list[dict[str, Any]]:
        """Every stored trace of a session, oldest first; unknown sessions raise NotFoundError."""
        rows = self._connect().execute(
            "SELECT request_id, session_id, kind, question, created, trace FROM traces"
            " WHERE session_id = ? ORDER BY created",
            (session_id,),
        ).fetchall()
        if not rows and not self.exists(session_id):
            raise NotFoundError(f"no session {session_id[:80]!r}", "use a session_id returned by /api/ask")
        return [_trace_row(row) for row in rows]

    def purge(self, now: float | None = None) -> int:
        """Forget sessions idle longer than the TTL and traces older than it; returns sessions removed."""
        cutoff = (time.time() if now is None else now) - self.ttl_s
        with self._write() as db:
            ids = [r[0] for r in db.execute("SELECT session_id FROM sessions WHERE updated < ?", (cutoff,))]
            for session_id in ids:
                self._forget(db, session_id)
            db.execute("DELETE FROM traces WHERE created < ?", (cutoff,))
        return len(ids)


def _trace_row(row: tuple[Any, ...]) -> dict[str, Any]:
    request_id, session_id, kind, question, created, trace = row
    return {"request_id": request_id, "session_id": session_id, "kind": kind, "question": question,
            "created": created, "trace": json.loads(trace)}
