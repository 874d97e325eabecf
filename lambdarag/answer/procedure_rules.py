"""Rule-based slots of a procedure (the no-LLM default): ordered steps, conditions, required materials, where to
apply and the policy basis, from the one document slot_evidence chose.

A regulation's articles are provisions, not steps (answer/extractive.py reads them as sentences); a form is no
basis; a numbered Latin heading is no step. Every filled slot records the chunk it came from in ``sources``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lambdarag.answer.lines import QUESTION_LINE, unwrapped_lines
from lambdarag.answer.needs import field_label, last_section
from lambdarag.answer.table_text import label_column, match_score, parse_table, question_grams
from lambdarag.records import Chunk
from lambdarag.text.patterns import ARTICLE, CITED_TITLE
from lambdarag.text.tokenizer import has_cjk

_STEP = re.compile(
    r"^\s*(?:\d{1,2}(?:[.．](?!\d)|[、)）])|[（(]\d{1,2}[）)]|第[一二三四五六七八九十]+步|[①②③④⑤⑥⑦⑧⑨⑩]|步骤\d+[:：]?)\s*"
)
_PAGE_REF = re.compile(r"(?:\s|\.{2,}|…+|·{2,})\d{1,4}$")  # "Legal Proceedings 37", "总则……1": a contents line
HEADING_MAX_WORDS = 4  # a numbered Latin line this short over a paragraph is a section heading ("2. Approval")
CONTENTS_SHARE = 0.5  # a list is a table of contents when this share of its items end in a page number
_CONDITION = re.compile(r"须|必须|应当|不得|不超过|超过|以上|以下|条件|适用|仅限|方可|才可|才能")
_WHERE_AFTER_VERB = re.compile(r"(?:交至|交到|投递至|送至|送到|提交至|提交到|前往|到)([^，,。；;、\n]{2,24})")
_PLACE_WORD = re.compile(r"窗口|大厅|室|楼|系统|平台|网站|办公室|中心|网点|服务点|服务站")
_PLACE_VERB = re.compile(r"(?:办理|申请|提交|咨询|领取|递交)$")  # "到某中心服务网点办理": the place is before the act
_PLACE = re.compile(r"[^，,。；;、\s]{0,8}?(?:\d+号窗口|大厅|[^，,。；;、\s]{1,6}楼[^，,。；;、\s]{1,6}室)")
# what a policy basis is called: a law, regulation, rule, measure, notice… (《…办法》, 《…条例》, 《…规定（2024）》)
_REGULATION = re.compile(r"(?:法|条例|规定|办法|细则|规则|通知|意见|决定|制度|规范|准则|标准|规程|指引|纲要|方案"
                         r"|公告|章程)(?:[（(][^）)]{1,12}[）)])?》$")
_LABEL_ONLY = re.compile(r"[^。.！!？?；;，,]{1,12}[：:]")
_PROCESS_SECTION = re.compile(r"流程|步骤|程序|办理|操作")
FAQ_QUESTIONS = 2  # a chunk with this many question lines is an FAQ, not a procedure
_MATERIAL_SECTION = re.compile(r"材料|附件|需提供|须提供|清单")
_CONDITION_SECTION = re.compile(r"条件|适用|对象|范围|要求")
_OTHER_LIST_SECTION = re.compile(r"条件|适用|对象|范围|材料|清单|附件")


def process_slots(question: str, evidence: Sequence[Chunk]) -> dict[str, Any]:
    """Ordered steps, conditions, required materials, where to apply and the policy basis."""
    wanted = question_grams(question)
    pool = _procedure_chunks(evidence)
    slots: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, finder in (("steps", _steps), ("materials", _materials), ("conditions", _conditions),
                         ("where", _where), ("basis", _basis)):
        value, chunk_id = finder(pool, wanted)
        if value:
            slots[name] = value
            sources[name] = chunk_id
    lead = _lead(next((c.text for c in pool if c.chunk_id == sources.get("steps")), ""))
    if lead:
        slots["lead"] = lead  # "年度预算采取“二上二下”程序编制：" names the procedure the steps belong to
    if slots:
        slots["sources"] = sources
    return slots


def _procedure_chunks(evidence: Sequence[Chunk]) -> list[Chunk]:
    """The chunks of the one document the procedure comes from, in fused order: the first, which slot_evidence
    chose as the procedure matching the question best. Mixing steps of one procedure with materials of another
    would mislead, and another document's numbered list answers another question: other documents are left out.
    """
    if not evidence:
        return []
    return [c for c in evidence if c.doc_id == evidence[0].doc_id and not _is_faq(c.text)]


def _is_faq(text: str) -> bool:
    """Questions with their answers ("1.什么是…？" / "问：…"): each answer answers its own question, and the
    sentence reader pairs them (answer/sentences.py); read as a procedure, its numbered questions became "steps"
    and one answer's clauses another question's conditions."""
    return sum(1 for line in unwrapped_lines(text) if QUESTION_LINE.search(line)) >= FAQ_QUESTIONS


def _lead(text: str) -> str:
    """The line introducing a numbered list ("…程序编制："), without its article number; "" when none."""
    lines = unwrapped_lines(text)
    first = next((i for i, line in enumerate(lines) if _STEP.match(line)), -1)
    if first <= 0 or not lines[first - 1].endswith(("：", ":")):
        return ""
    return ARTICLE.sub("", lines[first - 1]).rstrip("：:")


def _numbered(text: str) -> list[str]:
    lines = unwrapped_lines(text)
    return [_STEP.sub("", line).strip() for i, line in enumerate(lines)
            if _STEP.match(line) and _STEP.sub("", line) and not _numbered_heading(line, lines[i + 1: i + 2])]


def _numbered_heading(line: str, after: Sequence[str]) -> bool:
    """Whether a numbered line heads a section ("1. Scope" over its paragraph), not a step: a few Latin words
    without a full stop, followed by an unnumbered longer line. A Chinese step title over its explanation reads
    the same and is kept a step."""
    words = _STEP.sub("", line).strip()
    body = after[0] if after else ""
    return (not has_cjk(words) and len(words.split()) <= HEADING_MAX_WORDS and not words.endswith((".", ";", ":"))
            and bool(body) and not _STEP.match(body) and len(body) > len(words))


def _section(chunk: Chunk) -> str:
    """The chunk's own heading ("" for a document's preamble, whose breadcrumb is only the title)."""
    return last_section(chunk.breadcrumb)


def _clauses(text: str) -> list[str]:
    """The clauses of a text, but not of a field's sentence ("申请条件：1.…；2.…", which the sentence reader quotes
    whole with its label)."""
    lines = unwrapped_lines(text)
    sentences = (s for line in lines for s in re.split(r"。", line) if not field_label(s))
    return [c.strip() for s in sentences for c in re.split(r"[；;]", s) if c.strip()]


def _steps(pool: Sequence[Chunk], wanted: set[str]) -> tuple[list[str], str]:
    """Numbered lines of a procedure chunk; in a 流程/步骤 section, its lines (Word lists lose their numbers). Of a
    page's several procedure sections (申请, 调整配置, 退订流程), the one whose heading and steps match the question
    best; the first of equals."""
    sections: list[tuple[float, int, list[str], str]] = []
    for i, chunk in enumerate(pool):
        if _MATERIAL_SECTION.search(_section(chunk)) or parse_table(chunk.text) is not None:
            continue
        # unnumbered lines are steps, but not a note's label ("说明：", "Note:"), which heads what follows it
        items = _numbered(chunk.text) or [x for x in unwrapped_lines(chunk.text) if not _LABEL_ONLY.fullmatch(x)]
        if len(items) >= 2 and _PROCESS_SECTION.search(_section(chunk)) and not is_contents(items) \
                and not _articles(items):
            sections.append((match_score(wanted, f"{chunk.breadcrumb} {chunk.text}"), -i, items, chunk.chunk_id))
    if sections:
        _, _, items, chunk_id = max(sections, key=lambda s: s[:2])
        return items, chunk_id
    for chunk in pool:  # no procedure section: a numbered list of three or more outside 条件/材料 sections
        items = _numbered(chunk.text)
        if len(items) >= 3 and not _OTHER_LIST_SECTION.search(_section(chunk)) and not is_contents(items):
            return items, chunk.chunk_id
    return [], ""


def _articles(items: Sequence[str]) -> bool:
    """Whether a section's lines are a regulation's articles (第六条 …, with the clauses listed under them):
    provisions, not the steps of a procedure (a chapter "申请程序" of a regulation is made of them)."""
    return bool(items) and ARTICLE.match(items[0]) is not None


def is_contents(items: Sequence[str]) -> bool:
    """Whether numbered lines are a table of contents (most end in a page number), not the steps of a procedure."""
    return sum(1 for item in items if _PAGE_REF.search(item)) >= CONTENTS_SHARE * len(items)


def _materials(pool: Sequence[Chunk], wanted: set[str]) -> tuple[list[str], str]:
    """Items of a 材料 section: a table's name column, a numbered list, else its lines."""
    for chunk in pool:
        if not _MATERIAL_SECTION.search(_section(chunk)):
            continue
        table = parse_table(chunk.text)
        if table is not None:
            named = [i for i, h in enumerate(table.header) if "名称" in h] or [
                i for i, h in enumerate(table.header) if "材料" in h and "类" not in h]
            col = named[0] if named else label_column(table)
            note = next((i for i, h in enumerate(table.header) if "说明" in h or "备注" in h), -1)
            items = [f"{r[col]}（{r[note]}）" if 0 <= note < len(r) and r[note] else r[col]
                     for r in table.rows if col < len(r) and r[col]]
        else:
            items = _numbered(chunk.text) or [x for x in unwrapped_lines(chunk.text) if len(x) <= 60]
        if len(items) >= 2:  # a lone line is a table caption or a heading, not a list of materials
            return list(dict.fromkeys(items)), chunk.chunk_id
    return [], ""


def _conditions(pool: Sequence[Chunk], wanted: set[str]) -> tuple[list[str], str]:
    """The list of a 条件/适用 section, else up to three sentences with 须/不得/超过… that match the question."""
    for chunk in pool:
        items = _numbered(chunk.text)
        if len(items) >= 2 and _CONDITION_SECTION.search(_section(chunk)):
            return items, chunk.chunk_id
    scored: list[tuple[float, str, str]] = []
    segments = [(segment, chunk) for chunk in pool[:3] for segment in _clauses(chunk.text)]
    for segment, chunk in segments:
        # an article is read as a sentence, whole; a lead-in ("…适合以下业务场景：") announces, it states nothing
        if _CONDITION.search(segment) and not _STEP.match(segment) and not ARTICLE.match(segment) \
                and len(segment) <= 120 and "|" not in segment and not segment.endswith(("：", ":")):
            scored.append((match_score(wanted, segment), segment, chunk.chunk_id))
    scored.sort(key=lambda t: -t[0])
    # a piece a chunk's window cut ("上人民政府…") of a clause its neighbour holds whole is no clause of its own
    whole = [x for x in scored if not any(x[1] != y and x[1] in y for y, _ in segments)]
    top = [x for x in whole[:3] if x[0] > 0]
    return [x[1] for x in top], top[0][2] if top else ""


def _where(pool: Sequence[Chunk], wanted: set[str]) -> tuple[str, str]:
    """Where to hand in: a place after 交至/投递至/前往…, else the first window / hall / room named (read in the
    text's sentences: "到住房公积金\n管理中心服务网点办理" is one place)."""
    texts = [("\n".join(unwrapped_lines(chunk.text)), chunk.chunk_id) for chunk in pool[:4]]
    for text, chunk_id in texts:
        for m in _WHERE_AFTER_VERB.finditer(text):
            if _PLACE_WORD.search(m.group(1)):
                return _PLACE_VERB.sub("", m.group(1).strip()), chunk_id
    for text, chunk_id in texts:
        if m2 := _PLACE.search(text):
            return m2.group(0), chunk_id
    return "", ""


def _basis(pool: Sequence[Chunk], wanted: set[str]) -> tuple[list[str], str]:
    for chunk in pool[:4]:
        cited = CITED_TITLE.finditer(f"{chunk.breadcrumb}\n{chunk.text}")
        # with the brackets, as the answer quotes it; a form (《…申请表》) or a book is no basis
        found = list(dict.fromkeys(m.group(0) for m in cited if _REGULATION.search(m.group(0))))
        if found:
            return found[:3], chunk.chunk_id
    return [], ""
