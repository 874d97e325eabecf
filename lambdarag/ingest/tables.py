"""Turn a raw cell grid (with merged cells) into a `Table`: caption, column labels, data rows.

Shared by every reader. The rules, so that merged cells are neither lost nor duplicated:
- a vertically merged cell is repeated in each data row it spans (each row stays complete);
- a horizontally merged cell is written once, in its first column, in data rows;
- in header rows a merged cell labels every column it spans;
- leading rows holding a single value (a title spanning the table) become the caption, and so does an upper
  header row's one unmerged value beside the stub column's label (a period or unit set over the last column);
- the header is the first row, extended downwards over merged header cells and multi-level
  headers (at most three rows), joined per column as "upper / lower";
- empty rows and empty columns are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lambdarag.ingest.document import Table
from lambdarag.text.patterns import CURRENCY

Cell = tuple[int, int]
Spans = dict[Cell, Cell]  # covered cell -> the origin cell holding the value

_MAX_HEADER_ROWS = 3
_NUMERIC = re.compile(rf"^[-+−–(]?{CURRENCY}?\d[\d,，]*(\.\d+)?%?\)?$")
_CJK = re.compile(r"[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]")


def build_table(
    grid: Sequence[Sequence[str | None]],
    spans: Spans | None = None,
    *,
    header_rows: int | None = None,
    split_stacked: bool = False,
    caption: str = "",
) -> Table | None:
    """The table in ``grid``, or None when it holds nothing.

    Args:
        grid: rows of cell texts; covered cells of a merge may hold anything (ignored).
        spans: covered cell -> origin cell for merged cells.
        header_rows: how many leading rows are the header; None detects it, 0 means none.
        split_stacked: split rows whose cells all hold the same number of lines (PDF tables
            without row rules, where one extracted row is several real ones).
    """
    width = max((len(row) for row in grid), default=0)
    raw = [[(row[c] or "") if c < len(row) else "" for c in range(width)] for row in grid]
    full, body = _resolve(raw, spans or {}, expand=True), _resolve(raw, spans or {}, expand=False)
    keep_rows = [r for r, row in enumerate(full) if any(row)]
    # a column only ever covered by horizontal merges holds nothing of its own
    keep_cols = [c for c in range(width) if any(body[r][c] for r in keep_rows)]
    if not keep_rows or not keep_cols:
        return None
    full = [[full[r][c] for c in keep_cols] for r in keep_rows]
    body = [[body[r][c] for c in keep_cols] for r in keep_rows]
    kept = _reindex(spans or {}, keep_rows, keep_cols)
    captions, start = _caption_rows(full, caption)
    depth = _header_depth(full, start, kept) if header_rows is None else min(header_rows, len(full) - start)
    captions += _table_wide(full, range(start, start + depth), kept)  # a period set over the last column
    header = _labels(full[start : start + depth])
    rows = [row for row in body[start + depth :] if any(row)]
    if split_stacked:
        rows = [part for row in rows for part in _split_stacked(row)]
    return Table(
        header=tuple(clean_cell(h) for h in header),
        rows=tuple(tuple(clean_cell(v) for v in row) for row in rows),
        caption=" ".join(clean_cell(c) for c in captions if c),
    )


def clean_cell(text: str) -> str:
    """One line: line breaks joined (no space between CJK), whitespace collapsed."""
    if "\n" in text or "\r" in text:
        lines = [line.strip() for line in text.replace("\r", "\n").split("\n")]
        text = ""
        for line in (line for line in lines if line):
            cjk_join = text and (_CJK.match(text[-1]) or _CJK.match(line[0]))
            text = f"{text}{line}" if cjk_join or not text else f"{text} {line}"
    return " ".join(text.split())


def is_numeric(text: str) -> bool:
    return bool(_NUMERIC.match(text.replace(" ", "")))


def _resolve(raw: list[list[str]], spans: Spans, expand: bool) -> list[list[str]]:
    out = [row[:] for row in raw]
    for (r, c), (r0, c0) in spans.items():
        if r >= len(out) or c >= len(out[r]) or r0 >= len(raw) or c0 >= len(raw[r0]):
            continue
        out[r][c] = raw[r0][c0] if expand or c == c0 else ""
    return [[v.strip() for v in row] for row in out]


def _reindex(spans: Spans, keep_rows: list[int], keep_cols: list[int]) -> Spans:
    """Spans in the coordinates of the kept rows and columns."""
    row_at = {r: i for i, r in enumerate(keep_rows)}
    col_at = {c: i for i, c in enumerate(keep_cols)}
    return {
        (row_at[r], col_at[c]): (row_at[r0], col_at[c0])
        for (r, c), (r0, c0) in spans.items()
        if r in row_at and c in col_at and r0 in row_at and c0 in col_at
    }


def _caption_rows(full: list[list[str]], caption: str) -> tuple[list[str], int]:
    captions = [caption] if caption else []
    start = 0
    width = len(full[0])
    while width >= 2 and len(full) - start > 2:
        values = {v for v in full[start] if v}
        if len(values) != 1:
            break
        captions.append(values.pop())
        start += 1
    return captions, start


def _table_wide(full: list[list[str]], block: range, spans: Spans) -> list[str]:
    """The values of upper header rows that label the whole table, taken out of ``full``'s header ``block``: a row
    holding, beside the stub column's label, one unmerged value over a last header row of several labels (a
    statement's period, "January–June 2023" set over its last column, or its unit)."""
    if len(block) < 2 or sum(1 for v in full[block[-1]][1:] if v) < 2:
        return []
    wide = []
    for r in block[:-1]:
        own = [c for c, v in enumerate(full[r]) if c > 0 and v]
        merged = any(origin == (r, c) for c in own for origin in spans.values())
        if len(own) == 1 and not merged:
            wide.append(full[r][own[0]])
            full[r][own[0]] = ""
    return wide


def _header_depth(full: list[list[str]], start: int, spans: Spans) -> int:
    """Rows of the header block starting at ``start`` (one, unless the next rows continue it)."""
    if len(full) - start < 2:
        return len(full) - start
    end = start  # last header row, inclusive
    while end - start + 1 < _MAX_HEADER_ROWS and end + 1 < len(full) - 1:
        if not _continues_header(full, range(start, end + 1), end + 1, spans):
            break
        end += 1
    return end - start + 1


def _continues_header(full: list[list[str]], block: range, nxt: int, spans: Spans) -> bool:
    """Whether row ``nxt`` belongs to the header block above it.

    It does when it holds no number and: a header cell is merged down into it; or its own
    cells all sit under horizontally merged header cells (a multi-level header); or the
    block leaves most columns unlabeled; or it leaves the labeled stub column empty.
    """
    if any(is_numeric(v) for v in full[nxt] if v):
        return False
    if any(r == nxt and r0 in block for (r, _), (r0, _) in spans.items()):
        return True
    own = [c for c, v in enumerate(full[nxt]) if v and spans.get((nxt, c), (nxt, c))[0] == nxt]
    grouped = {c for (r, c), (r0, _) in spans.items() if r == r0 and r0 in block}
    grouped |= {c0 for (r, _), (r0, c0) in spans.items() if r == r0 and r0 in block}
    if grouped and own and all(c in grouped for c in own):
        return True
    labels = _labels([full[r] for r in block])
    unlabeled = 2 * sum(1 for v in labels if not v) > len(labels)
    return unlabeled or (bool(labels[0]) and not full[nxt][0] and len(labels) > 1)


def _labels(rows: list[list[str]]) -> list[str]:
    """One label per column: the distinct values of the header rows, top down, " / "-joined."""
    if not rows:
        return []
    labels = []
    for c in range(len(rows[0])):
        parts: list[str] = []
        for row in rows:
            value = clean_cell(row[c])
            if value and value not in parts:
                parts.append(value)
        labels.append(" / ".join(parts))
    return labels


def _split_stacked(row: list[str]) -> list[list[str]]:
    counts = {len(v.split("\n")) for v in row if v}
    filled = sum(1 for v in row if v)
    if filled < 2 or len(counts) != 1 or (n := counts.pop()) < 2:
        return [row]
    parts = [v.split("\n") if v else [""] * n for v in row]
    return [[col[i] for col in parts] for i in range(n)]
