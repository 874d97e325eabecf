"""Mixed dictionary terms (with a Latin letter or a digit) found in a text without a regex of them.

At a position, a term matches when the text continues with it and it is not cut out of a longer identifier: a term
starting with [a-z0-9] needs no [a-z0-9] before it, one ending with [a-z0-9] none after it. ``TermIndex.matches``
yields, at each position where some term matches, the longest one whose boundaries hold. That is what an
alternation of every term (longest first, with those boundaries) matches there; it used to be compiled into one
regex per tokenizer, which at 100k chunks (32k page names) cost seconds of `re` compiling at every load. Here the
candidate positions come from a regex of the terms' first characters (a character class: cheap to compile) and each
is resolved by set lookups of the term lengths that start with the same two characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")  # the identifier characters of the boundary rule


class TermIndex:
    """Longest-match lookup of a set of (normalised) terms in a text, identifier boundaries respected."""

    def __init__(self, terms: Iterable[str]) -> None:
        self.terms = frozenset(t for t in terms if t)
        lengths: dict[str, set[int]] = {}
        for term in self.terms:
            lengths.setdefault(term[:2], set()).add(len(term))
        # by the first two characters (one for a one-character term): the lengths to try, longest first
        self._lengths = {head: sorted(found, reverse=True) for head, found in lengths.items()}
        self._starts = _start_pattern(self.terms)

    def __bool__(self) -> bool:
        return bool(self.terms)

    def matches(self, text: str) -> Iterator[tuple[int, int]]:
        """(start, end) of the longest term at every position where one matches, by position."""
        if self._starts is None:
            return
        for candidate in self._starts.finditer(text):
            start = candidate.start()
            end = self.longest(text, start)
            if end:
                yield start, end

    def longest(self, text: str, start: int) -> int:
        """The end of the longest term at ``start`` whose end is no identifier's middle, 0 when none is (the start's
        own boundary is the caller's: ``matches`` checks it)."""
        for head in (text[start : start + 2], text[start]):
            for length in self._lengths.get(head, ()):
                end = start + length
                if end <= len(text) and text[start:end] in self.terms and (
                        text[end - 1] not in ALNUM or text[end : end + 1] not in ALNUM):
                    return end
            if len(head) == 1:
                break  # the text ends at start + 1: the one-character head was tried already
        return 0


def _start_pattern(terms: frozenset[str]) -> re.Pattern[str] | None:
    """The positions where a term may start: its first character, and no [a-z0-9] before one that is [a-z0-9]."""
    firsts = {t[0] for t in terms}
    if not firsts:
        return None
    alnum, other = sorted(firsts & ALNUM), sorted(firsts - ALNUM)
    parts = [f"(?<![a-z0-9])[{''.join(alnum)}]"] if alnum else []
    if other:
        parts.append(f"[{''.join(re.escape(c) for c in other)}]")
    return re.compile("|".join(parts))
