"""The structured record of one extracted document: title, sections and typed blocks.

Every reader produces these through a `DocBuilder`; the chunker consumes them and the store
writes them, readable, to processed/docs/.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from lambdarag.text.wiki_markup import without_conversion_marks

BlockKind = Literal["text", "table"]
META_CHARS = 120  # a longer metadata value is a text, not a label of the document

_TITLE_JUNK = re.compile(
    r"^(untitled|无标题|microsoft (word|powerpoint|excel)|powerpoint (presentation|演示文稿)|"
    r"幻灯片 ?\d*|slide ?\d*|document ?\d*|文档 ?\d*|book ?\d*|工作簿 ?\d*|presentation ?\d*)$",
    re.IGNORECASE,
)
# a table's numbered title as its own paragraph ("表1 2024年学费标准", "表 2-3：经费预算", "Table 4. Room charges"),
# above the table (the convention of Chinese and most English styles) or below it (Word's default for captions)
TABLE_TITLE = re.compile(r"(?:表|Table|TABLE|Tab\.)\s*[\dA-Z一二三四五六七八九十]{1,3}(?:[-–.．]\d{1,3})*"
                         r"(?:\s*[：:.．、]?\s*[^。！？!?]*)?")
TABLE_TITLE_CHARS = 80
_PAGE_LOCATOR = re.compile(r"第(\d+)(?:-(\d+))?页")
_UNIT_LOCATOR = re.compile(r"第(\d+(?:-\d+)?)(页|张幻灯片)")
_SHEET_LOCATOR = re.compile(r"工作表 (.+)")
_ENGLISH_UNITS = {"页": ("p.", "pp."), "张幻灯片": ("slide", "slides")}


def page_locator(number: int) -> str:
    """The locator of one page ("第3页"); a chunk spanning pages gets "第3-4页" from the chunker."""
    return f"第{number}页"


def locator_pages(locator: str) -> tuple[int, ...]:
    """The pages a page locator names ("第3页" → (3,), "第3-5页" → (3, 4, 5)); () for any other locator."""
    match = _PAGE_LOCATOR.fullmatch(locator)
    if match is None:
        return ()
    first = int(match.group(1))
    return tuple(range(first, int(match.group(2) or first) + 1))


def english_locator(locator: str) -> str:
    """A stored locator as an English reader reads it: "第3页" → "p. 3", "第3-4页" → "pp. 3-4", "第2张幻灯片" →
    "slide 2", "工作表 收费表" → "sheet 收费表"; any other locator as it is. The stored form does not change."""
    if match := _UNIT_LOCATOR.fullmatch(locator):
        one, many = _ENGLISH_UNITS[match.group(2)]
        return f"{many if '-' in match.group(1) else one} {match.group(1)}"
    if match := _SHEET_LOCATOR.fullmatch(locator):
        return f"sheet {match.group(1)}"
    return locator


@dataclass(frozen=True)
class Table:
    """A table kept as a table: column labels, data rows and an optional caption."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"caption": self.caption, "header": list(self.header), "rows": [list(r) for r in self.rows]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Table:
        return cls(
            header=tuple(data.get("header", ())),
            rows=tuple(tuple(r) for r in data.get("rows", ())),
            caption=str(data.get("caption", "")),
        )


@dataclass(frozen=True)
class Block:
    """One paragraph (or list) of text, or one table, with where it sits."""

    kind: BlockKind
    text: str = ""  # text blocks only
    table: Table | None = None  # table blocks only
    section: tuple[str, ...] = ()  # heading path below the document title
    locator: str = ""  # "第3页", "第2张幻灯片", "工作表 收费表"
    page: int | None = None  # page or slide number, for locator ranges

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "section": list(self.section)}
        if self.locator:
            data["locator"] = self.locator
        if self.page is not None:
            data["page"] = self.page
        if self.table is not None:
            data["table"] = self.table.to_dict()
        else:
            data["text"] = self.text
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Block:
        table = data.get("table")
        return cls(
            kind="table" if table is not None else "text",
            text=str(data.get("text", "")),
            table=Table.from_dict(table) if table is not None else None,
            section=tuple(data.get("section", ())),
            locator=str(data.get("locator", "")),
            page=data.get("page"),
        )


@dataclass(frozen=True)
class Section:
    """A heading: its full path and where it starts."""

    path: tuple[str, ...]
    locator: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"path": list(self.path), "locator": self.locator}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Section:
        return cls(path=tuple(data.get("path", ())), locator=str(data.get("locator", "")))


@dataclass(frozen=True)
class Document:
    """One document extracted from a raw file (a JSONL file yields many)."""

    doc_id: str
    title: str
    source: str  # the raw file, relative to raw/
    format: str  # pdf, docx, pptx, xlsx, md, rst, txt, html, csv, jsonl
    blocks: tuple[Block, ...] = ()
    sections: tuple[Section, ...] = ()
    pages: int = 0  # pages, slides or sheets
    page_unit: str = ""  # "页" or "张幻灯片": how a page range is written in a locator
    needs_ocr_pages: tuple[int, ...] = ()  # pages without a text layer
    notes: tuple[str, ...] = ()  # what the operator should know (wrong extension, skipped lines)
    date: str = ""  # the document's own date, normalised ("2023-05-31"); "" unknown
    meta: tuple[tuple[str, str], ...] = ()  # (field, value) the source gives: file name, subject, JSONL fields

    def to_dict(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "title": self.title,
            "source": self.source,
            "format": self.format,
            "pages": self.pages,
            "page_unit": self.page_unit,
            "needs_ocr_pages": list(self.needs_ocr_pages),
            "notes": list(self.notes),
            "date": self.date,
            "meta": [list(pair) for pair in self.meta],
            "sections": [s.to_dict() for s in self.sections],
            "blocks": [b.to_dict() for b in self.blocks],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Document:
        return cls(
            doc_id=str(data["doc_id"]),
            title=str(data.get("title", "")),
            source=str(data.get("source", "")),
            format=str(data.get("format", "")),
            blocks=tuple(Block.from_dict(b) for b in data.get("blocks", ())),
            sections=tuple(Section.from_dict(s) for s in data.get("sections", ())),
            pages=int(data.get("pages", 0)),
            page_unit=str(data.get("page_unit", "")),
            needs_ocr_pages=tuple(data.get("needs_ocr_pages", ())),
            notes=tuple(data.get("notes", ())),
            date=str(data.get("date", "")),
            meta=tuple((str(k), str(v)) for k, v in data.get("meta", ())),
        )


def metadata(pairs: Iterable[tuple[str, object]]) -> tuple[tuple[str, str], ...]:
    """(field, value) pairs kept as one-line strings; empty values, and values over META_CHARS, are dropped."""
    out = []
    for key, value in pairs:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            text = " ".join(str(value).split())
            if text and len(text) <= META_CHARS:
                out.append((str(key), text))
    return tuple(out)


def clean_title(value: object) -> str:
    """A metadata title worth showing, or "" (drops "Microsoft Word - x.doc" and placeholders)."""
    text = " ".join(str(value or "").split())
    text = re.sub(r"^microsoft (word|powerpoint|excel) - ", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\.(docx?|pptx?|xlsx?|pdf)$", "", text, flags=re.IGNORECASE)
    return "" if _TITLE_JUNK.match(text) or len(text) > 200 else text


def is_table_title(block: Block) -> bool:
    """Whether a block is a paragraph of one short line naming a table by its number (TABLE_TITLE)."""
    text = block.text
    return block.kind == "text" and len(text) <= TABLE_TITLE_CHARS and "\n" not in text and bool(
        TABLE_TITLE.fullmatch(text))


def titled_tables(blocks: Sequence[Block]) -> tuple[Block, ...]:
    """``blocks`` with each table's numbered title (is_table_title) as its caption, the title's paragraph then no
    text of its own: the title just above a table without a caption, in its section (the convention of Chinese and
    most English styles), then one just below a table still without one, unless it stands above the next table
    (Word's captions go below by default: "Table 1: Room charges")."""
    above: list[Block] = []
    for block in blocks:
        last = above[-1] if above else None
        if block.table is not None and not block.table.caption and last is not None \
                and last.section == block.section and is_table_title(last):
            above[-1] = replace(block, table=replace(block.table, caption=last.text))
            continue
        above.append(block)
    out: list[Block] = []
    for i, block in enumerate(above):
        last = out[-1] if out else None
        table = last.table if last is not None and last.section == block.section else None
        before_table = i + 1 < len(above) and above[i + 1].kind == "table"
        if last is not None and table is not None and not table.caption and is_table_title(block) and not before_table:
            out[-1] = replace(last, table=replace(table, caption=block.text))
            continue
        out.append(block)
    return tuple(out)


@dataclass
class DocBuilder:
    """Collects headings and blocks in reading order; tracks the current section path."""

    doc_id: str
    source: str
    format: str
    page_unit: str = ""
    _stack: list[tuple[int, str]] = field(default_factory=list, init=False, repr=False)
    _blocks: list[Block] = field(default_factory=list, init=False, repr=False)
    _sections: list[Section] = field(default_factory=list, init=False, repr=False)
    # level, text, index of the next block: for promoting a sole top heading to the title
    _headings: list[tuple[int, str, int]] = field(default_factory=list, init=False, repr=False)
    notes: list[str] = field(default_factory=list)
    needs_ocr_pages: list[int] = field(default_factory=list)

    @property
    def section(self) -> tuple[str, ...]:
        return tuple(text for _, text in self._stack)

    def heading(self, level: int, text: str, locator: str = "") -> None:
        """Open a section at ``level`` (1 = top); deeper open sections are closed."""
        text = " ".join(without_conversion_marks(text).split())
        if not text:
            return
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, text))
        self._sections.append(Section(self.section, locator))
        self._headings.append((level, text, len(self._blocks)))

    def set_section(self, path: tuple[str, ...], locator: str = "") -> None:
        """Replace the whole section path (a slide, a sheet)."""
        self._stack = [(i + 1, text) for i, text in enumerate(path)]
        if path:
            self._sections.append(Section(path, locator))

    def text(self, text: str, locator: str = "", page: int | None = None) -> None:
        text = without_conversion_marks(text).strip()  # a Wikipedia export's "郭-{麐}-" is "郭麐" to a reader
        if text:
            self._blocks.append(Block("text", text, None, self.section, locator, page))

    def table(self, table: Table | None, locator: str = "", page: int | None = None) -> None:
        """A table block; one without data rows (a lone title, a layout cell) is text."""
        if table is None:
            return
        if table.rows:
            self._blocks.append(Block("table", "", table, self.section, locator, page))
        else:
            self.text(" ".join(part for part in (table.caption, *table.header) if part), locator, page)

    def build(self, title: str = "", pages: int = 0, meta: Sequence[tuple[str, object]] = ()) -> Document:
        """The document; without a title, a sole top heading at the start becomes the title. ``meta`` are the
        source's (field, value) pairs; the file name is added as ("file", stem), empty values are dropped."""
        blocks, sections = titled_tables(self._blocks), tuple(self._sections)
        if not title:
            title, blocks, sections = self._promote_title(blocks, sections)
        return Document(
            doc_id=self.doc_id,
            title=title or self.doc_id.rsplit("/", 1)[-1],
            source=self.source,
            format=self.format,
            blocks=blocks,
            sections=sections,
            pages=pages,
            page_unit=self.page_unit,
            needs_ocr_pages=tuple(self.needs_ocr_pages),
            notes=tuple(self.notes),
            meta=metadata([*meta, ("file", self._file_stem())]),
        )

    def _file_stem(self) -> str:
        """The raw file's name without folder and suffix; "" for a JSONL line (its doc_id is not a file)."""
        return "" if self.format == "jsonl" else self.source.rsplit("/", 1)[-1].rsplit(".", 1)[0]

    def _promote_title(
        self, blocks: tuple[Block, ...], sections: tuple[Section, ...]
    ) -> tuple[str, tuple[Block, ...], tuple[Section, ...]]:
        if not self._headings:
            return "", blocks, sections
        top = min(level for level, _, _ in self._headings)
        tops = [(text, at) for level, text, at in self._headings if level == top]
        if len(tops) != 1 or tops[0][1] != 0 or self._headings[0][0] != top:
            return "", blocks, sections
        return (
            tops[0][0],
            tuple(Block(b.kind, b.text, b.table, b.section[1:], b.locator, b.page) for b in blocks),
            tuple(Section(s.path[1:], s.locator) for s in sections if len(s.path) > 1),
        )
