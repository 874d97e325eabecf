"""PDF with pdfplumber: text per page in reading order, ruled tables kept as tables.

Table text is not repeated as running text; lines repeated at the top or bottom of most
pages (running headers, footers, page numbers) are dropped; lines set in a larger font than
the body become headings; a page without a text layer is recorded as needing OCR.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lambdarag.errors import ExtractionError
from lambdarag.ingest.document import DocBuilder, Document, Table, clean_title, page_locator
from lambdarag.ingest.pdf_cells import table_grid
from lambdarag.ingest.tables import build_table, clean_cell
from lambdarag.ingest.text_formats import numbered_heading_level

_MARGIN_LINES = 2  # lines at the top and at the bottom of a page checked for repetition
_MARGIN_BAND = 0.09  # ... when they also sit in the top or bottom 9% of the page
_PAGE_NUMBER = re.compile(
    r"^[-–—\s]*(第\s*)?\d+(\s*页)?(\s*(/|of|共)\s*\d+\s*页?)?[-–—\s]*$|^(page|p\.)\s*\d+(\s*of\s*\d+)?$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[。！？；：.!?;:]$")
_HEADING_RATIO = 1.2  # a line at least this much larger than the body font is a heading
_UNMAPPED = re.compile(r"^\(cid:\d+\)$")  # a glyph pdfminer could not map to Unicode
_MIN_GUTTER = 8.0  # points of empty space between two text columns
_MIN_COLUMN_WORDS = 10


@dataclass
class _Line:
    text: str
    top: float
    bottom: float
    x1: float
    size: float
    margin: bool = False  # within the top or bottom band where running headers and footers sit
    edge: float = 0.0  # right edge of the text in this line's column


@dataclass
class _Page:
    number: int
    items: list[_Line | tuple[float, Table]] = field(default_factory=list)
    needs_ocr: bool = False
    sizes: Counter[float] = field(default_factory=Counter)  # font size -> characters, tables too


def extract_pdf(path: Path, doc_id: str, source: str) -> list[Document]:
    builder = DocBuilder(doc_id, source, "pdf", page_unit="页")
    with _open(path) as pdf:
        info = pdf.metadata or {}
        title = clean_title(info.get("Title"))
        pages = list(_read_pages(pdf, builder))
    margins = _repeated_margins(pages)
    levels = _heading_levels(pages)
    for page in pages:
        if page.needs_ocr:
            builder.needs_ocr_pages.append(page.number)
        else:
            _emit_page(builder, page, margins, levels)
    return [builder.build(title, pages=len(pages), meta=[("subject", info.get("Subject"))])]


@contextmanager
def _open(path: Path) -> Iterator[Any]:
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfplumber.utils.exceptions import PdfminerException

    try:
        pdf = pdfplumber.open(path)
    except PdfminerException as exc:
        cause = exc.args[0] if exc.args else exc
        if isinstance(cause, PDFPasswordIncorrect | PDFEncryptionError):
            raise ExtractionError("encrypted PDF: cannot extract without the password") from exc
        raise ExtractionError(f"corrupt or truncated PDF: {cause.__class__.__name__}: {cause}") from exc
    except Exception as exc:  # pdfminer raises many types on damaged files
        raise ExtractionError(f"corrupt or truncated PDF: {exc.__class__.__name__}: {exc}") from exc
    try:
        yield pdf
    finally:
        pdf.close()


def _read_pages(pdf: Any, builder: DocBuilder) -> Iterator[_Page]:
    """Every page that can be read; an unreadable page is noted, not fatal."""
    failed = 0
    try:
        pages = pdf.pages
    except Exception as exc:
        raise ExtractionError(f"corrupt or truncated PDF: {exc.__class__.__name__}: {exc}") from exc
    for number, page in enumerate(pages, start=1):
        try:
            yield _read_page(page, number)
        except Exception as exc:  # a damaged page must not lose the others
            failed += 1
            builder.notes.append(f"page {number} unreadable: {exc.__class__.__name__}: {exc}")
        finally:
            page.close()
    if not pages:
        raise ExtractionError("corrupt or truncated PDF: no pages found")
    if failed == len(pages):
        raise ExtractionError(f"corrupt PDF: none of its {failed} pages could be read")


def _read_page(page: Any, number: int) -> _Page:
    chars = [ch for ch in page.chars if ch.get("text", "").strip()]
    if not chars:
        return _Page(number, needs_ocr=bool(page.images))
    if 2 * sum(1 for ch in chars if _UNMAPPED.match(ch["text"])) > len(chars):
        return _Page(number, needs_ocr=True)  # glyphs without Unicode: the text layer is unreadable
    tables = _tables(page) if (page.rects or page.lines or page.curves) else []
    boxes = [bbox for bbox, _ in tables]
    text_page = page.filter(lambda obj: obj.get("object_type") != "char" or not _inside(obj, boxes))
    band = _MARGIN_BAND * page.height
    gutter = _gutter(text_page, boxes, page.width, page.height, band)
    keyed: list[tuple[tuple[int, float], _Line | Table]] = [
        ((_segment(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), gutter, page.height, band), b[1]), table)
        for b, table in tables
    ]
    for segment, line in _segment_lines(text_page, gutter, page.height, band):
        keyed.append(((segment, line.top), line))
    keyed.sort(key=lambda pair: pair[0])
    edges: dict[int, float] = {}
    for (segment, _), item in keyed:
        if isinstance(item, _Line):
            edges[segment] = max(edges.get(segment, 0.0), item.x1)
    for (segment, _), item in keyed:
        if isinstance(item, _Line):
            item.edge = edges[segment]
    items: list[_Line | tuple[float, Table]] = [
        item if isinstance(item, _Line) else (key[1], item) for key, item in keyed
    ]
    sizes = Counter(round(ch["size"], 1) for ch in chars)
    return _Page(number, items, sizes=sizes)


def _segment(center: tuple[float, float], gutter: float | None, height: float, band: float) -> int:
    """Reading-order segment of a point: 0 top margin, 1 left (or only) column, 2 right, 3 bottom."""
    x, y = center
    if y < band:
        return 0
    if y > height - band:
        return 3
    return 2 if gutter is not None and x > gutter else 1


def _segment_lines(text_page: Any, gutter: float | None, height: float, band: float) -> Iterator[tuple[int, _Line]]:
    """Text lines with their segment; with two columns, each column is read on its own."""
    segments = (0, 1, 2, 3) if gutter is not None else (None,)
    for segment in segments:
        part = text_page if segment is None else text_page.filter(
            lambda obj, seg=segment: obj.get("object_type") != "char"
            or _segment(((obj["x0"] + obj["x1"]) / 2, (obj["top"] + obj["bottom"]) / 2), gutter, height, band) == seg
        )
        for line in part.extract_text_lines(return_chars=True, strip=True):
            sizes = [ch["size"] for ch in line["chars"] if ch.get("text", "").strip()]
            if line["text"].strip() and sizes:
                margin = line["top"] < band or line["bottom"] > height - band
                found = _Line(line["text"].strip(), line["top"], line["bottom"], line["x1"],
                              round(statistics.median(sizes), 1), margin)
                centre = ((line["x0"] + line["x1"]) / 2, (line["top"] + line["bottom"]) / 2)
                yield _segment(centre, gutter, height, band), found


def _gutter(text_page: Any, boxes: list[tuple[float, float, float, float]], width: float, height: float,
            band: float) -> float | None:
    """The x of the gap between two text columns, or None for a single-column page.

    A gap counts when no word or table of the body crosses it, it lies in the middle 40% of
    the page, both sides hold at least a fifth of the words and are wide, and the left
    column's lines run up to it (filled text, not the short labels of an unruled table).
    """
    words = [w for w in text_page.extract_words() if w["top"] >= band and w["bottom"] <= height - band]
    if len(words) < 2 * _MIN_COLUMN_WORDS:
        return None
    spans = sorted([(w["x0"], w["x1"]) for w in words] + [(b[0], b[2]) for b in boxes])
    best: tuple[float, float] | None = None  # (centre, width)
    reach = spans[0][1]
    for x0, x1 in spans[1:]:
        gap = x0 - reach
        centre = (reach + x0) / 2
        if gap >= _MIN_GUTTER and 0.3 * width <= centre <= 0.7 * width and (best is None or gap > best[1]):
            best = (centre, gap)
        reach = max(reach, x1)
    if best is None:
        return None
    left = [w for w in words if w["x1"] <= best[0]]
    right = [w for w in words if w["x0"] >= best[0]]
    if min(len(left), len(right)) < 0.2 * len(words):
        return None
    left_edge = min(w["x0"] for w in left)
    filled = statistics.median(w["x1"] for w in left) >= best[0] - 0.15 * (best[0] - left_edge)
    wide = best[0] - left_edge >= 0.25 * width and max(w["x1"] for w in right) - best[0] >= 0.25 * width
    return best[0] if filled and wide else None


def _tables(page: Any) -> list[tuple[tuple[float, float, float, float], Table]]:
    """Ruled tables of a page with at least two columns and one data row."""
    found = []
    tables = page.find_tables()
    words = page.extract_words() if tables else []
    for table in tables:
        grid, spans = table_grid(table, words)
        built = build_table(grid, spans, split_stacked=True)
        if built is not None and built.rows and len(built.header) >= 2:
            found.append((table.bbox, built))
    return found


def _inside(obj: dict[str, Any], boxes: list[tuple[float, float, float, float]]) -> bool:
    x = (obj["x0"] + obj["x1"]) / 2
    y = (obj["top"] + obj["bottom"]) / 2
    return any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in boxes)


def _margin_key(text: str) -> str:
    return re.sub(r"\d+", "#", "".join(text.split()))


def _margin_lines(page: _Page) -> list[_Line]:
    lines = [item for item in page.items if isinstance(item, _Line)]
    ends = lines[:_MARGIN_LINES] + lines[-_MARGIN_LINES:] if len(lines) > _MARGIN_LINES else lines
    return [line for line in ends if line.margin]


def _repeated_margins(pages: list[_Page]) -> set[str]:
    """Keys of lines found at the top or bottom of at least half the pages (three or more)."""
    text_pages = [page for page in pages if not page.needs_ocr]
    if len(text_pages) < 3:
        return set()
    counts = Counter(key for page in text_pages for key in {_margin_key(ln.text) for ln in _margin_lines(page)})
    threshold = max(3, len(text_pages) / 2)
    return {key for key, count in counts.items() if count >= threshold}


def _heading_levels(pages: list[_Page]) -> dict[float, int]:
    """Font size -> heading level, for the (at most three) sizes clearly above the body size."""
    weights: Counter[float] = Counter()
    for page in pages:
        weights.update(page.sizes)
    if not weights:
        return {}
    body = weights.most_common(1)[0][0]
    larger = sorted((size for size in weights if size >= body * _HEADING_RATIO), reverse=True)
    return {size: level for level, size in enumerate(larger[:3], start=1)}


def _emit_page(builder: DocBuilder, page: _Page, margins: set[str], levels: dict[float, int]) -> None:
    locator = page_locator(page.number)
    margin_ids = {id(line) for line in _margin_lines(page)}
    paragraph: list[_Line] = []
    for item in page.items:
        if not isinstance(item, _Line):
            _flush(builder, paragraph, locator, page.number)
            paragraph = []
            builder.table(item[1], locator, page.number)
            continue
        if id(item) in margin_ids and (_margin_key(item.text) in margins or _PAGE_NUMBER.match(item.text)):
            continue
        level = _heading_level(item, levels)
        if level is not None:
            _flush(builder, paragraph, locator, page.number)
            paragraph = []
            builder.heading(level, item.text, locator)
            continue
        if paragraph and _breaks(paragraph[-1], item):
            _flush(builder, paragraph, locator, page.number)
            paragraph = []
        paragraph.append(item)
    _flush(builder, paragraph, locator, page.number)


def _heading_level(line: _Line, levels: dict[float, int]) -> int | None:
    if len(line.text) > 60 or _SENTENCE_END.search(line.text) or _PAGE_NUMBER.match(line.text):
        return None
    if line.size in levels:
        return levels[line.size]
    level = numbered_heading_level(line.text)
    return None if level is None else len(levels) + level


def _breaks(previous: _Line, line: _Line) -> bool:
    """A new paragraph: a blank gap above the line (or a new column), or a short previous line
    ending a sentence."""
    height = max(previous.bottom - previous.top, 1.0)
    gap = line.top - previous.bottom
    if gap > 0.8 * height or gap < -height:  # blank space, or back up to the top of the next column
        return True
    return previous.x1 < previous.edge - 2 * previous.size and bool(_SENTENCE_END.search(previous.text))


def _flush(builder: DocBuilder, lines: list[_Line], locator: str, page: int) -> None:
    if lines:
        builder.text(clean_cell("\n".join(line.text for line in lines)), locator, page)
