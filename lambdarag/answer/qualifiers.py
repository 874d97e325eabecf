"""Sentences that say the same of different groups, and the group the question names.

A page often states one rule per group, each sentence opening with whom it holds for: "For managed hosting
customers in the EU, VAT will be included in the price." then "For selfhosted customers in the EU, VAT is NOT
included in the price."; "对于本科生，…" then "对于研究生，…". The sentences right after an opening one are said of
its group too ("For selfhosted, we charge… Any charges will be made on the first day"). Their words match a
question alike, and the first one wins by position. When the question names one group better than the other
("I self-host…"), the sentence said of the other gives way. A question naming neither leaves the order as it is.
Pure functions over the scored sentences (answer/sentences.py).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from lambdarag.answer.candidates import W
from lambdarag.answer.terms import cjk_pairs, content_stems

SAME_RULE = 0.4  # share of their words two sentences after their groups hold together to say the same of each
FOLLOWING = 2  # sentences after one opening with a group that are said of it too
OTHER_GROUP = 0.8  # score kept by a sentence said of a group the question names less well than the other
# "For managed hosting customers in the EU," / "对于全日制研究生，": the group a sentence's rule holds for
_OPENER = re.compile(r"^\W*(?:for\s+((?:[A-Za-z-]+\s+){0,5}?[A-Za-z-]+)\s*(?:[,:]|\s+in\b)"
                     r"|对于?([\u4e00-\u9fff]{2,12})[，,：:])", re.IGNORECASE)


def named_groups_first(question: str, scored: Sequence[W]) -> list[W]:
    """``scored`` with a sentence said of a group the question does not name scaled by OTHER_GROUP, where a sentence
    saying much the same of another group is said of one it names better. A group is named by the words that set it
    apart from the other ("selfhosted" of "selfhosted customers" beside "managed hosting customers": a question
    saying "self-host" names the one wholly, the other by "host" alone)."""
    said = _terms(question)
    grouped = _grouped(scored)
    other: set[int] = set()
    for k, (a, group_a, rest_a) in enumerate(grouped):
        for b, group_b, rest_b in grouped[k + 1:]:
            if group_a == group_b or len(rest_a & rest_b) < SAME_RULE * len(rest_a | rest_b):
                continue
            share_a, share_b = _share(group_a - group_b, said), _share(group_b - group_a, said)
            if share_a != share_b:
                other.add(id(a) if share_a < share_b else id(b))
    return [dataclasses.replace(s, score=s.score * OTHER_GROUP) if id(s) in other else s  # type: ignore[type-var]
            for s in scored]


def _grouped(scored: Sequence[W]) -> list[tuple[W, frozenset[str], frozenset[str]]]:
    """The sentences said of a group, with its terms and theirs: those opening with one, and the FOLLOWING sentences
    of their chunk after them ("For selfhosted, we charge … (prepaid). Any charges will be made on the first day")."""
    out: list[tuple[W, frozenset[str], frozenset[str]]] = []
    group: frozenset[str] = frozenset()
    chunk, since = None, 0
    for s in scored:
        if s.n != chunk:
            group, chunk = frozenset(), s.n
        m = _OPENER.match(s.sentence)
        if m is not None:
            group, since = _terms(m.group(1) or m.group(2) or ""), 0
            out.append((s, group, _terms(s.sentence[m.end():])))
        elif group and since < FOLLOWING:
            since += 1
            out.append((s, group, _terms(s.sentence)))
        else:
            group = frozenset()
    return out


def _share(own: frozenset[str], said: frozenset[str]) -> float:
    return len(own & said) / len(own) if own else 0.0


def _terms(text: str) -> frozenset[str]:
    """The text's English content words by their stems ("self-host" names "selfhosted") and its Chinese characters
    in pairs."""
    return content_stems(text) | cjk_pairs(text)
