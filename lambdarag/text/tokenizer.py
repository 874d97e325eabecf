"""Text helpers shared by indexing and querying: normalisation, sentences, tokens, keyword overlap.

Tokens are jieba words over the normalised text (NFKC, Traditional characters as Simplified: TOKENIZER_VERSION 7,
casefold) with a domain dictionary and a stopword list; Latin and digit identifiers are cut out before
segmentation and emitted whole and in parts ("gb/t" -> "gb/t", "gb", "t"), so a query typed with or without
separators still meets the document; a place written with its administrative division is also emitted without
it (山东省 -> 山东省, 山东; TOKENIZER_VERSION 6), so a question naming 山东省 meets a title naming （山东）.
Segmentation (text/segment.py) uses rjieba (jieba-rs), which ships jieba's dictionary and add_word semantics and
with HMM off is token-identical to jieba on the DomainRAG corpus (see BENCHMARKS.md); jieba itself is the fallback
where the rjieba wheel is missing.

English is handled where a stretch without CJK characters holds a Latin letter (lambdarag.text.english):
words are stemmed and English stopwords dropped, tickers kept as written, fiscal periods (fy22 -> fy2022,
2022), amounts and percentages kept whole and in parts. Chinese-only text never reaches those rules, so
its tokens are those of TOKENIZER_VERSION 3 but for the places named without their division.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from typing import NamedTuple

from lambdarag.text import english
from lambdarag.text.script import simplified
from lambdarag.text.segment import HMM, Segmenter, backend_name, segmenter
from lambdarag.text.terms import TermIndex

UNKNOWN_RUN = 3  # single unknown characters in a run this long are cut by the HMM for keywords (two stay a name)
_NAME_BREAK = re.compile(r"[·・‧•。、「」『』《》【】“”‘’]")  # marks no keyword runs across (NFKC keeps them)
TOKENIZER_VERSION = 7  # bump when the token rules or the stopword list change: BM25 indexes record it

# Digits followed by a date/cohort unit stay one token ("2024年") besides the bare number.
_UNIT_RE = r"\d+[年月日号届级]"
_IDENT_RE = r"[a-z0-9]+(?:[./\-_:][a-z0-9]+)*"
_PART_RE = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
_DIGITS_RE = re.compile(r"\d+")
_ASCII_ALNUM_RE = re.compile(r"[a-z0-9]")
_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_LATIN_RE = re.compile(r"[a-z]")
_UPPER_RE = re.compile(r"[A-Z]")
# A stretch without CJK characters or CJK punctuation: English rules apply where it holds a Latin letter.
_RUN_RE = re.compile(r"[^\u3000-\u303f\u3400-\u9fff\uf900-\ufaff]+")
_NUMERIC = frozenset({"amount", "percent", "grouped"})
# The rules after the mixed terms, tried in this order at a position; English stretches add the numeric ones.
_PLAIN = re.compile(f"(?P<unit>{_UNIT_RE})|(?P<ident>{_IDENT_RE})")
_LATIN = re.compile("|".join([f"(?P<unit>{_UNIT_RE})", f"(?P<amount>{english.AMOUNT_RE})",
                              f"(?P<percent>{english.PERCENT_RE})", f"(?P<grouped>{english.GROUPED_RE})",
                              f"(?P<ident>{_IDENT_RE})"]))
_QUOTES = (("「", "」"), ("『", "』"), ("“", "”"))
QUOTED_MAX_CHARS = 160  # a quotation (a colon's list) rejoined into its sentence up to this length
_LIST_OPENED = re.compile(r"[：:][^：:]*[；;]$")  # "…如下：甲；" a colon's list, cut at its first item
ITEM_ENDS = ("；", ";")  # the stops a list's items end with, its last one aside
_SENTENCE_RE = re.compile(
    r"""[^。！？；!?\n]*?(?:[。！？；!?]+|\.(?=\s|$)|\n|$)[”’」』)）"'》]*""",
)

# a place and its administrative division: 2-3 characters before 省/市/县/区, or before (an ethnic name and) 自治区…
_DIVISION = re.compile(r"^([\u4e00-\u9fff]{2,3}?)(?:[\u4e00-\u9fff]{1,3}族)?(?:自治区|自治州|自治县|特别行政区)$"
                       r"|^([\u4e00-\u9fff]{2,3})[省市县区]$")



def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK ideograph (Chinese text, or a mixed one)."""
    return _CJK_RE.search(text) is not None

def normalize(text: str) -> str:
    """NFKC (full-width to half-width, compatibility forms), Traditional characters as Simplified (text/script.py:
    門禁卡 meets 门禁卡), then casefold."""
    return simplified(unicodedata.normalize("NFKC", text)).casefold()


def split_sentences(text: str) -> list[str]:
    """Sentences ending at 。！？；, at ! ? and at a '.' before a space, closing quotes kept; stripped."""
    return [s.strip() for s in _SENTENCE_RE.findall(text) if s.strip()]


def rejoin_quotations(sentences: Sequence[str], most: int = QUOTED_MAX_CHARS) -> list[str]:
    """Sentences cut inside a quotation joined again: 称「甲；乙」。 is one sentence, not 称「甲； and 乙」。
    Joined only where the quotation closes within ``most`` characters (a longer or unclosed one keeps its cuts)."""
    return _rejoined(sentences, _open_quotes, _open_quotes, most)


def rejoin_enumerations(sentences: Sequence[str], most: int = QUOTED_MAX_CHARS) -> list[str]:
    """A list a colon opens and semicolons cut joined again: 须具备三项：一是甲；二是乙；三是丙。 is one sentence,
    not a lead-in holding the first item only. Joined only where a full stop ends the list within ``most``
    characters; a longer or open-ended run keeps its cuts."""
    return _rejoined(sentences, lambda s: bool(_LIST_OPENED.search(s)), lambda s: s.endswith(ITEM_ENDS), most)


def _rejoined(sentences: Sequence[str], opens: Callable[[str], bool], still_open: Callable[[str], bool],
              most: int) -> list[str]:
    """Each sentence that ``opens`` something joined with those after it until it is no longer ``still_open``;
    a run still open at ``most`` characters or at the end is left as it was cut."""
    out: list[str] = []
    i = 0
    while i < len(sentences):
        joined, j = sentences[i], i + 1
        if opens(joined):
            while still_open(joined) and j < len(sentences) and len(joined) + len(sentences[j]) <= most:
                joined, j = joined + sentences[j], j + 1
        if j > i + 1 and not still_open(joined):
            out.append(joined)
            i = j
        else:
            out.append(sentences[i])
            i += 1
    return out


def _open_quotes(text: str) -> bool:
    return any(text.count(left) > text.count(right) for left, right in _QUOTES)


@functools.cache
def stopwords() -> frozenset[str]:
    """The bundled Chinese and English stopword list (lambdarag/resources/stopwords.txt)."""
    raw = resources.files("lambdarag").joinpath("resources/stopwords.txt").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in raw.splitlines() if line.strip() and not line.startswith("#"))


def identifier_forms(ident: str) -> list[str]:
    """An identifier whole, then its letter runs, numbers and digit runs: 'va004' -> va004, va, 004."""
    forms = [ident]
    for part in _PART_RE.findall(ident):
        forms.append(part)
        if "." in part:
            forms.extend(_DIGITS_RE.findall(part))
    return list(dict.fromkeys(forms))


def terms_digest(terms: Iterable[str]) -> str:
    """Stable hash of a dictionary (order and duplicates ignored)."""
    joined = "\n".join(sorted({normalize(t).strip() for t in terms} - {""}))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16]


class Tokenizer:
    """jieba words with a domain dictionary, identifiers whole and split, stopwords and punctuation dropped.

    Where a stretch without CJK characters holds a Latin letter, English rules apply as well: words are
    stemmed (english.stem), tickers kept as written, amounts and percentages kept whole and in parts.
    """

    def __init__(self, terms: Iterable[str] = ()) -> None:
        clean = {normalize(t).strip() for t in terms} - {""}
        self.terms = frozenset(clean)
        self.name = (f"lambdarag-text-{TOKENIZER_VERSION}/{backend_name()}/hmm={'on' if HMM else 'off'}"
                     f"/{english.STEMMER_NAME}")
        self._words_added = frozenset(t for t in clean if not _ASCII_ALNUM_RE.search(t))
        self._segment = segmenter(self._words_added)
        self._unknown = segmenter(self._words_added, True)  # a run of unknown characters cut by jieba's HMM
        self._parts: dict[str, list[str]] = {}
        # Terms with Latin letters or digits would be cut apart by the identifier rule: they are matched first.
        self._mixed = TermIndex(t for t in clean if _ASCII_ALNUM_RE.search(t))
        self._stop = stopwords()

    def tokens(self, text: str) -> list[str]:
        """BM25 tokens of ``text``: words, identifiers whole and in parts, no stopwords or punctuation."""
        nfkc = simplified(unicodedata.normalize("NFKC", text))  # Traditional characters as Simplified
        tickers = english.ticker_starts(nfkc) if _UPPER_RE.search(nfkc) else frozenset()
        return self._scan(nfkc.casefold(), _Emit(True, self._stop, tickers))

    def keywords(self, text: str) -> list[str]:
        """Content words for overlap and matching: identifiers whole, deduplicated in order.

        Single characters match almost any text, so they count only when nothing longer is left; a run of
        single CJK characters next to each other (a name the dictionary does not know: 赵鹏 → 赵/鹏) is
        one keyword.
        """
        asked = EITHER_WAY.sub("，", normalize(text))  # "能不能", "需不需要" ask yes or no: no content word
        words: list[str] = []
        for part in _NAME_BREAK.split(asked):  # "卡洛斯·佩雷拉": two words, as the text writes them apart
            scanned = self._scan(part, _Emit(False, frozenset(), frozenset()))
            words += [t for t in _join_single_runs(scanned, self._stop, self._unknown) if t not in self._stop]
        unique = list(dict.fromkeys(words))
        longer = [w for w in unique if len(w) > 1]
        return longer or unique

    def _scan(self, text: str, emit: _Emit) -> list[str]:
        out: list[str] = []
        latin = _latin_runs(text)
        terms = self._mixed.matches(text)
        term = next(terms, None)
        pos = 0
        while (found := self._next(text, pos, latin, term)) is not None:
            self._words(text[pos : found.start], out, emit)
            self._match(found, out, emit)
            pos = found.end
            while term is not None and term[0] < pos:
                term = next(terms, None)
        self._words(text[pos:], out, emit)
        return out

    @staticmethod
    def _next(text: str, pos: int, latin: Sequence[tuple[int, int]], term: tuple[int, int] | None) -> _Found | None:
        """The next match from ``pos``: the mixed term ``term`` (the first at or after ``pos``) when it starts no later
        than the rules' match, else that match (a number outside English stretches by the rules from before)."""
        match = (_LATIN if latin else _PLAIN).search(text, pos)
        if match is not None and match.lastgroup in _NUMERIC and not _inside(latin, match.start()):
            match = _PLAIN.search(text, pos)
        if term is not None and (match is None or term[0] <= match.start()):
            return _Found(term[0], term[1], text[term[0] : term[1]], "term")
        if match is None:
            return None
        return _Found(match.start(), match.end(), match.group(), match.lastgroup or "")

    def _match(self, found: _Found, out: list[str], emit: _Emit) -> None:
        whole, kind = found.text, found.kind
        if not emit.split:
            out.append(whole)
        elif kind == "term":
            emit.add(out, [whole, *(t for t in self._inner(whole) if t != whole)])
        elif kind == "unit":
            emit.add(out, [whole, whole[:-1]])
        elif kind == "grouped":
            emit.add(out, english.number_forms(whole))
        elif kind in _NUMERIC:
            emit.add(out, english.amount_forms(whole))
        elif not _LATIN_RE.search(whole):
            emit.add(out, identifier_forms(whole))
        elif whole.isalpha():
            if found.start in emit.tickers:  # a symbol as written, even where it spells a stopword (IT, ON)
                out.append(whole)
            if whole not in emit.drop:
                emit.add(out, [english.stem(whole)], skip=whole if found.start in emit.tickers else "")
        else:
            emit.add(out, [whole, *english.part_forms(whole), *english.period_forms(whole)])

    def _inner(self, term: str) -> list[str]:
        """Tokens inside a mixed dictionary term, so its parts also match on their own."""
        return _plain_tokenizer().tokens(term)  # one shared plain tokenizer: making one costs ~3 ms

    def _words(self, segment: str, out: list[str], emit: _Emit) -> None:
        if not segment or segment.isspace():
            return
        words = list(filter(_is_content, self._segment(segment)))
        if emit.split:  # a place named with its division (山东省, 海淀区) also matches it named without (山东)
            words = [form for word in words for form in (word, *place_name(word))]
        if not emit.split or not self._words_added:
            emit.add(out, words, dedupe=False)
            return
        # A dictionary word is also emitted in its default-dictionary parts: a noisy entity name
        # ("经资产管理处") must not hide the words a query without that name is cut into.
        for word in words:
            emit.add(out, [word])
            if word in self._words_added:
                emit.add(out, self._default_parts(word), dedupe=False)

    def _default_parts(self, word: str) -> list[str]:
        parts = self._parts.get(word)
        if parts is None:
            cut = filter(_is_content, segmenter(frozenset())(word))
            parts = self._parts[word] = [p for p in cut if p != word]
        return parts


class _Found(NamedTuple):
    """One match of the scan: a mixed term, or a rule's (unit, amount, percent, grouped number, identifier)."""

    start: int
    end: int
    text: str
    kind: str


class _Emit:
    """How one scan emits: split identifiers or not, the stopwords it drops, where tickers start."""

    def __init__(self, split: bool, drop: frozenset[str], tickers: frozenset[int]) -> None:
        self.split, self.drop, self.tickers = split, drop, tickers

    def add(self, out: list[str], forms: Iterable[str], skip: str = "", dedupe: bool = True) -> None:
        """Append ``forms`` (first occurrences only when ``dedupe``) that are neither stopwords nor ``skip``."""
        kept = [f for f in forms if f not in self.drop and f != skip]
        out.extend(dict.fromkeys(kept) if dedupe else kept)


def _latin_runs(text: str) -> list[tuple[int, int]]:
    """Spans of the stretches without CJK characters that hold a Latin letter (none for Chinese-only text)."""
    if not _LATIN_RE.search(text):
        return []
    return [m.span() for m in _RUN_RE.finditer(text) if _LATIN_RE.search(m.group())]


def _inside(runs: Sequence[tuple[int, int]], pos: int) -> bool:
    i = bisect.bisect_right(runs, (pos, sys.maxsize)) - 1
    return i >= 0 and runs[i][0] <= pos < runs[i][1]


# a question asking both ways (能不能, 是不是, 有没有, 可不可以, 需不需要): it asks yes or no and names no content
EITHER_WAY = re.compile(r"可不可以|需不需要|应不应该|应不应当|允不允许|愿不愿意|([\u4e00-\u9fff])[不没]\1")
# single characters that place, direct, negate or link ("规定里说的", "分后去考", "网购无理由", "学习来减分"): a run of
# single characters they stand in is words the dictionary lacks, not one name, and they part it (not 向 or 于:
# surnames, "向宠", "于谦")
_FUNCTION_CHARACTERS = frozenset("里后去来无没在把被给从对和与或就都也还又才再得地着过了将及其而但则且即")


def _join_single_runs(words: Sequence[str], stop: frozenset[str] | set[str],
                      unknown: Segmenter | None = None) -> list[str]:
    """Adjacent single CJK characters that are not stopwords or function characters joined into one word:
    赵 鹏 的 → 赵鹏 的; 网 购 无 → 网购 无. A longer run is cut by ``unknown`` (jieba's HMM) where given: the
    dictionary knows none of its words, and a name it does not know runs on into the verb after it (柯 岚 峰 打 →
    柯岚峰 打, not 柯岚峰打, which no text holds)."""
    out: list[str] = []
    run: list[str] = []
    for word in [*words, ""]:
        if len(word) == 1 and _CJK_RE.match(word) and word not in stop and word not in _FUNCTION_CHARACTERS:
            run.append(word)
            continue
        if len(run) >= UNKNOWN_RUN and unknown is not None:
            out.extend(_cut_unknown("".join(run), word, unknown))
        elif run:
            out.extend(["".join(run)] if len(run) > 1 else run)
        run = []
        if word:
            out.append(word)
    return out


def _cut_unknown(run: str, after: str, unknown: Segmenter) -> list[str]:
    """The words the HMM cuts ``run`` into, read with the word ``after`` it (the verb closing a name reads as one
    before 于 or 的), each cut at the run's end."""
    out: list[str] = []
    pos = 0
    for piece in unknown(run + after):
        if pos >= len(run):
            break
        kept = piece[: len(run) - pos]
        pos += len(piece)
        if kept.strip():
            out.append(kept)
    return out


@functools.lru_cache(maxsize=1 << 16)
def place_name(word: str) -> tuple[str, ...]:
    """The name of a place without the administrative division a word adds to it: 山东省 → 山东, 北京市 → 北京,
    海淀区 → 海淀, 广西壮族自治区 → 广西; () for any other word (a name of two characters or more is left)."""
    m = _DIVISION.match(word)
    return (m.group(1) or m.group(2),) if m else ()


@functools.lru_cache(maxsize=1 << 18)
def _is_content(word: str) -> bool:
    """Words with at least one letter, digit or CJK character (drops punctuation and spaces)."""
    return word.isalnum() or any(ch.isalnum() for ch in word)


def keyword_overlap(keywords: Sequence[str], text: str, inflected: bool = False) -> float:
    """Fraction of ``keywords`` found in normalize(text); 0.0 when there are no keywords. With ``inflected``, an
    English keyword is also found as another form of its word ("hotels" in "hotel rate": one Snowball stem)."""
    keys, haystack = [normalize(k) for k in keywords], normalize(text)
    latin = [k.isascii() and k.isalpha() for k in keys]
    if not inflected or not any(latin):
        return keyword_share(keys, haystack)
    stems = english.word_stems(haystack)
    found = sum(1 for k, word in zip(keys, latin, strict=True)
                if k in haystack or (word and english.stem(k) in stems))
    return found / len(keys)


def keyword_share(keys: Sequence[str], haystack: str) -> float:
    """keyword_overlap for keys and text both normalised already (one text searched for many key sets)."""
    return sum(1 for k in keys if k in haystack) / len(keys) if keys else 0.0


@functools.cache
def _plain_tokenizer() -> Tokenizer:
    """The tokenizer without added terms, made once per process (Tokenizer._inner asks it for a term's parts)."""
    return Tokenizer(())
