"""Plain, typed records describing a demo document independently of its file format."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Fmt = Literal["pdf", "docx", "pptx", "xlsx", "md", "txt"]
Cell = str | int | float
# A merged area: first row, first column, last row, last column (inclusive, 0-based).
Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class Table:
    """Rows of cells; the first `header_rows` rows are headers; cells covered by a span are ""."""

    rows: tuple[tuple[Cell, ...], ...]
    spans: tuple[Span, ...] = ()
    caption: str = ""
    header_rows: int = 1

    @property
    def width(self) -> int:
        return max(len(row) for row in self.rows)

    def filled(self) -> tuple[tuple[Cell, ...], ...]:
        """The rows with every cell covered by a span holding the span's value (for plain text)."""
        grid = [list(row) for row in self.rows]
        for r0, c0, r1, c1 in self.spans:
            for r in range(r0, r1 + 1):
                for c in range(c0, c1 + 1):
                    grid[r][c] = self.rows[r0][c0]
        return tuple(tuple(row) for row in grid)


@dataclass(frozen=True)
class Steps:
    """A numbered list."""

    items: tuple[str, ...]


@dataclass(frozen=True)
class Bullets:
    """A bulleted list."""

    items: tuple[str, ...]


Block = str | Steps | Bullets | Table


@dataclass(frozen=True)
class Section:
    """A heading with its blocks; in a slide deck one section is one slide."""

    heading: str
    blocks: tuple[Block, ...] = ()
    level: int = 1
    notes: str = ""


@dataclass(frozen=True)
class Sheet:
    """One worksheet: a table whose first row is a title merged across the full width."""

    name: str
    table: Table
    # Optional computed column: (header, formula template with {r} for the 1-based row).
    formula: tuple[str, str] | None = None
    footnote: str = ""


@dataclass(frozen=True)
class Document:
    """One demo document; `slug` is the file stem and therefore the doc id."""

    slug: str
    fmt: Fmt
    title: str
    meta: tuple[str, ...] = ()
    sections: tuple[Section, ...] = ()
    sheets: tuple[Sheet, ...] = ()
    encoding: str = "utf-8"
    running_header: str = ""
    running_footer: str = ""

    @property
    def file_name(self) -> str:
        return f"{self.slug}.{self.fmt}"


def cell_text(value: Cell) -> str:
    """A cell as text; floats keep one decimal so 43646.0 stays as written."""
    return f"{value:.1f}" if isinstance(value, float) else str(value)


def sec(heading: str, *blocks: Block, level: int = 1, notes: str = "") -> Section:
    """Shorthand for a Section."""
    return Section(heading=heading, blocks=blocks, level=level, notes=notes)


def steps(*items: str) -> Steps:
    return Steps(items=items)


def bullets(*items: str) -> Bullets:
    return Bullets(items=items)


def table(*rows: tuple[Cell, ...], spans: tuple[Span, ...] = (), caption: str = "", header_rows: int = 1) -> Table:
    return Table(rows=rows, spans=spans, caption=caption, header_rows=header_rows)


def vspans(column: int, *groups: tuple[int, int]) -> tuple[Span, ...]:
    """Vertical spans in one column, each group given as (first row, last row)."""
    return tuple((r0, column, r1, column) for r0, r1 in groups)


def sheet(
    name: str,
    title: str,
    header: tuple[tuple[Cell, ...], ...],
    rows: tuple[tuple[Cell, ...], ...],
    header_spans: tuple[Span, ...] = (),
    formula: tuple[str, str] | None = None,
    footnote: str = "",
) -> Sheet:
    """A sheet whose title row spans the full width; header spans are given relative to the header."""
    width = max(len(r) for r in (*header, *rows)) + (1 if formula else 0)
    title_row: tuple[Cell, ...] = (title,) + ("",) * (width - 1)
    shifted = tuple((r0 + 1, c0, r1 + 1, c1) for r0, c0, r1, c1 in header_spans)
    body = tuple(_pad(r, width - (1 if formula else 0)) for r in (*header, *rows))
    return Sheet(
        name=name,
        table=Table(rows=(title_row, *body), spans=((0, 0, 0, width - 1), *shifted), header_rows=1 + len(header)),
        formula=formula,
        footnote=footnote,
    )


def _pad(row: tuple[Cell, ...], width: int) -> tuple[Cell, ...]:
    return row + ("",) * (width - len(row))
