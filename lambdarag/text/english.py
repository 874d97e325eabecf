"""English token rules: Snowball English (Porter2) stems, tickers, fiscal periods and amounts whole and in parts.

The stemmer is PyStemmer, the Snowball project's C build: 30x the pure-Python snowballstemmer on distinct
words with identical stems (BENCHMARKS.md). snowballstemmer, which ships the same generated rules, is the
fallback where the PyStemmer wheel is missing. The rules here only see text the tokenizer has found to be
English: a stretch without CJK characters that holds a Latin letter, so Chinese-only text never meets them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import PackageNotFoundError, version

from lambdarag.text.patterns import CURRENCY

# Amount and percentage patterns over normalised (case-folded, half-width) text.
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_SCALE = r"thousand|million|billion|trillion"
_CURRENCY_AMOUNT = rf"{CURRENCY}\s?(?:{_NUM})(?:\s?(?:{_SCALE}|bn|mn|[mbk])(?![a-z0-9]))?"  # $1.2 billion, $300k
_SCALED_AMOUNT = rf"(?:{_NUM})\s?(?:{_SCALE})(?![a-z0-9])"  # 1.2 billion (a bare '5 m' is too ambiguous)
AMOUNT_RE = rf"(?<![a-z0-9])(?:{_CURRENCY_AMOUNT}|{_SCALED_AMOUNT})"
PERCENT_RE = rf"(?<![a-z0-9.,])(?:{_NUM})\s?(?:%|percent(?![a-z0-9]))"
GROUPED_RE = r"(?<![a-z0-9.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![0-9])"

# Fiscal periods as one identifier: fy2022, fy22, q3, h1, 3q22, 1h2022, q3fy22; year first: 2024q2, 2024h1.
_PERIOD_RE = re.compile(
    r"fy(?P<fy>\d{2}|\d{4})|(?:(?P<q>[qh])(?P<n>[1-4])|(?P<n2>[1-4])(?P<q2>[qh]))(?:fy)?(?P<y>\d{2}|\d{4})?"
    r"|(?P<y0>\d{4})(?:fy)?(?P<q0>[qh])(?P<n0>[1-4])"
)
_SEPARATOR_RE = re.compile(r"[-_/]")  # what joins the parts of an identifier (2024-q2, issuer_2022q4_earnings)
_PART_RE = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
_DIGITS_RE = re.compile(r"\d+")
_NUMBER_RE = re.compile(_NUM)
_SPACE_RE = re.compile(r"\s+")
# a phrasal verb's particle, ending its compound noun too (phrasal_forms)
_PARTICLES = "out|up|off|down|over|back"
_PARTICLE_END_RE = re.compile(rf"(?:{_PARTICLES})\b", re.IGNORECASE)
_COMPOUND_RE = re.compile(rf"\b([a-z]{{3,}}?)(?:{_PARTICLES})\b")  # lockout, signup, cutoff (lower-cased text)
# locked out, sign-up, "lock yourself out"
_OBJECT = r"(?:yourself|myself|themselves|himself|herself|it|them|you|me|him|her|us)"
_PHRASAL_RE = re.compile(rf"\b([a-z]{{2,}})(?:\s+{_OBJECT})?[ -]({_PARTICLES})\b")
# Upper-case 2-5 letter words; one letter is left out because the only single-letter stopwords are
# "a" and "i", which start sentences, and every other letter is kept by the ordinary rule anyway.
_TICKER_RE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2,5}(?![A-Za-z0-9])")
_LOWER_RE = re.compile(r"[a-z]")
_LATIN_WORD_RE = re.compile(r"[A-Za-z]+")
_HYPHENATED_RE = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")
# "when" asking a time: opening the question or a clause, after a preposition ("until when") or a verb of telling or
# knowing ("tell me when"); elsewhere it joins a condition to the question ("What happens when the loop ends?")
ASKING_WHEN = (r"(?:^\W*|[,;:]\s*(?:(?:and|but|so)\s+)?|\b(?:tell|know|ask|remind|sure)\b(?:\s+\w+){0,2}?\s+)"
               r"(?:(?:since|until|till|by|from)\s+)?when\b")
_ASKING_WHEN_RE = re.compile(ASKING_WHEN, re.IGNORECASE)
CENTURY_PIVOT = 70  # two-digit years below this are 20yy, the others 19yy (FY22 -> 2022, FY98 -> 1998)


def _load_stemmer() -> tuple[Callable[[str], str], str]:
    """The English stem function and the library that provides it, with its version."""
    try:
        import Stemmer
    except ImportError:  # no wheel for this platform: the pure-Python Snowball build gives the same stems
        from snowballstemmer.english_stemmer import EnglishStemmer

        return EnglishStemmer().stemWord, f"snowballstemmer-{_version('snowballstemmer')}"
    return Stemmer.Stemmer("english").stemWord, f"pystemmer-{_version('PyStemmer')}"


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


_STEM, STEMMER_NAME = _load_stemmer()


@functools.lru_cache(maxsize=1 << 17)
def stem(word: str) -> str:
    """Snowball English (Porter2) stem of a lower-case word: 'companies' -> 'compani'."""
    return _STEM(word)


def word_stems(text: str) -> frozenset[str]:
    """The stems of a text's English words, case-folded ("Hotel rates" -> hotel, rate), a hyphenated word's also
    written whole ("e-mail" -> e, mail, email; "co-workers" -> co, worker, cowork), and a phrasal verb's both ways
    (``phrasal_forms``: "lockout" -> lock, "locked out" -> lockout)."""
    words = [*_LATIN_WORD_RE.findall(text), *(m.replace("-", "") for m in _HYPHENATED_RE.findall(text))]
    return frozenset(stem(word.lower()) for word in words) | phrasal_forms(text)


def phrasal_forms(text: str) -> frozenset[str]:
    """A phrasal verb and the noun written as one word are one thing ("locked out" / "a lockout", "sign up" /
    "signup", "cut off" / "the cutoff"): the stem of a compound's verb ("lockout" -> lock) and the compound of a verb
    and its particle ("locked out" -> lockout). "in" is left out: "-in" ends too many words that are none
    (begin, cabin)."""
    if not _PARTICLE_END_RE.search(text):
        return frozenset()
    lowered = text.lower()
    heads = {stem(m.group(1)) for m in _COMPOUND_RE.finditer(lowered)}
    joined = {stem(m.group(1)) + m.group(2) for m in _PHRASAL_RE.finditer(lowered)}
    return frozenset(heads | joined)


def ticker_starts(nfkc: str) -> frozenset[int]:
    """Where upper-case 2-5 letter words start in ``nfkc.casefold()``, on lines that also hold lower case.

    A line in capitals (a filing's heading, a shouted question) says nothing about which of its words
    are symbols, so it contributes none. Offsets are counted in the case-folded text, which can be
    longer than ``nfkc`` ('ß' folds to 'ss').
    """
    starts: set[int] = set()
    done = folded = line_start = 0  # folded = len(nfkc[:done].casefold())
    for line in nfkc.splitlines(keepends=True):
        if _LOWER_RE.search(line):
            for word in _TICKER_RE.finditer(line):
                start = line_start + word.start()
                folded += len(nfkc[done:start].casefold())
                done = start
                starts.add(folded)
        line_start += len(line)
    return frozenset(starts)


def part_forms(ident: str) -> list[str]:
    """An identifier's letter runs (stemmed), numbers and digit runs: 'capital-intensive' -> capit, intens."""
    forms: list[str] = []
    for part in _PART_RE.findall(ident):
        forms.append(stem(part) if part[0].isalpha() else part)
        if "." in part:
            forms.extend(_DIGITS_RE.findall(part))
    return forms


def period_forms(ident: str) -> list[str]:
    """Extra forms of a fiscal period: 3q22 -> q3, 2022; 2024q2 -> q2, 2024; fy22 -> fy2022, 2022; the periods
    of an identifier's parts too (2024-q2 -> q2; acme_2022q4_earnings -> q4, 2022); [] for other identifiers."""
    extra = _period(ident)
    if not extra and _SEPARATOR_RE.search(ident):
        extra = [form for part in _SEPARATOR_RE.split(ident) for form in _period(part)]
    return extra


def _period(ident: str) -> list[str]:
    match = _PERIOD_RE.fullmatch(ident)
    if match is None:
        return []
    if match["fy"]:
        year = full_year(match["fy"])
        return [f"fy{year}", year]
    if match["y0"]:
        return [f"{match['q0']}{match['n0']}", match["y0"]]
    extra = [f"{match['q'] or match['q2']}{match['n'] or match['n2']}"]
    if match["y"]:
        extra.append(full_year(match["y"]))
    return extra


def full_year(digits: str) -> str:
    """A four-digit year from two or four digits, pivoting at CENTURY_PIVOT."""
    if len(digits) == 4:
        return digits
    return ("20" if int(digits) < CENTURY_PIVOT else "19") + digits


def number_forms(number: str) -> list[str]:
    """A number whole, without its thousands separators, then the parts each group gives: 1,234.5 -> 1,234.5,
    1234.5, 1, 234.5, 234, 5."""
    forms = [number, number.replace(",", "")]
    for group in number.split(","):
        forms.append(group)
        if "." in group:
            forms.extend(_DIGITS_RE.findall(group))
    return _unique(forms)


def amount_forms(text: str) -> list[str]:
    """An amount or percentage whole (spaces dropped, 'percent' as %), then its number's forms and its unit."""
    compact = _SPACE_RE.sub("", text)
    number = _NUMBER_RE.search(compact)
    if number is None:  # the patterns always hold a number; kept for the type checker
        return [compact]
    whole = compact.replace("percent", "%")
    unit = compact[number.end():].replace("%", "")
    return _unique([whole, *number_forms(number.group()), *([stem(unit)] if unit else [])])


def _unique(forms: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(forms))


# a '.' that closes an abbreviation, not a sentence: initials (U.S., N.A.), titles and company forms (Inc., Corp.)
_ABBREVIATION_END = re.compile(r"(?:\b(?:[A-Z]\.){1,3}|\b(?:Inc|Corp|Co|Ltd|No|Nos|Mr|Mrs|Ms|Dr|Jr|Sr|St|vs|etc|approx"
                               r"|Fig|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|e\.g|i\.e)\.)$")


_QUESTION_END = re.compile(r"[?!][\"'”’)]*$")


def rejoin_abbreviations(sentences: Sequence[str]) -> list[str]:
    """Sentences cut at a '.' that closes an abbreviation joined again ("…with the U.S." + "Government." is one
    sentence), and a piece starting in lower case joined to the one before it, also after a quoted question
    ('the answer to "should I upgrade?"' + 'will always be "yes."')."""
    out: list[str] = []
    for sentence in sentences:
        lower = sentence[:1].islower()
        after_question = bool(out) and lower and _QUESTION_END.search(out[-1]) is not None
        after_stop = bool(out) and out[-1][-1:] == "." and (lower or _ABBREVIATION_END.search(out[-1]) is not None)
        if after_question or after_stop:
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


def asks_when(text: str, at: int) -> bool:
    """Whether the "when" at ``at`` in ``text`` asks a time (``ASKING_WHEN``) rather than joins a condition."""
    return any(m.end() == at + len("when") for m in _ASKING_WHEN_RE.finditer(text))
