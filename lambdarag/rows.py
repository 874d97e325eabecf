"""Read-only sequences whose items are built by row from arrays or a store (strings, pages, chunks).

Indexing, negative indices, slices and the bounds check live here once; a subclass gives ``__len__`` and ``at``.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class Rows(Sequence[T]):
    """A sequence of items built on access by ``at(row)``, for 0 ≤ row < len, unchecked (a search's path)."""

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def at(self, row: int) -> T:
        """The item at ``row`` (0 ≤ row < len), unchecked."""

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self.at(i) for i in range(*index.indices(len(self)))]
        return self.at(range(len(self))[index])  # IndexError outside; a negative index counts from the end
