"""The extractive answer (no LLM): slot values in short Chinese sentences, else the best evidence sentences.

Every sentence ends with the [n] of the chunk it was taken from, so the answer is checkable
against its citations like an LLM answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lambdarag.answer.context import Packed
from lambdarag.answer.slots import slot_sources
from lambdarag.answer.tables import ParsedTable, best_row, grams, parse_table, question_grams
from lambdarag.text import keyword_overlap, split_sentences

MAX_SENTENCES = 3
EVIDENCE_PIECES = 4  # sentences are taken from this many top evidence chunks
MIN_SENTENCE_CHARS = 6
RANK_BONUS = 0.08  # a sentence from the top chunk beats an equally matching one further down


def extractive_answer(question: str, packed: Packed, intent: str, slots: dict[str, Any],
                      keywords: Sequence[str] = ()) -> str:
    """Slot sentences for person/process/data when slots were filled, else the best evidence sentences."""
    numbers = {c.chunk_id: c.n for c in packed.citations}
    writer = SLOT_WRITERS.get(intent)
    lines = writer(slots, _marker(slots, numbers)) if writer and slots else []
    if not lines:
        lines = best_sentences(question, packed, keywords)
    return "".join(lines)


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
        lines.append(f"办理步骤：{steps}{mark('steps')}。")
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


def best_sentences(question: str, packed: Packed, keywords: Sequence[str] = ()) -> list[str]:
    """Up to three evidence sentences sharing the most question keywords, each with its [n]."""
    wanted = question_grams(question)
    scored: list[tuple[float, int, str]] = []
    evidence = [p for p in packed.pieces if p.kind == "evidence" and p.n is not None][:EVIDENCE_PIECES]
    for rank, piece in enumerate(evidence):
        body = piece.text.split("\n", 1)[1] if "\n" in piece.text else piece.text
        for sentence in candidate_sentences(body, wanted):
            score = _score(sentence, keywords, wanted) + RANK_BONUS * (len(evidence) - rank) / len(evidence)
            scored.append((score, int(piece.n or 0), sentence))
    scored.sort(key=lambda t: -t[0])
    if not scored:
        return []
    floor = max(scored[0][0] * 0.6, 1e-9)
    picked: list[str] = []
    seen: set[str] = set()
    for score, n, sentence in scored:
        if score < floor or len(picked) == MAX_SENTENCES or sentence in seen:
            continue
        seen.add(sentence)
        picked.append(f"{_close(sentence)}[{n}]{_end(sentence)}")
    return picked


def candidate_sentences(body: str, wanted: set[str]) -> list[str]:
    """Sentences of a text chunk; for a table chunk, its best row written out with its headers."""
    table = parse_table(body)
    if table is not None:
        return _table_rows(table, wanted)
    return [s for s in split_sentences(body) if len(s) >= MIN_SENTENCE_CHARS]


def _table_rows(table: ParsedTable, wanted: set[str]) -> list[str]:
    index, _ = best_row(table, wanted)
    rows = [table.rows[index]] if index >= 0 else list(table.rows[:1])
    return ["，".join(f"{h}：{v}" if h else v for h, v in zip(table.header, row, strict=False) if v) for row in rows]


def _score(sentence: str, keywords: Sequence[str], wanted: set[str]) -> float:
    if keywords:
        return keyword_overlap(keywords, sentence)
    return len(wanted & grams(sentence)) / len(wanted) if wanted else 0.0


def _close(sentence: str) -> str:
    return sentence.rstrip("。；;！!？?.")


def _end(sentence: str) -> str:
    tail = sentence.rstrip()[-1:] if sentence.strip() else ""
    return tail if tail in "。！？" else "。"
