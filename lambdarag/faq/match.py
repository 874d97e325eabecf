"""How close a question is to a curated one: pure scoring over the project's tokenizer, and the best entry.

The score mixes two Dice coefficients (2|A∩B| / (|A|+|B|)): one over the content words (Tokenizer.keywords:
jieba words, identifiers whole, stopwords dropped) and one over character bigrams of the normalised text
without punctuation, which still meets a paraphrase that jieba cut differently. Dice is symmetric, so a long
question that contains a short FAQ question is not a match for it, nor the other way round: both must say
mostly the same thing. The threshold is measured on the demo domain (docs/FAQ.md).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from lambdarag.text.tokenizer import Tokenizer, normalize

WORD_WEIGHT = 0.5  # the rest is the character-bigram Dice


@dataclass(frozen=True)
class QuestionKeys:
    """What a question is compared by: its content words and its character bigrams."""

    words: frozenset[str]
    bigrams: frozenset[str]


@dataclass(frozen=True)
class Match:
    """The best entry for a question: its index in the list (None when there are none), its score, and whether
    it reaches the threshold."""

    index: int | None
    score: float
    threshold: float

    @property
    def hit(self) -> bool:
        return self.index is not None and self.score >= self.threshold


def question_keys(text: str, tokenizer: Tokenizer) -> QuestionKeys:
    """The keys of one question (computed once per FAQ entry, once per asked question)."""
    letters = "".join(ch for ch in normalize(text) if not _is_mark(ch))
    bigrams = frozenset(letters[i:i + 2] for i in range(len(letters) - 1)) or frozenset(letters[:1])
    return QuestionKeys(frozenset(tokenizer.keywords(text)), bigrams)


def _is_mark(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch)[0] in "PSZ"


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """Dice coefficient 2|A∩B| / (|A|+|B|) (Dice 1945); 0 for two empty sets."""
    total = len(a) + len(b)
    return 2 * len(a & b) / total if total else 0.0


def similarity(a: QuestionKeys, b: QuestionKeys) -> float:
    """WORD_WEIGHT · Dice(words) + (1 − WORD_WEIGHT) · Dice(character bigrams), in [0, 1]."""
    return WORD_WEIGHT * dice(a.words, b.words) + (1 - WORD_WEIGHT) * dice(a.bigrams, b.bigrams)


def best_match(asked: QuestionKeys, entries: Sequence[QuestionKeys], threshold: float) -> Match:
    """The highest-scoring entry (the first of equals) with its score."""
    best, best_score = None, 0.0
    for i, keys in enumerate(entries):
        score = similarity(asked, keys)
        if best is None or score > best_score:
            best, best_score = i, score
    return Match(best, round(best_score, 4), threshold)
