"""A domain's curated answers: faq.jsonl in the domain folder, one entry a line, rewritten atomically.

An entry is a question, its answer, where the answer comes from (``source``: free text, and ``citations``: the
chunks a promoted answer cited), when and how it was made (``origin`` manual | promoted, with the request it was
promoted from). Writers take an fcntl lock on a sidecar file, read, change and write a temporary file that
replaces the old one, so many workers and the CLI can add and remove at once and a reader never sees half a
file. Readers cache the parsed entries per (mtime, size) of the file.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lambdarag.errors import InputError, LambdaRAGError
from lambdarag.feedback.log import now_iso
from lambdarag.text.tokenizer import normalize

ORIGINS = ("manual", "promoted")
MAX_QUESTION_CHARS = 1000
MAX_ANSWER_CHARS = 8000
MAX_SOURCE_CHARS = 500
CITATION_FIELDS = ("n", "chunk_id", "doc_id", "title", "breadcrumb", "locator", "excerpt")


class DuplicateError(LambdaRAGError):
    """An entry with the same question is already there."""

    code = "duplicate"
    status = 409


@dataclass(frozen=True)
class FaqEntry:
    id: str
    question: str
    answer: str
    source: str = ""
    citations: tuple[Mapping[str, Any], ...] = ()
    created: str = ""
    origin: str = "manual"
    request_id: str | None = None  # the liked answer a promoted entry came from

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["citations"] = [dict(c) for c in self.citations]
        return data


def new_entry(question: str, answer: str, source: str = "", citations: Sequence[Mapping[str, Any]] = (),
              origin: str = "manual", request_id: str | None = None) -> FaqEntry:
    """A validated entry with a fresh id and the current time."""
    data = {"id": uuid.uuid4().hex[:12], "question": question, "answer": answer, "source": source,
            "citations": list(citations), "created": now_iso(), "origin": origin, "request_id": request_id}
    return entry_from_dict(data, "new entry")


def entry_from_dict(data: Mapping[str, Any], where: str) -> FaqEntry:
    """An entry from JSON, every field checked; errors name ``where`` and the field (InputError: a 400)."""
    def text(name: str, limit: int, required: bool = True) -> str:
        value = data.get(name, "" if not required else None)
        if not isinstance(value, str) or (required and not value.strip()):
            raise InputError(f"{where}: field {name!r} must be a non-empty string", f"got {value!r}"[:200])
        if len(value) > limit:
            raise InputError(f"{where}: field {name!r} is {len(value)} characters long, the limit is {limit}")
        return value.strip()

    origin = data.get("origin", "manual")
    if origin not in ORIGINS:
        raise InputError(f"{where}: field 'origin' must be one of {', '.join(ORIGINS)}, got {origin!r}")
    request_id = data.get("request_id")
    if request_id is not None and not isinstance(request_id, str):
        raise InputError(f"{where}: field 'request_id' must be a string")
    return FaqEntry(id=text("id", 64), question=text("question", MAX_QUESTION_CHARS),
                    answer=text("answer", MAX_ANSWER_CHARS), source=text("source", MAX_SOURCE_CHARS, False),
                    citations=_citations(data.get("citations", []), where), created=text("created", 64, False),
                    origin=origin, request_id=request_id)


def _citations(value: Any, where: str) -> tuple[Mapping[str, Any], ...]:
    if not isinstance(value, list) or not all(isinstance(c, dict) for c in value):
        raise InputError(f"{where}: field 'citations' must be a list of objects")
    out = []
    for i, cite in enumerate(value, 1):
        if not isinstance(cite.get("chunk_id"), str) or not cite["chunk_id"]:
            raise InputError(f"{where}: citations[{i - 1}] needs a chunk_id")
        clean = {k: cite[k] for k in CITATION_FIELDS if k in cite}
        clean["n"] = clean.get("n") if isinstance(clean.get("n"), int) else i
        out.append(clean)
    return tuple(out)


def question_key(question: str) -> str:
    """Two questions that differ only in case, width, spaces and punctuation are the same question."""
    return "".join(ch for ch in normalize(question) if ch.isalnum())


class FaqStore:
    """The FAQ file of one domain."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def entries(self) -> tuple[FaqEntry, ...]:
        """The current entries (cached until the file changes); no file is no entries."""
        return _cached(self.path)

    def add(self, entries: Sequence[FaqEntry]) -> tuple[list[FaqEntry], list[FaqEntry]]:
        """Add entries, skipping those whose question (or promoted request) is already there: (added, skipped)."""
        added: list[FaqEntry] = []
        skipped: list[FaqEntry] = []

        def change(current: list[FaqEntry]) -> list[FaqEntry]:
            seen = {question_key(e.question) for e in current}
            requests = {e.request_id for e in current if e.request_id}
            for entry in entries:
                promoted_again = bool(entry.request_id) and entry.request_id in requests
                duplicate = question_key(entry.question) in seen or promoted_again
                (skipped if duplicate else added).append(entry)
                seen.add(question_key(entry.question))
                requests.add(entry.request_id or "")
            return [*current, *added]

        self._update(change)
        return added, skipped

    def remove(self, entry_id: str) -> FaqEntry | None:
        """Remove one entry by id; None when there is none."""
        removed: list[FaqEntry] = []

        def change(current: list[FaqEntry]) -> list[FaqEntry]:
            removed.extend(e for e in current if e.id == entry_id)
            return [e for e in current if e.id != entry_id]

        self._update(change)
        return removed[0] if removed else None

    def _update(self, change: Callable[[list[FaqEntry]], list[FaqEntry]]) -> None:
        with _locked(self.path):
            current = list(read_entries(self.path))
            updated = change(current)
            if updated != current:
                write_entries(self.path, updated)


def read_entries(path: Path) -> tuple[FaqEntry, ...]:
    """Parse the file; a bad line is an InputError naming the file and the line."""
    if not path.exists():
        return ()
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path} line {number}: not JSON ({exc.msg})", "fix or remove the line") from exc
        if not isinstance(data, dict):
            raise InputError(f"{path} line {number}: expected a JSON object")
        entries.append(entry_from_dict(data, f"{path} line {number}"))
    return tuple(entries)


def write_entries(path: Path, entries: Sequence[FaqEntry]) -> None:
    """Write every entry to a temporary file beside ``path``, then rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    text = "".join(json.dumps(e.to_dict(), ensure_ascii=False) + "\n" for e in entries)
    with open(tmp, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.lock"), "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        yield


_CACHE: dict[Path, tuple[tuple[int, int, int], tuple[FaqEntry, ...]]] = {}
_CACHE_LOCK = threading.Lock()


def _cached(path: Path) -> tuple[FaqEntry, ...]:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return ()
    stamp = (stat.st_ino, stat.st_mtime_ns, stat.st_size)  # each write is a new file (os.replace): a new inode
    with _CACHE_LOCK:
        hit = _CACHE.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    entries = read_entries(path)
    with _CACHE_LOCK:
        _CACHE[path] = (stamp, entries)
    return entries
