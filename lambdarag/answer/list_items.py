"""A list question's items after their lead-in: the sentence that matches the question often only introduces the
list ("这门课很受欢迎。"), the next one holds the items ("课时安排是：导言—诗律、诗韵—对仗…")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypeVar

# three items or more, each up to 15 characters, separated by 、 ； or a dash
_ENUMERATION = re.compile(r"(?:[^、，,；;—。]{1,15}[、；;—]){2,}")


class Candidate(Protocol):
    """A candidate sentence and the chunk it was cut from (answer/sentences.Scored)."""

    @property
    def sentence(self) -> str: ...

    @property
    def n(self) -> int: ...


C = TypeVar("C", bound=Candidate)


def enumerates(sentence: str) -> bool:
    """Whether ``sentence`` lists three items or more."""
    return bool(_ENUMERATION.search(sentence))


def with_items(picked: Sequence[C], candidates: Sequence[C]) -> list[C]:
    """``picked`` with, after each picked sentence that lists nothing, the next sentence of its chunk when that one
    lists items (``candidates`` in their chunks' order)."""
    out: list[C] = []
    for item in picked:
        out.append(item)
        if enumerates(item.sentence):
            continue
        at = candidates.index(item)
        after = candidates[at + 1] if at + 1 < len(candidates) else None
        if after is not None and after.n == item.n and after not in picked and enumerates(after.sentence):
            out.append(after)
    return out
