"""The reload generation counter of a domain: bumping it makes every serving worker load the index again.

Each worker (server/holder.py) reads ``<domain>/reload.generation`` on every request and reloads lazily when the
number moved. POST /admin/reload bumps it after reloading its own worker; a background documents job and
`lambdarag sync` bump it after their build commits, so the workers of a running server pick the new index up
on their next request without a signal.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

GENERATION_FILE = "reload.generation"


def read_generation(path: Path) -> int:
    """The counter in the generation file; 0 when it does not exist yet."""
    try:
        return int(path.read_text(encoding="ascii").strip() or 0)
    except FileNotFoundError:
        return 0
    except ValueError:
        return -1  # a damaged file still differs from any real number, so workers reload


def bump_generation(path: Path) -> int:
    """Increment the counter under an exclusive lock (two reloads at once both count)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        value = max(read_generation(path), 0) + 1
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(f"{value}\n", encoding="ascii")
        os.replace(tmp, path)
    return value


def announce_new_index(domain_root: Path) -> int:
    """Tell the serving workers of the domain at ``domain_root`` that a new index is published."""
    return bump_generation(domain_root / GENERATION_FILE)
