"""Feedback logs: query_log.jsonl, missing_queries.jsonl and ratings.jsonl, append-only JSON lines.

Concurrency: every line is written with ONE os.write on a file descriptor opened with O_APPEND.
On a local filesystem the kernel positions and writes an O_APPEND write as one unit, so lines from
many gunicorn workers and threads never interleave, whatever their length (the PIPE_BUF limit is a
pipe guarantee and does not apply to regular files). Network filesystems (NFS) make no such
promise: keep feedback_dir on local disk.

Rotation: when a log reaches config.feedback.rotate_mb it is renamed to NAME.1 (NAME.1 to NAME.2,
…, keeping config.feedback.keep_rotated files) under an exclusive fcntl.flock on a sidecar
NAME.lock, and the size is checked again inside the lock so only one process renames. Writers open
the file per line, so a line written just after a rotation lands in the fresh file.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lambdarag.config.schema import FeedbackConfig
from lambdarag.errors import InputError
from lambdarag.records import json_safe

QUERY_LOG = "query_log.jsonl"
MISSING_LOG = "missing_queries.jsonl"
RATINGS_LOG = "ratings.jsonl"
# Fields that carry the question's text, at any depth of a record (the gate's attempts and the
# channel queries repeat it): the privacy option applies to all of them.
TEXT_FIELDS = frozenset({
    "query", "condensed", "question", "original", "rewritten", "keywords", "answer",
    "bm25_query", "dense_query", "graph_query", "wiki_query",
})
RATINGS = ("up", "down")
MAX_COMMENT_CHARS = 2000


def now_iso() -> str:
    """Current UTC time, ISO 8601 with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _private_fields(value: Any, mode: str, key: str | None = None) -> Any:
    """Apply the privacy mode to every TEXT_FIELDS value inside nested dicts and lists."""
    if isinstance(value, dict):
        return {k: _private_fields(v, mode, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_private_fields(v, mode, key) for v in value]
    if key in TEXT_FIELDS and isinstance(value, str):
        return private_text(value, mode)
    return value


def private_text(text: str | None, mode: str) -> str | None:
    """A question text as the privacy option wants it stored: kept, sha256-hashed or dropped."""
    if text is None or mode == "keep":
        return text
    if mode == "hash":
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    return None


class FeedbackLog:
    """The three JSONL logs of one domain, safe for many processes and threads."""

    def __init__(self, feedback_dir: Path, config: FeedbackConfig) -> None:
        self.dir = Path(feedback_dir)
        self.config = config
        self.rotate_bytes = int(config.rotate_mb * 1024 * 1024)

    def log_query(self, record: dict[str, Any]) -> None:
        """Append one request to query_log.jsonl."""
        self.append(QUERY_LOG, record)

    def log_missing(self, record: dict[str, Any]) -> None:
        """Append one not-found request to missing_queries.jsonl."""
        self.append(MISSING_LOG, record)

    def log_rating(self, request_id: str, rating: str, comment: str | None = None) -> dict[str, Any]:
        """Append a user's rating of an answer, joined to the query log by request id."""
        if rating not in RATINGS:
            raise InputError(f"rating must be 'up' or 'down', got {rating!r}", "send rating: up | down")
        if not request_id or not isinstance(request_id, str):
            raise InputError("rating without a request_id", "send the request_id returned with the answer")
        record = {"time": now_iso(), "request_id": request_id, "rating": rating,
                  "comment": (comment or "")[:MAX_COMMENT_CHARS] or None}
        self.append(RATINGS_LOG, record)
        return record

    def append(self, name: str, record: dict[str, Any]) -> None:
        """Write one JSON line to log ``name`` (privacy applied), rotating first when it is full."""
        line = json.dumps(json_safe(self._private(record)), ensure_ascii=False, separators=(",", ":")) + "\n"
        data = line.encode("utf-8")
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / name
        self._maybe_rotate(path)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(fd, data)  # one write per line: atomic with O_APPEND on a local fs
        finally:
            os.close(fd)
        if written != len(data):
            raise OSError(f"short write to {path}: {written} of {len(data)} bytes (disk full?)")

    def _private(self, record: dict[str, Any]) -> dict[str, Any]:
        mode = self.config.query_text
        if mode == "keep":
            return record
        private: dict[str, Any] = _private_fields(record, mode)
        return private

    def _maybe_rotate(self, path: Path) -> None:
        if _size(path) < self.rotate_bytes:
            return
        lock = path.with_name(path.name + ".lock")
        with open(lock, "a") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                if _size(path) >= self.rotate_bytes:  # another process may have rotated meanwhile
                    self._rotate(path)
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _rotate(self, path: Path) -> None:
        keep = self.config.keep_rotated
        if keep == 0:
            path.unlink(missing_ok=True)
            return
        path.with_name(f"{path.name}.{keep}").unlink(missing_ok=True)
        for i in range(keep - 1, 0, -1):
            older = path.with_name(f"{path.name}.{i}")
            if older.exists():
                older.rename(path.with_name(f"{path.name}.{i + 1}"))
        path.rename(path.with_name(f"{path.name}.1"))

    def read(self, name: str, limit: int | None = None) -> list[dict[str, Any]]:
        """The records of the current log file ``name`` (newest last; malformed lines skipped)."""
        records = _records(self.dir / name)
        return records[-limit:] if limit else records


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def read_log_family(path: Path) -> list[dict[str, Any]]:
    """Records of a JSONL log and its rotations (NAME.N … NAME.1, then NAME), oldest first; bad lines skipped."""
    rotated = sorted(path.parent.glob(path.name + ".[0-9]*"), key=lambda p: -int(p.suffix[1:] or 0))
    return [r for file in [*(p for p in rotated if p.suffix[1:].isdigit()), path] for r in _records(file)]


def _records(file: Path) -> list[dict[str, Any]]:
    """The JSON objects of one log file; a missing file is empty, a line that is not an object is skipped."""
    if not file.is_file():
        return []
    records = []
    for line in file.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            records.append(data)
    return records
