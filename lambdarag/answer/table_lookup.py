"""Table lookup: the rows a question names and the columns it asks for, written out as an answer line.

A row is named when one of its cells occurs in the question ("北京", "软件工程"), weighted by how
specific the cell is (its length, shared by fewer rows); a column is asked for when its header occurs in
the question, shares its words, or is defined in the evidence text in the question's words ("B类人员为副高级
职称人员" makes 副高职称 ask for "B类人员"). Without a named row, 最多/最高… picks the column's extreme row
(totals excluded). Without an asked column, the whole row is the answer.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from lambdarag.answer import cues
from lambdarag.answer.cues import cue_pattern
from lambdarag.answer.table_text import (
    ParsedTable,
    grams,
    label_column,
    number,
    parse_table,
    question_grams,
    row_picking,
)
from lambdarag.text.dates import mentions_date
from lambdarag.text.tokenizer import normalize

MAX_ROWS = 6  # named rows listed together ("医学院各专业…" names two); more is a list, not an answer
PREFIX_WEIGHT = 0.5  # a cell named only by its part before a bracket ("工商管理类(国家专项)")
LEVELS = " / "  # a multi-level header's label joins its levels so (ingest/tables.py)
EXACT_COLUMN = 3.0  # a header quoted in the question outweighs shared words
NAMED_WEIGHT = 1.0  # a named cell's specificity on top of the words a row shares with the question
TOTAL_ROW = re.compile(r"^\s*(?:合计|总计|小计|全年合计|全年|全校|总体|汇总|totals?|sum)\b", re.IGNORECASE)
_MOST = cue_pattern(*cues.MOST, *cues.RANKED_FIRST, *cues.MOST_EN, flags=re.IGNORECASE)
_PRICE_SUPERLATIVE = cue_pattern(*cues.PRICE_SUPERLATIVE, flags=re.IGNORECASE)
_PRICE_HEADER = cue_pattern(*cues.PRICE_HEADER, flags=re.IGNORECASE)
_LEAST = cue_pattern(*cues.LEAST, *cues.LEAST_EN, flags=re.IGNORECASE)
_BRACKET = re.compile(r"\s*[(（][^()（）]*[)）]\s*")
_UNIT = re.compile(r"[(（]([^()（）/]{1,6})[)）]")
_WHICH = cue_pattern(*cues.WHICH, flags=re.IGNORECASE)
_ASKED_KIND = re.compile(r"哪(?:一个|个|一|些|位|家|所|种|类)?([\u4e00-\u9fff]{1,2})")
_DEFINITION_VERB = r"(?:为|是指|是|指|即|包括|：|:)"
_TEN_THOUSANDS = re.compile(r"(\d+(?:\.\d+)?)万(?=元|人|笔|$|[^\d])")
_PURE_NUMBER = re.compile(r"^[-+]?[\d,，.]+%?$")
_CODE = re.compile(r"^\d{5,}$")  # a run of digits without a separator: a code (600108, a student number) names a row

VALUE_QUESTION = cue_pattern(*cues.VALUE, *cues.VALUE_EN, flags=re.IGNORECASE)
DATE_WORDS = cue_pattern(*cues.DATE, *cues.DATE_EN, flags=re.IGNORECASE)
AMOUNT_WORDS = cue_pattern(*cues.AMOUNT, *cues.AMOUNT_TABLE, *cues.AMOUNT_EN, flags=re.IGNORECASE)
_RELATIVE_DAY = re.compile(r"\d{1,2}日前|次月|次年")  # a day a "when" cell names without a date
CAPTION_WEIGHT = 0.5  # a word the question shares with the table's caption or breadcrumb
RANK_PENALTY = 0.05  # per evidence position: fusion's order breaks near ties


@dataclass(frozen=True)
class TableMatch:
    """Rows the question names (or its superlative picks), the columns it asks for, and how well it matched."""

    rows: tuple[int, ...]
    columns: tuple[int, ...]  # empty: the whole row answers
    named: tuple[str, ...]  # the cells naming each row, as the answer shows them
    score: float
    exact: bool  # a row is named by a cell the question quotes
    superlative: bool = False
    defined: tuple[tuple[str, int], ...] = ()  # (definition, text index) tying the question's words to a column


def _key(text: str) -> str:
    """Text for containment checks: normalised, no spaces, amounts in 万 written out ("2万元" -> "20000元")."""
    return _TEN_THOUSANDS.sub(_write_out, normalize(text).replace(" ", ""))


def _write_out(m: re.Match[str]) -> str:
    value = float(m.group(1)) * 10_000
    return f"{value:.0f}" if value == int(value) else f"{value:g}"


def _cell_keys(cell: str) -> list[tuple[str, float]]:
    """The forms a question may name a cell by, with their weight: whole, else the part before a bracket."""
    whole = _key(cell)
    if len(whole) < 2 or (_PURE_NUMBER.match(whole) and not _CODE.match(whole)):
        return []
    keys = [(whole, 1.0)]
    head = _key(_BRACKET.split(cell)[0])
    if head != whole and len(head) >= 2:
        keys.append((head, PREFIX_WEIGHT))
    return keys


def named_rows(table: ParsedTable, question: str, heading: str = "") -> list[tuple[float, int, tuple[str, ...]]]:
    """(score, row index, named cells) of rows with a cell in the question; a cell in every row names none, nor one
    the table's ``heading`` or caption holds (a directory of 财务处 asked about 财务处: its 财务处 row is not meant)."""
    asked = _key(question)
    naming = _key(f"{heading} {table.caption}")
    counts = Counter(_key(c) for row in table.rows for c in set(row) if c)
    single = len(table.rows) <= 1
    out = []
    for i, row in enumerate(table.rows):
        score, cells = 0.0, []
        for cell in row:
            for key, weight in _cell_keys(cell):
                shared = counts[_key(cell)]
                if key in asked and key not in naming and (single or shared < len(table.rows)):
                    score += weight * len(key) / shared
                    cells.append(_BRACKET.split(cell)[0].strip() if weight < 1 else cell.strip())
                    break
        if score > 0:
            out.append((score, i, tuple(dict.fromkeys(cells))))
    return out


def definitions(header: Sequence[str], texts: Sequence[str]) -> dict[int, tuple[str, int]]:
    """Header index -> (how the evidence defines that label, index of the text saying so).

    "A类人员为校领导及正高级职称人员；B类人员为副高级职称人员及处级干部" defines the columns A类人员 and B类人员.
    """
    out: dict[int, tuple[str, int]] = {}
    for i, label in enumerate(header):
        core = _BRACKET.sub("", label).strip()
        if len(core) < 2:
            continue
        pattern = re.compile(re.escape(core) + _DEFINITION_VERB + r"([^；;。\n|]{2,60})")
        for t, text in enumerate(texts):
            if m := pattern.search(text):
                out[i] = (m.group(1), t)
                break
    return out


def column_scores(table: ParsedTable, question: str, texts: Sequence[str] = (),
                  naming: frozenset[str] | set[str] = frozenset()) -> list[float]:
    """Per column: header quoted in the question (strong), header words shared but the ``naming`` ones (words of
    the labels of the columns that name the row), and words of its definition."""
    asked, wanted = _key(question), question_grams(question) - naming
    defined = definitions(table.header, texts)
    scores = []
    for i, label in enumerate(table.header):
        core = _label_key(label)
        units = [_key(u) for u in _UNIT.findall(label)]
        # the header, or the unit in its brackets ("多少亿元" asks for "金额（亿元）"), quoted in the question
        quoted = (len(core) >= 2 and core in asked) or any(len(u) >= 2 and u in asked for u in units)
        score = EXACT_COLUMN if quoted else 0.0
        score += len(wanted & grams(label))
        if i in defined:
            shared = len(wanted & grams(defined[i][0]))
            score += shared if shared >= 2 else 0.0  # one shared word ("人员") defines nothing
        scores.append(score)
    return scores


def _label_key(label: str) -> str:
    """A column label as a question says it: no bracketed unit, the levels as one phrase ("Private Sale / Long Gun")."""
    return _key(_BRACKET.sub("", label).replace(LEVELS, " "))


def _most_specific(table: ParsedTable, columns: tuple[int, ...], question: str) -> tuple[int, ...]:
    """The asked columns the question says whole, without one whose label is part of another's it says ("Long Gun"
    beside "Private Sale / Long Gun", asked "private sale long gun checks") or holds one it says and more it does not
    ("Return to Seller - Private Sale / Long Gun"): the question names the one column."""
    asked = _key(question)
    keys = {i: _label_key(table.header[i]) for i in columns if i < len(table.header)}
    said = [key for key in keys.values() if key and key in asked]

    def other(key: str) -> bool:
        return bool(key) and any(key != s and (key in s or (s in key and key not in asked)) for s in said)

    return tuple(i for i in columns if not other(keys.get(i, "")))


def _asked_columns(scores: Sequence[float], skip: set[int]) -> tuple[int, ...]:
    """Quoted headers when there are any, else the best-scoring ones (ties kept); none when nothing matched."""
    candidates = [(s, i) for i, s in enumerate(scores) if i not in skip and s > 0]
    if not candidates:
        return ()
    quoted = [i for s, i in candidates if s >= EXACT_COLUMN]
    if quoted:
        return tuple(quoted)
    best = max(s for s, _ in candidates)
    return tuple(i for s, i in candidates if s == best)


def _price_column(table: ParsedTable) -> tuple[int, ...]:
    """The one column whose header names a price or a currency ("收费标准（元）", "Full day (USD)"), else none."""
    priced = tuple(i for i, header in enumerate(table.header) if _PRICE_HEADER.search(header))
    return priced if len(priced) == 1 else ()


def superlative_sign(question: str) -> int:
    """1 when the question asks which row holds the most (最多, highest…), -1 the least, 0 neither: both, or no
    "which" ("最多能借多少" asks for a limit; "哪个月最多" asks which row holds the extreme)."""
    most, least = _MOST.search(question), _LEAST.search(question)
    if not (most or least) or (most and least) or not _WHICH.search(question):
        return 0
    return 1 if most else -1


def _superlative(table: ParsedTable, column: int, question: str) -> int:
    """For 最多/最高/最少… the row with the extreme number in ``column``, totals excluded; -1 if none."""
    sign = superlative_sign(question)
    if not sign:
        return -1
    cells = [row[column] for row in table.rows if column < len(row) and row[column]]
    if sum(1 for c in cells if _PURE_NUMBER.match(c.replace(" ", ""))) * 2 < len(cells):
        return -1  # only a column of numbers has an extreme
    values = []
    for i, row in enumerate(table.rows):
        if column < len(row) and not any(TOTAL_ROW.match(c) for c in row if c):
            value = number(row[column])
            if value is not None:
                values.append((value, i))
    if not values:
        return -1
    return (max(values) if sign > 0 else min(values))[1]


def kind_bonus(table: ParsedTable, question: str) -> float:
    """1 when 哪个月/哪个学院… asks for the kind of thing the table's label column lists (月份, 学院)."""
    m = _ASKED_KIND.search(question)
    if m is None:
        return 0.0
    label = table.header[label_column(table)] if table.header else ""
    kind = m.group(1)
    return 1.0 if kind in label or kind[0] == label[:1] else 0.0


def lookup(table: ParsedTable, question: str, texts: Sequence[str] = (), heading: str = "") -> TableMatch | None:
    """The rows and columns of ``table`` (under ``heading``) the question asks for, or None when it names neither."""
    rows = named_rows(table, question, heading)
    naming = _cell_columns(table, rows)
    # the naming columns' labels say which row ("代码为300087"), not what is asked of it
    said = set().union(*(grams(table.header[i]) for i in naming if i < len(table.header)))
    scores = column_scores(table, question, texts, said)
    label = label_column(table)
    columns = _most_specific(table, _asked_columns(scores, {label} | naming), question)
    if rows:
        best = max(s for s, _, _ in rows)
        # the best named row, and every other the question names as fully, by whole cells ("the Board Room or
        # Seminar Room 3"; not every 历史类 row when 广东省历史类 is asked)
        most = max(len(cells) for s, _, cells in rows if s == best)
        top = [(i, cells) for s, i, cells in rows
               if s == best or (len(cells) >= most and _named_whole(table.rows[i], cells))][:MAX_ROWS]
        column_score = sum(scores[i] for i in columns)
        return TableMatch(tuple(i for i, _ in top), columns, tuple("、".join(c) for _, c in top),
                          best + column_score, True, defined=_definitions_used(table, question, texts, columns))
    if len(columns) != 1 and _PRICE_SUPERLATIVE.search(question):
        columns = _price_column(table) or columns  # "the cheapest licence": the price is the column compared
    if len(columns) == 1:
        extreme = _superlative(table, columns[0], question)
        if extreme >= 0:
            row = table.rows[extreme]
            name = row[label] if label < len(row) else ""
            return TableMatch((extreme,), columns, (name,), scores[columns[0]] + 1.0, False, True)
    return None


def _named_whole(row: Sequence[str], cells: Sequence[str]) -> bool:
    """Whether the question names the row by one of its cells whole, not by a part of one."""
    return any(cell in {c.strip() for c in row} for cell in cells)


def _definitions_used(table: ParsedTable, question: str, texts: Sequence[str],
                      columns: Sequence[int]) -> tuple[tuple[str, int], ...]:
    """("B类人员为副高级职称人员及处级干部", text index) when the question said 副高职称, not the column's name."""
    defined = definitions(table.header, texts)
    plain = column_scores(table, question)
    asked = column_scores(table, question, texts)
    return tuple((f"{table.header[i]}为{defined[i][0]}", defined[i][1]) for i in columns
                 if i in defined and asked[i] > plain[i])


def _cell_columns(table: ParsedTable, rows: Sequence[tuple[float, int, tuple[str, ...]]]) -> set[int]:
    """Columns holding the cells that name the rows: they say which row, not what is asked."""
    out: set[int] = set()
    for _, i, cells in rows:
        row = table.rows[i]
        out.update(j for j, cell in enumerate(row) if any(c and c in cell for c in cells))
    return out


@dataclass(frozen=True)
class _Words:
    """How an answer line is written in one language."""

    where: str  # "{where}" is the table's place
    name_sep: str  # between a row's other name and its named cell
    row: str  # "{name}" and "{cells}"
    cell: str  # "{header}" and "{value}"
    cells_sep: str
    rows_sep: str
    defined: str  # "{said}"


_CHINESE = _Words("{where}中，", "、", "{name}的{cells}", "{header}为{value}", "，", "；", "（{said}）")
_ENGLISH = _Words("In {where}, ", " / ", "{name}: {cells}", "{header} {value}", ", ", "; ", " ({said})")


def render(table: ParsedTable, match: TableMatch, where: str, marks: Sequence[str] = (),
           english: bool = False) -> str:
    """One answer line without its own citation: "<where>中，<row>的<column>为<value>，…" ("In <where>, <row>:
    <column> <value>, …" for an English reader); "" when the row holds nothing under the asked columns.

    A definition that linked the question to a column follows in brackets, with ``marks[text index]`` as its
    citation when given.
    """
    words = _ENGLISH if english else _CHINESE
    parts = []
    label = label_column(table)
    for i, name in zip(match.rows, match.named, strict=False):
        row = table.rows[i]
        if match.columns and label < len(row) and row[label] and row[label] not in name:
            name = f"{row[label]}{words.name_sep}{name}" if name else row[label]  # the row's own name first
        parts.append(_row_text(table, row, match.columns, name, words))
    body = words.rows_sep.join(p for p in parts if p)
    if match.defined:
        said = [f"{d}{marks[t] if t < len(marks) else ''}" for d, t in match.defined]
        body += words.defined.format(said=words.rows_sep.join(said))
    if not body:  # the named row holds nothing under the asked columns: no line, rather than "<where>中，"
        return ""
    return words.where.format(where=where) + body if where else body


def _row_text(table: ParsedTable, row: tuple[str, ...], columns: Sequence[int], name: str, words: _Words) -> str:
    shown = columns or [j for j in range(len(table.header)) if j < len(row) and row[j] and row[j] not in name]
    cells = [words.cell.format(header=table.header[j], value=row[j])
             for j in shown if j < len(row) and row[j] and j < len(table.header)]
    if not cells:
        return ""
    joined = words.cells_sep.join(cells)
    return words.row.format(name=name, cells=joined) if name else joined


@dataclass(frozen=True)
class Found:
    """A table among the candidates that answers the question: which candidate, the table, the match."""

    index: int
    table: ParsedTable
    match: TableMatch
    where: str
    score: float

    def line(self, marks: Sequence[str] = (), english: bool = False) -> str:
        """The answer line (no citation of its own; ``marks`` cite the candidate texts definitions came from)."""
        return render(self.table, self.match, self.where, marks, english)


def answering_tables(question: str, candidates: Sequence[tuple[str, str]], texts: Sequence[str] = ()) -> list[Found]:
    """Tables among (where, body) candidates that answer the question, best first.

    A table answers when the question names a row and asks for a column or a value (多少, 什么时候, 标准…), or
    when its superlative picks a row; ``texts`` are read for definitions of column labels.
    """
    wanted = question_grams(question)
    value_question = bool(VALUE_QUESTION.search(question))
    found = []
    for i, (where, body) in enumerate(candidates):
        table = parse_table(body)
        if table is None or not table.header:  # without a header no column is asked for
            continue
        match = lookup(table, question, texts, where)
        if match is None or (match.exact and not value_question and not _asks_column(table, match, question)):
            continue
        if not _holds_asked_kind(table, match, question):
            continue
        context = len(wanted & grams(f"{where} {table.caption}")) * CAPTION_WEIGHT
        score = match.score + context + kind_bonus(table, question) - RANK_PENALTY * i
        found.append(Found(i, table, match, table.caption or where, score))
    return sorted(found, key=lambda f: (-f.score, f.index))


def _asks_column(table: ParsedTable, match: TableMatch, question: str) -> bool:
    """Whether the question asks for a column by more than one shared word (one word is chance)."""
    scores = column_scores(table, question)
    return any(scores[i] >= 2 for i in match.columns)


def best_named_row(table: ParsedTable, question: str, heading: str = "") -> tuple[int, float]:
    """Index and score of the best row by shared words plus cells named in the question (-1 when none matches);
    the words naming the table (its ``heading``, its caption) pick none."""
    wanted = row_picking(question_grams(question), table, heading)
    named = {i: score for score, i, _ in named_rows(table, question, heading)}
    best, top = -1, 0.0
    for i, row in enumerate(table.rows):
        score = len(wanted & grams(" ".join(row))) + NAMED_WEIGHT * named.get(i, 0.0)
        if score > top:
            best, top = i, score
    return best, top


def _holds_asked_kind(table: ParsedTable, match: TableMatch, question: str) -> bool:
    """A "when" question needs a date among the shown cells, a "how much" question a number."""
    shown = render(table, match, "")
    if DATE_WORDS.search(question):
        return mentions_date(shown) or bool(_RELATIVE_DAY.search(shown))
    if AMOUNT_WORDS.search(question):
        return bool(re.search(r"\d", shown))
    return True
