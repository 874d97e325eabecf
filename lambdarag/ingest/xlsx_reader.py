"""XLSX with openpyxl: computed values (not formulas); each sheet one table or more.

A sheet holding several tables side by side or one below the other (separated by two or more
empty rows or columns) yields one table each; single empty rows and columns inside a table
are skipped, not taken as separators.
"""

from __future__ import annotations

import datetime as dt
import warnings
import zipfile
from pathlib import Path
from typing import Any

from lambdarag.errors import ExtractionError
from lambdarag.ingest.document import DocBuilder, Document, clean_title
from lambdarag.ingest.tables import Spans, build_table

Cell = tuple[int, int]
_GAP = 3  # rows/columns apart (two empty ones between) that separate tables on one sheet
_READ_ONLY_MB = 20  # above this, stream the workbook (merged ranges are then not available)


def sheet_locator(name: str) -> str:
    return f"工作表 {name}"


def extract_xlsx(path: Path, doc_id: str, source: str) -> list[Document]:
    builder = DocBuilder(doc_id, source, "xlsx")
    with warnings.catch_warnings():
        # openpyxl warns about workbook features it drops (data validation, extensions): not ours
        warnings.filterwarnings("ignore", category=UserWarning, module=r"openpyxl\.")
        workbook = _open(path)
        try:
            sheets = list(workbook.worksheets)
            for ws in sheets:
                _sheet(builder, ws)
            title = clean_title(workbook.properties.title)
        finally:
            workbook.close()
    return [builder.build(title, pages=len(sheets))]


def _open(path: Path) -> Any:
    import openpyxl

    read_only = path.stat().st_size > _READ_ONLY_MB * 1024 * 1024
    try:
        return openpyxl.load_workbook(path, read_only=read_only, data_only=True)
    except (KeyError, ValueError, TypeError, zipfile.BadZipFile, OSError) as exc:
        raise ExtractionError(f"corrupt XLSX: {exc.__class__.__name__}: {exc}") from exc
    except Exception as exc:  # lxml syntax errors and other damage inside a part
        raise ExtractionError(f"corrupt XLSX: {exc.__class__.__name__}: {exc}") from exc


def _sheet(builder: DocBuilder, ws: Any) -> None:
    locator = sheet_locator(ws.title)
    builder.set_section((ws.title,), locator)
    values = _values(ws)
    spans = _merged(ws)
    for rows, cols in _regions(values, spans):
        grid, region_spans = _region_grid(values, spans, rows, cols)
        builder.table(build_table(grid, region_spans), locator)


def _values(ws: Any) -> dict[Cell, str]:
    """Non-empty cell values by (row, column), 0-based."""
    cells: dict[Cell, str] = {}
    if hasattr(ws, "_cells"):
        # iterating ws._cells visits stored cells only; iter_rows over the declared dimension
        # would create every empty cell of a sheet formatted down to row 1,048,576
        items = ((r, c, cell.value) for (r, c), cell in ws._cells.items())
    else:  # read-only worksheet: a stream of rows
        items = ((cell.row, cell.column, cell.value) for row in ws.iter_rows() for cell in row
                 if getattr(cell, "row", None) is not None)
    for r, c, value in items:
        text = format_value(value)
        if text:
            cells[(r - 1, c - 1)] = text
    return cells


def format_value(value: object) -> str:
    """A computed cell value as text: 13.0 -> "13", dates as ISO, no float noise."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.10g}"
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    text = str(value).strip()
    return "" if text.startswith("=DISPIMG(") else text  # WPS in-cell picture placeholder


def _merged(ws: Any) -> Spans:
    spans: Spans = {}
    merged = getattr(ws, "merged_cells", None)
    for rng in getattr(merged, "ranges", ()):
        origin = (rng.min_row - 1, rng.min_col - 1)
        for r in range(rng.min_row - 1, rng.max_row):
            for c in range(rng.min_col - 1, rng.max_col):
                if (r, c) != origin:
                    spans[(r, c)] = origin
    return spans


def _regions(values: dict[Cell, str], spans: Spans) -> list[tuple[list[int], list[int]]]:
    """Blocks of rows, then groups of columns within each, then rows again within a group."""
    occupied = set(values) | {cell for cell, origin in spans.items() if origin in values}
    regions: list[tuple[list[int], list[int]]] = []
    for band in _runs(sorted({r for r, _ in occupied}), _GAP):
        in_band = {(r, c) for r, c in occupied if band[0] <= r <= band[-1]}
        for cols in _column_groups(in_band):
            rows = sorted({r for r, c in in_band if cols[0] <= c <= cols[-1]})
            regions.extend((sub, cols) for sub in _runs(rows, _GAP))
    return regions


def _column_groups(cells: set[Cell]) -> list[list[int]]:
    """Columns split at empty ones; a narrow gap is bridged when both sides share their rows."""
    groups: list[list[int]] = []
    for run in _runs(sorted({c for _, c in cells}), 2):
        if groups and run[0] - groups[-1][-1] < _GAP and _share_rows(cells, groups[-1], run):
            groups[-1].extend(run)
        else:
            groups.append(run)
    return groups


def _share_rows(cells: set[Cell], left: list[int], right: list[int]) -> bool:
    rows_left = {r for r, c in cells if left[0] <= c <= left[-1]}
    rows_right = {r for r, c in cells if right[0] <= c <= right[-1]}
    return 2 * len(rows_left & rows_right) >= min(len(rows_left), len(rows_right))


def _runs(indexes: list[int], gap: int) -> list[list[int]]:
    """Sorted indexes cut where two neighbours are ``gap`` or more apart."""
    runs: list[list[int]] = []
    for index in indexes:
        if runs and index - runs[-1][-1] < gap:
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs


def _region_grid(
    values: dict[Cell, str], spans: Spans, rows: list[int], cols: list[int]
) -> tuple[list[list[str]], Spans]:
    row_at = {r: i for i, r in enumerate(rows)}
    col_at = {c: i for i, c in enumerate(cols)}
    grid = [[values.get((r, c), "") for c in cols] for r in rows]
    region_spans: Spans = {}
    for (r, c), (r0, c0) in spans.items():
        if r in row_at and c in col_at and r0 in row_at and c0 in col_at:
            region_spans[(row_at[r], col_at[c])] = (row_at[r0], col_at[c0])
    return grid, region_spans
