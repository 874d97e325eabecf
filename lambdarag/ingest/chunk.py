"""Heading-aware chunking: text within a section packed by sentences, tables by row groups.

A chunk never crosses a section boundary. Text is split at sentence ends (。！？； and
English . ! ? ;), packed up to `chunk_size` characters, and the next chunk starts with the
last sentences (up to `chunk_overlap` characters) of the previous one. A table that fits is
one chunk; a larger one becomes groups of `table_rows_per_chunk` rows (and at most
`2 * chunk_size` characters of rows), each with the caption and header repeated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from lambdarag.ingest.document import Block, Document, Table
from lambdarag.ingest.settings import IngestSettings
from lambdarag.records import Chunk, make_chunk_id
from lambdarag.text.dates import edition_year, find_dates

HEADER_SEPARATOR = " · "  # between the values of a document header (Chunk.context)

_SENTENCE_END = re.compile(r"[。！？；!?;]+[”’\"」』）)]*\s*|\.(?:\s+|$)|\n+")
_SOFT_BREAK = re.compile(r"[，,、：:\s]")


@dataclass(frozen=True)
class _Unit:
    """A sentence (or a piece of an over-long one) with where it comes from."""

    text: str
    locator: str
    page: int | None
    para_start: bool


@dataclass(frozen=True)
class _Piece:
    text: str
    section: tuple[str, ...]
    locator: str
    is_table: bool


def document_header(doc: Document, fields: Sequence[str]) -> str:
    """The document's metadata values named in ``fields``, in that order, joined by " · "; a value the title
    (or an earlier value) already says — "3M_2022_10K" beside the title "3M 2022 10K" — is left out."""
    values = dict(doc.meta)
    if doc.date:
        values.setdefault("date", doc.date)
    said = [_squeezed(doc.title)]
    header = []
    for name in fields:
        value = values.get(name, "")
        if value and not any(_squeezed(value) in earlier for earlier in said):
            header.append(value)
            said.append(_squeezed(value))
    return HEADER_SEPARATOR.join(header)


def _squeezed(text: str) -> str:
    """Lowercase letters and digits only: "3M_2022_10K" and "3M 2022 10-K" read the same."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def chunk_document(doc: Document, settings: IngestSettings) -> list[Chunk]:
    """The document's chunks, numbered "<doc_id>#0000", "<doc_id>#0001", ..., each with the document header."""
    chunks = []
    context = document_header(doc, settings.metadata_fields)
    edition = edition_year(doc.title)  # a document without a date of its own is dated by the year its title names
    doc_date = doc.date or (edition.group(1) if edition is not None else "")
    for n, piece in enumerate(_pieces(doc, settings)):
        breadcrumb = " > ".join(part for part in (doc.title, *piece.section) if part)
        chunks.append(
            Chunk(
                chunk_id=make_chunk_id(doc.doc_id, n),
                doc_id=doc.doc_id,
                title=doc.title,
                breadcrumb=breadcrumb,
                text=piece.text,
                locator=piece.locator,
                is_table=piece.is_table,
                dates=find_dates(f"{breadcrumb}\n{context}\n{piece.text}"),
                source=doc.source,
                doc_date=doc_date,
                context=context,
            )
        )
    return chunks


def _pieces(doc: Document, settings: IngestSettings) -> Iterator[_Piece]:
    run: list[Block] = []
    for block in doc.blocks:
        if run and (block.kind == "table" or block.section != run[0].section):
            yield from _text_pieces(run, doc.page_unit, settings)
            run = []
        if block.table is not None:
            for text in table_texts(block.table, settings):
                yield _Piece(text, block.section, block.locator, True)
        else:
            run.append(block)
    if run:
        yield from _text_pieces(run, doc.page_unit, settings)


def _text_pieces(blocks: list[Block], page_unit: str, settings: IngestSettings) -> Iterator[_Piece]:
    units = [
        _Unit(text, block.locator, block.page, i == 0)
        for block in blocks
        for i, sentence in enumerate(split_sentences(block.text))
        for text in _fit(sentence, settings.chunk_size)
    ]
    for group in pack(units, settings.chunk_size, settings.chunk_overlap):
        text = _join(group).strip()
        if text:
            yield _Piece(text, blocks[0].section, _locator(group, page_unit), False)


def split_sentences(text: str) -> list[str]:
    """Pieces of ``text`` ending at sentence ends or line breaks; "".join(pieces) == text."""
    pieces, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if match.end() > start:
            pieces.append(text[start : match.end()])
            start = match.end()
    if start < len(text):
        pieces.append(text[start:])
    return [piece for piece in pieces if piece.strip()]


def _fit(sentence: str, size: int) -> list[str]:
    """A sentence cut into pieces of at most ``size`` characters, at a comma or space if any."""
    pieces = []
    while len(sentence) > size:
        soft = [m.end() for m in _SOFT_BREAK.finditer(sentence, size // 2, size)]
        cut = soft[-1] if soft else size
        pieces.append(sentence[:cut])
        sentence = sentence[cut:]
    return [*pieces, sentence] if sentence else pieces


def pack(units: list[_Unit], size: int, overlap: int) -> list[list[_Unit]]:
    """Units grouped into chunks of at most ``size`` characters, neighbours sharing a tail."""
    groups: list[list[_Unit]] = []
    current: list[_Unit] = []
    fresh = False  # whether ``current`` holds more than the overlap carried over
    for unit in units:
        if current and fresh and _length([*current, unit]) > size:
            groups.append(current)
            current = _tail(current, min(overlap, size - len(unit.text) - 1))
            fresh = False
        current.append(unit)
        fresh = True
    if fresh:
        groups.append(current)
    return groups


def _tail(units: list[_Unit], budget: int) -> list[_Unit]:
    """The last whole units within ``budget`` characters, else the last ``budget`` characters."""
    tail: list[_Unit] = []
    for unit in reversed(units):
        if _length([unit, *tail]) > budget:
            break
        tail.insert(0, unit)
    if tail or budget <= 0:
        return tail
    last = units[-1]
    text = last.text[-budget:]
    if " " in text and not text[0].isspace() and text[0].isascii():  # do not start mid-word
        text = text[text.index(" ") + 1 :]
    return [_Unit(text, last.locator, last.page, False)] if text.strip() else []


def _join(units: list[_Unit]) -> str:
    return "".join(("\n" if i and u.para_start and not units[i - 1].text.endswith("\n") else "") + u.text
                   for i, u in enumerate(units))


def _length(units: list[_Unit]) -> int:
    return len(_join(units).strip())


def _locator(units: list[_Unit], page_unit: str) -> str:
    locators = list(dict.fromkeys(u.locator for u in units if u.locator))
    if len(locators) <= 1:
        return locators[0] if locators else ""
    pages = [u.page for u in units if u.page is not None]
    if page_unit and pages:
        return f"第{min(pages)}-{max(pages)}{page_unit}"
    return locators[0]


def render_row(cells: tuple[str, ...]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def table_texts(table: Table, settings: IngestSettings) -> list[str]:
    """The table as one text, or as row groups each repeating the caption and header."""
    head = ([table.caption] if table.caption else []) + ([render_row(table.header)] if any(table.header) else [])
    rows = [render_row(row) for row in table.rows]
    budget = settings.table_chars
    texts: list[str] = []
    group: list[str] = []
    for row in rows:
        if group and (len(group) >= settings.table_rows_per_chunk or _rows_len([*group, row]) > budget):
            texts.append("\n".join([*head, *group]))
            group = []
        if len(row) > budget:  # one huge row (long cell texts): its own chunks, header repeated
            texts.extend("\n".join([*head, part]) for part in _fit_row(row, budget))
            continue
        group.append(row)
    if group or not texts:
        texts.append("\n".join([*head, *group]))
    return texts


def _rows_len(rows: list[str]) -> int:
    return sum(len(row) + 1 for row in rows)


def _fit_row(row: str, budget: int) -> list[str]:
    units = [_Unit(text, "", None, False) for s in split_sentences(row) for text in _fit(s, budget)]
    return [_join(group).strip() for group in pack(units, budget, 0)]
