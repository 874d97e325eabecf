"""Document subjects: the documents a question names by a word of their title or document header.

A document's subject is what its title and its document header (the metadata line: issuer, region, period,
form…) say it is about. Whole-document BM25 (channels/document.py) hears a subject word as one word among
thousands of body words, so on a corpus of long sibling documents (filings of several companies, notices of
several provinces) the document the question names need not rank first, and the chunks of its siblings win on
their own words. A word that only a few subjects hold, found in the question, names those documents: fusion
scales their chunks up (retrieval.fusion.subject_boost) by how much of the subject the question names.

Section headings are not part of the subject: they repeat from document to document. The subjects are stored
beside the document index as a token-by-document matrix in channels.okapi's arrays (index/document/subject/).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from lambdarag.channels.okapi import BM25Okapi
from lambdarag.records import Chunk
from lambdarag.text.tokenizer import Tokenizer, normalize

FOLDER = "subject"
CONCENTRATION = 2.0  # a small corpus's shared subject word names when at most this many times as many whole
# documents hold it as subjects do (SubjectIndex.named)
MENTIONS = 3  # a written name names a document whose text holds it at least this many times (DocumentChannel)
# A Latin word with a capital after its first letter: an acronym, a ticker or a name written in camel case.
_WRITTEN_NAME_RE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]+[A-Z][A-Za-z]*(?![A-Za-z0-9])")
_LOWER_RE = re.compile(r"[a-z]")
_LATIN_WORD_RE = re.compile(r"[A-Za-z]+")
_SUBJECT_WORD_RE = re.compile(r"[^\W_]+")  # a subject's words: letters and digits (file names' _ and - split)
ABBREVIATED_WORDS = 3  # an abbreviation's letters come from at most this many consecutive words of a subject
SIDE_SHARE = 0.5  # a named subject is a side of the question when named at least this share as strongly as the best
MAX_SIDES = 3  # sides a question names at most (named_sides)
STRONG_GROUPS = 32  # named subjects read for sides at most, the strongest first (bounds the work per query)
# what stands between two things named side by side: "A与B", "A和B", "A、B", "A versus B", "between A and B"
_CONJUNCTION_RE = re.compile(r"与|和|及|跟|同|、|对比|相比|还是|\b(?:and|or|versus|vs)\b")


def subject_text(chunk: Chunk) -> str:
    """What names a chunk's document: its title and its document header (not the section path)."""
    return "\n".join(part for part in (chunk.title, chunk.context) if part)


def subject_tokens(tokenizer: Tokenizer, chunk: Chunk) -> list[str]:
    """The distinct tokens of the document's subject, in order."""
    return list(dict.fromkeys(tokenizer.tokens(subject_text(chunk))))


class SubjectIndex:
    """Which documents each subject token belongs to, and how much each token says (idf over the subjects)."""

    def __init__(self, model: BM25Okapi) -> None:
        self.model = model
        self.n_docs = model.n_docs
        df = np.diff(model.indptr).astype(np.float64)
        self.df = df
        # ln(1 + N / df): a token of one subject out of N says ln(1 + N), one that every subject has ln 2
        self.idf = np.log1p(self.n_docs / np.maximum(df, 1.0)) if self.n_docs else df
        term_of = np.repeat(np.arange(df.shape[0]), np.diff(model.indptr))
        # what the whole subject says: the sum of its tokens' idf (the denominator of named())
        self.mass = np.bincount(np.asarray(model.indices), weights=self.idf[term_of], minlength=self.n_docs)
        # what the subject's most specific token says: the share a name standing for the document is given
        self.top = np.zeros(self.n_docs, dtype=np.float64)
        np.maximum.at(self.top, np.asarray(model.indices), self.idf[term_of])

    @classmethod
    def fit(cls, subjects: Iterable[Sequence[str]]) -> SubjectIndex:
        """One token list per document, in the document index's row order."""
        return cls(BM25Okapi.fit([list(dict.fromkeys(tokens)) for tokens in subjects]))

    def save(self, folder: Path) -> None:
        self.model.save(folder / FOLDER)

    @classmethod
    def load(cls, folder: Path) -> SubjectIndex:
        return cls(BM25Okapi.load(folder / FOLDER))

    def named(self, tokens: Iterable[str], max_share: float,
              body_df: Callable[[str], int] | None = None) -> dict[int, float]:
        """Document row → how much of its subject the tokens name, for the documents they name.

        Only specific tokens name anything: those of at most max(1, max_share · N) subjects, and, in a small
        corpus, those of at most √N subjects whose word is no more common in the documents' whole text than in
        their subjects (``body_df``: how many whole documents hold a token; at most CONCENTRATION × its subject
        count). Twelve filings of ten issuers share "Contoso" between the two Contoso filings, and only their
        text says "Contoso"; a topic word of two titles ("报销") is in every document's text and names nothing.
        The tokens are read with their Latin neighbours written together (joined_names): "Best Buy" names
        "BESTBUY 2023 10K". A document's strength is the idf its named tokens carry over the idf of its whole
        subject (0..1]: "Contoso" names most of "Contoso 2023 10-K", "河西省" less of a long notice title that
        says much more.
        """
        limit = max(1.0, max_share * self.n_docs)
        few = few_documents(self.n_docs, max_share)
        rows = []
        for token in dict.fromkeys(joined_names(list(tokens))):
            row = self.model.vocab.get(token)
            if row is None or self.df[row] > few:
                continue
            if self.df[row] <= limit or (body_df is not None and body_df(token) <= CONCENTRATION * self.df[row]):
                rows.append(row)
        if not rows:
            return {}
        spans = [slice(int(self.model.indptr[r]), int(self.model.indptr[r + 1])) for r in rows]
        docs = np.concatenate([self.model.indices[s] for s in spans])
        said = np.concatenate([np.full(s.stop - s.start, self.idf[r]) for s, r in zip(spans, rows, strict=True)])
        per_doc = np.bincount(docs, weights=said, minlength=self.n_docs)
        named = np.flatnonzero((per_doc > 0) & (self.mass > 0))
        shares = np.minimum(1.0, per_doc[named] / self.mass[named])
        return {int(d): float(v) for d, v in zip(named, shares, strict=True)}

    def holding(self, token: str) -> set[int]:
        """The document rows whose subject holds ``token`` (its postings; empty when no subject does)."""
        row = self.model.vocab.get(token)
        if row is None:
            return set()
        return {int(d) for d in self.model.indices[int(self.model.indptr[row]) : int(self.model.indptr[row + 1])]}

    def standing_for(self, rows: Iterable[int]) -> dict[int, float]:
        """Document row → the share of its subject its most specific token names: what a name that stands for the
        document (an abbreviation its text uses, not its title) says of it."""
        return {int(r): float(min(1.0, self.top[r] / self.mass[r])) for r in rows if self.mass[r] > 0}


def written_names(text: str) -> list[str]:
    """The words of ``text`` written as names: a capital after the first letter, no digit ("NWT", "CnP", "eBay";
    not "Revenue", "FY2022" or "Q3"), except on a line written in capitals (two Latin words or more and no lower
    case: such a line says nothing of names). A line of another script with one Latin word keeps it ("…的GDP…")."""
    return [word for line in text.splitlines() if not _in_capitals(line) for word in _WRITTEN_NAME_RE.findall(line)]


def _in_capitals(line: str) -> bool:
    return _LOWER_RE.search(line) is None and len(_LATIN_WORD_RE.findall(line)) > 1


def abbreviates(name: str, subject: str) -> bool:
    """Whether ``name`` abbreviates words of ``subject``: its first letter starts a word of a line and its other
    letters follow in order within that word and the next ABBREVIATED_WORDS − 1 ("NWT" → "NORTHWINDTRADERS
    2023 10K", "CnP" → "CONTOSO PHARMA 2023 10K", "FAB" → "FABRIKAM 2023Q4"; not "EBIT" → "LITWARE 2023 10K")."""
    letters = name.casefold()
    if len(letters) < 2:
        return False
    for line in subject.casefold().splitlines():
        words = _SUBJECT_WORD_RE.findall(line)
        for i, word in enumerate(words):
            if word[0] == letters[0] and _in_order(letters[1:], "".join(words[i : i + ABBREVIATED_WORDS])[1:]):
                return True
    return False


def _in_order(letters: str, text: str) -> bool:
    rest = iter(text)
    return all(letter in rest for letter in letters)


def few_documents(n_docs: int, max_share: float) -> float:
    """How many documents a naming token may be held by at most: max(1, max_share · N, √N)."""
    return max(1.0, max_share * n_docs, math.sqrt(n_docs))


def joined_names(tokens: Sequence[str]) -> list[str]:
    """The tokens, then each two neighbouring Latin letter-or-digit tokens written as one: file names and
    headers squeeze a name's spaces out ("NORTHWINDTRADERS_2023_10K"), questions keep them ("Northwind Traders")."""
    pairs = [a + b for a, b in itertools.pairwise(tokens) if _latin_word(a) and _latin_word(b)]
    return [*tokens, *pairs]


def _latin_word(token: str) -> bool:
    return token.isascii() and token.isalnum()


def named_sides(named: Mapping[int, float], subject_of: Callable[[int], str],
                holding: Callable[[str], Collection[int]], asked: Sequence[str], question: str) -> list[list[int]]:
    """The subjects a question names side by side ("A专业与B专业有何不同", "between FY2023 and Q2 of FY2024"): the
    named documents grouped by subject text (the windows of one page share theirs), each group's rows most
    strongly named first, groups in order of their best share; [] when fewer than two.

    A group is a side when its best share is at least SIDE_SHARE of the best group's and the question names it
    by tokens that no other such group's subject holds (the 2016 edition of a notice is no side of a question
    about the 2018 one: every word naming it names the 2018 one too), and those tokens stand apart from the other
    sides' with a conjunction between (与, 和, and, versus…): "A与B" compares, a question that names one
    subject by two words of two titles does not. At most MAX_SIDES sides.
    """
    text = normalize(question)
    if len(named) < 2 or _CONJUNCTION_RE.search(text) is None:  # most questions: nothing side by side to read
        return []
    groups: dict[str, list[int]] = {}
    for row in sorted(named, key=lambda r: (-named[r], r)):
        groups.setdefault(subject_of(row), []).append(row)
    if len(groups) < 2:
        return []
    top = named[next(iter(groups.values()))[0]]
    strong = [s for s, rows in groups.items() if named[rows[0]] >= SIDE_SHARE * top][:STRONG_GROUPS]
    group_of = {row: s for s in strong for row in groups[s]}
    # the question's tokens each strong subject holds, read from the subject index's postings (``holding``)
    held: dict[str, set[str]] = {s: set() for s in strong}
    for token in set(asked):
        for s in {group_of[row] for row in holding(token) if row in group_of}:
            held[s].add(token)
    holders = Counter(token for tokens in held.values() for token in tokens)
    spans: dict[str, tuple[int, int]] = {}
    for s in strong:
        own = [t for t in held[s] if holders[t] == 1]
        found = [(i, i + len(t)) for t in own if (i := text.find(t)) >= 0]
        if found:
            spans[s] = (min(a for a, _ in found), max(b for _, b in found))
    sides: list[str] = []
    for s in sorted(spans, key=lambda x: strong.index(x)):
        if all(_conjoined(text, spans[s], spans[other]) for other in sides):
            sides.append(s)
    return [groups[s] for s in sides[:MAX_SIDES]] if len(sides) >= 2 else []


def _conjoined(text: str, a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two spans of ``text`` are apart with a conjunction between them."""
    first, second = sorted([a, b])
    return first[1] <= second[0] and _CONJUNCTION_RE.search(text, first[1], second[0]) is not None


def side_by_side(sides: Sequence[Sequence[int]], k: int) -> list[int]:
    """Up to ``k`` rows taken from the sides in turn (each side's own order), so no side fills the k alone."""
    turns = itertools.zip_longest(*sides)
    return [row for turn in turns for row in turn if row is not None][:k]
