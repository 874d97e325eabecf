"""A PDF table's header box over several columns whose words stand in them is that many cells (ingest/pdf_cells.py)."""

from __future__ import annotations

from pathlib import Path

from lambdarag.ingest.document import Table
from lambdarag.ingest.pdf_cells import column_texts
from lambdarag.ingest.pdf_reader import extract_pdf


def _checks_pdf(path: Path) -> Path:
    """A table whose two header rows have no rules between a group's columns (as forms are drawn): "Permit" and
    "Pre-Pawn" over "Handgun" and "Long Gun" each, under a title row spanning the table."""
    from reportlab.lib import colors
    from reportlab.pdfgen import canvas
    from reportlab.platypus import Table as Grid
    from reportlab.platypus import TableStyle

    rows = [["Checks by state", "", "", "", ""],
            ["State", "Permit", "", "Pre-Pawn", ""],
            ["", "Handgun", "Long Gun", "Handgun", "Long Gun"],
            ["Alabama", "18,870", "23,022", "14", "15"],
            ["Alaska", "209", "3,062", "9", "3"]]
    grid = Grid(rows, colWidths=[90, 70, 70, 70, 70])
    grid.setStyle(TableStyle([
        ("SPAN", (0, 0), (-1, 0)), ("ALIGN", (0, 0), (-1, 0), "CENTER"),
        ("BOX", (0, 0), (-1, -1), 0.5, colors.black), ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.black),
        ("LINEAFTER", (0, 1), (0, 2), 0.5, colors.black), ("LINEAFTER", (2, 1), (2, 2), 0.5, colors.black),
        ("LINEBELOW", (0, 2), (-1, 2), 0.5, colors.black), ("GRID", (0, 3), (-1, -1), 0.5, colors.black),
    ]))
    pdf = canvas.Canvas(str(path))
    grid.wrapOn(pdf, 450, 200)
    grid.drawOn(pdf, 60, 600)
    pdf.showPage()
    pdf.save()
    return path


def _table(path: Path) -> Table:
    tables = [b.table for doc in extract_pdf(path, "checks", path.name) for b in doc.blocks if b.table is not None]
    assert len(tables) == 1
    return tables[0]


def test_a_header_box_over_columns_is_split_by_where_its_words_stand(tmp_path: Path) -> None:
    table = _table(_checks_pdf(tmp_path / "checks.pdf"))
    assert table.header == ("State", "Permit / Handgun", "Permit / Long Gun", "Pre-Pawn / Handgun",
                            "Pre-Pawn / Long Gun")
    assert table.rows[0] == ("Alabama", "18,870", "23,022", "14", "15")
    assert table.caption == "Checks by state"  # the title's words fit columns too, but not every one of them


def _word(text: str, x0: float, x1: float, top: float) -> dict[str, object]:
    return {"text": text, "x0": x0, "x1": x1, "top": top, "bottom": top + 8}


def test_column_texts() -> None:
    columns = [(100.0, 150.0), (150.0, 200.0), (200.0, 250.0)]
    sub = [_word("Handgun", 105, 140, 20), _word("Long", 155, 170, 20), _word("Gun", 172, 190, 20),
           _word("*Other", 205, 230, 20)]
    assert column_texts(sub, columns) == ["Handgun", "Long Gun", "*Other"]
    assert column_texts([_word("Pre-Pawn", 160, 190, 10), *sub], columns) == [
        "Pre-Pawn / Handgun", "Pre-Pawn / Long Gun", "Pre-Pawn / *Other"]
    assert column_texts([_word("Background", 130, 180, 10)], columns) is None  # crosses a rule
    assert column_texts([_word("Totals", 105, 130, 10), _word("only", 155, 170, 10)], columns) is None  # 2 of 3


def test_a_box_over_columns_below_the_header_rows_stays_one_cell(tmp_path: Path) -> None:
    """A note over the table's width in its last row may have words that happen to fit its columns: lower than the
    header's rows, a box over columns is a merged cell, its text written once."""
    from reportlab.lib import colors
    from reportlab.pdfgen import canvas
    from reportlab.platypus import Table as Grid
    from reportlab.platypus import TableStyle

    rows = [["Item", "Amount"], ["Hotel", "180"], ["Meals", "60"], ["Rail", "95"], ["Note: figures", "exclude VAT"]]
    grid = Grid(rows, colWidths=[120, 120])
    grid.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 0.5, colors.black),
                              ("INNERGRID", (0, 0), (-1, -2), 0.5, colors.black),
                              ("LINEABOVE", (0, -1), (-1, -1), 0.5, colors.black)]))
    path = tmp_path / "amounts.pdf"
    pdf = canvas.Canvas(str(path))
    grid.wrapOn(pdf, 300, 200)
    grid.drawOn(pdf, 60, 600)
    pdf.showPage()
    pdf.save()
    table = _table(path)
    assert table.header == ("Item", "Amount") and table.rows[0] == ("Hotel", "180")
    assert table.rows[-1] == ("Note: figures exclude VAT", "")
