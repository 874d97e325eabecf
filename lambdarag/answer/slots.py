"""Slot filling: typed fields for person, process and data questions (LLM JSON, rule fallback).

With an LLM the slots come as JSON for the intent's schema; invalid JSON gets one repair
request inside ``LLMClient.chat_json``, and when that fails too the rules fill the slots and the
error is kept for the trace. Other intents (fact, compare, temporal, ...) are skipped.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lambdarag.answer.procedure_rules import process_slots
from lambdarag.answer.slot_rules import data_slots, person_slots
from lambdarag.answer.table_text import form_text, match_score, question_grams
from lambdarag.config.schema import Config
from lambdarag.errors import ServiceError
from lambdarag.records import Chunk, make_chunk_id
from lambdarag.text.fence import fence, fenced_messages, neutralise_markers

if TYPE_CHECKING:
    from lambdarag.models.llm import LLMClient

SCHEMAS: dict[str, dict[str, str]] = {
    "person": {"name": "姓名", "title": "职务", "department": "所属部门", "phone": "办公电话",
               "email": "电子邮箱", "office": "办公室", "duties": "主要职责"},
    "process": {"steps": "办理步骤（按顺序的字符串列表）", "conditions": "条件（字符串列表）",
                "materials": "所需材料（字符串列表）", "where": "办理地点", "basis": "政策依据《…》（字符串列表）"},
    "data": {"table": "表名", "row": "行（与问题匹配的行名）", "column": "列（与问题匹配的列名）",
             "value": "单元格的值"},
}
LIST_FIELDS = frozenset({"steps", "conditions", "materials", "basis"})
RULES: dict[str, Callable[[str, Sequence[Chunk]], dict[str, Any]]] = {
    "person": person_slots,
    "process": process_slots,
    "data": data_slots,
}
PROCEDURE_TITLE = re.compile(r"流程|指南|须知|办事|手续|步骤|操作")
PROCEDURE_TITLE_BONUS = 2.0  # a procedure document beats a regulation that merely mentions the topic
TITLE_WEIGHT = 2.0
MAX_ID_GAP = 3
EVIDENCE_CHUNKS = 8  # top evidence chunks the slot filler reads (the default fused top-k)
PROMPT_CONTEXT_CHARS = 2500
MAX_TITLE_CHARS = 40  # a first line longer than this is a sentence, not a title
_CJK = re.compile(r"[\u3400-\u9fff]")
_SENTENCE_MARK = re.compile(r"[，。；：,;:！？!?]")


@dataclass(frozen=True)
class SlotResult:
    """The filled slots, how they were filled, and the LLM error that forced the rules, if any."""

    slots: dict[str, Any] = field(default_factory=dict)
    method: str = "skipped"  # rules | llm | skipped
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"slots": self.slots, "method": self.method, "error": self.error}


def fill_slots(
    intent: str, question: str, evidence: Sequence[Chunk], llm: LLMClient | None, config: Config
) -> SlotResult:
    """Slots for ``intent`` from the top evidence chunks; skipped for intents not in config.slots.intents."""
    if not config.slots.enabled or intent not in config.slots.intents or intent not in SCHEMAS:
        return SlotResult()
    read = evidence[: max(EVIDENCE_CHUNKS, len(evidence)) if intent == "process" else EVIDENCE_CHUNKS]
    top = [_as_read(c) for c in read]
    error: str | None = None
    if llm is not None:
        try:
            return SlotResult(_llm_slots(intent, question, top, llm, config), "llm")
        except ServiceError as exc:
            error = str(exc)
    return SlotResult(RULES[intent](question, top), "rules", error)


def _as_read(chunk: Chunk) -> Chunk:
    """The chunk as the answer reads it: a form's fields as "label：value" lines (as in the packed context)."""
    text = form_text(chunk.text)
    return chunk if text is None else dataclasses.replace(chunk, text=text, is_table=False)


def _llm_slots(intent: str, question: str, evidence: Sequence[Chunk], llm: LLMClient, config: Config) -> dict[str, Any]:
    context = "\n\n".join(f"[{i}] {c.index_text}" for i, c in enumerate(evidence, 1))[:PROMPT_CONTEXT_CHARS]
    prompt = config.prompts.slots.format(intent=intent, schema=json.dumps(SCHEMAS[intent], ensure_ascii=False),
                                         context=fence(context), question=neutralise_markers(question))
    slots = llm.chat_json(fenced_messages(config.prompts.data_rule, prompt), lambda data: validate_slots(intent, data))
    return attribute_sources(slots, evidence)


def slot_evidence(intent: str, question: str, evidence: Sequence[Chunk], chunks: Mapping[str, Chunk]) -> list[Chunk]:
    """The chunks slot filling reads: for a process, the whole best-matching procedure document first.

    A procedure's steps, materials and contacts sit in sibling chunks of one document, and retrieval
    rarely ranks all of them in the top k; the document whose title matches the question best (a
    流程/步骤/材料 section breaking ties) is read in full, then the rest of the evidence.
    """
    if intent != "process" or not evidence:
        return list(evidence)
    wanted = question_grams(question)
    order = {c.doc_id: i for i, c in reversed(list(enumerate(evidence)))}

    def doc_score(doc_id: str) -> tuple[float, int]:
        mine = [c for c in evidence if c.doc_id == doc_id]
        title = document_title(doc_id, mine[0].title, chunks)
        text = max(match_score(wanted, c.index_text) for c in mine)
        procedure = PROCEDURE_TITLE_BONUS if PROCEDURE_TITLE.search(title) else 0.0
        return (text + TITLE_WEIGHT * match_score(wanted, title) + procedure, -order[doc_id])

    anchor = max(order, key=doc_score)
    siblings = document_chunks(anchor, chunks)
    return [*siblings, *(c for c in evidence if c.doc_id != anchor)]


def document_title(doc_id: str, title: str, chunks: Mapping[str, Chunk]) -> str:
    """The title, or the first line of the document when the title is only its file name (a plain text file)."""
    if title and title != doc_id and _CJK.search(title):
        return title
    first = chunks.get(f"{doc_id}#0000")
    line = first.text.strip().split("\n", 1)[0].strip() if first is not None else ""
    return line if line and len(line) <= MAX_TITLE_CHARS and not _SENTENCE_MARK.search(line) else title


def document_chunks(doc_id: str, chunks: Mapping[str, Chunk], limit: int = 200) -> list[Chunk]:
    """A document's chunks in order, found by their ids "<doc_id>#0000", "#0001", … (the chunk id contract)."""
    found: list[Chunk] = []
    misses = 0
    for i in range(limit):
        chunk = chunks.get(make_chunk_id(doc_id, i))
        misses = misses + 1 if chunk is None else 0
        if misses > MAX_ID_GAP:  # ids are consecutive; a few missing ones are tolerated, a long run ends the doc
            break
        if chunk is not None:
            found.append(chunk)
    return found


def validate_slots(intent: str, data: Any) -> dict[str, Any]:
    """Keep the schema's fields with usable values; raise ValueError when the reply is not slots."""
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object of {intent} slots, got {type(data).__name__}")
    schema = SCHEMAS[intent]
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key not in schema or value in (None, "", [], {}):
            continue
        if key in LIST_FIELDS:
            items = value if isinstance(value, list) else [value]
            out[key] = [str(v).strip() for v in items if str(v).strip()]
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            out[key] = str(value).strip()
        else:
            raise ValueError(f"slot {key!r} must be text, got {type(value).__name__}")
    return out


def attribute_sources(slots: dict[str, Any], evidence: Sequence[Chunk]) -> dict[str, Any]:
    """Record, per slot, the first evidence chunk whose text contains its value (for citations)."""
    sources: dict[str, str] = {}
    for key, value in slots.items():
        probe = value[0] if isinstance(value, list) and value else value
        if not isinstance(probe, str) or not probe:
            continue
        chunk = next((c for c in evidence if probe in c.index_text), None)
        if chunk is not None:
            sources[key] = chunk.chunk_id
    return {**slots, "sources": sources} if sources else dict(slots)


def slot_sources(slots: dict[str, Any]) -> dict[str, str]:
    """Slot name -> source chunk id, as the rules and the LLM attribution record them."""
    sources = slots.get("sources")
    return {str(k): str(v) for k, v in sources.items()} if isinstance(sources, dict) else {}
