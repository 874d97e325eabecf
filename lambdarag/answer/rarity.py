"""How much each of a question's keywords tells the evidence sentences apart.

A keyword every evidence piece holds (the subject's name, "program", 中国人民大学) says nothing of which sentence
answers; one that few pieces hold ("IELTS", 爱好) says much. A sentence's keyword share weighs each keyword by its
rarity among the pieces of this one context: 1 + ln((N + 1) / (1 + n)), n of the N pieces holding it (1 for a
keyword no piece holds). Local, so it
needs no corpus statistics; the character-bigram half of the score is left unweighted. Pure functions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

from lambdarag.answer.table_text import grams
from lambdarag.text.english import stem, word_stems
from lambdarag.text.tokenizer import normalize


def rarity_weights(keywords: Sequence[str], texts: Sequence[str]) -> list[float]:
    """Each keyword's weight among ``texts`` (already normalised): rarer, heavier; 1.0 for one in every text or in
    none."""
    forms = [_inflections(t) for t in texts]
    held = [sum(1 for t, f in zip(texts, forms, strict=True) if holds(t, normalize(k), f)) for k in keywords]
    # a keyword no piece holds tells no sentence apart: it keeps the plain weight, so that the shares of what the
    # pieces do hold stay comparable with the thresholds set on plain shares
    return [1 + math.log((len(texts) + 1) / (1 + n)) if n else 1.0 for n in held]


def weighted_score(text: str, keywords: Sequence[str], wanted: set[str], weights: Sequence[float]) -> float:
    """The share of the keywords' weight the text holds, blended with its share of the question's character
    bigrams (which still match 隶属于 against 隶属)."""
    bigrams = len(wanted & grams(text)) / len(wanted) if wanted else 0.0
    if not keywords:
        return bigrams
    haystack = normalize(text)
    forms = _inflections(haystack)
    held = sum(w for k, w in zip(keywords, weights, strict=True) if holds(haystack, normalize(k), forms))
    return (held / (sum(weights) or 1.0) + bigrams) / 2


def holds(haystack: str, keyword: str, inflected: Callable[[], frozenset[str]] | None = None) -> bool:
    """Whether the normalised text holds the keyword, also where one of them hyphenates it: "email" in "an e-mail",
    "make-up" in "no make up exams" or "a makeup exam"; with ``inflected`` (the text's English stems), an English
    word in another form of it ("accepted" in "are acceptable", "hotels" in "the hotel rate")."""
    if keyword in haystack:
        return True
    if not keyword.isascii():
        return False
    if "-" in keyword:
        return keyword.replace("-", " ") in haystack or keyword.replace("-", "") in haystack
    if "-" in haystack and keyword in haystack.replace("-", ""):
        return True
    return inflected is not None and keyword.isalpha() and stem(keyword) in inflected()


def _inflections(text: str) -> Callable[[], frozenset[str]]:
    """The text's English stems, read once and only when asked for (a keyword not held as written)."""
    return functools.cache(lambda: word_stems(text))
