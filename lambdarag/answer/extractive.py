"""The extractive answer (no LLM): a table lookup, slot values or the best evidence sentences, each with its [n].

In order of precedence: when the question names a row of a table among the evidence and asks for a column or
a value, that row's cells with their headers lead (any intent); slot sentences answer person/process/data
questions; the best evidence sentences answer the rest and follow the lines above when they add a chunk.
Every sentence ends with the [n] of the chunk it was taken from, so the answer is checkable against its
citations like an LLM answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lambdarag.answer.context import Packed
from lambdarag.answer.sentences import (
    BROAD_INTENTS,
    Scored,
    best_sentences,
    doc_of,
    evidence_pieces,
    scored_sentences,
    split_piece,
)
from lambdarag.answer.slots import slot_sources
from lambdarag.answer.table_lookup import Found, answering_tables

_CITED = re.compile(r"\[(\d{1,3})\]")
SLOT_EXTRA_MIN = 0.5  # keyword share the top chunk's sentence needs to join a slot answer
# person/process slots already come from tables and lists; an overview quotes whole small tables instead
TABLE_FIRST_SKIP = frozenset({"person", "process", "synthesis"})
TABLE_PIECES = 16  # tables are looked up in this many top evidence chunks (the fused top-k and the added)
COMPARE_TABLES = 2  # a comparison shows the named row of this many tables (two versions, two years)
LEAD_INTENTS = frozenset({"process"})  # slot answers that a better matching sentence elsewhere may precede
EXTRA_AFTER_TABLE = 1  # sentences that may follow a table line (more for broad intents)


def extractive_answer(question: str, packed: Packed, intent: str, slots: dict[str, Any],
                      keywords: Sequence[str] = ()) -> str:
    """The answer lines, then a note for each cited document that the context says was repealed."""
    text = _answer_lines(question, packed, intent, slots, keywords)
    return text + "".join(repeal_notes(text, packed))


def repeal_notes(text: str, packed: Packed) -> list[str]:
    """"注：《X》已于2024年7月1日废止[n]。" for each document the text cites whose repeal the context states."""
    numbers = {c.chunk_id: c.n for c in packed.citations}
    cited = {int(n) for n in _CITED.findall(text)}
    notes = []
    for citation in packed.citations:
        repealed = packed.repealed.get(citation.doc_id)
        if repealed is None or citation.n not in cited or repealed.chunk_id not in numbers:
            continue
        when = f"已于{_cn_date(repealed.since)}" if repealed.since else "已"
        note = f"注：《{repealed.title}》{when}废止[{numbers[repealed.chunk_id]}]。"
        if note not in notes:
            notes.append(note)
    return notes


def _cn_date(iso: str) -> str:
    """"2024-07-01" -> "2024年7月1日" ("2024-07" -> "2024年7月")."""
    parts = [int(p) for p in iso.split("-") if p.isdigit()]
    return "".join(f"{v}{unit}" for v, unit in zip(parts, ("年", "月", "日"), strict=False))


def _answer_lines(question: str, packed: Packed, intent: str, slots: dict[str, Any], keywords: Sequence[str]) -> str:
    """Table lines, else slot sentences for person/process/data, then the best evidence sentences."""
    table = table_lines(question, packed, intent) if intent not in TABLE_FIRST_SKIP else []
    if table:
        extra = best_sentences(question, packed.pieces, keywords, intent,
                               limit=None if intent in BROAD_INTENTS else EXTRA_AFTER_TABLE)
        return "".join([*table, *(s.cited() for s in extra if f"[{s.n}]" not in "".join(table))])
    numbers = {c.chunk_id: c.n for c in packed.citations}
    writer = SLOT_WRITERS.get(intent)
    lines = writer(slots, _marker(slots, numbers)) if writer and slots else []
    if not lines:
        return "".join(s.cited() for s in best_sentences(question, packed.pieces, keywords, intent))
    lead = _better_elsewhere(question, packed, keywords, intent, slots) if intent in LEAD_INTENTS else []
    return "".join([*lead, *lines, *_top_chunk_sentence(question, packed, keywords, intent, "".join([*lead, *lines]))])


def _better_elsewhere(question: str, packed: Packed, keywords: Sequence[str], intent: str,
                      slots: dict[str, Any]) -> list[str]:
    """The best evidence sentence when it comes from another document than the slots and beats all of theirs.

    A procedure document answers "how do I…" in general; an FAQ answer or a rule elsewhere that matches the
    question better ("发票丢了怎么办") is the specific answer and leads.
    """
    slot_docs = {doc_of(cid) for cid in slot_sources(slots).values()}
    scored = scored_sentences(question, packed.pieces, keywords, intent)
    if not scored or not slot_docs:
        return []
    best = max(scored, key=lambda s: s.score)
    theirs = max((s.score for s in scored if s.doc_id in slot_docs), default=0.0)
    return [best.cited()] if best.doc_id not in slot_docs and best.score > theirs else []


def table_lines(question: str, packed: Packed, intent: str) -> list[str]:
    """The answering table row(s) with their headers and [n]; two tables' rows for a comparison."""
    pieces = evidence_pieces(packed.pieces, TABLE_PIECES)
    crumbs = {c.chunk_id: c.breadcrumb or c.title for c in packed.citations}
    candidates = [(_where(crumbs.get(p.chunk_id or "", "")), split_piece(p)[1]) for p in pieces]
    texts = [body for _, body in candidates]
    found = answering_tables(question, candidates, texts)
    if not found:
        return []
    chosen: list[Found] = [found[0]]
    if intent == "compare":
        # the same row in another table (another version or year) is the other side of the comparison
        chosen += [f for f in found[1:] if f.match.named == found[0].match.named][: COMPARE_TABLES - 1]
    marks = [f"[{p.n}]" for p in pieces]
    return [f"{f.line(marks)}[{pieces[f.index].n}]。" for f in chosen]


def _where(breadcrumb: str) -> str:
    """A breadcrumb without repeated levels (a PDF title often repeats as its first heading)."""
    parts = [p.strip() for p in breadcrumb.split(">") if p.strip()]
    return " > ".join(p for i, p in enumerate(parts) if i == 0 or p != parts[i - 1])


def _top_chunk_sentence(question: str, packed: Packed, keywords: Sequence[str], intent: str, text: str) -> list[str]:
    """The top evidence chunk's best sentence when the slot lines do not cite that chunk (it may hold the answer)."""
    scored = [s for s in scored_sentences(question, packed.pieces, keywords, intent) if s.rank == 0]
    if not scored or f"[{scored[0].n}]" in text:
        return []
    best: Scored = max(scored, key=lambda s: s.score)
    return [best.cited()] if best.score >= SLOT_EXTRA_MIN else []


def _marker(slots: dict[str, Any], numbers: Mapping[str, int]) -> Callable[[str], str]:
    sources = slot_sources(slots)

    def mark(key: str) -> str:
        cid = sources.get(key)
        return f"[{numbers[cid]}]" if cid is not None and cid in numbers else ""

    return mark


def _person(slots: dict[str, Any], mark: Callable[[str], str]) -> list[str]:
    name = slots.get("name", "")
    if not name and not slots.get("phone") and not slots.get("email"):
        return []
    who = f"{slots.get('department', '')}{slots.get('title', '')}{name}" or "联系人"
    if slots.get("mention") and not slots.get("department"):
        return [f"{slots['mention']}{mark('mention')}。"]
    facts = [f"{label}{slots[key]}" for key, label in (("phone", "办公电话"), ("email", "电子邮箱"),
                                                       ("office", "办公地点")) if slots.get(key)]
    lines = [f"{who}{'，' + '，'.join(facts) if facts else ''}{mark('name') or mark('phone')}。"]
    if slots.get("duties"):
        lines.append(f"主要职责：{slots['duties']}{mark('duties')}。")
    return lines


def _process(slots: dict[str, Any], mark: Callable[[str], str]) -> list[str]:
    lines: list[str] = []
    if slots.get("steps"):
        steps = "；".join(f"{i}. {s.rstrip('；;。')}" for i, s in enumerate(slots["steps"], 1))
        lead = f"{slots['lead'].rstrip('：:。')}：" if slots.get("lead") else "办理步骤："
        lines.append(f"{lead}{steps}{mark('steps')}。")
    if slots.get("materials"):
        lines.append(f"所需材料：{'、'.join(m.rstrip('；;。') for m in slots['materials'])}{mark('materials')}。")
    if slots.get("conditions"):
        lines.append(f"注意：{'；'.join(c.rstrip('；;。') for c in slots['conditions'])}{mark('conditions')}。")
    if slots.get("where"):
        lines.append(f"办理地点：{slots['where']}{mark('where')}。")
    if slots.get("basis"):
        lines.append(f"依据：{'、'.join(slots['basis'])}{mark('basis')}。")
    return lines


def _data(slots: dict[str, Any], mark: Callable[[str], str]) -> list[str]:
    where = f"{slots['table']}中，" if slots.get("table") else ""
    if slots.get("value") and slots.get("column"):
        row = f"{slots['row']}的" if slots.get("row") else ""
        return [f"{where}{row}{slots['column']}为{slots['value']}{mark('value')}。"]
    values = slots.get("row_values")
    if isinstance(values, dict) and values:
        shown = "，".join(f"{k}：{v}" for k, v in values.items() if v)
        return [f"{where}{shown}{mark('row') or mark('table')}。"]
    return []


SLOT_WRITERS: dict[str, Callable[[dict[str, Any], Callable[[str], str]], list[str]]] = {
    "person": _person,
    "process": _process,
    "data": _data,
}
