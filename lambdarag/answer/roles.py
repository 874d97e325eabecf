"""Who a "who" question asks for: the role it names (院长 of 经济学院, "the CEO of Acme"), the people a sentence
names, and whether a name stands next to the role. Pure functions; answer/needs.py scores a "who" answer with them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from lambdarag.answer import cues
from lambdarag.answer.cues import cue_pattern
from lambdarag.answer.table_text import grams, question_grams
from lambdarag.graph.english import english_entities
from lambdarag.text.people import person_names
from lambdarag.text.segment import words
from lambdarag.text.tokenizer import has_cjk

ROLE_GAP = 3  # characters at most between the role and the name ("院长、教授某某", "某某院长")
_ROLE_BEFORE = re.compile(cues.ROLE_BEFORE)
_ROLE_AFTER = re.compile(cues.ROLE_AFTER)
_ROLE_EN = cue_pattern(*cues.ROLE_EN, flags=re.IGNORECASE)
_AGENT_VERB_EN = cue_pattern(*cues.AGENT_VERB_EN, flags=re.IGNORECASE)
_ROLE_TRIM = "的之？?。 "


def named_people(sentence: str) -> list[str]:
    """The people a sentence names: tagged Chinese names, and English ones next to a role or title."""
    english = [e.name for e in english_entities(sentence) if e.kind == "person"]
    return [*person_names(sentence), *english]


@dataclass(frozen=True)
class Role:
    """The role a "who" question asks to fill and the words naming whose role it is."""

    name: str = ""
    of: frozenset[str] = frozenset()  # 院长 of 经济学院 (its grams): a name next to 院长 in a sentence about 经济学院

    def filled_by(self, sentence: str, person: str, heading: str = "") -> bool:
        """Whether ``sentence`` names ``person`` next to the role, in a sentence (or under a ``heading``) about whose
        role it is ("现任院长为某某" on the page of the 学院 asked about)."""
        about = not self.of or bool(self.of & grams(f"{heading} {sentence}"))
        return bool(self.name) and about and next_to(sentence, self.name, person)

    def labels(self, sentence: str, heading: str = "") -> bool:
        """Whether ``sentence`` is a field the role labels ("Creator: R.A. Fisher", "Founder：…") or says who by
        ("created by the harbour board"), in a sentence (or under a ``heading``) about all of whose role it is."""
        if not self.name or not self.of <= grams(f"{heading} {sentence}"):
            return False
        return re.search(rf"{re.escape(self.name)}\w*\s*(?:[:：]\s*\S|\s+by\b)", sentence, re.IGNORECASE) is not None


@functools.lru_cache(maxsize=1024)
def asked_role(question: str) -> Role:
    """The role a "who" question asks to fill: 院长 (of 经济学院) in "经济学院的院长是谁", 开拓者 in "谁是X的开拓者",
    "CEO" (of Acme) in "Who is the CEO of Acme", "creat" (creator, created by) in "Who created the dataset"; no
    role when it names none ("X是由谁成立的", "X是谁的孩子")."""
    if m := _ROLE_EN.search(question) or _AGENT_VERB_EN.search(question):
        return Role(m.group(1), frozenset(question_grams(question[m.end():])))
    if m := _ROLE_BEFORE.search(question):
        part = question[: m.start()]
    elif m := _ROLE_AFTER.search(question):
        part = question[m.end():]
    else:
        return Role()
    cut = [w for w in words(part.strip(_ROLE_TRIM)) if w.strip(_ROLE_TRIM)]
    role = cut[-1] if cut else ""
    if len(role) < 2 or not has_cjk(role):
        return Role()
    return Role(role, frozenset(question_grams("".join(cut[:-1]))))


def next_to(sentence: str, role: str, name: str) -> bool:
    """Whether ``name`` stands within ROLE_GAP characters of ``role`` in ``sentence``, on either side."""
    roles = [m.span() for m in re.finditer(re.escape(role), sentence, re.IGNORECASE)]
    names = [m.span() for m in re.finditer(re.escape(name), sentence)]
    return any(0 <= max(n_start - r_end, r_start - n_end) <= ROLE_GAP
               for r_start, r_end in roles for n_start, n_end in names)
