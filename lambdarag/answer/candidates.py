"""What the pure passes over an answer's candidate sentences read of them (answer/sentences.Scored is one).

A pass that reorders or rescales candidates (follow_on.py, qualifiers.py, limits.py) sees them through these
protocols, so it needs no import of the scoring module that calls it.
"""

from __future__ import annotations

from typing import Protocol, TypeVar


class Candidate(Protocol):
    """A candidate sentence and the chunk it was cut from."""

    @property
    def sentence(self) -> str: ...

    @property
    def n(self) -> int: ...  # the chunk's citation number


class Weighed(Candidate, Protocol):
    """A candidate with its score."""

    @property
    def score(self) -> float: ...


C = TypeVar("C", bound=Candidate)
W = TypeVar("W", bound=Weighed)
