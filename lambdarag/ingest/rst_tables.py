"""reStructuredText's four tables as cell grids (rst_reader.py reads the blocks, tables.py makes the `Table`).

- a grid table draws its cells: "+---+---+" rules, "|" between cells, a "+===+" rule under the header; a cell
  spanning columns is one cell (a span for tables.py), a cell's lines are one text;
- a simple table sets its columns with "=====  =====" rules: a rule under the header rows, a row whose first
  column is blank goes on with the row above;
- a list-table is a bullet list of rows, each a bullet list of cells, :header-rows: counting its header;
- a csv-table holds CSV lines, its :header: option giving the header.

Columns are counted in display width, as rST does: a CJK character takes two.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections.abc import Mapping
from itertools import pairwise

Grid = list[list[str]]
Spans = dict[tuple[int, int], tuple[int, int]]

_PAD = "\x00"  # follows a wide character so that character positions are display columns
_GRID_RULE = re.compile(r"\+(?:[-=]+\+)+")
_SIMPLE_RULE = re.compile(r"=+(?: +=+)+")
_SPAN_RULE = re.compile(r"[-\s]+")  # "-----  -----" under a header cell spanning columns
_PARTIAL_RULE = re.compile(r"[-=+\s]*-[-=+\s]*")  # a cell's rule where a cell beside it spans rows
_BULLET = re.compile(r"[-*+](?: +|$)")
_DELIMITERS = {"tab": "\t", "space": " "}


def width(text: str) -> int:
    """Display columns of ``text``: a wide (CJK) character takes two."""
    return sum(2 if _wide(ch) else 1 for ch in text)


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in "WF"


def is_grid_rule(line: str) -> bool:
    return _GRID_RULE.fullmatch(line) is not None


def is_simple_rule(line: str) -> bool:
    return _SIMPLE_RULE.fullmatch(line) is not None


def grid_table(lines: list[str]) -> tuple[Grid, Spans, int]:
    """The cells of a grid table's ``lines`` (its first rule to its last), the spans of cells merged across
    columns, and how many rows its header has (0 without a "+===+" rule)."""
    shown = [_columns(line) for line in lines]
    cuts = [n for n, char in enumerate(shown[0]) if char == "+"]
    rows: list[list[list[str]]] = []
    spans: Spans = {}
    header_rows = 0
    current: list[list[str]] | None = None  # the cells' lines of the row being read
    for line in shown[1:]:
        if is_grid_rule(line):
            rows += [current] if current is not None else []
            current = None
            header_rows = len(rows) if "=" in line and not header_rows else header_rows
            continue
        current = current if current is not None else [[] for _ in cuts[:-1]]
        _grid_line(line, cuts, current, len(rows), spans)
    rows += [current] if current is not None else []
    return [[_unpad("\n".join(cell)) for cell in row] for row in rows], spans, header_rows


def _grid_line(line: str, cuts: list[int], row: list[list[str]], number: int, spans: Spans) -> None:
    """Add one text line of a grid table to its row's cells: the text between two cell borders goes to the cell
    of the first; the columns a border is missing between are spanned by it."""
    walls = [n for n, cut in enumerate(cuts) if cut < len(line) and line[cut] in "|+"]
    if walls and walls[-1] < len(cuts) - 1 and line[cuts[walls[-1]] + 1 :].strip():
        walls.append(len(cuts) - 1)  # a ragged line ends before its last border: its text is still a cell's
    for first, last in pairwise(walls):
        text = line[cuts[first] + 1 : cuts[last]]
        if not _PARTIAL_RULE.fullmatch(text):
            row[first].append(text.strip())
        spans.update({(number, c): (number, first) for c in range(first + 1, last)})


def simple_table(lines: list[str]) -> tuple[Grid, int]:
    """The cells of a simple table's ``lines`` (its first rule to its last) and how many rows its header has."""
    shown = [_columns(line) for line in lines]
    starts = [match.start() for match in re.finditer("=+", shown[0])]
    grid: Grid = []
    header_rows = 0
    for line in shown[1:-1]:
        if is_simple_rule(line):
            header_rows = header_rows or len(grid)
            continue
        if not line.strip() or _SPAN_RULE.fullmatch(line):
            continue
        cells = [line[start:end].strip() for start, end in zip(starts, [*starts[1:], len(line)], strict=False)]
        if cells[0] or not grid:
            grid.append(cells)
        else:  # a blank first column: the row above goes on
            grid[-1] = [f"{above}\n{more}" for above, more in zip(grid[-1], cells, strict=False)]
    return [[_unpad(cell) for cell in row] for row in grid], header_rows


def list_table(content: list[str], options: Mapping[str, str]) -> tuple[Grid, int]:
    """The cells of a list-table's content and its :header-rows: count."""
    grid = [[" ".join(" ".join(cell).split()) for cell in bullet_items(row)] for row in bullet_items(content)]
    return grid, _count(options.get("header-rows", ""))


def csv_table(content: list[str], options: Mapping[str, str]) -> tuple[Grid, int]:
    """The cells of a csv-table's content, its :header: option as the first row; ([], 0) when not CSV."""
    delimiter = options.get("delim", ",").strip() or ","
    delimiter = _DELIMITERS.get(delimiter, delimiter if len(delimiter) == 1 else ",")
    try:
        rows = list(csv.reader([line for line in content if line.strip()], delimiter=delimiter,
                               skipinitialspace=True))
        header = next(csv.reader([options["header"]], skipinitialspace=True), []) if "header" in options else []
    except csv.Error:
        return [], 0
    if header:
        return [header, *rows], 1
    return rows, _count(options.get("header-rows", ""))


def bullet_items(lines: list[str]) -> list[list[str]]:
    """The items of a bullet list, each its lines without the bullet and the item's indent."""
    items: list[list[str]] = []
    indent = 0
    for line in lines:
        bullet = _BULLET.match(line)
        if bullet is not None:
            indent = bullet.end()
            items.append([line[indent:]])
        elif items:
            items[-1].append(line[indent:] if not line[:indent].strip() else line.lstrip())
    return items


def _count(value: str) -> int:
    return int(value.strip()) if value.strip().isdigit() else 0


def _columns(line: str) -> str:
    """``line`` with a pad after each wide character: its character positions are its display columns."""
    return "".join(f"{char}{_PAD}" if _wide(char) else char for char in line)


def _unpad(text: str) -> str:
    return text.replace(_PAD, "")
