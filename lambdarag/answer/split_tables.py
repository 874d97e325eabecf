"""A superlative over a table split into several chunks compares all of them.

Ingest writes a long table as row groups, each chunk with the header repeated (ingest/chunk.py). Asked "which state
had the most permit checks?", retrieval brings the chunks whose words match, and each holds its own extreme row:
the table's extreme may sit in a chunk nothing brought. So the evidence gets the document's chunk, of the same
caption and header, whose extreme row is the table's (``extreme_chunk``), and among the parts found the one whose
extreme is the most extreme answers (``most_extreme_first``). Two periods' tables of one sheet share a header, not a
caption: they are two tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from lambdarag.answer.slots import document_chunks
from lambdarag.answer.table_lookup import TableMatch, lookup, superlative_sign
from lambdarag.answer.table_text import ParsedTable, number, parse_table
from lambdarag.records import Chunk


class _Found(Protocol):
    """A table found among the evidence and its match (table_lookup.Found)."""

    @property
    def table(self) -> ParsedTable: ...

    @property
    def match(self) -> TableMatch: ...


def extreme_value(table: ParsedTable, match: TableMatch, sign: int) -> float | None:
    """The value of a superlative match's row in its column, signed so that the more extreme is the larger."""
    if not match.superlative or not match.rows or len(match.columns) != 1:
        return None
    row = table.rows[match.rows[0]]
    column = match.columns[0]
    value = number(row[column]) if column < len(row) else None
    return None if value is None else sign * value


def extreme_chunk(question: str, retrieved: Sequence[str], chunks: Mapping[str, Chunk]) -> str | None:
    """For a superlative question whose first retrieved table is one of its document's row groups: the chunk of
    that table (the same caption and header) holding the most extreme row of the column asked, retrieved or not;
    None when the first table is that chunk."""
    sign = superlative_sign(question)
    first = next(((chunks[c], t) for c in retrieved if c in chunks and (t := _table(chunks[c])) is not None), None)
    if not sign or first is None:
        return None
    best: tuple[float, str] | None = None
    for sibling in document_chunks(first[0].doc_id, chunks):
        table = _table(sibling)
        match = lookup(table, question) if table is not None and _same(table, first[1]) else None
        value = extreme_value(table, match, sign) if table is not None and match is not None else None
        if value is not None and (best is None or value > best[0]):
            best = (value, sibling.chunk_id)
    return best[1] if best is not None and best[1] != first[0].chunk_id else None


def most_extreme_first(found: Sequence[_Found], question: str) -> list[int]:
    """Indexes of ``found`` in answer order: the best first, unless it is a superlative's row and another table of
    the same caption, header and column holds a more extreme one, which then leads."""
    order = list(range(len(found)))
    sign = superlative_sign(question)
    if not found or not sign:
        return order
    lead = found[0]
    parts = [i for i in order if _same(found[i].table, lead.table) and found[i].match.columns == lead.match.columns]
    values = {i: value for i in parts if (value := extreme_value(found[i].table, found[i].match, sign)) is not None}
    if 0 not in values:
        return order
    best = max(values, key=lambda i: (values[i], -i))
    return [best, *(i for i in order if i != best)]


def _same(table: ParsedTable, other: ParsedTable) -> bool:
    """Whether two row groups are parts of one table: the same caption and header, which each group repeats."""
    return table.header == other.header and table.caption == other.caption


def _table(chunk: Chunk) -> ParsedTable | None:
    table = parse_table(chunk.text)
    return table if table is not None and table.header and table.rows else None
