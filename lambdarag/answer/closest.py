"""What the dense reading vouches for: the sentence closest in meaning to the question, and the best sentence of
the evidence chunk closest to it.

The sentence scorer (answer/sentences.py) reads words; a question asked in words of its own ("多久发一次新版本"
for "发版频率为每月", "要去哪儿把钱领出来" for "到指定银行领取") can lead it to sentences that share the page's
words but not the answer. Two readings by meaning offer one sentence each after the ones chosen by their words,
within the length budget, never displacing one of them (an answer they make whole stays as it was):

- the candidate sentence whose own vector (built with the index by channels/sentence_vectors.py, of the sentences
  answer/units.chunk_sentences gives) is closest to the question's (``Packed.nearness``), when not among them;
- then the best sentence of the evidence chunk the dense channel ranked first (``Packed.closest``), when none of
  them is from that chunk (the nearest one may be: it still offers its best).

In an English answer they come second, after the first sentence chosen by its words: an English sentence is two or
three times a Chinese one's length, so last they were cut by the budget, and the English word scorer (stems of the
question's words, the page's subject among them) leads with them less reliably than character pairs do in Chinese
(measured: moved up in Chinese answers too, DomainRAG lost three hits).

No model call beyond retrieval's. Pure functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lambdarag.answer.follow_on import announced, with_next
from lambdarag.answer.sentences import Scored, ranking_key
from lambdarag.answer.units import embedded

QUOTED_OPENING = 40  # characters of a sentence's opening that show a slot line quotes it already (perhaps cut short)


def nearest(scored: Sequence[Scored], nearness: Mapping[str, float]) -> Scored | None:
    """The scored sentence closest in meaning to the question (``nearness``: embedded sentence -> cosine), None
    without sentence vectors."""
    near = [s for s in scored if embedded(s.sentence) in nearness]
    return max(near, key=lambda s: (nearness[embedded(s.sentence)], ranking_key(s)), default=None)


def with_nearest(picked: Sequence[Scored], scored: Sequence[Scored], nearness: Mapping[str, float]) -> list[Scored]:
    """``picked``, then the scored sentence closest in meaning to the question when none of them says it (a clause
    of one of them, "…3个工作日；员工的近亲属…1个工作日" holding "员工的近亲属…1个工作日", is said already)."""
    best = nearest(scored, nearness)
    return list(picked) if not picked or best is None or said_in(best, picked) else [*picked, best]


def said_in(sentence: Scored, picked: Sequence[Scored]) -> bool:
    """Whether ``sentence`` is one of ``picked`` or its text is part of one of theirs."""
    text = sentence.sentence.strip().rstrip("。.；;，,")
    return sentence in picked or any(text in s.sentence for s in picked)


def nearest_unsaid(scored: Sequence[Scored], nearness: Mapping[str, float], said: str) -> list[Scored]:
    """The nearest sentence when the answer's lines (``said``: slot lines, which may quote a sentence cut short)
    do not hold it already."""
    best = nearest(scored, nearness)
    return [best] if best is not None and best.sentence[:QUOTED_OPENING] not in said else []


def by_meaning(picked: Sequence[Scored], scored: Sequence[Scored], nearness: Mapping[str, float],
               n: int | None, second: bool = False) -> list[Scored]:
    """``picked`` with what the dense reading offers, each judged against ``picked`` alone: the nearest sentence,
    then chunk ``n``'s best (when it is not that one); after all of ``picked``, or with ``second`` right after the
    first of them (an English answer: its budget holds two or three sentences, and the last offered was cut)."""
    offered = with_nearest(picked, scored, nearness)
    closest = with_closest(picked, scored, n)[len(picked):]
    # the closest chunk's best, unless said already or holding what is (the nearest one may be a clause of it)
    offered += [s for s in closest if not said_in(s, offered) and not any(said_in(o, [s]) for o in offered)]
    # a lead-in offered ("Submit a mileage log including:") comes with the items it announces, as a picked one does;
    # alone after some of them ("- Calling us at…", then "You can renew by:") it adds nothing
    extra = [s for s in offered[len(picked):] if not any(i in picked for i in announced(s, scored))]
    offered_lines = with_next(extra, scored, "")
    return [*picked[:1], *offered_lines, *picked[1:]] if second else [*picked, *offered_lines]


def closest_number(closest: str | None, numbers: Mapping[str, int]) -> int | None:
    """The citation number of the closest chunk (``numbers``: chunk id -> number), None without one."""
    return numbers.get(closest) if closest else None


def with_closest(picked: Sequence[Scored], scored: Sequence[Scored], n: int | None) -> list[Scored]:
    """``picked``, then the best of chunk ``n``'s ``scored`` sentences when none of ``picked`` is from chunk ``n``."""
    if n is None or not picked or any(s.n == n for s in picked):
        return list(picked)
    offered = [s for s in scored if s.n == n]
    return [*picked, max(offered, key=ranking_key)] if offered else list(picked)
