"""A BM25 vocabulary (token → row) memory-mapped from its index folder: a hash table of rows over the tokens.

vocab.json read into a dict cost every worker a Python string and a dict entry per distinct token (142k for the
bm25 channel at 100k chunks, 132k for the document channel: about 50 MB of each worker's private memory and 0.3 s of
its load with the wiki's). Here the tokens are a string list (channels/strings.py) in row order and ``vocab_slots``
an open-addressing table (linear probing, a power of two at least twice the tokens) of rows by CRC-32 of the token's
UTF-8: a lookup decodes one token, rarely two or three. CRC-32, not ``hash()``: Python salts str hashes per process.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from lambdarag.channels.strings import Strings, mapped

NAME = "vocab"
EMPTY = -1


def _slot(token: str, mask: int) -> int:
    return zlib.crc32(token.encode("utf-8")) & mask


class Vocabulary(Mapping[str, int]):
    """token → row for the tokens of ``strings`` (row i is strings[i]), looked up through ``slots``."""

    def __init__(self, strings: Strings, slots: np.ndarray) -> None:
        size = len(slots)
        if size & (size - 1) or size < 2 * len(strings) or (size and int(slots.max()) >= len(strings)):
            raise ValueError("the vocabulary's table does not fit its tokens")
        self.strings, self.slots, self._mask = strings, slots, size - 1

    @classmethod
    def of(cls, tokens: Sequence[str]) -> Vocabulary:
        """The table of ``tokens`` (distinct; row = position)."""
        size = 1
        while size < 2 * len(tokens):
            size *= 2
        slots = np.full(size, EMPTY, dtype=np.int32)
        mask = size - 1
        for row, token in enumerate(tokens):
            at = _slot(token, mask)
            while slots[at] != EMPTY:
                at = (at + 1) & mask
            slots[at] = row
        return cls(Strings.of(tokens), slots)

    def save(self, folder: Path) -> None:
        """vocab.npy, vocab_ptr.npy (the tokens) and vocab_slots.npy (the table) in ``folder``."""
        self.strings.save(folder, NAME)
        np.save(folder / f"{NAME}_slots.npy", self.slots)

    @classmethod
    def load(cls, folder: Path) -> Vocabulary:
        return cls(Strings.load(folder, NAME), mapped(folder / f"{NAME}_slots.npy"))

    def get(self, token: str, default: int | None = None) -> int | None:  # type: ignore[override]
        """The row of ``token``, ``default`` when it is not in the vocabulary."""
        slots, strings, mask = self.slots, self.strings, self._mask
        if not len(slots):
            return default
        at = _slot(token, mask)
        while (row := int(slots[at])) != EMPTY:
            if strings.at(row) == token:
                return row
            at = (at + 1) & mask
        return default

    def __getitem__(self, token: str) -> int:
        row = self.get(token)
        if row is None:
            raise KeyError(token)
        return row

    def __contains__(self, token: object) -> bool:
        return isinstance(token, str) and self.get(token) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.strings)

    def __len__(self) -> int:
        return len(self.strings)
