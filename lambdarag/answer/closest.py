"""The sentence the dense channel vouches for: the best one of the evidence chunk closest in meaning to the question.

The sentence scorer (answer/sentences.py) reads words; a question asked in words of its own ("多久发一次新版本"
for "发版频率为每月", "要去哪儿把钱领出来" for "到指定银行领取") can lead it to sentences that share the page's
words but not the answer. The dense channel ranks chunks by meaning; the evidence chunk it ranked first
(Packed.closest) whose sentences the answer has none of offers its best sentence after the ones chosen by their
words, within the length budget: it never displaces one of them, so an answer they make whole stays as it was.
Pure functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lambdarag.answer.sentences import Scored, ranking_key


def closest_number(closest: str | None, numbers: Mapping[str, int]) -> int | None:
    """The citation number of the closest chunk (``numbers``: chunk id -> number), None without one."""
    return numbers.get(closest) if closest else None


def with_closest(picked: Sequence[Scored], scored: Sequence[Scored], n: int | None) -> list[Scored]:
    """``picked``, then the best of chunk ``n``'s ``scored`` sentences when none of ``picked`` is from chunk ``n``."""
    if n is None or not picked or any(s.n == n for s in picked):
        return list(picked)
    offered = [s for s in scored if s.n == n]
    return [*picked, max(offered, key=ranking_key)] if offered else list(picked)
