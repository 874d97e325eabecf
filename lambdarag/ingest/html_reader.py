"""HTML with the standard library's parser: scripts and styles dropped, headings and tables kept."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from lambdarag.ingest.definitions import term_label
from lambdarag.ingest.document import DocBuilder, Document, clean_title
from lambdarag.ingest.tables import Spans, build_table
from lambdarag.ingest.text_formats import front_matter_title, read_text

_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "object", "canvas"})
_BLOCK = frozenset({
    "p", "div", "section", "article", "main", "aside", "header", "footer", "nav", "li", "ul", "ol",
    "dl", "dt", "dd", "br", "hr", "pre", "blockquote", "figure", "figcaption", "form", "address",
    "caption", "body", "html",
})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}


@dataclass
class _Cell:
    text: list[str] = field(default_factory=list)
    colspan: int = 1
    rowspan: int = 1
    header: bool = False


@dataclass
class _TableState:
    rows: list[list[_Cell]] = field(default_factory=list)
    cell: _Cell | None = None
    caption: list[str] = field(default_factory=list)


class _Parser(HTMLParser):
    def __init__(self, builder: DocBuilder) -> None:
        super().__init__(convert_charrefs=True)
        self.builder = builder
        self.title: list[str] = []
        self._skip = 0
        self._in_title = False
        self._in_head = False
        self._pre = 0
        self._heading: int | None = None
        self._buffer: list[str] = []
        self._tables: list[_TableState] = []
        self._in_caption = False
        self._in_term = False  # inside a <dt>: its text becomes the label of the description after it
        self._term: str | None = None  # a term read, waiting for its <dd>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in ("head", "body"):
            self._in_head = tag == "head"  # an unclosed <head> ends where <body> starts
        elif tag in _SKIP:
            self._skip += 1
        if self._skip or self._in_head:
            return
        if tag in _HEADINGS and not self._tables:
            self._flush()
            self._heading = _HEADINGS[tag]
        elif tag == "table":
            self._flush()
            self._tables.append(_TableState())
        elif self._tables:
            self._table_start(tag, dict(attrs))
        elif tag == "br" and self._in_term:
            self._buffer.append(" ")  # a term broken over two lines is one label
        elif tag == "dd" and (self._term is not None or self._in_term):  # "<dt>Fee<dd>$5": </dt> may be left out
            term = self._term if self._term is not None else "".join(self._buffer).strip()
            self._buffer, self._term, self._in_term = [term_label(term)], None, False
        elif tag in _BLOCK:
            self._flush()
            self._in_term = tag == "dt"
            if tag == "li":
                self._buffer.append("- ")
            self._pre += tag == "pre"

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag == "head":
            self._in_head = False
        elif tag in _SKIP:
            self._skip = max(0, self._skip - 1)
            return
        if self._skip or self._in_head:
            return
        if tag in _HEADINGS and self._heading is not None and not self._tables:
            self.builder.heading(self._heading, "".join(self._buffer))
            self._buffer, self._heading = [], None
        elif tag == "table" and self._tables:
            self._table_end()
        elif self._tables:
            self._table_stop(tag)
        elif tag == "br" and self._in_term:
            return  # <br/> ends as it starts: the term goes on
        elif tag == "dt" and self._in_term:
            self._in_term = False
            self._term, self._buffer = "".join(self._buffer).strip(), []
        elif tag in _BLOCK:
            self._flush()
            self._pre -= tag == "pre" and self._pre > 0

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)
        if self._skip or self._in_head:
            return
        text = data if self._pre else " ".join(data.split()) + (" " if data[-1:].isspace() else "")
        if data[:1].isspace() and not self._pre:
            text = " " + text
        if self._tables:
            state = self._tables[-1]
            target = state.caption if self._in_caption else state.cell.text if state.cell else None
            if target is not None:
                target.append(text)
        else:
            self._buffer.append(text)

    def close(self) -> None:
        super().close()
        while self._tables:
            self._table_end()
        self._flush()

    def _flush(self) -> None:
        if self._term:  # a term without a description stands alone
            self.builder.text(self._term)
        self._term = None
        text = "".join(self._buffer).strip()
        self._buffer = []
        if text and text != "-":
            self.builder.text(text)

    def _table_start(self, tag: str, attrs: dict[str, str | None]) -> None:
        state = self._tables[-1]
        if tag == "tr":
            state.rows.append([])
            state.cell = None
        elif tag in ("td", "th"):
            if not state.rows:
                state.rows.append([])
            state.cell = _Cell(colspan=_span(attrs.get("colspan")), rowspan=_span(attrs.get("rowspan")),
                               header=tag == "th")
            state.rows[-1].append(state.cell)
        elif tag == "caption":
            self._in_caption = True
        elif tag in ("br", "p", "div", "li") and state.cell is not None:
            state.cell.text.append("\n")

    def _table_stop(self, tag: str) -> None:
        if tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th"):
            self._tables[-1].cell = None

    def _table_end(self) -> None:
        state = self._tables.pop()
        grid, spans, header_rows = _grid(state.rows)
        caption = "".join(state.caption).strip()
        if self._tables:  # nested: flatten into the enclosing cell
            outer = self._tables[-1]
            flat = "; ".join(" ".join(c for c in row if c) for row in grid if any(row))
            if outer.cell is not None and flat:
                outer.cell.text.append(f" {flat} ")
            return
        self.builder.table(build_table(grid, spans, header_rows=header_rows, caption=caption))


def _span(value: str | None) -> int:
    try:
        return max(1, min(int(str(value).strip()), 1000))
    except ValueError:
        return 1


def _grid(rows: list[list[_Cell]]) -> tuple[list[list[str]], Spans, int | None]:
    """Cell texts on a grid, with covered cells of col/rowspans mapped to their origin."""
    taken: dict[tuple[int, int], str] = {}
    spans: Spans = {}
    for r, row in enumerate(rows):
        c = 0
        for cell in row:
            while (r, c) in taken:
                c += 1
            taken[(r, c)] = "".join(cell.text).strip()
            for dr in range(cell.rowspan if r + cell.rowspan <= len(rows) else len(rows) - r):
                for dc in range(cell.colspan):
                    if dr or dc:
                        taken[(r + dr, c + dc)] = ""
                        spans[(r + dr, c + dc)] = (r, c)
            c += cell.colspan
    width = max((c for _, c in taken), default=-1) + 1
    grid = [[taken.get((r, c), "") for c in range(width)] for r in range(len(rows))]
    leading_th = 0
    for row in rows:
        if not row or not all(cell.header for cell in row):
            break
        leading_th += 1
    return grid, spans, (leading_th or None)


# a server page's code between its markup ("<%@ include … %>", "<%= basePath %>", "<?php echo … ?>"): the server's,
# not the reader's; in a page saved as .html, "<%" is text a browser shows. An XML declaration or processing
# instruction ("<?xml … ?>") is no text in any page.
_SERVER_CODE = re.compile(r"<%.*?%>|<\?.*?\?>", re.DOTALL)
_INSTRUCTION = re.compile(r"<\?.*?\?>", re.DOTALL)
_HTML_SUFFIXES = (".html", ".htm")


def extract_html(path: Path, doc_id: str, source: str) -> list[Document]:
    builder = DocBuilder(doc_id, source, "html")
    parser = _Parser(builder)
    title, text = front_matter_title(read_text(path))  # a static site's page: its front matter is no text of it
    code = _INSTRUCTION if path.suffix.lower() in _HTML_SUFFIXES else _SERVER_CODE
    parser.feed(code.sub("", text))
    parser.close()
    return [builder.build(clean_title("".join(parser.title)) or clean_title(title))]
