"""People, roles and places for the English rules (lambdarag.graph.english), and the word helpers all of
those rules share.

People are an honorific and a name (Ms. Rivera) or a 2–3 word name next to a role phrase (Jane Q. Doe,
Chief Financial Officer; a signature block's name line over its role line), the role an entity too.
Places follow a locative cue (headquartered in Austin, State of Incorporation: Delaware, a Nevada
corporation) or are a "City, State" pair with a US state, postal code or country after the comma.

Every pattern starts with a literal or a character set and checks the character before its match
afterwards (or right after its first character): a pattern opening with a look-behind or a branch is
tried at every position of the text, several times slower over a filing's millions of characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lambdarag.graph.english_lexicon import (
    AMBIGUOUS_CODES,
    COUNTRIES,
    MONTHS,
    NOISE,
    NOT_ALONE,
    NOT_NAME_WORDS,
    NOT_PLACE_WORDS,
    PLACE_NAMES,
    POSTAL_CODES,
    REGIONS,
    US_STATES,
)
from lambdarag.graph.schema import Entity
from lambdarag.text.tokenizer import stopwords


def alternatives(items: Iterable[str]) -> str:
    """A regex alternation of the literal ``items``, longest first."""
    return "|".join(sorted({re.escape(i) for i in items}, key=len, reverse=True))


# --- Words and phrases ----------------------------------------------------------------------------

SP = r"[ \t]+"
NAME_WORD = r"(?:Mc|Mac|O['’]|D['’]|De|Di|La|Le)?[A-Z][a-z]+(?:[-'’][A-Z][a-z]+)*"
INITIAL = r"[A-Z]\."
PERSON = (rf"(?:{NAME_WORD}(?:{SP}{INITIAL}){{0,2}}|(?:{INITIAL}{SP}){{1,2}}{NAME_WORD})"
          rf"{SP}{NAME_WORD}(?:{SP}{NAME_WORD})?")  # Jane Doe, Jane Q. Doe, J. Doe, Mary Ann Doe
_ROLE_UNIT = (
    r"(?:(?:Executive|Senior|Group|Corporate|Deputy|Assistant|Associate|Vice|Independent|Lead|Non-Executive)[ ]+)*"
    r"(?:Chief(?:[ ]+[A-Z][a-z]+){1,3}[ ]+Officer|President|Chairman|Chairwoman|Chairperson|Chair|CEO|CFO|COO|CTO"
    r"|Director|Secretary|Treasurer|General[ ]+Counsel|Controller)(?:[ ]+of[ ]+the[ ]+Board(?:[ ]+of[ ]+Directors)?)?"
    r"(?![A-Za-z])"
)
ROLE = rf"{_ROLE_UNIT}(?:(?:[ ]+(?:and|&)[ ]+|,[ ]+){_ROLE_UNIT})*"  # President and Chief Executive Officer
_PLACE = rf"(?:(?:St|Ft|Mt)\.{SP})?[A-Z][a-z]+(?:-[A-Z][a-z]+)*(?:{SP}[A-Z][a-z]+(?:-[A-Z][a-z]+)*){{0,2}}"
_STATE = alternatives(US_STATES)
_REGION = alternatives([*US_STATES, *COUNTRIES, *REGIONS])

# --- Patterns -------------------------------------------------------------------------------------

_ROLE_HINT = re.compile(r"Chief|President|Chair|CEO|CFO|COO|CTO|Director|Secretary|Treasurer|Counsel|Controller")
PERSON_HINT = re.compile(rf"Mr|Ms|Dr|Prof|{_ROLE_HINT.pattern}")
_NAME_ROLE = re.compile(
    rf"(?<![\w.'’\-])(?P<name>{PERSON})(?:,{SP}(?:the{SP}|our{SP}|its{SP})?|{SP}[—–-]{SP}|[ \t]*\n[ \t]*"
    rf"|{SP}\()(?P<role>{ROLE})"
)
_ROLE_NAME = re.compile(  # Chief Financial Officer Jane Q. Doe: only a name with a middle initial
    rf"(?<![A-Za-z])(?P<role>{ROLE}),?{SP}(?P<name>{NAME_WORD}{SP}{INITIAL}{SP}{NAME_WORD})(?![\w'’-])"
)
_HONORIFIC = re.compile(
    rf"[MDP](?<![A-Za-z][MDP])(?:(?<=M)(?:rs?|s)\.?|(?<=D)r\.?|(?<=P)rof\.?){SP}"  # "Dr", "Dr.": both styles
    rf"(?P<name>(?:{INITIAL}{SP})*{NAME_WORD}(?:{SP}(?:{INITIAL}{SP})*{NAME_WORD}){{0,2}})(?![\w'’-])"
)
_CAPITALISED_BEFORE = re.compile(r"([A-Za-z][\w'’.\-]*)[ \t]+$")
_PLACE_HINT = re.compile(r"headquartered|based|located|incorporated|organized|domiciled|office|laws of|Incorporation")
_CUE_PLACE = re.compile(
    r"(?:(?:headquartered|based|located|incorporated|organized|domiciled)\s+in|offices?\s+in|laws\s+of"
    r"|State\s+of\s+Incorporation:)"
    rf"\s+(?:the\s+)?(?:(?:State|Commonwealth)\s+of\s+)?(?P<place>{_PLACE}(?:,{SP}(?:{_REGION}))?)(?![A-Za-z])"
)
_STATE_AFTER_COMMA = re.compile(
    rf",[ \t]+(?P<state>{_STATE}|{alternatives(COUNTRIES)}|(?P<code>[A-Z]{{2}})(?P<zip>[ \t]+\d{{5}})?)(?![\w\-])"
)
_CITY_BEFORE = re.compile(rf"(?<![\w.'’\-])(?P<city>{_PLACE})$")
_WORD_BEFORE = re.compile(r"([A-Z][a-z]+)\s+$")
_ARTICLE_HINT = re.compile(r"corporation|company|partnership")
_INCORPORATED = re.compile(  # a Delaware corporation
    rf"(?P<place>{_STATE})[ \t]+(?:corporation|limited[ \t]+liability[ \t]+company|company|limited[ \t]+partnership)"
    r"(?![A-Za-z])"
)
_ARTICLE_BEFORE = re.compile(r"(?<![A-Za-z])an?[ \t]+$")
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"\S+")


# --- Helpers --------------------------------------------------------------------------------------

def entity(text: str, start: int, end: int, kind: str) -> Entity:
    """The mention text[start:end], its whitespace made single spaces in the name."""
    return Entity(_SPACES.sub(" ", text[start:end]), kind, start, end)


def is_noise(word: str) -> bool:
    """A word that starts a sentence or a heading rather than a name (The, In, Exhibit, Note ...)."""
    return word.lower() in stopwords() or word.title() in NOISE or word in MONTHS


def word_start(text: str, pos: int) -> bool:
    """Whether no letter, digit or name character stands right before ``pos``."""
    return pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] in "_&'’.-")


def words(text: str, start: int, end: int) -> list[re.Match[str]]:
    """The whitespace-separated words of text[start:end], with their positions."""
    return list(_WORD.finditer(text, start, end))


def _windows(text: str, hint: re.Pattern[str], before: int, after: int) -> list[tuple[int, int]]:
    """Merged stretches around the hint's matches, from the start of the line before (at most ``before``
    characters back) to ``after`` characters on: where a pattern anchored elsewhere can match at all."""
    out: list[tuple[int, int]] = []
    for m in hint.finditer(text):
        line = text.rfind("\n", 0, text.rfind("\n", 0, m.start()))
        start, end = max(line + 1, m.start() - before), min(len(text), m.end() + after)
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _after_capitalised_word(text: str, pos: int) -> bool:
    """Whether a capitalised word (not a sentence word like The) stands right before ``pos`` on its line."""
    m = _CAPITALISED_BEFORE.search(text, max(0, pos - 40), pos)
    return bool(m and m.group(1)[0].isupper() and not is_noise(m.group(1).rstrip(".")))


# --- People and roles -----------------------------------------------------------------------------

def people(text: str) -> list[Entity]:
    """Names next to a role phrase (the role an entity too) and names after an honorific."""
    out: list[Entity] = []
    for start, end in _windows(text, _ROLE_HINT, 120, 160):
        out += _named_roles(text, start, end)
    for m in _HONORIFIC.finditer(text):
        found = words(text, m.start("name"), m.end("name"))
        while found and (found[-1].group() in NOT_NAME_WORDS or is_noise(found[-1].group())):
            found.pop()
        if found:
            out.append(entity(text, m.start(), found[-1].end(), "person"))
    return out


def _named_roles(text: str, start: int, end: int) -> list[Entity]:
    out: list[Entity] = []
    for m in _NAME_ROLE.finditer(text, start, end):
        name_start = _name_start(text, m.start("name"), m.end("name"))
        if name_start is not None:
            out.append(entity(text, name_start, m.end("name"), "person"))
            out.append(entity(text, m.start("role"), m.end("role"), "role"))
    for m in _ROLE_NAME.finditer(text, start, end):
        if _name_start(text, m.start("name"), m.end("name"), after_role=True) == m.start("name"):
            out.append(entity(text, m.start("role"), m.end("role"), "role"))
            out.append(entity(text, m.start("name"), m.end(), "person"))
    return out


def _name_start(text: str, start: int, end: int, after_role: bool = False) -> int | None:
    """Where a person's name really starts (a leading sentence word dropped), None when it is no name."""
    found = words(text, start, end)
    while len(found) > 2 and is_noise(found[0].group()):
        found.pop(0)
    names = [w.group() for w in found if not re.fullmatch(INITIAL, w.group())]
    if len(names) < 2 or any(w in NOT_NAME_WORDS or is_noise(w) for w in names):
        return None
    if not after_role and found[0].start() == start and _after_capitalised_word(text, start):
        return None  # part of a longer capitalised run: a heading or a title, not a name
    return found[0].start()


# --- Places ---------------------------------------------------------------------------------------

def places(text: str) -> list[Entity]:
    """Places after a locative cue, "City, State" pairs and the state of "a Delaware corporation"."""
    out: list[Entity] = []
    if _PLACE_HINT.search(text):
        out += [e for m in _CUE_PLACE.finditer(text)
                if word_start(text, m.start()) and (e := _place(text, m.start("place"), m.end("place")))]
    if "," in text:
        out += [e for m in _STATE_AFTER_COMMA.finditer(text) if (e := _city_state(text, m))]
    if _ARTICLE_HINT.search(text):
        out += [entity(text, m.start("place"), m.end("place"), "place") for m in _INCORPORATED.finditer(text)
                if _ARTICLE_BEFORE.search(text, max(0, m.start() - 4), m.start())]
    return out


def _place(text: str, start: int, end: int) -> Entity | None:
    """The place after a locative cue, trimmed of trailing sentence words; no generic or document words."""
    found = words(text, start, end)
    while found and _not_place(found[-1].group()):
        found.pop()
    if not found or any(_not_place(w.group()) for w in found):
        return None
    if all(w.group() in NOT_ALONE for w in found) and " ".join(w.group() for w in found) not in PLACE_NAMES:
        return None  # the State, North: a place whose name went on to the next line
    return entity(text, start, found[-1].end(), "place")


def _not_place(word: str) -> bool:
    word = word.rstrip(",")
    return word in NOT_PLACE_WORDS or is_noise(word)


def _city_state(text: str, m: re.Match[str]) -> Entity | None:
    """Austin, Texas / Lyon, France / Springfield, IL 62701: the city as written, never a list of states."""
    code = m.group("code")
    if code and (code not in POSTAL_CODES or (code in AMBIGUOUS_CODES and not m.group("zip"))):
        return None
    found = _CITY_BEFORE.search(text, max(0, m.start() - 48), m.start())
    if found is None or _after_capitalised_word(text, found.start()):
        return None
    city = words(text, found.start(), found.end())
    while city and (is_noise(city[0].group()) or city[0].group().endswith("ly")):
        city.pop(0)
    names = [w.group() for w in city]
    if not names or any(_not_place(w) for w in names) or _is_listed_place(text, city[0].start(), " ".join(names)):
        return None
    return entity(text, city[0].start(), m.end("code") if code else m.end("state"), "place")


def _is_listed_place(text: str, start: int, city: str) -> bool:
    """Whether the "city" is a state, a country or a region, or the end of one broken over a line (Hong⏎Kong):
    then the pair is a list of places (Texas, Ohio), not a city and its state."""
    if city in PLACE_NAMES or city in REGIONS:
        return True
    before = _WORD_BEFORE.search(text, max(0, start - 20), start)
    return bool(before and f"{before.group(1)} {city}" in PLACE_NAMES)
