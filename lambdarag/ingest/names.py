"""What may enter a domain from its raw/ folder: document ids that stay names, files that stay inside raw/.

A doc id is the raw path without its suffix, or a JSONL line's own "doc_id"; it ends up in chunk ids,
URLs, logs and evaluation files, so one that could be read as a path elsewhere (``..`` segments, an
absolute or drive path, control characters) is refused instead of being carried along. A raw entry is
read only when it is a regular file whose real path lies inside raw/: a symbolic link out of raw/, a
named pipe (which would block the build on open) or a device is refused with the reason.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

MAX_DOC_ID_CHARS = 512
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DRIVE = re.compile(r"^[A-Za-z]:")


def unsafe_doc_id(doc_id: str) -> str:
    """Why ``doc_id`` is refused, or "" when it is a plain relative name."""
    if not doc_id:
        return "empty doc_id"
    if len(doc_id) > MAX_DOC_ID_CHARS:
        return f"doc_id longer than {MAX_DOC_ID_CHARS} characters"
    if _CONTROL.search(doc_id):
        return "doc_id holds control characters"
    if doc_id.startswith(("/", "\\", "~")) or _DRIVE.match(doc_id):
        return "doc_id is an absolute path"
    if any(part in {".", ".."} for part in re.split(r"[/\\]", doc_id)):
        return "doc_id has a '.' or '..' path segment"
    return ""


def shown(text: str, limit: int = 80) -> str:
    """``text`` quoted for a report line: control characters escaped, cut to ``limit`` characters."""
    quoted = repr(text)
    return quoted if len(quoted) <= limit else quoted[: limit - 4] + "…" + quoted[-3:]


def refused_entry(raw_dir: Path, path: Path, follow_symlinks: bool = False) -> str:
    """Why the raw entry ``path`` is not read, or "" when it is a regular file inside raw/ (or anywhere, when
    ``follow_symlinks``)."""
    if path.is_symlink() and not follow_symlinks:
        target = Path(os.path.realpath(path))
        if not target.is_relative_to(Path(os.path.realpath(raw_dir))):
            return (f"symbolic link to {target}, outside raw/: refused "
                    "(copy the file into raw/, or set ingest.follow_symlinks: true)")
    try:
        mode = path.stat().st_mode
    except OSError:
        return ""  # the caller reports the read error itself
    if not stat.S_ISREG(mode):
        kind = "named pipe" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "device or folder"
        return f"not a regular file ({kind}): refused"
    return ""
