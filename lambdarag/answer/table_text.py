"""Read a table back from a table chunk's text and match rows and columns against a question.

Table chunks are plain text; the chunker writes a header line and one line per row with the cells
separated by " | " (Markdown pipes, tabs and full-width bars are read too), so the parser accepts
any of those rather than depending on one exact layout.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lambdarag.answer import cues
from lambdarag.answer.cues import cue_pattern
from lambdarag.text.english import stem
from lambdarag.text.patterns import WHERE_FRAME
from lambdarag.text.script import simplified
from lambdarag.text.tokenizer import has_cjk, stopwords

_SEPARATOR_ROW = re.compile(r"^[\s|:：\-—=+]+$")
_SPLITTERS = ("|", "｜", "\t")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[A-Za-z]{2,}|\d+(?:\.\d+)?")
_MIXED = re.compile(r"[A-Za-z0-9]+[\u3400-\u9fff]")  # "C类", "2号", "4月": the letter or number is the point
_FOOTNOTE = re.compile(r"^\s*(?:注|备注|说明|资料来源|数据来源)\s*[:：]")
_MOST = cue_pattern(*cues.MOST, *cues.MOST_EN, flags=re.IGNORECASE)
_LEAST = cue_pattern(*cues.LEAST, *cues.LEAST_EN, flags=re.IGNORECASE)
_YEAR_HEAD = re.compile(r"(?:19|20)\d{2}\s*(?:年度?|年末|年初)?|FY\s?\d{2,4}", re.IGNORECASE)  # "2023年", "FY2024"
FORM_ROWS = 3  # a form has at least this many fields
FORM_LABEL_CHARS = 16  # a form's label ("办理时限", "Processing time") is at most this long
FORM_PHRASE = (10, 4)  # a value longer than this many characters (or of this many Latin words) says something
_SENTENCE_MARK = re.compile(r"[。；;，,]")
_NOT_LABEL = re.compile(r"[\d。，；,;！!？?]")  # a sentence or a figure is a value, never a field's label


@dataclass(frozen=True)
class ParsedTable:
    """A header, data rows and the caption lines found before the header."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""


def _cells(line: str, loose: bool = False) -> list[str] | None:
    """A row's cells: two or more, or one fenced by the separator on both sides ("| 柳州高级中学 |": a table of
    one column). A row of bars is fenced by them, unless ``loose`` (its table has a "---|---" rule): a bar inside a
    line of text is no cell separator ("(expression_list | yield_expression)", "cat a | sort")."""
    for sep in _SPLITTERS:
        if line.count(sep) >= 1:
            text = line.strip()
            cells = [c.strip() for c in text.strip(sep).split(sep)]
            fenced = sep != "\t" and len(text) > 2 and text.startswith(sep) and text.endswith(sep)
            if sep != "\t" and not fenced and not loose:
                return None
            return cells if len(cells) >= 2 or (fenced and cells[0]) else None
    return None


def _has_rule(text: str) -> bool:
    """Whether ``text`` holds a Markdown table's rule under its header ("---|---", "|:--|--:|")."""
    return any("|" in line and "-" in line and _SEPARATOR_ROW.match(line) for line in text.splitlines())


def parse_table(text: str) -> ParsedTable | None:
    """The first table in ``text`` (header = first line with cells), or None when there is none."""
    caption: list[str] = []
    header: list[str] | None = None
    rows: list[tuple[str, ...]] = []
    loose = _has_rule(text)
    for line in text.splitlines():
        if not line.strip() or _SEPARATOR_ROW.match(line):
            continue
        cells = _cells(line, loose)
        if cells is None:
            if header is None:
                caption.append(line.strip())
                continue
            if rows:
                break
            continue
        if header is None:
            header = cells
        elif not is_footnote(cells):
            rows.append(tuple(_pad(cells, len(header))))
    if header is None or not rows or is_form([header, *rows]):
        return None
    if _is_number(header[0]) and any(r and _is_number(r[0]) for r in rows):
        # the first row starts with a serial number as the rows do: the rest of a table whose header was in the
        # chunk before, all data
        return ParsedTable((), (tuple(header), *rows), " ".join(caption))
    spanned = _spanned_header(header, rows)
    if spanned is not None:
        header, rows = spanned
    return ParsedTable(tuple(header), tuple(rows), " ".join(caption))


def is_form(rows: Sequence[Sequence[str]]) -> bool:
    """Whether table rows are a form's fields: label and value side by side (a row holds one field, or two: "| 事项
    名称 | … | 事项类型 | … |"), distinct short labels (no figure, no sentence), values that are mostly not bare
    numbers (then it is a table of figures with its header) and not all single words (then it is a list with its
    header: "| 姓名 | 职务 |"): some value says a sentence. A form has no header row: its first row is a field like
    the others ("| 事项名称 | … |" of an 办事指南, "| Field | Value |" sheets)."""
    fields = [_fields(r) for r in rows]
    if any(f is None for f in fields):
        return False
    pairs = [pair for f in fields if f is not None for pair in f]
    labels = [label for label, _ in pairs]
    # two fields a row: a value repeated down a column ("经济舱", "经济舱") is a table's data under its header (one
    # field a row may say "无" twice)
    values = [v for f in fields if f is not None and len(f) > 1 for _, v in f if v]
    if len(pairs) < FORM_ROWS or len(set(labels)) < len(labels) or len(set(values)) < len(values):
        return False
    if any(not x or len(x) > FORM_LABEL_CHARS or _NOT_LABEL.search(x) for x in labels):
        return False
    return any(_says(v) for _, v in pairs[1:]) and sum(1 for _, v in pairs if _is_number(v)) * 3 < len(pairs)


def _fields(row: Sequence[str]) -> list[tuple[str, str]] | None:
    """A form row's (label, value) pairs, a value merged over several cells read once; None for an odd row."""
    cells = [c for i, c in enumerate(row) if i == 0 or c != row[i - 1]]
    if len(cells) not in (2, 4):
        return None
    return [(cells[i], cells[i + 1]) for i in range(0, len(cells), 2)]


def _says(value: str) -> bool:
    """Whether a cell says something (a phrase, a clause), not just names one thing ("处长", "Room 2")."""
    long = len(value) > FORM_PHRASE[0] if has_cjk(value) else len(value.split()) >= FORM_PHRASE[1]
    return long or bool(_SENTENCE_MARK.search(value))


def form_text(text: str) -> str | None:
    """``text`` with its form written as "label：value" lines (a field without a value left out), or None when
    the text holds no form. Read as a table, a form's first field became the header, every other field said
    "of" it."""
    lines, loose = text.splitlines(), _has_rule(text)
    cells = {i: c for i, line in enumerate(lines) if not _SEPARATOR_ROW.match(line) and (c := _cells(line, loose))}
    if not is_form(list(cells.values())):
        return None
    out = []
    for i, line in enumerate(lines):
        if i not in cells:
            if not line.strip() or not _SEPARATOR_ROW.match(line):  # a table's "|---|" line goes with it
                out.append(line)
            continue
        for label, value in _fields(cells[i]) or []:
            if value:
                out.append(f"{label}{': ' if label.isascii() else '：'}{value}")
    return "\n".join(out)


def _spanned_header(header: list[str], rows: list[tuple[str, ...]]) -> tuple[list[str], list[tuple[str, ...]]] | None:
    """A header of two rows read as one, or None: the top row's first cells span both rows and each of its other
    cells spans as many columns of the second ("| 项目 | 本年 | 上年 |" over "| 金额 | 占比 | 金额 | 占比 |"
    heads "项目 | 本年 金额 | 本年 占比 | 上年 金额 | 上年 占比"). The second row is all words, the rows under it
    hold figures (its cells are words or years: "2023年", "FY2024")."""
    if len(rows) < 2 or not all(c and (number(c) is None or _YEAR_HEAD.fullmatch(c)) for c in rows[0]):
        return None
    sub, data = rows[0], rows[1:]
    width = max(len(r) for r in data)
    leading = width - len(sub)  # the top row's cells that span both rows
    groups = len(header) - leading
    if leading < 1 or groups < 1 or len(sub) % groups or len(sub) == groups:
        return None
    if sum(1 for r in data if any(number(c) is not None for c in r[leading:])) * 2 < len(data):
        return None
    span = len(sub) // groups
    merged = [*header[:leading], *(f"{header[leading + i // span]} {cell}" for i, cell in enumerate(sub))]
    return merged, [tuple(_pad(list(r), width)) for r in data]


def is_footnote(cells: list[str]) -> bool:
    """A row holding one note ("注：…") spread over the table's width, not data."""
    filled = {c for c in cells if c}
    return len(filled) == 1 and bool(_FOOTNOTE.match(next(iter(filled))))


def superlative_row(table: ParsedTable, column: int, question: str) -> int:
    """For 最多/最高/最少… questions, the row with the largest (or smallest) number in ``column``; -1 if none."""
    most, least = _MOST.search(question), _LEAST.search(question)
    if not (most or least):
        return -1
    values = [(number(r[column]) if column < len(r) else None, i) for i, r in enumerate(table.rows)]
    numeric = [(v, i) for v, i in values if v is not None]
    if not numeric:
        return -1
    return (max(numeric) if most else min(numeric))[1]


def number(cell: str) -> float | None:
    """The number a cell holds ("8,202", "4.5%", "6800元"), or None."""
    m = re.search(r"-?\d[\d,，]*(?:\.\d+)?", cell)
    return float(m.group().replace(",", "").replace("，", "")) if m else None


def _pad(cells: list[str], width: int) -> list[str]:
    return cells + [""] * (width - len(cells)) if len(cells) < width else cells


def grams(text: str) -> set[str]:
    """CJK character bigrams (Traditional characters as Simplified: text/script.py), stemmed Latin words (stopwords
    left out) and numbers of a text."""
    text = simplified(text)
    out: set[str] = set()
    for run in _CJK_RUN.findall(text):
        out.update([run] if len(run) == 1 else (run[i : i + 2] for i in range(len(run) - 1)))
    out.update(_word_form(w) for w in _WORD.findall(text) if w.lower() not in stopwords())
    out.update(m.lower() for m in _MIXED.findall(text))
    return out


def _word_form(word: str) -> str:
    """A Latin word as matched: case-folded and stemmed ("Revenues" and "revenue" are one word); numbers as written."""
    lowered = word.lower()
    return stem(lowered) if lowered.isalpha() else lowered


def question_grams(question: str) -> set[str]:
    """The question's bigrams without interrogative noise (nor the noun of its "什么地方")."""
    return grams(WHERE_FRAME.sub(" ", question)) - cues.QUESTION_NOISE


def match_score(wanted: set[str], text: str) -> float:
    """How many of the wanted grams occur in the text (a count: longer matches weigh more)."""
    return float(len(wanted & grams(text)))


def row_picking(wanted: set[str], table: ParsedTable, heading: str = "") -> set[str]:
    """The question's grams that can pick a row: those naming the table (its heading, its caption) name every
    row and pick none ("2014年音乐表演专业招生简章" asked of, the row "音乐表演计划34人" is not meant)."""
    return (wanted - grams(f"{heading} {table.caption}")) or wanted


def best_row(table: ParsedTable, wanted: set[str]) -> tuple[int, float]:
    """Index and score of the row whose cells match the question best (first on ties)."""
    best, score = -1, 0.0
    for i, row in enumerate(table.rows):
        s = match_score(wanted, " ".join(row))
        if s > score:
            best, score = i, s
    return best, score


def best_column(table: ParsedTable, wanted: set[str], skip: int = -1) -> tuple[int, float]:
    """Index and score of the header label matching the question best, ``skip`` excluded."""
    best, score = -1, 0.0
    for i, label in enumerate(table.header):
        s = match_score(wanted, label)
        if i != skip and s > score:
            best, score = i, s
    return best, score


def label_column(table: ParsedTable) -> int:
    """The column naming each row: the first whose cells are mostly not numbers."""
    for i in range(len(table.header)):
        values = [r[i] for r in table.rows if i < len(r) and r[i]]
        if values and sum(1 for v in values if not _is_number(v)) * 2 > len(values):
            return i
    return 0


def _is_number(value: str) -> bool:
    return bool(re.fullmatch(r"[-+]?[\d,，.]+%?", value.strip()))
