"""Index folders: a versioned manifest checked on load, and atomic publication.

index/<channel> is a symlink to index/.<channel>-<stamp>/; a build writes a fresh folder and
swaps the link with os.replace, so readers see the old index or the new one, never half of one,
and a build that dies midway leaves the previous index in place. The manifest lists the size of
every file of the folder, so a file deleted, truncated or replaced later is refused at load with
the command that rebuilds it.

Within ``held_back(index_root)`` (a whole `lambdarag build`) publish() swaps nothing in: the new
folders wait until ``swap_in`` at the end of the build, so that until then every channel still
serves the previous build's index, consistent with the previous chunk list.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdarag.channels.buildlock import build_lock, pause_point
from lambdarag.errors import IndexMismatchError, rebuild_hint
from lambdarag.ingest.chunkstore import ChunkRows, content_hash
from lambdarag.records import Chunk

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain

MANIFEST_NAME = "manifest.json"
_held: dict[Path, dict[str, Path]] = {}  # index root → channel → folder built by this process, not swapped in yet


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
    files: dict[str, int] = field(default_factory=dict)  # every file of the folder and its size in bytes

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=2, sort_keys=True)


class ChunkList(list[Chunk]):
    """Chunks read once for every channel's loader, with their content hash worked out once (not once per channel:
    about 15 % of a domain's load). Not changed once made."""

    @cached_property
    def digest(self) -> str:
        return content_hash(self)


def chunks_hash(chunks: Iterable[Chunk]) -> str:
    """Content hash of the chunk set an index was built from (ids and indexed text); a chunk store's chunks carry
    the hash it recorded when written."""
    return chunks.digest if isinstance(chunks, ChunkList | ChunkRows) else content_hash(chunks)


def publish(index_root: Path, channel: str, write: Callable[[Path], Manifest]) -> Path:
    """Build into a fresh folder with ``write`` (which returns the manifest), then swap it in (or, within
    ``held_back``, keep it for ``swap_in``). Holds the domain's build lock (the folder above ``index_root``)."""
    with build_lock(index_root.parent, what=f"publish {channel}"):
        index_root.mkdir(parents=True, exist_ok=True)
        folder = _write_folder(index_root, channel, write)
        pause_point(f"publish:{channel}")
        held = _held.get(index_root.resolve())
        if held is None:
            _swap(index_root, channel, folder)
        else:
            if channel in held:
                shutil.rmtree(held[channel], ignore_errors=True)
            held[channel] = folder
    return index_root / channel


def _write_folder(index_root: Path, channel: str, write: Callable[[Path], Manifest]) -> Path:
    """A fresh .<channel>-<stamp> folder filled by ``write``, its manifest listing every file's size."""
    stamp = f"{time.strftime('%Y%m%d%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 1_000_000}"
    folder = index_root / f".{channel}-{stamp}"
    folder.mkdir()
    try:
        manifest = write(folder)
        sizes = {p.relative_to(folder).as_posix(): p.stat().st_size for p in sorted(folder.rglob("*")) if p.is_file()}
        (folder / MANIFEST_NAME).write_text(replace(manifest, files=sizes).to_json(), encoding="utf-8")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder


def _swap(index_root: Path, channel: str, folder: Path) -> None:
    """Point index/<channel> at ``folder`` (one os.replace), then delete the folder it pointed at before."""
    link = index_root / channel
    previous = link.resolve() if link.is_symlink() else None
    if link.exists() and not link.is_symlink():
        shutil.rmtree(link)  # an index from before atomic publication
    tmp_link = index_root / f".{channel}.link-{folder.name.removeprefix(f'.{channel}-')}"
    tmp_link.symlink_to(folder.name)
    os.replace(tmp_link, link)
    if previous is not None and previous != folder.resolve():
        shutil.rmtree(previous, ignore_errors=True)
    remove_abandoned(index_root, channel, keep=folder)


@contextmanager
def held_back(index_root: Path) -> Iterator[dict[str, Path]]:
    """Within the block, publish() into ``index_root`` swaps nothing in; the folders it builds wait in the mapping
    yielded (channel → folder) for ``swap_in``. Folders still waiting when the block ends are deleted."""
    key = index_root.resolve()
    held: dict[str, Path] = {}
    _held[key] = held
    try:
        yield held
    finally:
        del _held[key]
        for folder in held.values():
            shutil.rmtree(folder, ignore_errors=True)


def swap_in(index_root: Path, held: dict[str, Path]) -> list[str]:
    """Swap every held folder in (each one os.replace of its link); the channels swapped, in order."""
    swapped = sorted(held)
    for channel in swapped:
        _swap(index_root, channel, held.pop(channel))
    return swapped


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
    folder = _held.get(index_root.resolve(), {}).get(channel) or (index_root / channel).resolve()
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
    check_files(folder, manifest, channel, domain)
    for key, want in (params or {}).items():
        have = manifest.params.get(key)
        if have != want:
            message = f"{channel} index built with {key}={have!r}, config says {want!r}"
            raise IndexMismatchError(message, rebuild)
    if chunks_digest is not None:
        refuse_stale(channel, domain, manifest, chunks_digest)
    return folder, manifest


def check_files(folder: Path, manifest: Manifest, channel: str, domain: str) -> None:
    """Refuse a folder whose files are not those its manifest lists (deleted, truncated, replaced)."""
    for name, size in sorted(manifest.files.items()):
        try:
            found = (folder / name).stat().st_size
        except OSError:
            raise damaged(channel, domain, f"is damaged: {name} is missing") from None
        if found != size:
            raise damaged(channel, domain, f"is damaged: {name} is {found} bytes, its manifest says {size}")


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
    channel: str, domain: str, errors: tuple[type[Exception], ...] = (OSError, ValueError, EOFError)
) -> Iterator[None]:
    """Turn a failure to read an index's files (one of ``errors``) into ``damaged``, naming the rebuild."""
    try:
        yield
    except errors as exc:
        raise damaged(channel, domain, f"is damaged ({exc})") from exc
