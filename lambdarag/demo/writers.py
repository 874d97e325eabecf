"""One writer per file format, each turning a demo Document into a file at a given path.

PDF uses reportlab's built-in CID font STSong-Light (Adobe-GB1), so Chinese needs no font file;
the Office formats are rewritten with fixed zip timestamps and core-property dates so that two
runs give byte-identical files.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Paragraph, SimpleDocTemplate, Spacer
from reportlab.platypus import Table as PdfTable

from .content_model import Bullets, Document, Fmt, Steps, Table, cell_text
from .writers_office import AUTHOR, FIXED_TIME, write_docx, write_pptx, write_xlsx

CJK_FONT = "STSong-Light"

Writer = Callable[[Document, Path], None]


# --------------------------------------------------------------------------- plain text


def _table_lines(tbl: Table, sep: str) -> list[str]:
    return [sep.join(cell_text(c) for c in row) for row in tbl.filled()]


def _markdown_table(tbl: Table) -> list[str]:
    rows = [[cell_text(c).replace("|", "\\|") for c in row] for row in tbl.filled()]
    width = tbl.width
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return ([f"**{tbl.caption}**", ""] if tbl.caption else []) + lines


def render_markdown(doc: Document) -> str:
    """GitHub-flavoured Markdown: '#' title, '##'/'###' sections, pipe tables."""
    out = [f"# {doc.title}", ""] + [f"{line}  " for line in doc.meta] + ([""] if doc.meta else [])
    for section in doc.sections:
        out += ["#" * (section.level + 1) + " " + section.heading, ""]
        for block in section.blocks:
            if isinstance(block, Steps):
                out += [f"{i}. {item}" for i, item in enumerate(block.items, start=1)]
            elif isinstance(block, Bullets):
                out += [f"- {item}" for item in block.items]
            elif isinstance(block, Table):
                out += _markdown_table(block)
            else:
                out.append(block)
            out.append("")
    return "\n".join(out)


def render_text(doc: Document) -> str:
    """Plain text the way office staff type notices: indented paragraphs, numbered items."""
    out = [doc.title, ""] + list(doc.meta) + ([""] if doc.meta else [])
    for section in doc.sections:
        out.append(section.heading)
        for block in section.blocks:
            if isinstance(block, Steps):
                out += [f"　　{i}. {item}" for i, item in enumerate(block.items, start=1)]
            elif isinstance(block, Bullets):
                out += [f"　　- {item}" for item in block.items]
            elif isinstance(block, Table):
                out += ([block.caption] if block.caption else []) + _table_lines(block, " | ")
            else:
                out.append(f"　　{block}")
        out.append("")
    return "\n".join(out)


def write_md(doc: Document, path: Path) -> None:
    path.write_bytes(render_markdown(doc).encode(doc.encoding))


def write_txt(doc: Document, path: Path) -> None:
    """UTF-8 variants keep LF; legacy encodings (GB18030) get CRLF as Windows editors save them."""
    text = render_text(doc)
    if not doc.encoding.lower().startswith("utf"):
        text = text.replace("\n", "\r\n")
    path.write_bytes(text.encode(doc.encoding))


# --------------------------------------------------------------------------- PDF


# STSong-Light's cmap has no glyph for U+00B7 / U+2022; U+30FB draws the same dot and pdfminer
# reads it back as U+00B7, so the extracted text matches the source.
_PDF_GLYPHS = str.maketrans({"·": "・", "•": "●"})


def _pdf_text(text: str) -> str:
    return escape(text.translate(_PDF_GLYPHS))


def _register_cjk_font() -> None:
    if CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(CJK_FONT))


def _styles() -> dict[str, ParagraphStyle]:
    base = ParagraphStyle("body", fontName=CJK_FONT, fontSize=10.5, leading=17, wordWrap="CJK")
    return {
        "title": ParagraphStyle("title", parent=base, fontSize=18, leading=26, alignment=TA_CENTER),
        "meta": ParagraphStyle("meta", parent=base, fontSize=10, alignment=TA_CENTER, textColor=colors.grey),
        "h1": ParagraphStyle("h1", parent=base, fontSize=14, leading=22, spaceBefore=10, spaceAfter=4),
        "h2": ParagraphStyle("h2", parent=base, fontSize=12, leading=19, spaceBefore=6, spaceAfter=2),
        "body": ParagraphStyle("p", parent=base, firstLineIndent=21, spaceAfter=3),
        "item": ParagraphStyle("item", parent=base, leftIndent=21, spaceAfter=2),
        "cell": ParagraphStyle("cell", parent=base, fontSize=9.5, leading=14),
        "caption": ParagraphStyle("caption", parent=base, fontSize=10, alignment=TA_CENTER, spaceBefore=4),
    }


def _pdf_table(tbl: Table, styles: dict[str, ParagraphStyle]) -> list[Flowable]:
    data = [[Paragraph(_pdf_text(cell_text(c)), styles["cell"]) for c in row] for row in tbl.rows]
    style: list[tuple[object, ...]] = [
        ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("BACKGROUND", (0, 0), (-1, tbl.header_rows - 1), colors.HexColor("#E8EEF6")),
    ]
    style += [("SPAN", (c0, r0), (c1, r1)) for r0, c0, r1, c1 in tbl.spans]
    caption = [Paragraph(_pdf_text(tbl.caption), styles["caption"])] if tbl.caption else []
    return [*caption, PdfTable(data, style=style, repeatRows=tbl.header_rows, hAlign="CENTER"), Spacer(1, 6)]


def _pdf_story(doc: Document, styles: dict[str, ParagraphStyle]) -> list[Flowable]:
    story: list[Flowable] = [Paragraph(_pdf_text(doc.title), styles["title"])]
    story += [Paragraph(_pdf_text(line), styles["meta"]) for line in doc.meta]
    story.append(Spacer(1, 8))
    for section in doc.sections:
        story.append(Paragraph(_pdf_text(section.heading), styles["h1" if section.level == 1 else "h2"]))
        for block in section.blocks:
            if isinstance(block, Steps):
                items = [f"{i}. {item}" for i, item in enumerate(block.items, start=1)]
                story += [Paragraph(_pdf_text(item), styles["item"]) for item in items]
            elif isinstance(block, Bullets):
                story += [Paragraph(_pdf_text(f"● {item}"), styles["item"]) for item in block.items]
            elif isinstance(block, Table):
                story += _pdf_table(block, styles)
            else:
                story.append(Paragraph(_pdf_text(block), styles["body"]))
    return story


def _running_texts(doc: Document) -> Callable[[Canvas, SimpleDocTemplate], None]:
    """The onPage callback drawing the header line and the page-numbered footer on every page."""

    def draw(canvas: Canvas, template: SimpleDocTemplate) -> None:
        width, height = A4
        canvas.saveState()
        canvas.setFont(CJK_FONT, 9)
        canvas.drawString(20 * mm, height - 14 * mm, (doc.running_header or doc.title).translate(_PDF_GLYPHS))
        canvas.line(20 * mm, height - 16 * mm, width - 20 * mm, height - 16 * mm)
        footer = f"{doc.running_footer}　第 {canvas.getPageNumber()} 页".strip()
        canvas.drawCentredString(width / 2, 12 * mm, footer.translate(_PDF_GLYPHS))
        canvas.restoreState()

    return draw


def write_pdf(doc: Document, path: Path) -> None:
    """A4 PDF; invariant=1 fixes the creation date and document id, so output is reproducible."""
    _register_cjk_font()
    template = SimpleDocTemplate(
        str(path),
        pagesize=A4,
        leftMargin=20 * mm,
        rightMargin=20 * mm,
        topMargin=24 * mm,
        bottomMargin=22 * mm,
        title=doc.title,
        author=AUTHOR,
        creator="LambdaRAG demo generator",
        invariant=1,
    )
    on_page = _running_texts(doc)
    template.build(_pdf_story(doc, _styles()), onFirstPage=on_page, onLaterPages=on_page)


# --------------------------------------------------------------------------- zip normalisation

_CORE_DATES = re.compile(r"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)")


def normalize_zip(path: Path) -> None:
    """Rewrite an OOXML package with fixed member timestamps and fixed core-property dates."""
    with zipfile.ZipFile(path) as source:
        members = [(info.filename, source.read(info)) for info in source.infolist()]
    stamp = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in members:
            if name == "docProps/core.xml":
                data = _CORE_DATES.sub(rf"\g<1>{stamp}\g<3>", data.decode("utf-8")).encode("utf-8")
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME.timetuple()[:6])
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            target.writestr(info, data)


def _normalized(writer: Writer) -> Writer:
    def write(doc: Document, path: Path) -> None:
        writer(doc, path)
        normalize_zip(path)

    return write


WRITERS: dict[Fmt, Writer] = {
    "pdf": write_pdf,
    "docx": _normalized(write_docx),
    "pptx": _normalized(write_pptx),
    "xlsx": _normalized(write_xlsx),
    "md": write_md,
    "txt": write_txt,
}


def write_document(doc: Document, path: Path) -> None:
    """Write `doc` in its own format; an unknown format names the known ones."""
    try:
        writer = WRITERS[doc.fmt]
    except KeyError:
        raise ValueError(f"no writer for format {doc.fmt!r}; known: {sorted(WRITERS)}") from None
    writer(doc, path)
