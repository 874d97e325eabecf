"""Rule entity extraction for Chinese administrative text, merged with the English rules (lambdarag.graph.english).

Pure regex over the text, compiled once: organisations and places are CJK runs ending in a
suffix (财务处, 致远楼), trimmed of the verbs and particles in front of them; people are surname
names next to a role; regulations sit in 《》; phones, e-mails, dates and amounts have their own
patterns. English text (filings, earnings releases) adds organisations, tickers, people, roles, places,
amounts and dates from lambdarag.graph.english; text without a Latin letter or a currency sign never
reaches those rules, so Chinese text yields what it always has. Relations (lambdarag.graph.relations)
come from trigger words between two entities of one sentence, plus same-sentence co-occurrence as
weak edges.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence

from lambdarag.graph.english import english_entities
from lambdarag.graph.lexicon import (
    BAD_TAILS,
    CJK,
    COMPOUND_SURNAMES,
    CONNECTIVES,
    FOLLOW_BLOCK,
    NAME_STOP,
    NOT_NAMES,
    ONLY_TAILS,
    PREFIX_ROLES,
    PROVINCES,
    ROLES,
    SPLIT_BACK_GUARD,
    SPLIT_GUARD,
    SPLIT_WORDS,
    SUFFIXES,
    SURNAMES,
)
from lambdarag.graph.schema import Entity
from lambdarag.text.dates import find_dates
from lambdarag.text.numerals import ONE_TO_NINE, TEN
from lambdarag.text.patterns import EMAIL, PHONE, TITLE

# --- Compiled patterns ----------------------------------------------------------------------------

_RUN = re.compile(f"[{CJK}]+")
_SUFFIX_RE = re.compile("|".join(sorted(map(re.escape, SUFFIXES), key=len, reverse=True)))
_SPLIT_RE = re.compile("|".join(sorted(map(re.escape, SPLIT_WORDS), key=len, reverse=True)))
# 主管 is a role only on its own (张敏（主管）); before a word it is the verb (主管报账大厅).
_ROLE_RE = re.compile(f"(?:{'|'.join(ROLES)})(?!部门|单位|领导|机关|校领导)".replace("主管", f"主管(?![{CJK}])"))
# Narrower than text.dates reads (no Ｏ in a year, no 零 or ○ in a month or day): kept as the graph has
# always found date mentions; find_dates then normalises each one.
_YEAR_DIGITS = f"〇零○{ONE_TO_NINE}"
_DAY_DIGITS = f"〇{ONE_TO_NINE}{TEN}"
_DATE = re.compile(
    r"(?<![\d.])\d{4}\s*年(?:\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?)?"
    r"|(?<![\d.])\d{4}([-/.])\d{1,2}\1\d{1,2}(?!\d)"
    r"|(?<![\d./-])\d{4}[-/]\d{1,2}(?![\d/-])"
    rf"|[{_YEAR_DIGITS}]{{4}}年(?:[{_DAY_DIGITS}]{{1,3}}月(?:[{_DAY_DIGITS}]{{1,3}}[日号])?)?"
)
_AMOUNT = re.compile(
    r"(?<![\d.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:万|亿|千)?元(?:/(?:人|天|次|晚|月|年|人天|间|公里|小时))*"
    r"|(?<![\d.,])\d+(?:\.\d+)?(?:万|亿|千)?元(?:/(?:人|天|次|晚|月|年|人天|间|公里|小时))*"
    r"|(?<![\d.])\d+(?:\.\d+)?\s?[%％]"
    r"|百分之[零一二三四五六七八九十百点]+"
)
_ROOM = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]?\d{2,5}(?:室|房间)")
_FLOOR_AFTER = re.compile(r"(?:[\d一二三四五六七八九十]{1,3}(?:楼|层))?(?:[A-Za-z]?\d{1,5}(?:室|房间))?")
_TABLE_CELL = re.compile(rf"(?<=\|)\s*([{CJK}]{{2,3}})\s*(?=\|)")
_YYYYMMDD = re.compile(r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")

# What each pattern cannot match without (every alternative of PHONE has three digits in a row, of _DATE
# four or 年): a failed substring test skips a pattern whose look-behind start is tried at every position.
_THREE_DIGITS = re.compile(r"\d\d\d")
_FOUR_DIGITS = re.compile(r"\d\d\d\d")

MAX_STEM, MAX_CHAINED_STEM = 12, 7  # longer runs are clauses, not names
DOC_NUMBER = "〔[［"
_ORDINAL = re.compile(r"第?[\d一二三四五六七八九十百千两几多]+[个项位门次名届]?")

# Priority when spans overlap: the earlier kind wins, then the longer span.
_PRIORITY = {"regulation": 0, "email": 1, "phone": 2, "date": 3, "amount": 4, "ticker": 5, "org": 6, "place": 7,
             "role": 8, "person": 9}


# --- Extraction -----------------------------------------------------------------------------------

def extract_entities(text: str) -> list[Entity]:
    """Entities mentioned in ``text``, non-overlapping, in text order."""
    found = [*_regulations(text), *_emails(text), *_phones(text), *_dates(text), *_amounts(text), *_rooms(text)]
    roles = _roles(text)
    found += roles
    found += _names(text)
    found += _people(text, roles, [e for e in found if e.kind in ("org", "place")])
    if roles and "|" in text:
        found += _table_people(text)
    found += english_entities(text)
    return _resolve(found)


@functools.lru_cache(maxsize=65536)
def entity_key(name: str) -> str:
    """Normalised form of an entity name, used as graph node id and for matching.

    Whitespace goes, except one space between Latin words (Bank of America, Contoso, Inc.): an English
    name written without its spaces would only match inside other words.
    """
    name = name.strip().replace("《", "").replace("》", "")
    name = name.translate(_FULLWIDTH)
    return _WHITESPACE.sub(_key_space, name)


_WHITESPACE = re.compile(r"\s+")
_LATIN_LEFT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.,&'’)")
_LATIN_RIGHT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz&(")


def _key_space(m: re.Match[str]) -> str:
    text, start, end = m.string, m.start(), m.end()
    latin = start > 0 and end < len(text) and text[start - 1] in _LATIN_LEFT and text[end] in _LATIN_RIGHT
    return " " if latin else ""


_FULLWIDTH = str.maketrans({chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)} | {"\u3000": " "})


def _regulations(text: str) -> list[Entity]:
    return [Entity(m.group(1).strip(), "regulation", m.start(1), m.end(1)) for m in TITLE.finditer(text)
            if m.group(1).strip()]


def _emails(text: str) -> list[Entity]:
    if "@" not in text:
        return []
    return [Entity(m.group(), "email", m.start(), m.end()) for m in EMAIL.finditer(text)]


def _phones(text: str) -> list[Entity]:
    out: list[Entity] = []
    if not _THREE_DIGITS.search(text):
        return out
    for m in PHONE.finditer(text):
        digits = m.group()
        if len(digits) == 8 and _YYYYMMDD.fullmatch(digits):
            continue  # 20240701 is a date written without separators
        out.append(Entity(re.sub(r"\s+", "", digits), "phone", m.start(), m.end()))
    return out


def _dates(text: str) -> list[Entity]:
    out: list[Entity] = []
    if "年" not in text and not _FOUR_DIGITS.search(text):
        return out
    for m in _DATE.finditer(text):
        values = find_dates(m.group())
        if values:
            out.append(Entity(max(values, key=len), "date", m.start(), m.end()))
    return out


def _amounts(text: str) -> list[Entity]:
    if "元" not in text and "%" not in text and "％" not in text and "百分之" not in text:
        return []
    return [Entity(m.group().replace(" ", ""), "amount", m.start(), m.end()) for m in _AMOUNT.finditer(text)]


def _rooms(text: str) -> list[Entity]:
    if "室" not in text and "房间" not in text:
        return []
    return [Entity(m.group(), "place", m.start(), m.end()) for m in _ROOM.finditer(text)]


def _roles(text: str) -> list[Entity]:
    return [Entity(m.group(), "role", m.start(), m.end()) for m in _ROLE_RE.finditer(text)]


def _names(text: str) -> list[Entity]:
    """Organisations and places: CJK runs ending in a suffix, chained when adjacent (江城大学财务处)."""
    out: list[Entity] = []
    for run in _RUN.finditer(text):
        last: Entity | None = None
        for m in _SUFFIX_RE.finditer(run.group()):
            suffix, end = m.group(), run.start() + m.end()
            if not _suffix_ends_word(text, suffix, end):
                continue
            floor = last.end if last else run.start()
            start = _name_start(text, floor, m.start() + run.start(), suffix, chained=last is not None)
            if start is None:
                continue
            kind = SUFFIXES[suffix]
            if not _plausible(text[start:end], suffix):
                continue
            if last is not None and start == floor and _chains(last, kind):
                out.remove(last)  # a name written right after its parent is one name: 江城大学财务处
                start = last.start
            name = text[start:end]
            entity = Entity(name, kind, start, end)
            last = _extend_floor(text, entity) if suffix == "楼" else entity
            out.append(last)
    return out


def _chains(last: Entity, kind: str) -> bool:
    if last.name.endswith("楼"):
        return False
    return kind == "org" or last.kind == kind == "place"


def _suffix_ends_word(text: str, suffix: str, end: int) -> bool:
    return not _char_in(text, end, FOLLOW_BLOCK.get(suffix))


def _name_start(text: str, floor: int, suffix_start: int, suffix: str, chained: bool) -> int | None:
    """Where the name ending at ``suffix_start`` begins: after the last split word before it (None: no name)."""
    start = floor
    for m in _SPLIT_RE.finditer(text, floor, suffix_start):
        word = m.group()
        if word in CONNECTIVES and m.start() != floor:
            continue  # 和/与 inside a name (税务与票据科) split only right after a previous name
        if _char_in(text, m.end(), SPLIT_GUARD.get(word)) or _char_in(text, m.start() - 1, SPLIT_BACK_GUARD.get(word)):
            continue
        start = m.end()
    stem = text[start:suffix_start]
    min_stem = 2 if len(suffix) == 1 else 1
    max_stem = MAX_CHAINED_STEM if chained and start == floor else MAX_STEM
    if not min_stem <= len(stem) <= max_stem or _char_in(text, suffix_start + len(suffix), DOC_NUMBER):
        return None  # a bare suffix after a particle (各学院, 该中心), a clause, or a document number (江大财〔2022〕)
    return start


def _char_in(text: str, pos: int, chars: str | None) -> bool:
    """Whether the character at ``pos`` (inside the text) is one of ``chars``."""
    if not chars or not 0 <= pos < len(text):
        return False
    return text[pos] in chars


def _plausible(name: str, suffix: str) -> bool:
    stem = name[: -len(suffix)]
    if name[-2:] in BAD_TAILS or name[-3:] in BAD_TAILS or _ORDINAL.fullmatch(stem):
        return False  # 好处, 城市, 第一部, 三个部
    if suffix == "省":
        return stem.endswith(PROVINCES)
    only = ONLY_TAILS.get(suffix)
    return only is None or name.endswith(only)


def _extend_floor(text: str, place: Entity) -> Entity:
    """致远楼 + 三楼 / 101室 → one place."""
    m = _FLOOR_AFTER.match(text, place.end)
    if m and m.end() > place.end:
        return Entity(text[place.start:m.end()], "place", place.start, m.end())
    return place


def _people(text: str, roles: Sequence[Entity], blocked: Sequence[Entity]) -> list[Entity]:
    """2–3 character names right after a role (处长张敏, 负责人：李强) or right before it (张敏处长, 刘芳（主任）)."""
    taken = [(e.start, e.end) for e in blocked]
    out = []
    for role in roles:
        before = _name_before(text, role.start, bracketed_only=role.name in PREFIX_ROLES)
        for span in (_name_after(text, role.end), before):
            if span and text[span[0]:span[1]] not in NOT_NAMES and not any(s < span[1] and span[0] < e
                                                                           for s, e in taken):
                out.append(Entity(text[span[0]:span[1]], "person", span[0], span[1]))
    return out


def _table_people(text: str) -> list[Entity]:
    """In a table row that has a role cell, a cell holding just a 2–3 character surname name (| 赵磊 | 科长 |)."""
    out = []
    for m in _TABLE_CELL.finditer(text):
        name = m.group(1)
        if _surname_at(name, 0) and name not in NOT_NAMES and not any(ch in NAME_STOP for ch in name[1:]):
            out.append(Entity(name, "person", m.start(1), m.end(1)))
    return out


def _name_after(text: str, pos: int) -> tuple[int, int] | None:
    m = re.compile(r"[：:\s]{0,2}(?:为|是)?").match(text, pos)
    start = m.end() if m else pos
    surname = _surname_at(text, start)
    if not surname:
        return None
    end = start + surname
    for _ in range(2):
        ch = text[end:end + 1]
        if not ch or not re.match(f"[{CJK}]", ch) or ch in NAME_STOP or _ROLE_RE.match(text, end):
            break
        end += 1
    return (start, end) if end - start >= 2 and end - start - surname >= 1 else None


def _name_before(text: str, pos: int, bracketed_only: bool) -> tuple[int, int] | None:
    bracketed = pos > 0 and text[pos - 1] in "（("
    if bracketed_only and not bracketed:
        return None
    end = pos - 1 if bracketed else pos
    for size in (3, 2):
        start = end - size
        word = text[start:end]
        if start < 0 or not re.fullmatch(f"[{CJK}]+", word) or any(ch in NAME_STOP for ch in word[1:]):
            continue
        compound = text[start:start + 2] in COMPOUND_SURNAMES
        if _surname_at(text, start) and (size == 2 or compound or not _surname_at(text, start + 1)):
            return start, end
    return None


def _surname_at(text: str, pos: int) -> int:
    """Length of the surname starting at ``pos`` (0 when none)."""
    if text[pos:pos + 2] in COMPOUND_SURNAMES:
        return 2
    return 1 if text[pos:pos + 1] in SURNAMES else 0


def _resolve(found: Sequence[Entity]) -> list[Entity]:
    """Keep non-overlapping mentions, preferring higher-priority kinds, then longer spans.

    The kept spans never overlap, so sorted by start they are sorted by end too: the one kept span a
    candidate could overlap first is the first ending after the candidate starts (bisect, not a scan).
    """
    order = sorted(found, key=lambda e: (_PRIORITY[e.kind], -(e.end - e.start), e.start))
    kept: list[Entity] = []
    starts: list[int] = []
    ends: list[int] = []
    for entity in order:
        i = bisect.bisect_right(ends, entity.start)
        if i == len(ends) or entity.end <= starts[i]:
            j = bisect.bisect_left(starts, entity.start)
            while j < len(starts) and (starts[j], ends[j]) <= (entity.start, entity.end):
                j += 1
            kept.insert(j, entity)
            starts.insert(j, entity.start)
            ends.insert(j, entity.end)
    return kept
