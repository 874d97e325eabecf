"""Whether a rule's stated exception is the case a yes/no question asks about.

"No dogs are allowed in the garden with the exception of service animals" asked "I have a service dog. Can it come
into the garden with me?", "宿舍内禁止饲养宠物，导盲犬除外" asked "我有导盲犬，能带进宿舍吗": the rule says no, its
exception says yes, and the question names the exception. An exception the question does not name ("Can I bring my
dog?") leaves the rule as it is. The question must name the exception by a word of its own: one the rest of the
sentence does not say as well ("No food in the library except in the café of the library" asked "Can I eat in the
library?" names the rule's place, not the exception's). Pure functions; the yes/no lead reads them
(answer/yes_no.py), turning the rule's yes or no round.
"""

from __future__ import annotations

import re

from lambdarag.answer import cues
from lambdarag.answer.terms import NAMING, cjk_pairs, content_stems
from lambdarag.text.english import word_stems

_SCOPE_EN = re.compile(rf"(?:{'|'.join(cues.EXCEPTION_EN)})\s+([^.;:,)]+)", re.IGNORECASE)
_SCOPE = re.compile("|".join(cues.EXCEPTION))


def excepted(question: str, sentence: str) -> bool:
    """Whether the sentence states an exception to its rule that the question names in a word of the exception
    alone (an English word's stem, two Chinese characters together)."""
    for match in (*_SCOPE_EN.finditer(sentence), *_SCOPE.finditer(sentence)):
        scope = next(g for g in match.groups() if g is not None)
        rest = sentence[:match.start()] + " " + sentence[match.end():]
        if _names(question, scope, rest):
            return True
    return False


def _names(question: str, scope: str, rest: str) -> bool:
    """Whether the question says a word of ``scope`` that ``rest`` does not."""
    if (content_stems(scope, NAMING) - word_stems(rest)) & word_stems(question):
        return True
    return any(pair in question and pair not in rest for pair in cjk_pairs(scope))
