"""The extractive answer (no LLM): slot values in short Chinese sentences, else the best evidence sentences.

Every sentence ends with the [n] of the chunk it was taken from, so the answer is checkable
against its citations like an LLM answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lambdarag.answer.context import Packed
from lambdarag.answer.slots import slot_sources
from lambdarag.answer.tables import ParsedTable, best_row, grams, parse_table, question_grams
from lambdarag.text import keyword_overlap, split_sentences
from lambdarag.timeexpr import find_dates

MAX_SENTENCES = 3
FLOOR = 0.6  # a sentence must score this share of the best one to be added
TOP_CHUNK_FLOOR = 0.5  # the top chunk's best sentence leads when it scores this share of the best
BROAD_INTENTS = frozenset({"synthesis", "compare"})
BROAD_LIMITS = (5, 1)  # sentences, sentences per chunk: an overview draws on several chunks
BROAD_FLOOR = 0.4
DATE_BONUS = 0.2
CHUNK_WEIGHT = 0.3  # share of a sentence's score that comes from its whole chunk's keyword overlap
SLOT_EXTRA_MIN = 0.5  # keyword share the top chunk's sentence needs to join a slot answer
EVIDENCE_PIECES = 5  # sentences are taken from this many top evidence chunks
MIN_SENTENCE_CHARS = 6
RANK_BONUS = 0.08  # a sentence from the top chunk beats an equally matching one further down


def extractive_answer(question: str, packed: Packed, intent: str, slots: dict[str, Any],
                      keywords: Sequence[str] = ()) -> str:
    """Slot sentences for person/process/data when slots were filled, else the best evidence sentences."""
    numbers = {c.chunk_id: c.n for c in packed.citations}
    writer = SLOT_WRITERS.get(intent)
    lines = writer(slots, _marker(slots, numbers)) if writer and slots else []
    if not lines:
        return "".join(best_sentences(question, packed, keywords, intent))
    return "".join([*lines, *_top_chunk_sentence(question, packed, keywords, intent, "".join(lines))])


def _top_chunk_sentence(question: str, packed: Packed, keywords: Sequence[str], intent: str, text: str) -> list[str]:
    """The top evidence chunk's best sentence when the slot lines do not cite that chunk (it may hold the answer)."""
    scored = [s for s in _scored_sentences(question, packed, keywords, intent) if s.rank == 0]
    if not scored or f"[{scored[0].n}]" in text:
        return []
    best = max(scored, key=lambda s: s.score)
    return [f"{_close(best.sentence)}[{best.n}]{_end(best.sentence)}"] if best.score >= SLOT_EXTRA_MIN else []


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


@dataclass(frozen=True)
class _Scored:
    score: float
    n: int
    rank: int  # position of the chunk among the evidence pieces (0 = top fused chunk)
    sentence: str


def best_sentences(question: str, packed: Packed, keywords: Sequence[str] = (), intent: str = "fact") -> list[str]:
    """The evidence sentences sharing the most question keywords, each with its [n].

    The top fused chunk's best sentence always comes first when it matches reasonably: fusion is the
    consensus of every channel, one sentence's keyword count is not. Broad intents take more sentences
    from more chunks.
    """
    scored = _scored_sentences(question, packed, keywords, intent)
    if not scored:
        return []
    best = max(s.score for s in scored)
    limit, per_chunk = BROAD_LIMITS if intent in BROAD_INTENTS else (MAX_SENTENCES, 2)
    floor = best * (BROAD_FLOOR if intent in BROAD_INTENTS else FLOOR)
    top = [s for s in scored if s.rank == 0 and s.score >= best * TOP_CHUNK_FLOOR][:1]
    picked: list[_Scored] = []
    for item in [*top, *sorted(scored, key=lambda s: -s.score)]:
        same_chunk = sum(1 for p in picked if p.n == item.n)
        if item.score < floor or len(picked) == limit or same_chunk >= per_chunk or item in picked:
            continue
        picked.append(item)
    return [f"{_close(s.sentence)}[{s.n}]{_end(s.sentence)}" for s in picked]


def _scored_sentences(question: str, packed: Packed, keywords: Sequence[str], intent: str) -> list[_Scored]:
    wanted = question_grams(question)
    evidence = [p for p in packed.pieces if p.kind == "evidence" and p.n is not None][:EVIDENCE_PIECES]
    out: list[_Scored] = []
    seen: set[str] = set()
    for rank, piece in enumerate(evidence):
        body = piece.text.split("\n", 1)[1] if "\n" in piece.text else piece.text
        # keywords met in the chunk's breadcrumb or neighbouring lines put its sentences in context
        chunk_score = _score(piece.text, keywords, wanted)
        for sentence in candidate_sentences(body, wanted):
            if sentence in seen:
                continue
            seen.add(sentence)
            score = (1 - CHUNK_WEIGHT) * _score(sentence, keywords, wanted) + CHUNK_WEIGHT * chunk_score
            score += RANK_BONUS * (len(evidence) - rank) / len(evidence)
            if intent == "temporal" and find_dates(sentence):
                score += DATE_BONUS  # "when" questions are answered by sentences that carry a date
            out.append(_Scored(score, int(piece.n or 0), rank, sentence))
    return out


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
    """Keyword overlap blended with character-bigram overlap (which still matches 隶属于 against 隶属)."""
    bigrams = len(wanted & grams(sentence)) / len(wanted) if wanted else 0.0
    return (keyword_overlap(keywords, sentence) + bigrams) / 2 if keywords else bigrams


def _close(sentence: str) -> str:
    return sentence.rstrip("。；;！!？?.")


def _end(sentence: str) -> str:
    tail = sentence.rstrip()[-1:] if sentence.strip() else ""
    return tail if tail in "。！？" else "。"
