"""Document versions: which documents a later revision supersedes or a notice repeals, read from the chunks alone.

Two general signals, no list of titles:

- revisions: documents whose titles differ only by a bracketed version marker — （2021版）, （2024修订版）,
  （2017年实行） — or by the one year they name as an edition (2023年…招生简章, Annual Report 2023) are
  versions of one document; the newest one in force on "today" is current;
- repeals: a sentence (or table row) saying 《name》（文号）…废止/失效, or 废止/取代《name》, marks the document
  of that name repealed from the date it gives; the document saying it is never the one it repeals, and a
  version or 文号 in brackets after the name picks the version meant.

A question that asks about history (旧版, 原来, 废止, 变化…) or names a version keeps every version; otherwise
the retrieval step (``fusion.version_preference``) scales the other versions down.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lambdarag.ingest.chunkstore import chunk_headers, chunks_containing
from lambdarag.records import Chunk
from lambdarag.text.dates import DOC_NUMBER_YEAR, edition_year, find_dates
from lambdarag.text.tokenizer import normalize, split_sentences

# a bracketed version marker ending a (normalised: half-width brackets) title: a year or 版/修订/实行…
_MARKER = re.compile(r"\(([^()]{0,16}?(?:\d{4}[^()]{0,8}|版|修订|修正|实行|施行|试行)[^()]{0,6})\)\s*$")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
EDITION = "{year}"  # stands for the edition's year in a series' base title
NAME_OPEN = "《"  # every name a repeal statement reads opens with it (_NAME)
_NAME = re.compile(r"《([^《》]{2,60})》(?:\s*[（(]([^（）()]{1,30})[）)])?")
_REPEAL_AFTER = re.compile(r"废止|失效|作废|停止执行|不再执行")  # 《name》…废止
_REPEAL_BEFORE = re.compile(r"(?:废止|取代|代替|替代|替换)了?\s*(?:原)?$")  # 废止《name》, 取代了原《name》
_SPLIT = re.compile(r"[\n|｜]")
_NAMED_YEAR = re.compile(r"(?=(\d{4})(?:年?版|年(?:实行|施行|修订)|修订))")  # a year named as a version (_names)
_AT_THE_SAME_TIME = re.compile(r"同时|同步")
# questions about the past, a repeal or a change want every version, not only the current one
HISTORY_CUES = re.compile(
    r"旧版|老版|原来|原先|原有|原版|以前|之前|过去|历史|曾经|当时|早期|最初|废止|失效|作废|取代|替代|历年|沿革|变化|"
    r"变动|修改|修订前|修订了|前一版|上一版|新旧|两版|各版|历次"
)


@dataclass(frozen=True)
class Repeal:
    """A document repealed by a sentence of another document, from a date when the sentence gives one."""

    doc_id: str
    by: str  # doc id of the document that says so
    since: str | None  # normalised date ("2024-07-01") or None
    sentence: str
    chunk_id: str = ""  # the chunk that says so


@dataclass(frozen=True)
class VersionIndex:
    """Version groups (base title → marker → doc ids, with the marker's year) and repealed documents."""

    groups: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    years: dict[str, int | None] = field(default_factory=dict)  # marker → year (None: unmarked original)
    repeals: dict[str, Repeal] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)  # doc id → title

    def demoted(self, question: str, today: date) -> Mapping[str, str]:
        """Doc id → reason, for the documents this question should see only after the current versions."""
        if HISTORY_CUES.search(question):
            return {}
        asked = normalize(question)
        named: dict[str, str] = {}
        left_out: set[str] = set()
        for base in self._named_groups(asked):  # the groups it names, decided for it
            group = _docs(self.groups[base])
            named = {d: r for d, r in named.items() if d not in group}
            left_out |= group
            named.update(self._group_demotions(base, asked, today))
        # the others as if the question named no version of them: the day's map, shared, not copied per question
        out = Demotions(self._unnamed_demotions(today), frozenset(left_out), named, {})
        repealed: dict[str, str] = {}
        for doc_id, repeal in self.repeals.items():
            if self._asked_for(doc_id, asked) or (repeal.since is not None and repeal.since > today.isoformat()):
                continue
            if doc_id not in out:
                repealed.setdefault(doc_id, f"repealed: {repeal.sentence[:80]}")
        return Demotions(out.day, out.left_out, named, repealed) if repealed else out

    def _group_demotions(self, base: str, asked: str, today: date) -> dict[str, str]:
        members = self.groups[base]
        keep = _preferred(members, self.years, asked, today)
        if keep is None:
            return {}
        newer = self.titles.get(members[keep][0], base)
        return {d: f"other version of {base}: {newer} preferred" for marker, docs in members.items()
                if marker != keep for d in docs}

    def _unnamed_demotions(self, today: date) -> dict[str, str]:
        """Every group's demotions for a question naming none of its versions (they depend on the day only)."""
        entry = self._cache.get("entry")  # (day, demotions): one value, so threads never see a torn pair
        if entry is None or entry[0] != today:
            demoted: dict[str, str] = {}
            for base in self.groups:
                demoted.update(self._group_demotions(base, "", today))
            entry = self._cache["entry"] = (today, demoted)
        result: dict[str, str] = entry[1]
        return result

    @functools.cached_property
    def _cache(self) -> dict[str, Any]:
        return {}

    @functools.cached_property
    def _marker_index(self) -> tuple[dict[str, set[str]], list[int], dict[int, set[str]]]:
        """Normalised marker → groups, the markers' lengths, and marker year → groups."""
        by_text: dict[str, set[str]] = {}
        by_year: dict[int, set[str]] = {}
        for base, members in self.groups.items():
            for marker in members:
                if marker:
                    by_text.setdefault(normalize(marker), set()).add(base)
                    if (year := _marker_year(marker)) is not None:
                        by_year.setdefault(year, set()).add(base)
        return by_text, sorted({len(m) for m in by_text}), by_year

    def _named_groups(self, asked: str) -> list[str]:
        """The groups one of whose versions the question names (see _names), in the groups' order: each marker
        looked up by the question's substrings and years rather than every group's markers tried on it."""
        by_text, lengths, by_year = self._marker_index
        found: set[str] = set()
        for length in lengths:
            for start in range(len(asked) - length + 1):
                found.update(by_text.get(asked[start : start + length], ()))
        for match in _NAMED_YEAR.finditer(asked):
            found.update(by_year.get(int(match.group(1)), ()))
        return [base for base in self.groups if base in found]

    def other_versions(self, doc_id: str) -> list[str]:
        """One document per other version of ``doc_id``'s title, newest first; [] when it has no versions."""
        base, _ = split_title(self.titles.get(doc_id, ""))
        members = self.groups.get(base, {})
        if not any(doc_id in docs for docs in members.values()):
            return []
        order = sorted(members, key=lambda m: -(self.years.get(m) or 0))
        return [members[m][0] for m in order if doc_id not in members[m]]

    def _asked_for(self, doc_id: str, asked: str) -> bool:
        """A repealed document the question names: by version marker, or by title when it has no newer version."""
        base, marker = split_title(self.titles.get(doc_id, ""))
        if marker and _names(asked, marker):
            return True
        return base not in self.groups and len(base) >= 4 and base in asked


class Demotions(Mapping[str, str]):
    """VersionIndex.demoted's answer: the day's demotions but for the groups the question names (``left_out``),
    those groups' own (``named``), then repealed documents. The day's map (every older version in the corpus:
    tens of thousands at 100k chunks) is shared, not copied for each question. Ordered as if built as one dict."""

    def __init__(self, day: Mapping[str, str], left_out: frozenset[str], named: Mapping[str, str],
                 repealed: Mapping[str, str]) -> None:
        self.day, self.left_out, self.named, self.repealed = day, left_out, named, repealed
        gone = sum(1 for d in left_out if d in day)
        self._len = len(day) - gone + len(named) + len(repealed)

    def __getitem__(self, doc_id: str) -> str:
        if doc_id in self.named:
            return self.named[doc_id]
        if doc_id not in self.left_out and doc_id in self.day:
            return self.day[doc_id]
        return self.repealed[doc_id]

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.named or (doc_id in self.day and doc_id not in self.left_out) or doc_id in self.repealed

    def __iter__(self) -> Iterator[str]:
        yield from (d for d in self.day if d not in self.left_out)
        yield from self.named
        yield from self.repealed

    def __len__(self) -> int:
        return self._len


def _docs(members: Mapping[str, tuple[str, ...]]) -> set[str]:
    return {d for docs in members.values() for d in docs}


def _names(asked: str, marker: str) -> bool:
    """Whether the question names this version: its marker ("2021版") or its year as a version ("2021版", "2021年")."""
    if not marker:
        return False
    if normalize(marker) in asked:
        return True
    year = _marker_year(marker)
    return year is not None and re.search(f"{year}" + r"(?:年?版|年(?:实行|施行|修订)|修订)", asked) is not None


def _preferred(members: Mapping[str, tuple[str, ...]], years: Mapping[str, int | None], asked: str,
               today: date) -> str | None:
    """The marker to keep: the version the question names, else the newest in force today; None to keep all."""
    named = [m for m in members if _names(asked, m)]
    if named:
        return named[0] if len(named) == 1 else None
    in_force = [m for m in members if (years.get(m) or 0) <= today.year]
    if not in_force:
        return None
    return max(in_force, key=lambda m: (years.get(m) or 0, m))


def split_title(title: str) -> tuple[str, str]:
    """(base title, version marker) of a document title; the marker is "" when the title carries none.

    The marker is a bracketed version at the end (（2024修订版）), else the one year the title names as an edition
    (2023年…招生简章, 2023年度报告, Annual Report 2023): the base then keeps a placeholder where the year stood, so
    the editions of a yearly series share it.
    """
    spaced = normalize(title).replace("《", "").replace("》", "")
    clean = spaced.replace(" ", "")
    m = _MARKER.search(clean)
    if m is not None:
        return clean[: m.start()], m.group(1)
    year = edition_year(spaced)  # before the spaces go: "3m 2022 10k" is no "3m202210k"
    if year is None:
        return clean, ""
    return (spaced[: year.start()] + EDITION + spaced[year.end():]).replace(" ", ""), year.group(0)


def build_index(chunks: Iterable[Chunk] | Mapping[str, Chunk]) -> VersionIndex:
    """Group versioned documents by base title and find the repeal statements among all chunks (``chunks`` by id or
    in order; from a chunk store only the chunks that name a document in 《》 are built)."""
    by_id = chunks if isinstance(chunks, Mapping) else {c.chunk_id: c for c in chunks}
    titles: dict[str, str] = {}
    opening: dict[str, list[str]] = {}  # a document's first two chunks: where its 文号 is looked for
    for header in chunk_headers(by_id):
        if header.doc_id not in titles:
            titles[header.doc_id] = header.title
            opening[header.doc_id] = []
        if len(opening[header.doc_id]) < 2:
            opening[header.doc_id].append(header.chunk_id)
    mentions: list[tuple[Chunk, str, str, str, str | None]] = []
    for chunk in chunks_containing(by_id, NAME_OPEN):
        first = opening[chunk.doc_id][0] == chunk.chunk_id  # a title like 关于废止《X》的通知 speaks too
        body = f"{chunk.title}\n{chunk.text}" if first else chunk.text
        mentions.extend((chunk, *m) for m in _repeal_mentions(body))
    by_base: dict[str, dict[str, list[str]]] = {}
    for doc_id, title in titles.items():
        base, marker = split_title(title)
        by_base.setdefault(base, {}).setdefault(marker, []).append(doc_id)
    # a group needs two versions and a marker: equal titles are parts of one source, not revisions
    groups = {b: {m: tuple(d) for m, d in ms.items()} for b, ms in by_base.items() if len(ms) > 1 and any(ms)}
    years = {m: _marker_year(m) for ms in groups.values() for m in ms}
    repeals: dict[str, Repeal] = {}

    def texts(doc_id: str) -> list[str]:
        return [titles[doc_id], *(by_id[c].text for c in opening[doc_id])]

    for chunk, sentence, name, qualifier, since in mentions:
        for target in _targets(name, qualifier, chunk.doc_id, by_base, texts):
            known = repeals.get(target)
            if known is None or (known.since is None and since is not None):  # a dated statement says more
                repeals[target] = Repeal(target, chunk.doc_id, since, sentence, chunk.chunk_id)
    return VersionIndex(groups, years, repeals, titles)


def _marker_year(marker: str) -> int | None:
    m = _YEAR.search(marker)
    return int(m.group(1)) if m else None


def _repeal_mentions(text: str) -> Iterable[tuple[str, str, str, str | None]]:
    """(sentence, name, bracketed qualifier, date) for each document a sentence or table row declares repealed.

    The date is the sentence's own (a 文号's bracketed year is not one); "…同时废止" takes the date of the
    sentence before it ("本办法自2024年7月1日起施行。《X》同时废止。").
    """
    for line in text.splitlines():
        if NAME_OPEN not in line:  # names nothing, so it repeals nothing (and its date serves no later line)
            continue
        cells = [c.strip() for c in _SPLIT.split(line) if c.strip()]
        sentences = [" | ".join(cells)] if len(cells) > 1 else split_sentences(line)
        for i, sentence in enumerate(sentences):
            names = list(_NAME.finditer(sentence)) if NAME_OPEN in sentence else []
            target = _repealed_name(sentence, names) if names else None
            if target is not None:  # dates are read only here: most sentences repeal nothing
                when = _latest_date(sentence)
                if when is None and _AT_THE_SAME_TIME.search(sentence):  # the nearest earlier date of the line
                    when = next(filter(None, map(_latest_date, reversed(sentences[:i]))), None)
                yield sentence, target.group(1), target.group(2) or "", when


def _latest_date(sentence: str) -> str | None:
    dates = find_dates(DOC_NUMBER_YEAR.sub("", sentence))
    return max(dates) if dates else None


def _repealed_name(sentence: str, names: list[re.Match[str]]) -> re.Match[str] | None:
    """废止《X》 / 取代了原《X》: the name right after the verb; 《X》…废止: the nearest name before it."""
    for name in names:
        if _REPEAL_BEFORE.search(sentence[max(0, name.start() - 8) : name.start()]):
            return name
    verb = _REPEAL_AFTER.search(sentence)
    if verb is None or "不得" in sentence[max(0, verb.start() - 4) : verb.start()]:
        return None
    before = [n for n in names if n.end() <= verb.start()]
    return before[-1] if before else None


def _targets(name: str, qualifier: str, speaker: str, by_base: Mapping[str, Mapping[str, list[str]]],
             texts: Callable[[str], list[str]]) -> list[str]:
    """The documents a repealed name means: same base title, not the speaker, narrowed by the qualifier."""
    base, marker = split_title(name)
    members = by_base.get(base, {})
    candidates = {m: [d for d in docs if d != speaker] for m, docs in members.items()}
    candidates = {m: docs for m, docs in candidates.items() if docs}
    if marker and marker in candidates:
        return candidates[marker]
    if qualifier:
        q = normalize(qualifier).replace(" ", "")
        marked = [d for m, docs in candidates.items() if m and (q in m or m in q) for d in docs]
        # a 文号 is found in the document's own opening chunks
        numbered = [d for docs in candidates.values() for d in docs if any(q in normalize(t) for t in texts(d))]
        if marked or numbered:
            return marked or numbered
    flat = [d for docs in candidates.values() for d in docs]
    return flat if len(flat) == 1 else []  # an ambiguous name repeals nothing rather than the wrong version
