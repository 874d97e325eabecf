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
from lambdarag.text.english import word_stems
from lambdarag.text.tokenizer import stopwords

_SCOPE_EN = re.compile(rf"(?:{'|'.join(cues.EXCEPTION_EN)})\s+([^.;:,)]+)", re.IGNORECASE)
_SCOPE = re.compile("|".join(cues.EXCEPTION))
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_SHORT = 3  # English words shorter than this ("a", "of", "to") name nothing


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
    stop = stopwords()
    words = {w for w in word_stems(scope) if len(w) >= _SHORT and w not in stop} - word_stems(rest)
    if words & word_stems(question):
        return True
    pairs = {run[i:i + 2] for run in _CJK_RUN.findall(scope) for i in range(len(run) - 1)}
    return any(pair in question and pair not in rest for pair in pairs)
