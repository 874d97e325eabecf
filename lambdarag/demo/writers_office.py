"""Office writers: DOCX (python-docx), PPTX (python-pptx) and XLSX (openpyxl)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import docx
import pptx
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml.ns import qn
from docx.styles.style import BaseStyle
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet
from pptx.slide import Slide
from pptx.text.text import TextFrame
from pptx.util import Emu, Inches, Length, Pt

from .content_model import Bullets, Document, Section, Sheet, Steps, Table, cell_text

FIXED_TIME = datetime(2024, 9, 1, 8, 0, 0)
AUTHOR = "江城大学财务处"
EAST_ASIAN_FONT = "宋体"


def covered_cells(tbl: Table) -> set[tuple[int, int]]:
    """Cells hidden under a span (every cell of each span except its top-left one)."""
    hidden = {(r, c) for r0, c0, r1, c1 in tbl.spans for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)}
    return hidden - {(r0, c0) for r0, c0, _, _ in tbl.spans}


# --------------------------------------------------------------------------- DOCX


def _east_asian(style: BaseStyle) -> None:
    """Give a style an East Asian font so Word renders the Chinese text in 宋体."""
    style.element.get_or_add_rPr().get_or_add_rFonts().set(qn("w:eastAsia"), EAST_ASIAN_FONT)


def _docx_table(document: docx.document.Document, tbl: Table) -> None:
    if tbl.caption:
        document.add_paragraph(tbl.caption, style="Caption")
    grid = document.add_table(rows=len(tbl.rows), cols=tbl.width, style="Table Grid")
    for r0, c0, r1, c1 in tbl.spans:
        grid.cell(r0, c0).merge(grid.cell(r1, c1))
    hidden = covered_cells(tbl)
    for r, row in enumerate(tbl.rows):
        for c, value in enumerate(row):
            if (r, c) in hidden:
                continue
            cell = grid.cell(r, c)
            cell.text = cell_text(value)
            if r < tbl.header_rows:
                for run in cell.paragraphs[0].runs:
                    run.bold = True


def _docx_section(document: docx.document.Document, section: Section) -> None:
    document.add_heading(section.heading, level=section.level)
    for block in section.blocks:
        if isinstance(block, Steps):
            for item in block.items:
                document.add_paragraph(item, style="List Number")
        elif isinstance(block, Bullets):
            for item in block.items:
                document.add_paragraph(item, style="List Bullet")
        elif isinstance(block, Table):
            _docx_table(document, block)
        else:
            document.add_paragraph(block)


def write_docx(doc: Document, path: Path) -> None:
    """Title, centred meta lines, Heading 1/2 sections, List Number/Bullet items, grid tables."""
    document = docx.Document()
    for name in ("Normal", "Title", "Heading 1", "Heading 2", "Caption"):
        _east_asian(document.styles[name])
    props = document.core_properties
    props.title, props.author, props.last_modified_by = doc.title, AUTHOR, AUTHOR
    props.created = props.modified = FIXED_TIME
    props.revision = 1
    document.add_heading(doc.title, level=0)
    for line in doc.meta:
        document.add_paragraph(line).alignment = WD_ALIGN_PARAGRAPH.CENTER
    for section in doc.sections:
        _docx_section(document, section)
    document.save(str(path))


# --------------------------------------------------------------------------- PPTX

_TITLE_SLIDE, _TITLE_AND_CONTENT, _TITLE_ONLY = 0, 1, 5


def _slide_lines(section: Section) -> list[str]:
    lines: list[str] = []
    for block in section.blocks:
        if isinstance(block, Steps):
            lines += [f"{i}. {item}" for i, item in enumerate(block.items, start=1)]
        elif isinstance(block, Bullets):
            lines += list(block.items)
        elif isinstance(block, str):
            lines.append(block)
    return lines


def _fill_text_frame(frame: TextFrame, lines: list[str], size: int) -> None:
    frame.word_wrap = True
    for i, line in enumerate(lines):
        paragraph = frame.paragraphs[0] if i == 0 else frame.add_paragraph()
        paragraph.text = line
        for run in paragraph.runs:
            run.font.size = Pt(size)


def _inches(value: float) -> Length:
    return Emu(int(Inches(1) * value))


def _pptx_table(slide: Slide, tbl: Table, top: Length) -> None:
    weights = [max(len(cell_text(row[c])) for row in tbl.rows if c < len(row)) + 2 for c in range(tbl.width)]
    width = _inches(9)
    shape = slide.shapes.add_table(len(tbl.rows), tbl.width, _inches(0.5), top, width, _inches(0.45 * len(tbl.rows)))
    grid = shape.table
    for c, weight in enumerate(weights):
        grid.columns[c].width = Emu(int(width * weight / sum(weights)))
    for r0, c0, r1, c1 in tbl.spans:
        grid.cell(r0, c0).merge(grid.cell(r1, c1))
    hidden = covered_cells(tbl)
    for r, row in enumerate(tbl.rows):
        for c, value in enumerate(row):
            if (r, c) not in hidden:
                _fill_text_frame(grid.cell(r, c).text_frame, [cell_text(value)], 13)


def _pptx_slide(prs: pptx.presentation.Presentation, section: Section) -> None:
    tables = [b for b in section.blocks if isinstance(b, Table)]
    lines = _slide_lines(section)
    slide = prs.slides.add_slide(prs.slide_layouts[_TITLE_ONLY if tables else _TITLE_AND_CONTENT])
    assert slide.shapes.title is not None  # both layouts carry a title placeholder
    slide.shapes.title.text = section.heading
    if not tables:
        _fill_text_frame(slide.placeholders[1].text_frame, lines, 20)
    else:
        top = 1.6
        if lines:
            box = slide.shapes.add_textbox(_inches(0.5), _inches(top), _inches(9), _inches(0.5 * len(lines)))
            _fill_text_frame(box.text_frame, lines, 16)
            top += 0.5 * len(lines)
        for tbl in tables:
            _pptx_table(slide, tbl, _inches(top))
            top += 0.45 * len(tbl.rows) + 0.2
    if section.notes:
        slide.notes_slide.notes_text_frame.text = section.notes


def write_pptx(doc: Document, path: Path) -> None:
    """A title slide, then one slide per section; tables as table shapes; notes as speaker notes."""
    prs = pptx.Presentation()
    props = prs.core_properties
    props.title, props.author, props.last_modified_by = doc.title, AUTHOR, AUTHOR
    props.created = props.modified = FIXED_TIME
    props.revision = 1
    cover = prs.slides.add_slide(prs.slide_layouts[_TITLE_SLIDE])
    assert cover.shapes.title is not None
    cover.shapes.title.text = doc.title
    cover.placeholders[1].text_frame.text = "\n".join(doc.meta)
    for section in doc.sections:
        _pptx_slide(prs, section)
    prs.save(str(path))


# --------------------------------------------------------------------------- XLSX

_HEADER_FILL = PatternFill("solid", fgColor="DDEBF7")


def _display_width(text: str) -> int:
    return sum(2 if ord(ch) > 0x2E80 else 1 for ch in text)


def _xlsx_sheet(ws: Worksheet, sh: Sheet) -> None:
    tbl, hidden = sh.table, covered_cells(sh.table)
    for r, row in enumerate(tbl.rows, start=1):
        for c, value in enumerate(row, start=1):
            if (r - 1, c - 1) in hidden or value == "":
                continue
            cell = ws.cell(r, c, value)
            if isinstance(value, float):
                cell.number_format = "0.0"
    if sh.formula:
        header, template = sh.formula
        ws.cell(tbl.header_rows, tbl.width, header)
        for r in range(tbl.header_rows + 1, len(tbl.rows) + 1):
            ws.cell(r, tbl.width, template.format(r=r))
    if sh.footnote:
        ws.cell(len(tbl.rows) + 2, 1, sh.footnote)
        ws.merge_cells(start_row=len(tbl.rows) + 2, start_column=1, end_row=len(tbl.rows) + 2, end_column=tbl.width)
    for r0, c0, r1, c1 in tbl.spans:
        ws.merge_cells(start_row=r0 + 1, start_column=c0 + 1, end_row=r1 + 1, end_column=c1 + 1)
    _xlsx_style(ws, sh)


def _xlsx_style(ws: Worksheet, sh: Sheet) -> None:
    tbl = sh.table
    ws.cell(1, 1).font = Font(bold=True, size=14)
    ws.cell(1, 1).alignment = Alignment(horizontal="center", vertical="center")
    for r in range(2, tbl.header_rows + 1):
        for c in range(1, tbl.width + 1):
            cell = ws.cell(r, c)
            cell.font, cell.fill = Font(bold=True), _HEADER_FILL
            cell.alignment = Alignment(horizontal="center", vertical="center", wrap_text=True)
    for c in range(1, tbl.width + 1):
        texts = [cell_text(row[c - 1]) for row in tbl.rows[1:] if c - 1 < len(row)]
        widest = max((_display_width(t) for t in texts), default=8)
        ws.column_dimensions[get_column_letter(c)].width = min(max(8, widest + 2), 60)
    ws.freeze_panes = ws.cell(tbl.header_rows + 1, 1)


def write_xlsx(doc: Document, path: Path) -> None:
    """One worksheet per Sheet: merged title row, bold headers, values (and one formula column)."""
    wb = Workbook()
    wb.remove(wb.active)
    wb.properties.title, wb.properties.creator = doc.title, AUTHOR
    wb.properties.created = FIXED_TIME
    for sh in doc.sheets:
        _xlsx_sheet(wb.create_sheet(sh.name), sh)
    wb.save(str(path))
