"""Lists of strings in an index folder: a UTF-8 blob and int64 offsets, memory-mapped, a string decoded when asked for.

An index's ids, titles and excerpts read back this way cost a worker no Python object per string at load (JSON made
one per string, kept in each gunicorn worker's private memory); the pages of the mapped files are shared by every
worker through the page cache. ``Groups`` adds offsets over the strings: one list of them per item (a page's sources).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise
from pathlib import Path

import numpy as np

from lambdarag.records import Rows


def offsets(counts: Sequence[int] | np.ndarray) -> np.ndarray:
    """0, then the running sum of ``counts`` (CSR offsets)."""
    return np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(np.asarray(counts, dtype=np.int64))])


def mapped(path: Path) -> np.ndarray:
    """An .npy file memory-mapped read-only, as a plain array view (slicing an np.memmap costs several times more)."""
    array: np.ndarray = np.load(path, mmap_mode="r").view(np.ndarray)
    return array


class Strings(Rows[str]):
    """A read-only list of strings over a UTF-8 blob and its offsets."""

    def __init__(self, text: np.ndarray, ptr: np.ndarray) -> None:
        if ptr.ndim != 1 or len(ptr) < 1 or int(ptr[-1]) != len(text) or int(ptr[0]) != 0:
            raise ValueError("string offsets do not match their text")
        self.text, self.ptr = text, ptr

    @classmethod
    def of(cls, strings: Iterable[str]) -> Strings:
        encoded = [s.encode("utf-8") for s in strings]
        return cls(np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets([len(e) for e in encoded]))

    def save(self, folder: Path, name: str) -> None:
        """``name``.npy (the text) and ``name``_ptr.npy (the offsets) in ``folder``."""
        np.save(folder / f"{name}.npy", np.ascontiguousarray(self.text))
        np.save(folder / f"{name}_ptr.npy", np.ascontiguousarray(self.ptr))

    @classmethod
    def load(cls, folder: Path, name: str) -> Strings:
        return cls(mapped(folder / f"{name}.npy"), mapped(folder / f"{name}_ptr.npy"))

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def at(self, index: int) -> str:
        """The string at ``index`` (0 ≤ index < len), unchecked: a search's path."""
        return self.text[self.ptr[index] : self.ptr[index + 1]].tobytes().decode("utf-8")

    def run(self, start: int, end: int) -> tuple[str, ...]:
        """The strings start..end-1 (0 ≤ start ≤ end ≤ len), their bytes read in one piece."""
        offsets = self.ptr[start : end + 1].tolist()
        base = offsets[0]
        blob = self.text[base : offsets[-1]].tobytes()
        return tuple(blob[a - base : b - base].decode("utf-8") for a, b in pairwise(offsets))


class Groups(Rows[tuple[str, ...]]):
    """One tuple of strings per item: ``Strings`` of every item's strings in turn, and where each item's begin."""

    def __init__(self, strings: Strings, ptr: np.ndarray) -> None:
        if ptr.ndim != 1 or len(ptr) < 1 or int(ptr[-1]) != len(strings) or int(ptr[0]) != 0:
            raise ValueError("group offsets do not match their strings")
        self.strings, self.ptr = strings, ptr

    @classmethod
    def of(cls, groups: Iterable[Sequence[str]]) -> Groups:
        listed = [tuple(g) for g in groups]
        return cls(Strings.of(s for g in listed for s in g), offsets([len(g) for g in listed]))

    def save(self, folder: Path, name: str) -> None:
        """``Strings.save`` of the strings under ``name``, and ``name``_groups.npy (the offsets of the items)."""
        self.strings.save(folder, name)
        np.save(folder / f"{name}_groups.npy", np.ascontiguousarray(self.ptr))

    @classmethod
    def load(cls, folder: Path, name: str) -> Groups:
        return cls(Strings.load(folder, name), mapped(folder / f"{name}_groups.npy"))

    def size(self, index: int) -> int:
        """How many strings item ``index`` has."""
        return int(self.ptr[index + 1] - self.ptr[index])

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def at(self, index: int) -> tuple[str, ...]:
        """The strings of item ``index`` (0 ≤ index < len), unchecked: a search's path."""
        return self.strings.run(int(self.ptr[index]), int(self.ptr[index + 1]))
