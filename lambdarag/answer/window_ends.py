"""A chunk's text with the last sentence its window cut completed from the chunk after it.

The chunker packs a document's lines and sentences into windows of about 500 characters (ingest/chunk.py). In a
text whose lines the page width broke (a PDF's text layer, a licence filled to 72 columns) a window can end at a
line break inside a sentence, "Any litigation relating to this License may be brought only in the": a reader, an
LLM and the extractive answer get half a rule. Packed as evidence (answer/context.py), such a chunk gets the rest
of its last sentence from the next chunk of its section when the sentence ends within ``MAX_COMPLETION``
characters. A window starting inside a sentence is left as it is: the start is the end of the chunk before it,
completed there when that chunk is evidence too, and the context's budget is better spent on another chunk.
A sentence a window cut and no completion mended is known as cut (``cut_by_window``): the answer scores it down,
and leaves it out for the whole sentence where another chunk of its document holds it (``whole_over_cut``).
Pure functions over the chunk store.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar, cast

from lambdarag.answer.lines import BULLET, CLOSED, WRAPPED_MIN_CHARS, line_width, spaced, wrapped
from lambdarag.records import Chunk, chunk_doc_id, chunk_number, make_chunk_id

CUT_PIECE_MIN = 12  # a shorter end of a sentence ("Yes.", "是的。") is as likely a sentence of its own
MAX_COMPLETION = 300  # characters a cut sentence may take from a neighbour; a longer rest is left out
_END = re.compile(r"[。！？；!?;][”’\"」』）)]*|\.(?=\s|$)[”’\"」』）)]*")
MIN_OVERLAP = 8  # a shorter match of one chunk's end with the next one's start is chance, not their overlap
EDGE_CHARS = 6  # a sentence's first or last characters matched against its chunk's start or end


def completed(chunk: Chunk, chunks: Mapping[str, Chunk]) -> str:
    """The chunk's text, its last sentence completed from the next chunk of its section when the window cut it."""
    text = chunk.text.strip()
    if chunk.is_table or not text:
        return text
    after = _next(chunk, chunks)
    return text + (_rest_after(text, after.text) if after is not None else "")


def _next(chunk: Chunk, chunks: Mapping[str, Chunk]) -> Chunk | None:
    """The next chunk of the same document and section ("doc#0007" -> "doc#0008"), else None."""
    number = chunk_number(chunk.chunk_id)
    if number is None:
        return None
    other = chunks.get(make_chunk_id(chunk_doc_id(chunk.chunk_id), number + 1))
    if other is None or other.is_table or other.breadcrumb != chunk.breadcrumb:
        return None
    return other


def _rest_after(text: str, following: str) -> str:
    """What of ``following`` finishes the sentence ``text`` ends inside, with the line break or space between:
    its last line was broken by the text's width (answer/lines.py), not ended by its writer (a heading, a label, a
    table's row, a closed sentence)."""
    if not wrapped(text.rsplit("\n", 1)[-1].strip(), line_width(f"{text}\n{following}".splitlines())):
        return ""
    start = _overlap_end(text, following)
    rest = following[start:]
    end = _END.search(rest, 0, MAX_COMPLETION)
    if end is None or not rest[: end.start()].strip():
        return ""
    piece = rest[: end.end()]
    glue = "" if piece[:1].isspace() or not spaced(text, piece) else " "
    return glue + piece.rstrip()


def _overlap_end(text: str, following: str) -> int:
    """Where ``following`` goes on past the text it repeats from the end of ``text`` (the chunks' overlap): at least
    MIN_OVERLAP characters, or the text's last word where the window opened on it."""
    for size in range(min(len(text), len(following)), MIN_OVERLAP - 1, -1):
        if following.startswith(text[-size:]):
            return size
    last = text.split()[-1] if text.split() else ""  # a window opening on the text's last word ("In")
    return len(last) if last and text != last and re.match(rf"{re.escape(last)}\s", following) else 0


def cut_by_window(sentence: str, body: str, first: bool = False) -> bool:
    """Whether ``sentence`` is a piece the chunk's window cut off: the body's last sentence without its full stop
    (not a bulleted item, which needs none), or (in a cased script) its first sentence starting in lower case
    ("negatively impacted…"), unless the chunk is its document's ``first`` (which starts where the document does:
    "nonlocal_stmt ::= …")."""
    text, whole = sentence.strip(), body.strip()
    if not text or not whole:
        return False
    if whole.endswith(text[-EDGE_CHARS:]) and not text.endswith(CLOSED) and len(text) >= WRAPPED_MIN_CHARS \
            and not BULLET.match(text):  # a bulleted item needs no full stop
        return True
    return not first and text[0].islower() and text[0].isascii() and whole.startswith(text[:EDGE_CHARS])


def opens_document(chunk_id: str | None) -> bool:
    """Whether the chunk is its document's first ("<doc_id>#0000")."""
    return chunk_number(chunk_id or "") == 0


class Candidate(Protocol):
    """A scored candidate sentence (answer/sentences.Scored)."""

    @property
    def sentence(self) -> str: ...

    @property
    def doc_id(self) -> str: ...

    @property
    def score(self) -> float: ...

    @property
    def rank(self) -> int: ...


S = TypeVar("S", bound=Candidate)


def whole_over_cut(scored: list[S]) -> list[S]:
    """A piece of a sentence a chunk's window cut ("中餐厨师、中文教师…" starting a window, "…is called X and is"
    ending one) left out where another chunk of its document holds the whole sentence, which takes its score and
    its chunk's rank when better: the answer quotes the sentence, not the piece a better ranked chunk starts with."""
    by_doc: dict[str, list[S]] = {}
    for item in scored:
        by_doc.setdefault(item.doc_id, []).append(item)
    cut: list[tuple[S, S]] = []  # (a cut piece, the sentence holding it)
    for items in by_doc.values():
        for piece in items:
            holders = [s for s in items if s is not piece and _cut_from(piece.sentence, s.sentence)]
            holder = max(holders, key=lambda s: len(s.sentence), default=None)  # the whole of a piece's pieces
            if holder is not None:
                cut.append((piece, holder))
    if not cut:
        return scored
    taken: dict[int, S] = {}  # id of a whole sentence -> itself with its pieces' best score and chunk rank
    for piece, holder in cut:
        best = taken.get(id(holder), holder)
        taken[id(holder)] = cast(S, dataclasses.replace(cast(Any, best), score=max(best.score, piece.score),
                                                        rank=min(best.rank, piece.rank)))
    pieces = {id(piece) for piece, _ in cut}
    return [taken.get(id(s), s) for s in scored if id(s) not in pieces]


def _cut_from(piece: str, sentence: str) -> bool:
    """Whether ``piece`` is ``sentence`` cut inside: its end without the start (what comes before it is no whole
    sentence) or its start without the end (the piece ends without a full stop)."""
    if len(piece) < CUT_PIECE_MIN or len(sentence) <= len(piece):
        return False
    if sentence.endswith(piece):
        return not sentence[: -len(piece)].rstrip().endswith(CLOSED)
    return sentence.startswith(piece) and not piece.endswith(CLOSED)
