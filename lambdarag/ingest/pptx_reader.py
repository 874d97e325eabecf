"""PPTX with python-pptx: slide title as section; text frames, tables, charts and notes per slide."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lambdarag.errors import ExtractionError
from lambdarag.ingest.document import DocBuilder, Document, Table, clean_title
from lambdarag.ingest.tables import Spans, build_table

_SKIPPED_PLACEHOLDERS = frozenset({"SLIDE_NUMBER", "FOOTER", "DATE"})


def slide_locator(number: int) -> str:
    return f"第{number}张幻灯片"


def extract_pptx(path: Path, doc_id: str, source: str) -> list[Document]:
    presentation = _open(path)
    builder = DocBuilder(doc_id, source, "pptx", page_unit="张幻灯片")
    count = 0
    for count, slide in enumerate(presentation.slides, start=1):
        _slide(builder, slide, count)
    props = presentation.core_properties
    return [builder.build(clean_title(props.title), pages=count,
                          meta=[("subject", props.subject), ("category", props.category)])]


def _open(path: Path) -> Any:
    from pptx import Presentation

    try:
        return Presentation(str(path))
    except (KeyError, ValueError, zipfile.BadZipFile, OSError) as exc:
        raise ExtractionError(f"corrupt PPTX: {exc.__class__.__name__}: {exc}") from exc
    except Exception as exc:  # lxml syntax errors and package errors from a damaged part
        raise ExtractionError(f"corrupt PPTX: {exc.__class__.__name__}: {exc}") from exc


def _slide(builder: DocBuilder, slide: Any, number: int) -> None:
    locator = slide_locator(number)
    title_shape = slide.shapes.title
    title = " ".join((title_shape.text_frame.text if title_shape is not None else "").split())
    builder.set_section((title,) if title else (), locator)
    for shape in sorted(_shapes(slide.shapes), key=_position):
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        _shape(builder, shape, locator, number)
    notes = _notes(slide)
    if notes:
        builder.text(f"演讲者备注：{notes}", locator, number)


def _shapes(shapes: Any) -> Iterator[Any]:
    """Shapes of a slide, group shapes flattened."""
    for shape in shapes:
        if shape.shape_type is not None and shape.shape_type.name == "GROUP":
            yield from _shapes(shape.shapes)
        else:
            yield shape


def _position(shape: Any) -> tuple[int, int]:
    return (shape.top or 0, shape.left or 0)


def _shape(builder: DocBuilder, shape: Any, locator: str, number: int) -> None:
    kind = shape.placeholder_format.type if shape.is_placeholder else None
    if kind is not None and kind.name in _SKIPPED_PLACEHOLDERS:
        return
    if getattr(shape, "has_table", False) and shape.has_table:
        grid, spans = table_grid(shape.table)
        builder.table(build_table(grid, spans), locator, number)
    elif getattr(shape, "has_chart", False) and shape.has_chart:
        builder.table(chart_table(shape.chart), locator, number)
    elif shape.has_text_frame:
        builder.text(_frame_text(shape.text_frame), locator, number)


def _frame_text(frame: Any) -> str:
    """Paragraphs of a text frame; indented (level > 0) paragraphs as list items."""
    lines = []
    for paragraph in frame.paragraphs:
        text = " ".join(paragraph.text.split("\x0b"))
        if text.strip():
            lines.append(f"- {text.strip()}" if paragraph.level > 0 else text.strip())
    return "\n".join(lines)


def table_grid(table: Any) -> tuple[list[list[str]], Spans]:
    """Cell texts and merged cells (covered cell -> origin) of a PPTX table."""
    grid: list[list[str]] = []
    spans: Spans = {}
    for r, row in enumerate(table.rows):
        grid.append([])
        for c, cell in enumerate(row.cells):
            grid[r].append("" if cell.is_spanned else cell.text)
            if cell.is_merge_origin:
                for dr in range(cell.span_height):
                    for dc in range(cell.span_width):
                        if dr or dc:
                            spans[(r + dr, c + dc)] = (r, c)
    return grid, spans


def chart_table(chart: Any) -> Table | None:
    """A chart's data as a table: one row per category, one column per series."""
    try:
        plot = chart.plots[0]
        categories = [str(c) for c in plot.categories]
        series = [(s.name or f"系列{i + 1}", list(s.values)) for i, s in enumerate(plot.series)]
    except (IndexError, KeyError, ValueError, AttributeError, TypeError):
        return None
    if not categories or not series:
        return None
    caption = chart.chart_title.text_frame.text if chart.has_title else ""
    grid = [["类别", *(name for name, _ in series)]]
    for i, category in enumerate(categories):
        grid.append([category, *(_number(values[i]) if i < len(values) else "" for _, values in series)])
    return build_table(grid, header_rows=1, caption=caption)


def _number(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


def _notes(slide: Any) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    return " ".join(frame.text.split()) if frame is not None else ""
