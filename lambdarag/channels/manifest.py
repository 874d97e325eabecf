"""Index folders: a versioned manifest checked on load, and atomic publication.

index/<channel> is a symlink to index/.<channel>-<stamp>/; a build writes a fresh folder and
swaps the link with os.replace, so readers see the old index or the new one, never half of one,
and a build that dies midway leaves the previous index in place.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdarag.errors import IndexMismatchError, rebuild_hint
from lambdarag.records import Chunk

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain

MANIFEST_NAME = "manifest.json"

@dataclass(frozen=True)
class Manifest:
    """What an index was built from and with."""

    channel: str
    format_version: int
    params: dict[str, Any]
    counts: dict[str, int]
    chunks_hash: str
    built_at: float = field(default_factory=time.time)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=2, sort_keys=True)


def chunks_hash(chunks: Iterable[Chunk]) -> str:
    """Content hash of the chunk set an index was built from (ids and indexed text)."""
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk.chunk_id.encode("utf-8"))
        digest.update(b"\0")
        digest.update(chunk.index_text.encode("utf-8"))
        digest.update(b"\1")
    return digest.hexdigest()


def publish(index_root: Path, channel: str, write: Callable[[Path], Manifest]) -> Path:
    """Build into a fresh folder with ``write`` (which returns the manifest), then swap it in."""
    index_root.mkdir(parents=True, exist_ok=True)
    stamp = f"{time.strftime('%Y%m%d%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 1_000_000}"
    folder = index_root / f".{channel}-{stamp}"
    folder.mkdir()
    try:
        manifest = write(folder)
        (folder / MANIFEST_NAME).write_text(manifest.to_json(), encoding="utf-8")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    link = index_root / channel
    previous = link.resolve() if link.is_symlink() else None
    if link.exists() and not link.is_symlink():
        shutil.rmtree(link)  # an index from before atomic publication
    tmp_link = index_root / f".{channel}.link-{stamp}"
    tmp_link.symlink_to(folder.name)
    os.replace(tmp_link, link)
    if previous is not None and previous != folder.resolve():
        shutil.rmtree(previous, ignore_errors=True)
    remove_abandoned(index_root, channel, keep=folder)
    return link


def remove_abandoned(index_root: Path, channel: str, keep: Path) -> list[Path]:
    """Delete build folders and links left by builds whose process died (killed midway)."""
    removed = []
    for path in index_root.glob(f".{channel}[-.]*"):
        pid = _stamp_pid(path.name)
        if path == keep or pid is None or pid == os.getpid() or _alive(pid):
            continue
        if path.is_symlink():
            path.unlink()
        else:
            shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _stamp_pid(name: str) -> int | None:
    """The builder's pid inside '.<channel>-<time>-<pid>-<n>' or '.<channel>.link-<time>-<pid>-<n>'."""
    parts = name.rsplit("-", 2)
    return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_manifest(
    index_root: Path,
    channel: str,
    domain: str,
    format_version: int,
    params: Mapping[str, Any] | None = None,
    chunks_digest: str | None = None,
) -> tuple[Path, Manifest]:
    """The index folder and manifest of ``channel``; any mismatch says which command rebuilds it."""
    rebuild = rebuild_hint(channel, domain)
    folder = (index_root / channel).resolve()
    path = folder / MANIFEST_NAME
    if not path.exists():
        raise IndexMismatchError(f"{channel} index of domain {domain!r} is missing", rebuild)
    try:
        manifest = Manifest(**json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, TypeError) as exc:
        raise IndexMismatchError(f"{channel} index manifest is unreadable ({exc})", rebuild) from exc
    if manifest.format_version != format_version:
        found = manifest.format_version
        raise IndexMismatchError(f"{channel} index has format {found}, this version reads {format_version}", rebuild)
    for key, want in (params or {}).items():
        have = manifest.params.get(key)
        if have != want:
            message = f"{channel} index built with {key}={have!r}, config says {want!r}"
            raise IndexMismatchError(message, rebuild)
    if chunks_digest is not None:
        refuse_stale(channel, domain, manifest, chunks_digest)
    return folder, manifest


def refuse_stale(channel: str, domain: str, manifest: Manifest, chunks_digest: str) -> None:
    """Refuse an index whose manifest says it was built from other chunks than ``chunks_digest``."""
    if manifest.chunks_hash != chunks_digest:
        raise IndexMismatchError(f"{channel} index is older than the extracted chunks", rebuild_hint(channel, domain))


def current_chunks(domain: Domain, chunks: Sequence[Chunk] | None) -> Sequence[Chunk]:
    """``chunks`` when the caller read them already, else the domain's processed/chunks.jsonl."""
    if chunks is not None:
        return chunks
    from lambdarag.ingest.store import load_chunks

    return load_chunks(domain.processed_dir)


def open_index(
    domain: Domain, channel: str, format_version: int, params: Mapping[str, Any], chunks: Sequence[Chunk] | None
) -> tuple[Path, Manifest, Sequence[Chunk]]:
    """Folder, manifest and chunks of a channel's index, refused when built from other chunks, code or config."""
    chunks = current_chunks(domain, chunks)
    digest = chunks_hash(chunks)
    folder, manifest = read_manifest(domain.index_dir, channel, domain.name, format_version, params, digest)
    return folder, manifest, chunks


def damaged(channel: str, domain: str, problem: str) -> IndexMismatchError:
    """The error for an index whose files do not read back or disagree with its manifest."""
    return IndexMismatchError(f"{channel} index of domain {domain!r} {problem}", rebuild_hint(channel, domain))


@contextmanager
def reading(
    channel: str, domain: str, errors: tuple[type[Exception], ...] = (OSError, ValueError)
) -> Iterator[None]:
    """Turn a failure to read an index's files (one of ``errors``) into ``damaged``, naming the rebuild."""
    try:
        yield
    except errors as exc:
        raise damaged(channel, domain, f"is damaged ({exc})") from exc
