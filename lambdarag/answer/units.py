"""The candidate units of an evidence chunk's body: what the extractive answer may quote, and what it is matched by.

A text's sentences as its author wrote them (lines a PDF or a page's width broke joined again, answer/lines.py),
an FAQ answer matched with its question, a list one item a line read whole after its lead-in, a reply alone
("不需要。") read with the sentence after it; a table's best matching row written out with its headers, or a small
table whole. Headings and page furniture are no units. Pure functions; answer/sentences.py scores the units.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from lambdarag.answer.captions import furniture
from lambdarag.answer.lines import (
    ANSWER_LINE,
    QUESTION_LINE,
    asked_inline,
    blocks_joined,
    clause_lists,
    listed_items,
    refused_items,
    replies_apart,
    unwrapped_lines,
)
from lambdarag.answer.table_text import ParsedTable, best_row, form_text, parse_table, row_picking
from lambdarag.text.english import rejoin_abbreviations
from lambdarag.text.tokenizer import has_cjk, normalize, rejoin_enumerations, rejoin_quotations, split_sentences

MIN_SENTENCE_CHARS = 6
MIN_CLOSED_CHARS = 4  # a shorter piece is a sentence only when closed by its full stop ("已退休。"; not "处长。")
CUT_OPENING = "，,、；;"  # punctuation no sentence opens with
SENTENCE_CHARS = 300  # what of a sentence the sentence vectors embed: its opening (a longer one is a list)


@dataclass(frozen=True)
class Unit:
    """A shown sentence and the text it is matched by (an FAQ answer is matched with its question)."""

    shown: str
    matched: str
    table: bool = False  # a table's content (a row, or the whole table): data, never a caption or heading
    item: bool = False  # an item of a refusal's list shown without its lead-in: it may open an answer, not pad it
    reply: str = ""  # the reply alone opening it in its FAQ ("不需要。"), which a yes/no lead reads


def candidate_units(body: str, wanted: set[str], head: str = "", whole_rows: int = 0,
                    lists: bool = False) -> list[Unit]:
    """Sentences of a text chunk (FAQ answers matched with their question); a table chunk's best row.

    A table of at most ``whole_rows`` rows is also offered whole, one row after another.
    """
    table = parse_table(body)
    if table is not None:
        if len(table.rows) <= whole_rows:
            whole = "；".join("，".join(c for c in row if c) for row in table.rows)
            return [Unit(whole, f"{head} {' '.join(table.header)} {whole}", table=True)]
        return [Unit(row, f"{head} {row}", table=True) for row in table_rows(table, row_picking(wanted, table, head))]
    heading = normalize(head).replace(" ", "")
    return [dataclasses.replace(u, matched=f"{head} {u.matched}") for u in _units(body, lists)
            if _long_enough(u.shown) and not furniture(u.shown, heading)]


def _long_enough(sentence: str) -> bool:
    """A sentence of six characters or more, or a shorter one closed by its full stop (a fragment has none)."""
    return len(sentence) >= MIN_SENTENCE_CHARS or (len(sentence) >= MIN_CLOSED_CHARS and sentence.endswith("。"))


def _units(body: str, lists: bool = False) -> Iterator[Unit]:
    """The body's sentences (an FAQ answer matched with its question; with ``lists``, a list written one item a
    line as one unit)."""
    unwrapped = blocks_joined(unwrapped_lines(body))
    lines = clause_lists(unwrapped) if lists else [(line, False) for line in unwrapped]
    joined = {line for line, whole in lines if whole}
    texts = [line for line, _ in lines]
    items = refused_items(texts)
    question = ""
    for line, before in listed_items(texts) if lists else ((line, "") for line in texts):
        if line in joined:  # a list of clauses after its lead-in: one unit, quoted whole
            question = ""
            yield Unit(line, line)
        elif before:  # a list written one item a line, joined after its label: matched with what precedes it
            yield Unit(line, f"{before} {line}")
        elif ANSWER_LINE.match(line) and question:
            answer = ANSWER_LINE.sub("", line)
            yield Unit(answer, f"{question} {answer}")
            question = ""
        elif QUESTION_LINE.search(line):
            question = line  # a question never answers; the answer line after it does
        else:
            # the line after a question answers it ("1.什么是…？" then its answer, without "答："): matched with it
            asked, question = question, ""
            whole = rejoin_enumerations(rejoin_quotations(rejoin_abbreviations(split_sentences(line))))
            # "，引领学院…": a piece the window or a dropped name cut
            shown = [(reply, s.lstrip(CUT_OPENING)) for reply, s in replies_apart(whole)]
            yield from (Unit(s, f"{q} {s}" if q else s, item=line in items, reply=reply)
                        for q, reply, s in asked_inline(shown, asked) if s)


def table_rows(table: ParsedTable, wanted: set[str]) -> list[str]:
    """The table's best matching row written out with its headers (the first row when none matches), in the
    punctuation of the table's language ("State: Florida, Permit: 15,907"; "项目：差旅费，金额：1200")."""
    index, _ = best_row(table, wanted)
    rows = [table.rows[index]] if index >= 0 else list(table.rows[:1])
    header = table.header or ("",) * max(map(len, rows), default=0)  # a headerless table's rows are data only
    out = []
    for row in rows:
        comma, colon = ("，", "：") if has_cjk("".join((*header, *row))) else (", ", ": ")
        out.append(comma.join(f"{h}{colon}{v}" if h else v for h, v in zip(header, row, strict=False) if v))
    return out


def chunk_sentences(text: str) -> list[str]:
    """The candidate sentences a text chunk offers any question, each as embedded (its first SENTENCE_CHARS
    characters), in order, without repeats; none for a table (its rows are read by the table lookup)."""
    body = form_text(text) or text
    if parse_table(body) is not None:
        return []
    return list(dict.fromkeys(embedded(u.shown) for u in candidate_units(body, set())))


def embedded(sentence: str) -> str:
    """The part of a sentence that is embedded, and the key its cosine is found by."""
    return sentence[:SENTENCE_CHARS]
