"""Rule entities for English business text (filings, earnings releases): what lambdarag.graph.entities adds to
the Chinese rules.

Organisations are capitalised runs ending in a legal form or an institutional word (Contoso Holdings, Inc.,
Federal Reserve Bank of Dallas, Department of Labor), or a line in capitals ending in one (FABRIKAM
CORPORATION); tickers are symbols after an exchange ("NYSE: CTSO"), after "ticker symbol", or right
before an exchange's name on a cover page; amounts and dates keep the phrase as written ($1.2 billion,
12.5 percent, Dec. 31, 2022, fiscal 2023, Q3 2023). People, roles and places are in
lambdarag.graph.english_names. Precision comes first: a capitalised word alone, a heading in capitals,
a month alone or "Note 12" is no entity. Text without a Latin letter or a currency sign never reaches
these rules, and each rule runs only where a fast search finds the words it needs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lambdarag.graph.english_lexicon import (
    GENERIC,
    HEADS,
    INSTITUTIONS,
    LEGAL_FORMS,
    MONTH_ABBREVIATIONS,
    MONTHS,
    NOISE,
    NOT_NAME_WORDS,
)
from lambdarag.graph.english_names import (
    PERSON,
    PERSON_HINT,
    ROLE,
    SP,
    alternatives,
    entity,
    is_noise,
    people,
    places,
    word_start,
    words,
)
from lambdarag.graph.schema import Entity
from lambdarag.text.tokenizer import stopwords

# --- Words ----------------------------------------------------------------------------------------

_CAP_REST = r"(?:[A-Za-z0-9'’\-]|&(?=[A-Z])|\.(?=[A-Z]))*"  # Contoso, AT&T, U.S, 3M
_CAP = rf"[A-Z0-9]{_CAP_REST}"
_CONN = rf"(?:of(?:{SP}the)?|and|&|for|de|du|la|van|von)"
_LEGAL = (rf"(?:{alternatives(f for f in LEGAL_FORMS if f.endswith('.'))}"  # Contoso, Inc.’s
          rf"|(?:{alternatives(f for f in LEGAL_FORMS if not f.endswith('.'))})(?![\w&'’-]))")
_INSTITUTION = rf"(?:{alternatives(INSTITUTIONS)})(?![\w&'’-])"
_MON = alternatives(MONTH_ABBREVIATIONS)
_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+"
_SCALE = r"(?:thousand|million|billion|trillion|bn|mn|[MBK])(?![A-Za-z])"
_MONEY = rf"(?:{_NUM})(?!\d|,\d)(?:\s?{_SCALE})?"
_CONNECTORS = frozenset({"of", "the", "and", "&", "for", "de", "du", "la", "van", "von", "OF", "THE", "AND", "FOR"})
_NOT_SYMBOLS = frozenset({"LLC", "INC", "PLC", "LP", "CO", "NYSE", "NASDAQ", "AMEX", "US", "USA"})

# --- Patterns -------------------------------------------------------------------------------------

_ANY_LATIN = re.compile(r"[A-Za-z$€£]")
_SUFFIX_HINT = re.compile(alternatives(w for s in (*LEGAL_FORMS, *INSTITUTIONS) for w in (s, s.upper())))
# An organisation is found from its suffix back: the capitalised run before it, on its line (a pattern
# matched forwards from every capitalised word would retry the suffixes at each word of every run).
_SUFFIX_WORD = re.compile(alternatives((*LEGAL_FORMS, *INSTITUTIONS)))
_SUFFIX_AT = re.compile(
    rf"(?:(?P<legal>{_LEGAL})(?:,?{SP}{_LEGAL})?|{_INSTITUTION}(?:,?{SP}{_LEGAL}|(?![ \t]+[A-Z])))"
    rf"(?P<tail>{SP}of(?:{SP}the)?{SP}{_CAP}(?:{SP}{_CAP}){{0,2}}(?![\w&'’-]))?"
)
_STEM_BEFORE = re.compile(  # the first character, then the look-behind: see lambdarag.graph.english_names
    rf"(?P<stem>[A-Z0-9](?<![\w&'’.\-][A-Z0-9]){_CAP_REST}(?:{SP}(?:{_CONN}{SP})?{_CAP}){{0,6}})(?P<sep>,?{SP})$"
)
_HEAD_ORG = re.compile(  # Department of Labor, Bank of Commerce
    rf"(?:{alternatives(HEADS)}){SP}of(?:{SP}the)?{SP}(?P<tail>{_CAP}(?:{SP}{_CAP}){{0,2}})(?![\w&'’-])"
)
_CAPS_WORD = r"[A-Z0-9][A-Z0-9&'’.\-]*"
_CAPS_ORG = re.compile(
    rf"(?m)^[ \t]*(?:THE{SP})?(?P<name>(?:{_CAPS_WORD}{SP}(?:(?:OF|AND|FOR|OF THE|&){SP})?){{1,7}}"
    rf"(?:{alternatives(s.upper() for s in (*LEGAL_FORMS, *INSTITUTIONS))})"
    rf"(?:,?{SP}(?:{alternatives(s.upper() for s in LEGAL_FORMS)}))?)[ \t]*$"
)
_ROLE_OF = re.compile(rf"{ROLE}{SP}(?:of|at|for)(?:{SP}the)?{SP}")  # Chief Executive Officer of Contoso Inc.
_LEGAL_TAIL = re.compile(rf"(?:,?\s+(?:{alternatives(LEGAL_FORMS)}))+$", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff]")
_TICKER_HINT = re.compile(r":|ymbol|Exchange|Market")
_SYMBOL = r"[A-Z]{1,5}(?:\.[A-Z])?"
_LISTED = re.compile(rf"(?:NYSE(?:[ ]American|[ ]Arca)?|Nasdaq|NASDAQ|AMEX|LSE|TSX)[ \t]*:[ \t]*({_SYMBOL})(?![\w])")
_SYMBOL_WORDS = re.compile(
    rf"(?:ticker|trading|Ticker|Trading)[ \t]+[Ss]ymbols?[ \t]+(?:is[ \t]+)?[\"“]?({_SYMBOL})(?![\w])"
)
_EXCHANGE_NAME = re.compile(
    r"(?:New[ ]York|Chicago|London|Toronto)[ ]+Stock[ ]+Exchange|(?:Nasdaq|NASDAQ)[ ]+(?:Stock|Global[ ]+Select"
    r"|Global|Capital)[ ]+Market"
)
_SYMBOL_BEFORE = re.compile(rf"(?<![\w$.,])({_SYMBOL})[ \t]+(?:The[ \t]+)?$")
_AMOUNT_HINT = re.compile(r"[$€£]|USD|EUR|GBP|percent|per cent|basis|bps")
_CODE_HINT = re.compile(r"USD|EUR|GBP")
_CURRENCY = re.compile(rf"[$€£](?<![\w.][$€£])[ \t]?{_MONEY}")
_CURRENCY_CODE = re.compile(rf"(?:USD|EUR|GBP)(?<![A-Za-z0-9]...)[ \t]?{_MONEY}")
_RATE = re.compile(r"(?:percent|per[ \t]cent|basis[ \t]+points?|bps)(?![A-Za-z])")
_NUMBER_BEFORE = re.compile(rf"(?<![\w.,])(?:{_NUM})(?:[ \t]+|-)$")
_YEAR_HINT = re.compile(r"[12]\d\d\d")
_MONTH_DATES = (re.compile(rf"(?:{alternatives(MONTHS)})(?:\s+\d{{1,2}},?)?\s+\d{{4}}(?!\d)"),
                re.compile(rf"(?:{_MON})\.\s+\d{{1,2}},?\s+\d{{4}}(?!\d)"))
_DAY_BEFORE = re.compile(r"(?<![\d,.])\d{1,2}\s+$")
_PERIOD_HINT = re.compile(r"FY|Q|iscal")
_PERIODS = tuple(re.compile(p) for p in (  # fiscal 2023, FY2023, Q3 2023, 3Q23
    r"[Ff]iscal(?:\s+[Yy]ear)?\s+(?:\d{4}|'\d{2})(?!\d)", r"FY[ ]?(?:\d{4}|\d{2})(?![\w])",
    r"Q[1-4][ ]?(?:FY[ ]?)?(?:\d{4}|'\d{2})(?!\d)", r"[1-4]Q[ ]?(?:\d{4}|\d{2})(?![\w])",
))
_PART_HINT = re.compile(r"quarter|half")
_PART_OF_YEAR = re.compile(r"(?:quarter|half)\s+(?:of\s+)?(?:fiscal\s+(?:year\s+)?)?\d{4}(?!\d)")
_ORDINAL_BEFORE = re.compile(r"(?<![A-Za-z])(?:[Ff]irst|[Ss]econd|[Tt]hird|[Ff]ourth)[ \t\-]+$")


def english_entities(text: str) -> list[Entity]:
    """Organisations, tickers, people, roles, places, amounts and dates of English text (possibly overlapping)."""
    if not _ANY_LATIN.search(text):
        return []
    found = [*places(text), *_dates(text)]
    if _SUFFIX_HINT.search(text):
        found += _organisations(text)
    if _AMOUNT_HINT.search(text):
        found += _amounts(text)
    if _TICKER_HINT.search(text):
        found += _tickers(text)
    if PERSON_HINT.search(text):
        found += people(text)
    return found


def short_name(name: str) -> str | None:
    """The name without its legal form (Contoso, Inc. → Contoso), None when there is none or nothing is left."""
    if _CJK.search(name):
        return None
    m = _LEGAL_TAIL.search(name)
    if m is None or m.start() == 0:
        return None
    short = name[: m.start()].strip(" ,")
    if len(short) < 2 or not re.search("[A-Za-z]", short) or is_noise(short):
        return None
    return short


# --- Organisations --------------------------------------------------------------------------------

def _organisations(text: str) -> list[Entity]:
    out = [e for m in _SUFFIX_WORD.finditer(text) if (e := _organisation(text, m.start()))]
    out += [entity(text, m.start(), m.end(), "org") for m in _HEAD_ORG.finditer(text)
            if word_start(text, m.start()) and _good_tail(m.group("tail"))]
    out += [e for m in _CAPS_ORG.finditer(text) if (e := _caps_organisation(text, m))]
    return out


def _organisation(text: str, pos: int) -> Entity | None:
    """Contoso Holdings, Inc.: the stem cut after the sentence's words in front of it (a role of, The, Form of),
    never generic words alone (the Controlled Group) unless "of" and a name follow (Central Bank of Brazil)."""
    suffix = _SUFFIX_AT.match(text, pos)
    line = text.rfind("\n", 0, pos) + 1
    found = _STEM_BEFORE.search(text, max(line, pos - 160), pos) if suffix else None
    if suffix is None or found is None or ("," in found.group("sep") and suffix.group("legal") is None):
        return None  # no capitalised run before it, or a comma before an institution (Contoso, Bank)
    role = _ROLE_OF.match(text, found.start("stem"), found.end("stem"))
    stem = _trimmed_stem(text, words(text, role.end() if role else found.start("stem"), found.end("stem")))
    tail = suffix.group("tail")
    last = words(text, pos, suffix.start("tail") if tail else suffix.end())[-1]
    head = last.group() in HEADS and tail is not None and _good_tail(tail.split(None, 1)[1])
    end = suffix.end() if head else last.end()
    if head:
        return entity(text, stem[0].start() if stem else last.start(), end, "org")
    if not stem or all(w.group().strip(",") in GENERIC or w.group() in _CONNECTORS for w in stem):
        return None
    return entity(text, stem[0].start(), end, "org")


def _trimmed_stem(text: str, stem: list[re.Match[str]]) -> list[re.Match[str]]:
    """The stem's words after the last capitalised sentence word (The, Form, Exhibit) and a sentence's
    first word before "of" (Shares of Contoso Inc. fell), without leading connectors."""
    cut = [i for i, w in enumerate(stem) if w.group()[0].isupper() and is_noise(w.group())]
    stem = stem[cut[-1] + 1:] if cut else stem
    first = stem[0].group() if stem else ""
    if len(stem) > 2 and stem[1].group() in ("of", "for") and first not in HEADS and first not in INSTITUTIONS:
        stem = stem[2:] if _sentence_start(text, stem[0].start()) else stem
    while stem and stem[0].group() in _CONNECTORS:
        stem.pop(0)
    return stem


def _sentence_start(text: str, pos: int) -> bool:
    before = text[max(0, pos - 8):pos].rstrip(" \t")
    return not before or before[-1] in ".!?:;\n•●▪◦"


def _good_tail(tail: str) -> bool:
    """The words after "of" in Department of Labor: names, not "the Company" or "Directors"."""
    found = [w for w in tail.split() if w not in _CONNECTORS]
    return bool(found) and not any(w in NOT_NAME_WORDS or w in MONTHS for w in found)


def _caps_organisation(text: str, m: re.Match[str]) -> Entity | None:
    """A line in capitals that is one name ending in a suffix (FABRIKAM CORPORATION)."""
    found = [w.group() for w in words(text, m.start("name"), m.end("name"))]
    core = [w for w in found if w.strip(",").title() not in (*LEGAL_FORMS, *INSTITUTIONS) and w not in _CONNECTORS]
    if len(found) > 8 or not core or found[-2] in _CONNECTORS:
        return None
    if all(w.title() in GENERIC or w.title() in NOISE or not re.search("[A-Z]", w) for w in core):
        return None
    return entity(text, m.start("name"), m.end("name"), "org")


# --- Tickers, amounts, dates ----------------------------------------------------------------------

def _tickers(text: str) -> list[Entity]:
    """(NYSE: CTSO), ticker symbol CTSO, and a cover page's "CTSO New York Stock Exchange"."""
    out = [Entity(m.group(1), "ticker", m.start(1), m.end(1)) for pattern in (_LISTED, _SYMBOL_WORDS)
           for m in pattern.finditer(text) if word_start(text, m.start())]
    for m in _EXCHANGE_NAME.finditer(text):
        before = _SYMBOL_BEFORE.search(text, max(0, m.start() - 12), m.start())
        symbol = before.group(1) if before else ""
        if before and len(symbol) > 1 and symbol not in _NOT_SYMBOLS and symbol.lower() not in stopwords():
            out.append(Entity(symbol, "ticker", before.start(1), before.end(1)))
    return out


def _amounts(text: str) -> list[Entity]:
    """$1.2 billion, USD 5.0 million, 12.5 percent, 50 basis points: the phrase as written."""
    out = [entity(text, m.start(), m.end(), "amount") for m in _CURRENCY.finditer(text)]
    if _CODE_HINT.search(text):
        out += [entity(text, m.start(), m.end(), "amount") for m in _CURRENCY_CODE.finditer(text)]
    for m in _RATE.finditer(text):
        number = _NUMBER_BEFORE.search(text, max(0, m.start() - 24), m.start())
        if number:
            out.append(entity(text, number.start(), m.end(), "amount"))
    return out


def _dates(text: str) -> list[Entity]:
    """December 31, 2022 / Dec. 31, 2022 / 31 December 2022 / March 2021 / fiscal 2023 / FY23 / Q3 2023 /
    third quarter of 2023: the phrase as written (whitespace made single spaces)."""
    out = []
    if _PERIOD_HINT.search(text):
        out += [entity(text, m.start(), m.end(), "date") for pattern in _PERIODS
                for m in pattern.finditer(text) if word_start(text, m.start())]
    if not _YEAR_HINT.search(text):
        return out
    for m in (m for pattern in _MONTH_DATES for m in pattern.finditer(text)):
        if word_start(text, m.start()):
            day = _DAY_BEFORE.search(text, max(0, m.start() - 4), m.start()) if "," not in m.group() else None
            out.append(entity(text, day.start() if day else m.start(), m.end(), "date"))
    for m in _PART_OF_YEAR.finditer(text) if _PART_HINT.search(text) else ():
        ordinal = _ORDINAL_BEFORE.search(text, max(0, m.start() - 8), m.start())
        if ordinal and (m.group().startswith("quarter") or ordinal.group()[:1] in "FfSs"):
            out.append(entity(text, ordinal.start(), m.end(), "date"))
    return out


# --- Sentences for the graph build ----------------------------------------------------------------

_ALWAYS_JOIN = re.compile(rf"(?<![\w.])(?:Mrs?|Ms|Dr|Prof|St|Ft|Mt|Jr|Sr|No|Nos|Messrs|{_MON}|[A-Z])\.$")
_JOIN_BEFORE_LOWER = re.compile(r"(?<![\w.])(?:(?:Inc|Corp|Co|Ltd|Bros)\.|(?:[A-Z]\.){2,})$")
_PERSON_LINE = re.compile(PERSON)
_ROLE_LINE = re.compile(ROLE)


def join_sentences(sentences: Sequence[str]) -> list[str]:
    """Sentences as split at '. ' and line ends, rejoined where the split fell inside a name: after Mr., an
    initial or Dec. always, after Inc. or N.V. when the next piece starts in lower case, and a name's line
    with the role line under it (a signature block)."""
    out: list[str] = []
    for sentence in sentences:
        if out and _joins(out[-1], sentence):
            glue = "\n" if _PERSON_LINE.fullmatch(out[-1]) else " "
            out[-1] = f"{out[-1]}{glue}{sentence}"
        else:
            out.append(sentence)
    return out


def _joins(previous: str, sentence: str) -> bool:
    if not previous or not sentence:
        return False
    if previous[-1] == ".":
        end = previous[-12:]  # the patterns end at the sentence's end: searching its tail is enough
        return bool(_ALWAYS_JOIN.search(end) or (_JOIN_BEFORE_LOWER.search(end) and not sentence[0].isupper()))
    return len(previous) <= 60 and bool(_PERSON_LINE.fullmatch(previous) and _ROLE_LINE.match(sentence))
