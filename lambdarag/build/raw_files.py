"""Changes to a domain's raw/ folder made by LambdaRAG itself: an uploaded file placed, a file removed, a mirror plan.

raw/ is the operator's folder and the build reads it as it is; the documents API and `lambdarag sync` change it
only through here. A name that comes from outside is checked before it touches the disk (``safe_source``: a
relative POSIX path of plain segments, never ``..``, absolute, hidden or with control characters, a doc id
the build accepts), an incoming file is checked with the build's own checks (``check_file``:
empty, over ``ingest.max_file_mb``, content that is not what its extension says, an archive bomb), and a file
enters raw/ with one ``os.replace`` from a staging file on the same file system, so the build never reads half a
file. A removal unlinks the file and prunes the sub-folders it emptied; raw/ itself always stays.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from lambdarag.errors import ExtractionError, InputError
from lambdarag.ingest.detect import detect
from lambdarag.ingest.names import refused_entry, shown, unsafe_doc_id
from lambdarag.ingest.run import doc_id_for, scan_raw
from lambdarag.ingest.settings import IngestSettings
from lambdarag.ingest.store import file_sha256

STAGING_DIR = ".staging"  # under the domain folder: uploads wait here until every file of a request passed
STALE_STAGING_S = 3600.0
MAX_SEGMENT_BYTES = 255  # a file name longer than this cannot be created on common file systems
NAME_HINT = "send a plain file name such as 'policy.pdf' (sub-folders as 'dir/policy.pdf')"


def safe_source(name: str) -> str:
    """The raw path (relative to raw/, POSIX) for an incoming file name; InputError saying why when refused."""
    text = unicodedata.normalize("NFC", name or "").strip()
    if not text:
        raise InputError("file name is empty", NAME_HINT)
    if "\\" in text or "\x00" in text:
        raise InputError(f"file name {shown(text)} holds a backslash or NUL", NAME_HINT)
    parts = text.split("/")
    if text.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise InputError(f"file name {shown(text)} is not a plain relative path (no '..', no leading '/')", NAME_HINT)
    for part in parts:
        if part.startswith((".", "~$")) or part.endswith("~"):
            raise InputError(f"file name {shown(text)} has a hidden, lock or backup segment {shown(part)}", NAME_HINT)
        if len(part.encode("utf-8")) > MAX_SEGMENT_BYTES:
            raise InputError(f"file name segment {shown(part)} is longer than {MAX_SEGMENT_BYTES} bytes", NAME_HINT)
    if (why := unsafe_doc_id(doc_id_for(text))):
        raise InputError(f"file name {shown(text)} gives an unsafe doc id ({why})", NAME_HINT)
    return text


def check_file(path: Path, source: str, settings: IngestSettings) -> None:
    """The build's checks before any parser runs (empty, size cap, content against extension, archive bombs)."""
    try:
        detect(path, settings)
    except ExtractionError as exc:
        raise InputError(f"{source}: {exc.message}", "fix the file and send it again; nothing was changed") from exc


def target_path(raw_dir: Path, source: str) -> Path:
    """raw/<source>, refused when a folder on the way is a link that leads out of raw/."""
    target = raw_dir / source
    real_raw = Path(os.path.realpath(raw_dir))
    if not Path(os.path.realpath(target.parent)).is_relative_to(real_raw):
        raise InputError(f"{shown(source)} would be written outside raw/ (a linked folder)", NAME_HINT)
    if target.is_dir() and not target.is_symlink():
        raise InputError(f"{shown(source)} is a folder in raw/", "choose another file name")
    return target


def staging_dir(domain_root: Path) -> Path:
    """<domain>/.staging/, emptied of files a request left there more than STALE_STAGING_S ago (a killed worker)."""
    folder = domain_root / STAGING_DIR
    folder.mkdir(parents=True, exist_ok=True)
    cutoff = time.time() - STALE_STAGING_S
    for path in folder.iterdir():
        with contextlib.suppress(OSError):
            if path.stat().st_mtime < cutoff:
                path.unlink()
    return folder


def place(staged: Path, raw_dir: Path, source: str) -> Path:
    """Move a staged file to raw/<source> in one rename (a file already there is replaced)."""
    target = target_path(raw_dir, source)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(staged, target)
    except OSError:  # staging on another file system: copy beside the target, then rename
        beside = target.with_name(f".{target.name}.incoming")
        shutil.copyfile(staged, beside)
        os.replace(beside, target)
        staged.unlink(missing_ok=True)
    return target


def copy_in(source_file: Path, raw_dir: Path, source: str) -> Path:
    """Copy ``source_file`` to raw/<source> through a hidden file beside it (the build skips hidden names)."""
    target = target_path(raw_dir, source)
    target.parent.mkdir(parents=True, exist_ok=True)
    beside = target.with_name(f".{target.name}.{os.getpid()}.incoming")
    try:
        shutil.copyfile(source_file, beside)
        os.replace(beside, target)
    finally:
        beside.unlink(missing_ok=True)
    return target


def remove(raw_dir: Path, source: str) -> bool:
    """Unlink raw/<source> and prune the sub-folders it leaves empty; False when it was not there."""
    target = raw_dir / source
    try:
        target.unlink()
    except FileNotFoundError:
        return False
    for parent in target.parents:
        if parent == raw_dir or raw_dir not in parent.parents:
            break
        try:
            parent.rmdir()
        except OSError:
            break
    return True


def source_for(raw_dir: Path, doc_id: str) -> str | None:
    """The raw file whose doc id is ``doc_id`` (the path without its suffix), or None."""
    return next((source for source in scan_raw(raw_dir) if doc_id_for(source) == doc_id), None)


def doc_id_owner(raw_dir: Path, source: str) -> str | None:
    """Another raw file that already gives ``source``'s doc id (a.md against a.txt), or None."""
    wanted = doc_id_for(source)
    return next((other for other in scan_raw(raw_dir) if other != source and doc_id_for(other) == wanted), None)


@dataclass
class MirrorPlan:
    """What makes raw/ mirror a source folder: files to add, to replace, to remove, and those refused (with why)."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)  # source → reason; raw/ keeps its version of it
    unchanged: int = 0


def mirror_plan(source_dir: Path, raw_dir: Path, settings: IngestSettings) -> MirrorPlan:
    """Compare ``source_dir`` with raw/ by path and content hash; refuse what the build would refuse."""
    wanted = scan_raw(source_dir, settings.follow_symlinks)
    present = scan_raw(raw_dir, settings.follow_symlinks)
    plan = MirrorPlan(removed=[source for source in present if source not in wanted])
    for source, path in wanted.items():
        why = _refusal(source_dir, source, path, settings)
        if why:
            plan.refused[source] = why
        elif source not in present:
            plan.added.append(source)
        elif _differs(path, present[source]):
            plan.changed.append(source)
        else:
            plan.unchanged += 1
    return plan


def _refusal(source_dir: Path, source: str, path: Path, settings: IngestSettings) -> str:
    """Why a file of the source folder is not copied into raw/ ("" when it may be)."""
    if why := refused_entry(source_dir, path, settings.follow_symlinks):
        return why
    try:
        safe_source(source)
        check_file(path, source, settings)
    except InputError as exc:
        return exc.message
    except OSError as exc:
        return f"cannot read the file: {exc.strerror or exc}"
    return ""


def _differs(a: Path, b: Path) -> bool:
    try:
        return a.stat().st_size != b.stat().st_size or file_sha256(a) != file_sha256(b)
    except OSError:
        return True


def apply_plan(plan: MirrorPlan, source_dir: Path, raw_dir: Path) -> list[str]:
    """Copy the added and changed files into raw/ and remove the removed ones; the sources that could not be."""
    problems: list[str] = []
    for source in [*plan.added, *plan.changed]:
        try:
            copy_in(source_dir / source, raw_dir, source)
        except (OSError, InputError) as exc:
            plan.refused[source] = f"cannot copy it into raw/: {exc}"
            problems.append(source)
    for source in plan.removed:
        remove(raw_dir, source)
    for source in problems:
        for group in (plan.added, plan.changed):
            if source in group:
                group.remove(source)
    return problems

