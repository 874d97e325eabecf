"""The cell grid of a pdfplumber table: merged cells, and the ones that only look merged.

pdfplumber finds a table's cells from its rules. A cell box covering several grid rows or columns is a merged
cell (its value labels, or fills, every cell it covers: ingest/tables.py). But a form often leaves out the rules
between a header's columns: "Permit  Handgun  Long Gun  *Other" then reads as one box over four columns, and each
of those columns would be labelled with all four words. Such a box in a table's first rows, whose words stand each
inside one of the columns it covers, every column holding some, on one line at least, is that many cells, each with
the words above it. A line whose words do not fit the columns (a group title over them, "Pre-Pawn", a title centred
across a word's column boundary) labels every column of the box, above the column's own words ("Pre-Pawn / Handgun").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lambdarag.ingest.tables import Spans

Box = tuple[float, float, float, float]  # x0, top, x1, bottom
_EDGE = 1.0  # points a word may stand past its column's rule
_SAME_LINE = 2.0  # points between the tops of two words of one line
# a table's first rows, where a header's boxes stand; lower down a box over columns is a merged cell of the data or a
# note over the table's width, whose words may happen to fit its columns
HEADER_ROWS = 3


def table_grid(table: Any, words: Sequence[dict[str, Any]]) -> tuple[list[list[str | None]], Spans]:
    """The table's cell texts and merged cells (covered cell -> origin cell), the page's ``words`` (pdfplumber
    ``extract_words``) splitting a box over several columns whose words stand in them."""
    grid: list[list[str | None]] = [list(row) for row in table.extract()]
    tops = sorted({cell[1] for cell in table.cells})
    lefts = sorted({cell[0] for cell in table.cells})
    bounds = [*lefts[1:], float(table.bbox[2])]  # the right rule of each column
    spans: Spans = {}
    for x0, top, x1, bottom in table.cells:
        origin = (tops.index(top), lefts.index(x0))
        rows = [r for r, t in enumerate(tops) if top <= t < bottom - 0.5]
        cols = [c for c, x in enumerate(lefts) if x0 <= x < x1 - 0.5]
        split = None
        if len(cols) > 1 and origin[0] < HEADER_ROWS:
            inside = [w for w in words if _centre_in(w, (x0, top, x1, bottom))]
            split = column_texts(inside, [(lefts[c], bounds[c]) for c in cols])
        if split is not None and origin[0] < len(grid):
            for c, text in zip(cols, split, strict=True):
                if c < len(grid[origin[0]]):
                    grid[origin[0]][c] = text
        for r in rows:
            for c in cols:
                source = (origin[0], c) if split is not None else origin  # each column its own words
                if (r, c) != source:
                    spans[(r, c)] = source
    return grid, spans


def column_texts(words: Sequence[dict[str, Any]], columns: Sequence[tuple[float, float]]) -> list[str] | None:
    """Each column's text, when a line of ``words`` has words in every one of the ``columns`` (left, right) and each
    word inside one; the lines that do not are labels over all the columns, " / " before a column's own words. None
    when no line stands in the columns."""
    parts: list[list[str]] = [[] for _ in columns]
    aligned = False
    for line in _lines(words):
        where = [_column_of(w, columns) for w in line]
        if None in where or len(set(where)) < len(columns):  # a title's few words, or one crossing a rule
            for part in parts:
                part.append(" ".join(w["text"] for w in line))
            continue
        aligned = True
        for c in sorted({c for c in where if c is not None}):
            parts[c].append(" ".join(w["text"] for w, at in zip(line, where, strict=True) if at == c))
    return [" / ".join(part) for part in parts] if aligned else None


def _lines(words: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Words in lines, top down, each line left to right."""
    lines: list[list[dict[str, Any]]] = []
    for word in sorted(words, key=lambda w: (w["top"], w["x0"])):
        if lines and abs(word["top"] - lines[-1][0]["top"]) <= _SAME_LINE:
            lines[-1].append(word)
        else:
            lines.append([word])
    return [sorted(line, key=lambda w: w["x0"]) for line in lines]


def _column_of(word: dict[str, Any], columns: Sequence[tuple[float, float]]) -> int | None:
    """The column the word stands in whole, None when it crosses a rule."""
    return next((c for c, (left, right) in enumerate(columns)
                 if word["x0"] >= left - _EDGE and word["x1"] <= right + _EDGE), None)


def _centre_in(word: dict[str, Any], box: Box) -> bool:
    x = (float(word["x0"]) + float(word["x1"])) / 2
    y = (float(word["top"]) + float(word["bottom"])) / 2
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]
