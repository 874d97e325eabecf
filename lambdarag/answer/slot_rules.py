"""Rule-based slot filling for person and data questions (the no-LLM default); a procedure's slots are
answer/procedure_rules.py's.

Every filled slot records the chunk it came from in ``sources`` so the extractive answer and the
context can cite it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lambdarag.answer.lines import unwrapped_lines
from lambdarag.answer.table_lookup import Found, answering_tables, best_named_row
from lambdarag.answer.table_text import (
    ParsedTable,
    best_column,
    best_row,
    label_column,
    match_score,
    parse_table,
    question_grams,
    row_picking,
    superlative_row,
)
from lambdarag.records import Chunk
from lambdarag.text.patterns import CONTACT_EMAIL, CONTACT_PHONE

_NAME_BEFORE_PHONE = re.compile(r"([\u4e00-\u9fff]{2,3})[，,：:\s]*(?:办公电话|联系电话|电话)")
# the kind of a phone ("咨询电话", "值班电话"), which _NAME_BEFORE_PHONE would take for a name
_PHONE_KINDS = ("咨询", "值班", "服务", "办公", "联系", "报名", "监督", "投诉", "举报", "热线", "传真", "招生", "手机")
_NAME_AFTER_ROLE = re.compile(
    r"(?:负责人|联系人|经办人|主管|科长|主任|处长)[：:\s]*([\u4e00-\u9fff]{2,3})(?=[，,；;（(\s]|$)"
)
_NAME_WITH_TITLE = re.compile(r"^([\u4e00-\u9fff]{2,4})[（(]([^）)]{1,8})[）)]$")

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
MAX_LABEL_LINES = 3  # label lines ("某地", "王老师") a bare phone or e-mail line takes from before it
MAX_LABEL_CHARS = 20  # a longer line is prose, not a label
_WORD = re.compile(r"[\u4e00-\u9fffA-Za-z]")
CONTACT_BONUS = 2.0  # per contact field (phone, e-mail) a table row carries
PERSON_FIELDS = ("name", "title", "department", "phone", "email", "office", "duties")


def person_slots(question: str, evidence: Sequence[Chunk]) -> dict[str, Any]:
    """Name, title, department, phone, e-mail, office and duties of the person the question is after."""
    wanted = question_grams(question)
    found = _person_from_tables(question, evidence) or _person_from_prose(wanted, evidence)
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


def _person_from_tables(question: str, evidence: Sequence[Chunk]) -> dict[str, Any] | None:
    """The best matching person row; rows of other tables naming the same person fill its gaps."""
    rows: list[tuple[float, dict[str, Any]]] = []
    for chunk in evidence:
        table = parse_table(chunk.text)
        if table is None:
            continue
        columns = _person_columns(table)
        if "name" not in columns.values() or not {"phone", "email", "duties", "office"} & set(columns.values()):
            continue
        index, score = best_named_row(table, question, chunk.breadcrumb or chunk.title)
        if index < 0:
            continue
        person = _row_person(table.rows[index], columns, chunk.chunk_id)
        # a directory row with phone and e-mail answers more than an organisation chart row
        rows.append((score + CONTACT_BONUS * len({"phone", "email"} & set(person)), person))
        rows.extend((0.0, _row_person(r, columns, chunk.chunk_id)) for r in table.rows)
    if not rows or max(score for score, _ in rows) <= 0:
        return None
    best = max(rows, key=lambda t: t[0])[1]
    for _, other in rows:
        if other is not best and other.get("name") == best.get("name"):
            _fill_gaps(best, other)
    return best


def _fill_gaps(person: dict[str, Any], other: dict[str, Any]) -> None:
    for key in PERSON_FIELDS:
        if key in other and key not in person:
            person[key] = other[key]
            person["sources"][key] = other["sources"][key]


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
    """Sentences and lines (a sentence the page width broke is one line again); a line holding only a phone or
    e-mail takes the label lines just before it.

    A contact list flattened from a table or a page layout puts one cell on a line ("某地", "王老师",
    "138…", "某地", …): the phone's own line says nothing of whose it is, the lines before it do.
    """
    out: list[str] = []
    labels: list[str] = []
    for line in (s.strip() for s in re.split(r"[。；;\n]", "\n".join(unwrapped_lines(text)))):
        if not line:
            continue
        if _bare_contact(line):
            out.append(" ".join([*labels[-MAX_LABEL_LINES:], line]))
            labels = []
            continue
        out.append(line)
        labels = [*labels, line] if len(line) <= MAX_LABEL_CHARS else []
    return out


def _bare_contact(line: str) -> bool:
    rest = CONTACT_EMAIL.sub("", CONTACT_PHONE.sub("", line))
    return rest != line and not _WORD.search(rest)


def _person_from_prose(wanted: set[str], evidence: Sequence[Chunk]) -> dict[str, Any] | None:
    best: tuple[float, str, str] | None = None
    for chunk in evidence:
        heading = chunk.breadcrumb or chunk.title  # whose contacts a page lists: its title says
        for segment in _segments(chunk.text):
            if not (CONTACT_PHONE.search(segment) or CONTACT_EMAIL.search(segment)):
                continue
            score = match_score(wanted, f"{heading} {segment}")
            if best is None or score > best[0]:
                best = (score, segment, chunk.chunk_id)
    if best is None:
        return None
    _, segment, chunk_id = best
    slots: dict[str, Any] = {}
    name = _NAME_AFTER_ROLE.search(segment) or _NAME_BEFORE_PHONE.search(segment)
    if name and not name.group(1).endswith(_PHONE_KINDS):
        slots["name"] = name.group(1)
    if phone := CONTACT_PHONE.search(segment):
        slots["phone"] = phone.group(1)
    if email := CONTACT_EMAIL.search(segment):
        slots["email"] = email.group(0)
    slots["mention"] = segment
    slots["sources"] = {k: chunk_id for k in slots}
    return slots


def data_slots(question: str, evidence: Sequence[Chunk]) -> dict[str, Any]:
    """The table cell answering the question: value, its row and column headers and its source.

    The table lookup the extractive answer uses decides first (named row, asked column); without one, the
    best matching row of the best table is taken.
    """
    answering = answering_tables(question, [(c.breadcrumb or c.title, c.text) for c in evidence],
                                 [c.text for c in evidence])
    if answering:
        return _lookup_slots(answering[0], evidence[answering[0].index])
    wanted = question_grams(question)
    best: tuple[float, dict[str, Any]] | None = None
    for rank, chunk in enumerate(evidence):
        table = parse_table(chunk.text)
        if table is None:
            continue
        found = _best_cell(table, wanted, chunk, question)
        # Earlier (better fused) chunks win ties: a small rank penalty breaks them.
        if found is not None and (best is None or found[0] - 0.01 * rank > best[0]):
            best = (found[0] - 0.01 * rank, found[1])
    return best[1] if best else {}


def _lookup_slots(found: Found, chunk: Chunk) -> dict[str, Any]:
    table, match = found.table, found.match
    row = table.rows[match.rows[0]]
    slots: dict[str, Any] = {
        "table": found.where,
        "row": match.named[0],
        "row_values": {h or f"列{i + 1}": row[i] for i, h in enumerate(table.header) if i < len(row)},
        "source": chunk.chunk_id,
    }
    shown = [i for i in match.columns if i < len(row) and row[i]]
    if shown:
        slots["column"] = "、".join(table.header[i] for i in shown)
        slots["value"] = "、".join(row[i] for i in shown)
    slots["sources"] = {k: chunk.chunk_id for k in ("table", "row", "column", "value") if k in slots}
    return slots


def _best_cell(table: ParsedTable, wanted: set[str], chunk: Chunk,
               question: str = "") -> tuple[float, dict[str, Any]] | None:
    label = label_column(table)
    row_i, row_score = best_row(table, row_picking(wanted, table, chunk.breadcrumb or chunk.title))
    col_i, col_score = best_column(table, wanted, skip=label)
    extreme = superlative_row(table, col_i, question) if col_i >= 0 else -1
    if extreme >= 0:  # "哪个月受理的最多": the answer row is the column's maximum, not a matching label
        row_i, row_score = extreme, max(row_score, 1.0)
    if row_i < 0:
        return None
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
