"""Rule-based slot filling for person, process and data questions (the no-LLM default).

Every filled slot records the chunk it came from in ``sources`` so the extractive answer and the
context can cite it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lambdarag.answer.tables import (
    ParsedTable,
    best_column,
    best_row,
    label_column,
    match_score,
    parse_table,
    question_grams,
)
from lambdarag.records import Chunk

PHONE = re.compile(r"(?<!\d)(0\d{2,3}-?\d{7,8}|1[3-9]\d{9})(?!\d)")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
REGULATION = re.compile(r"《[^《》]{2,60}》")
_NAME_BEFORE_PHONE = re.compile(r"([\u4e00-\u9fff]{2,3})[，,：:\s]*(?:办公电话|联系电话|电话)")
_NAME_AFTER_ROLE = re.compile(
    r"(?:负责人|联系人|经办人|主管|科长|主任|处长)[：:\s]*([\u4e00-\u9fff]{2,3})(?=[，,；;（(\s]|$)"
)
_NAME_WITH_TITLE = re.compile(r"^([\u4e00-\u9fff]{2,4})[（(]([^）)]{1,8})[）)]$")
_STEP = re.compile(
    r"^\s*(?:\d{1,2}[.、．)）]|[（(]\d{1,2}[）)]|第[一二三四五六七八九十]+步|[①②③④⑤⑥⑦⑧⑨⑩]|步骤\d+[:：]?)\s*"
)
_CONDITION = re.compile(r"须|必须|应当|不得|不超过|超过|以上|以下|条件|适用|仅限|方可")
_WHERE_AFTER_VERB = re.compile(r"(?:交至|交到|投递至|送至|送到|提交至|提交到|前往|到)([^，,。；;、\n]{2,24})")
_PLACE_WORD = re.compile(r"窗口|大厅|室|楼|系统|平台|网站|办公室")
_PLACE = re.compile(r"[^，,。；;、\s]{0,8}?(?:\d+号窗口|报账大厅|[^，,。；;、\s]{1,6}楼[^，,。；;、\s]{1,6}室)")
_PROCESS_SECTION = re.compile(r"流程|步骤|程序|办理|操作")
_MATERIAL_SECTION = re.compile(r"材料|附件|需提供|须提供|清单")

# Header words that say which person slot a column holds; checked in order (e-mail before phone,
# because "联系方式 / 电子邮箱" holds both words).
PERSON_HEADERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("email", ("邮箱", "email", "e-mail", "邮件")),
    ("phone", ("电话", "手机", "phone", "tel")),
    ("name", ("姓名", "负责人", "经办人", "联系人", "主管人", "name")),
    ("title", ("职务", "职称", "岗位", "title")),
    ("department", ("部门", "科室", "单位", "机构", "department")),
    ("office", ("办公室", "办公地点", "地点", "窗口", "office")),
    ("duties", ("职责", "业务范围", "分工", "负责事项", "duties")),
)
PERSON_FIELDS = ("name", "title", "department", "phone", "email", "office", "duties")


def person_slots(question: str, evidence: Sequence[Chunk]) -> dict[str, Any]:
    """Name, title, department, phone, e-mail, office and duties of the person the question is after."""
    wanted = question_grams(question)
    found = _person_from_tables(wanted, evidence) or _person_from_prose(wanted, evidence)
    return found or {}


def _person_columns(table: ParsedTable) -> dict[int, str]:
    columns: dict[int, str] = {}
    for i, label in enumerate(table.header):
        low = label.lower()
        for slot, words in PERSON_HEADERS:
            if any(w in low for w in words) and slot not in columns.values():
                columns[i] = slot
                break
    return columns


def _person_from_tables(wanted: set[str], evidence: Sequence[Chunk]) -> dict[str, Any] | None:
    best: tuple[float, dict[str, Any]] | None = None
    for chunk in evidence:
        table = parse_table(chunk.text)
        if table is None:
            continue
        columns = _person_columns(table)
        if "name" not in columns.values() or not {"phone", "email", "duties", "office"} & set(columns.values()):
            continue
        index, score = best_row(table, wanted)
        if index >= 0 and (best is None or score > best[0]):
            best = (score, _row_person(table.rows[index], columns, chunk.chunk_id))
    return best[1] if best else None


def _row_person(row: tuple[str, ...], columns: dict[int, str], chunk_id: str) -> dict[str, Any]:
    slots: dict[str, Any] = {}
    for i, slot in columns.items():
        value = row[i].strip() if i < len(row) else ""
        if slot == "name" and (m := _NAME_WITH_TITLE.match(value)):
            value = m.group(1)
            slots.setdefault("title", m.group(2))
        if value:
            slots[slot] = value
    slots["sources"] = {k: chunk_id for k in slots}
    return slots


def _segments(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"[。；;\n]", text) if s.strip()]


def _person_from_prose(wanted: set[str], evidence: Sequence[Chunk]) -> dict[str, Any] | None:
    best: tuple[float, str, str] | None = None
    for chunk in evidence:
        for segment in _segments(chunk.text):
            if not (PHONE.search(segment) or EMAIL.search(segment)):
                continue
            score = match_score(wanted, segment)
            if best is None or score > best[0]:
                best = (score, segment, chunk.chunk_id)
    if best is None:
        return None
    _, segment, chunk_id = best
    slots: dict[str, Any] = {}
    name = _NAME_BEFORE_PHONE.search(segment) or _NAME_AFTER_ROLE.search(segment)
    if name:
        slots["name"] = name.group(1)
    if phone := PHONE.search(segment):
        slots["phone"] = phone.group(1)
    if email := EMAIL.search(segment):
        slots["email"] = email.group(0)
    slots["mention"] = segment
    slots["sources"] = {k: chunk_id for k in slots}
    return slots


def process_slots(question: str, evidence: Sequence[Chunk]) -> dict[str, Any]:
    """Ordered steps, conditions, required materials, where to apply and the policy basis."""
    wanted = question_grams(question)
    pool = _same_document_first(evidence)
    slots: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, finder in (("steps", _steps), ("materials", _materials), ("conditions", _conditions),
                         ("where", _where), ("basis", _basis)):
        value, chunk_id = finder(pool, wanted)
        if value:
            slots[name] = value
            sources[name] = chunk_id
    if slots:
        slots["sources"] = sources
    return slots


def _same_document_first(evidence: Sequence[Chunk]) -> list[Chunk]:
    """The top chunk's document first (a procedure's steps and materials sit in sibling chunks)."""
    if not evidence:
        return []
    top = evidence[0].doc_id
    return [c for c in evidence if c.doc_id == top] + [c for c in evidence if c.doc_id != top]


def _numbered(text: str) -> list[str]:
    return [_STEP.sub("", line).strip() for line in text.splitlines() if _STEP.match(line) and _STEP.sub("", line)]


def _steps(pool: Sequence[Chunk], wanted: set[str]) -> tuple[list[str], str]:
    for chunk in pool:
        if _MATERIAL_SECTION.search(chunk.breadcrumb.rsplit(">", 1)[-1]):
            continue
        items = _numbered(chunk.text)
        if len(items) >= 2 and (_PROCESS_SECTION.search(chunk.breadcrumb) or len(items) >= 3):
            return items, chunk.chunk_id
    return [], ""


def _materials(pool: Sequence[Chunk], wanted: set[str]) -> tuple[list[str], str]:
    for chunk in pool:
        if not _MATERIAL_SECTION.search(chunk.breadcrumb.rsplit(">", 1)[-1]):
            continue
        table = parse_table(chunk.text)
        if table is not None:
            named = [i for i, h in enumerate(table.header) if "名称" in h] or [
                i for i, h in enumerate(table.header) if "材料" in h and "类" not in h]
            col = named[0] if named else label_column(table)
            items = [r[col] for r in table.rows if col < len(r) and r[col]]
        else:
            items = _numbered(chunk.text) or [s for s in _segments(chunk.text) if len(s) <= 60]
        if items:
            return list(dict.fromkeys(items)), chunk.chunk_id
    return [], ""


def _conditions(pool: Sequence[Chunk], wanted: set[str]) -> tuple[list[str], str]:
    scored: list[tuple[float, str, str]] = []
    for chunk in pool[:3]:
        for segment in _segments(chunk.text):
            if _CONDITION.search(segment) and not _STEP.match(segment) and len(segment) <= 120:
                scored.append((match_score(wanted, segment), segment, chunk.chunk_id))
    scored.sort(key=lambda t: -t[0])
    top = [s for s in scored[:3] if s[0] > 0]
    return [s[1] for s in top], top[0][2] if top else ""


def _where(pool: Sequence[Chunk], wanted: set[str]) -> tuple[str, str]:
    """Where to hand in: a place after 交至/投递至/前往…, else the first window / hall / room named."""
    for chunk in pool[:4]:
        for m in _WHERE_AFTER_VERB.finditer(chunk.text):
            if _PLACE_WORD.search(m.group(1)):
                return m.group(1).strip(), chunk.chunk_id
    for chunk in pool[:4]:
        if m2 := _PLACE.search(chunk.text):
            return m2.group(0), chunk.chunk_id
    return "", ""


def _basis(pool: Sequence[Chunk], wanted: set[str]) -> tuple[list[str], str]:
    for chunk in pool[:4]:
        found = list(dict.fromkeys(REGULATION.findall(f"{chunk.breadcrumb}\n{chunk.text}")))
        if found:
            return found[:3], chunk.chunk_id
    return [], ""


def data_slots(question: str, evidence: Sequence[Chunk]) -> dict[str, Any]:
    """The table cell answering the question: value, its row and column headers and its source."""
    wanted = question_grams(question)
    best: tuple[float, dict[str, Any]] | None = None
    for rank, chunk in enumerate(evidence):
        table = parse_table(chunk.text)
        if table is None:
            continue
        found = _best_cell(table, wanted, chunk)
        # Earlier (better fused) chunks win ties: a small rank penalty breaks them.
        if found is not None and (best is None or found[0] - 0.01 * rank > best[0]):
            best = (found[0] - 0.01 * rank, found[1])
    return best[1] if best else {}


def _best_cell(table: ParsedTable, wanted: set[str], chunk: Chunk) -> tuple[float, dict[str, Any]] | None:
    label = label_column(table)
    row_i, row_score = best_row(table, wanted)
    if row_i < 0:
        return None
    col_i, col_score = best_column(table, wanted, skip=label)
    row = table.rows[row_i]
    slots: dict[str, Any] = {
        "table": table.caption or chunk.breadcrumb or chunk.title,
        "row": row[label] if label < len(row) else "",
        "row_values": {h or f"列{i + 1}": row[i] for i, h in enumerate(table.header) if i < len(row)},
        "source": chunk.chunk_id,
    }
    if col_i >= 0 and col_i < len(row) and row[col_i]:
        slots["column"] = table.header[col_i]
        slots["value"] = row[col_i]
    slots["sources"] = {k: chunk.chunk_id for k in ("table", "row", "column", "value") if k in slots}
    return row_score + col_score, slots
