"""DOCX with python-docx: paragraphs and tables in body order, heading styles as sections.

The body is walked on the XML itself (python-docx's `cell.text` would drop nested tables and
repeat merged cells), so every table is read on its grid: `w:gridSpan` and `w:vMerge` map
covered cells to their origin, and `tables.build_table` applies the merge rules.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lambdarag.errors import ExtractionError
from lambdarag.ingest.document import DocBuilder, Document, clean_title
from lambdarag.ingest.tables import Spans, build_table, clean_cell

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_HEADING_NAME = re.compile(r"^(heading|标题)\s*([1-9])$", re.IGNORECASE)
_SKIP_IN_TEXT = frozenset({_MC_FALLBACK, f"{_W}pPr", f"{_W}rPr", f"{_W}del", f"{_W}instrText"})
_TOC_NAME = re.compile(r"^(toc ?\d|toc heading|目录 ?\d*)$")
_MAX_HEADING_CHARS = 120
LIST_STYLE = -2


def extract_docx(path: Path, doc_id: str, source: str) -> list[Document]:
    document = _open(path)
    styles = _style_levels(document)
    builder = DocBuilder(doc_id, source, "docx")
    title = clean_title(document.core_properties.title)
    for element in _body_elements(document.element.body):
        if element.tag == f"{_W}tbl":
            grid, spans = table_grid(element)
            builder.table(build_table(grid, spans))
            continue
        level, text = _paragraph(element, styles)
        if level == -1:
            continue
        if level == 0 and not title:
            title = clean_title(text)
        elif level and len(text) <= _MAX_HEADING_CHARS:
            builder.heading(level, text)
        else:
            builder.text(text)
    props = document.core_properties
    return [builder.build(title, meta=[("subject", props.subject), ("category", props.category)])]


def _open(path: Path) -> Any:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        return docx.Document(str(path))
    except (PackageNotFoundError, KeyError, ValueError, zipfile.BadZipFile, OSError) as exc:
        raise ExtractionError(f"corrupt DOCX: {exc.__class__.__name__}: {exc}") from exc
    except Exception as exc:  # lxml.etree.XMLSyntaxError and friends from a damaged part
        raise ExtractionError(f"corrupt DOCX: {exc.__class__.__name__}: {exc}") from exc


def _style_levels(document: Any) -> dict[str, int]:
    """styleId -> heading level (0 = the Title style, -1 = a TOC entry, -2 = a list style)."""
    levels: dict[str, int] = {}
    for style in document.styles:
        name = (getattr(style, "name", "") or "").strip().lower()
        level = -1 if _TOC_NAME.match(name) else _style_level(style, depth=0)
        if level is None and _is_list_style(style, name):
            level = LIST_STYLE
        if level is not None and style.style_id:
            levels[style.style_id] = level
    return levels


def _is_list_style(style: Any, name: str) -> bool:
    return name.startswith(("list", "列表")) or style.element.find(f"{_W}pPr/{_W}numPr") is not None


def _style_level(style: Any, depth: int) -> int | None:
    if style is None or depth > 5:
        return None
    name = (getattr(style, "name", "") or "").strip()
    if name.lower() == "title" or name == "标题":
        return 0
    match = _HEADING_NAME.match(name)
    if match:
        return int(match.group(2))
    outline = _outline_level(style.element)
    if outline is not None:
        return outline
    return _style_level(getattr(style, "base_style", None), depth + 1)


def _outline_level(element: Any) -> int | None:
    node = element.find(f"{_W}pPr/{_W}outlineLvl")
    if node is None:
        return None
    value = node.get(f"{_W}val", "9")
    return int(value) + 1 if value.isdigit() and int(value) < 9 else None


def _body_elements(parent: Any) -> Iterator[Any]:
    """Paragraphs and tables in body order, unwrapping content controls and custom XML."""
    for child in parent.iterchildren():
        if child.tag in (f"{_W}p", f"{_W}tbl"):
            yield child
        elif child.tag in (f"{_W}sdt", f"{_W}customXml") and not _is_toc(child):
            content = child.find(f"{_W}sdtContent")
            yield from _body_elements(content if content is not None else child)


def _is_toc(sdt: Any) -> bool:
    """A table-of-contents control: page numbers of headings, noise for retrieval."""
    gallery = sdt.find(f"{_W}sdtPr/{_W}docPartObj/{_W}docPartGallery")
    return gallery is not None and "contents" in (gallery.get(f"{_W}val") or "").lower()


def _paragraph(element: Any, styles: dict[str, int]) -> tuple[int | None, str]:
    """(heading level or None, text); list items get a "- " prefix."""
    text = paragraph_text(element).strip()
    ppr = element.find(f"{_W}pPr")
    if ppr is None:
        return None, text
    style = ppr.find(f"{_W}pStyle")
    style_id = style.get(f"{_W}val") if style is not None else None
    level = _outline_level(element)
    if level is None and style_id is not None:
        level = styles.get(style_id)
    listed = level == LIST_STYLE or (level is None and ppr.find(f"{_W}numPr") is not None)
    if listed and text:
        return None, f"- {text}"
    return (None if level == LIST_STYLE else level), text


def paragraph_text(element: Any) -> str:
    """Visible text of a paragraph: runs, hyperlinks, fields' results, text boxes; no deletions."""
    parts: list[str] = []
    stack = [(element, False)]
    while stack:
        node, closing = stack.pop()
        if closing:
            parts.append("\n")
            continue
        tag = node.tag
        if tag in _SKIP_IN_TEXT or not isinstance(tag, str):
            continue
        if tag == f"{_W}t":
            parts.append(node.text or "")
        elif tag == f"{_W}tab":
            parts.append("\t")
        elif tag in (f"{_W}br", f"{_W}cr"):
            parts.append("\n")
        if tag == f"{_W}p" and node is not element:
            stack.append((node, True))
        stack.extend((child, False) for child in reversed(node))
    return "".join(parts)


def table_grid(tbl: Any) -> tuple[list[list[str]], Spans]:
    """Cell texts on the table grid and the merged cells (covered cell -> origin)."""
    grid: list[list[str]] = []
    spans: Spans = {}
    for r, tr in enumerate(tbl.findall(f"{_W}tr")):
        row: list[str] = []
        c = _int_val(tr.find(f"{_W}trPr/{_W}gridBefore"), 0)
        row.extend([""] * c)
        for tc in _row_cells(tr):
            width = max(1, _int_val(tc.find(f"{_W}tcPr/{_W}gridSpan"), 1))
            origin = _vmerge_origin(tc, r, c, spans, grid)
            row.extend([_cell_text(tc) if origin is None else ""] + [""] * (width - 1))
            for dc in range(width):
                if origin is not None:
                    spans[(r, c + dc)] = origin
                elif dc:
                    spans[(r, c + dc)] = (r, c)
            c += width
        grid.append(row)
    return grid, spans


def _row_cells(tr: Any) -> Iterator[Any]:
    for child in tr.iterchildren():
        if child.tag == f"{_W}tc":
            yield child
        elif child.tag in (f"{_W}sdt", f"{_W}customXml"):
            content = child.find(f"{_W}sdtContent")
            yield from _row_cells(content if content is not None else child)


def _vmerge_origin(tc: Any, r: int, c: int, spans: Spans, grid: list[list[str]]) -> tuple[int, int] | None:
    """The origin of a vertically continued cell (`<w:vMerge/>` without "restart"), else None."""
    vmerge = tc.find(f"{_W}tcPr/{_W}vMerge")
    if vmerge is None or vmerge.get(f"{_W}val", "continue") == "restart" or r == 0:
        return None
    if c >= len(grid[r - 1]):
        return None
    return spans.get((r - 1, c), (r - 1, c))


def _cell_text(tc: Any) -> str:
    parts: list[str] = []
    for child in _body_elements(tc):
        if child.tag == f"{_W}tbl":
            grid, _ = table_grid(child)
            rows = (" ".join(clean_cell(v) for v in row if v.strip()) for row in grid)
            parts.append("; ".join(row for row in rows if row))
        else:
            parts.append(paragraph_text(child).strip())
    return "\n".join(part for part in parts if part)


def _int_val(node: Any, default: int) -> int:
    if node is None:
        return default
    value = node.get(f"{_W}val", "")
    return int(value) if value.isdigit() else default
