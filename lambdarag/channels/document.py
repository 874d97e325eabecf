"""The document channel: BM25 over whole documents, whose ranking is passed down to the documents' chunks.

A question often names what a document is about (an issuer, a region, a period) while the chunk that
answers does not repeat it; chunks of sibling documents then outrank it on their own words. Scored as one
bag of words (title and headings once, every chunk body), a document gathers the evidence its chunks hold
apart. The channel's hits are documents, each carried by its first chunk with ``extra["doc_id"]``; fusion
(retrieval.fusion.document_prior) adds the document's RRF share to every candidate chunk of it instead of
ranking that one chunk.

Each hit also says how much of its document's subject (title and document header) the question names
(``extra["subject"]``, channels/subject.py); a document the question names that body BM25 leaves out of the
top k is added after them, at its own body rank, so fusion can scale its chunks up (fusion.subject_boost).

index/document/ holds the BM25 arrays (channels.okapi's save format), the subjects (subject/, the same
format) and documents.json: per row, the document id, its first chunk id and its number of chunks. The
tokenizer has the config's terms only (no entity dictionary): a document-level bag does not need names kept
whole.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from lambdarag.channels.base import BuildResult, ScopeRows, scoped_scores
from lambdarag.channels.manifest import Manifest, chunks_hash, damaged, open_index, publish, reading
from lambdarag.channels.okapi import BM25Okapi, rank_scores
from lambdarag.channels.subject import (
    MENTIONS,
    SubjectIndex,
    abbreviates,
    few_documents,
    joined_names,
    named_sides,
    side_by_side,
    subject_text,
    subject_tokens,
    written_names,
)
from lambdarag.progress import iterate
from lambdarag.records import Chunk, Hit
from lambdarag.scope import Scope
from lambdarag.text.tokenizer import Tokenizer, terms_digest

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain

NAME = "document"
FORMAT_VERSION = 4  # 2: the vocabulary memory-mapped (channels/vocab.py) instead of vocab.json; 3: the subjects;
# 4: each document's subject text in documents.json (the names written for it: DocumentChannel.written_names)
K1, B, EPSILON = 1.5, 0.75, 0.25  # the chunk channel's Okapi parameters
DOC_ID = "doc_id"  # Hit.extra key: the document a hit stands for
CHUNKS = "chunks"  # Hit.extra key: how many chunks the document has
SUBJECT = "subject"  # Hit.extra key: how much of the document's subject the query names (0..1; absent: none)
SIDE = "side"  # Hit.extra key: which side of the ones the query names this document is (subject.named_sides)
MAX_SHARE = 0.05  # a token names documents when at most this share of the subjects (and at least one) hold it


def index_params(domain: Domain) -> dict[str, Any]:
    """Build parameters the loader compares with the current code and config."""
    return {"tokenizer": Tokenizer(()).name, "k1": K1, "b": B, "epsilon": EPSILON,
            "config_terms": terms_digest(domain.config.query.terms)}


def documents(chunks: Sequence[Chunk]) -> list[list[Chunk]]:
    """The chunks grouped by document, documents in order of their first chunk."""
    groups: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        groups.setdefault(chunk.doc_id, []).append(chunk)
    return list(groups.values())


def document_tokens(tokenizer: Tokenizer, group: Sequence[Chunk]) -> list[str]:
    """One document's bag: every distinct heading line (title, metadata, sections) once, then every body."""
    heads = dict.fromkeys(line for c in group for line in _head_lines(c))
    tokens = [t for line in heads for t in tokenizer.tokens(line)]
    for chunk in group:
        tokens.extend(tokenizer.tokens(chunk.text))
    return tokens


def _head_lines(chunk: Chunk) -> Iterator[str]:
    """The parts of the chunk's head (breadcrumb and document header), one per breadcrumb level."""
    for line in chunk.head.splitlines():
        yield from (part.strip() for part in line.split(" > ") if part.strip())


def build(domain: Domain, chunks: Sequence[Chunk], progress: bool | None = None) -> BuildResult:
    """Tokenise every document and publish index/document atomically."""
    start = time.perf_counter()
    tokenizer = Tokenizer(domain.config.query.terms)
    groups = documents(chunks)
    tokens = [document_tokens(tokenizer, g) for g in iterate(groups, progress, "document tokens", "doc")]
    model = BM25Okapi.fit(tokens, K1, B, EPSILON)
    subjects = SubjectIndex.fit(subject_tokens(tokenizer, g[0]) for g in groups)
    rows = [[g[0].doc_id, g[0].chunk_id, len(g), subject_text(g[0])] for g in groups]

    def write(folder: Path) -> Manifest:
        model.save(folder)
        subjects.save(folder)
        (folder / "documents.json").write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
        return Manifest(channel=NAME, format_version=FORMAT_VERSION, params=index_params(domain),
                        counts={"documents": len(groups), "chunks": len(chunks), "vocabulary": len(model.vocab)},
                        chunks_hash=chunks_hash(chunks), extra={"tokens": int(model.doc_len.sum())})

    publish(domain.index_dir, NAME, write)
    return BuildResult(NAME, len(groups), time.perf_counter() - start, detail=f"{len(model.vocab)} distinct tokens")


class DocumentChannel:
    """A loaded document index: hits are documents, each carried by its first chunk."""

    name = NAME

    def __init__(self, model: BM25Okapi, rows: Sequence[tuple[str, str, int, str]], tokenizer: Tokenizer,
                 subjects: SubjectIndex) -> None:
        self.model = model
        self.rows = list(rows)
        self.tokenizer = tokenizer
        self.subjects = subjects
        self.scope_rows = ScopeRows({row[0]: i for i, row in enumerate(self.rows)}, documents=True)

    def search(self, query: str, k: int, scope: Scope | None = None) -> list[Hit]:
        """The k best documents for ``query`` (of the scope's documents, when given), then up to k documents whose
        subject it names that are not among them (the most strongly named), at their own rank; each hit with the
        share of its subject named (SUBJECT) when the query names it."""
        if k <= 0:
            return []
        tokens = self.tokenizer.tokens(query)
        scores = self.model.scores(tokens)
        allowed = None if scope is None else self.scope_rows.rows(scope)
        if allowed is not None:  # documents outside the scope score 0 before the top k are taken
            scores = scoped_scores(scores, allowed, 0.0)
        ranked = rank_scores(scores, k)
        named = self.subjects.named(tokens, MAX_SHARE, self.model.document_frequency)
        for row, share in self.written_names(query).items():
            named[row] = max(share, named.get(row, 0.0))
        if allowed is not None:
            inside = set(allowed.tolist())
            named = {row: share for row, share in named.items() if row in inside}
        ranks = {row: rank for rank, (row, _score) in enumerate(ranked, start=1)}
        sides = named_sides(named, lambda row: self.rows[row][3], self.subjects.holding, joined_names(tokens), query)
        side_of = {row: i for i, rows in enumerate(sides) for row in rows}
        # the k most strongly named of the others (the sides in turn), each at its body rank (documents scoring
        # higher, plus one)
        if sides:
            others = [[row for row in rows if row not in ranks] for rows in sides]
        else:
            others = [sorted(set(named) - set(ranks), key=lambda r: (-named[r], r))]
        for row in sorted(side_by_side(others, k), key=lambda r: (-scores[r], r)):
            ranks[row] = 1 + int(np.count_nonzero(scores > scores[row]))
            ranked.append((row, float(scores[row])))
        return [Hit(self.rows[i][1], score, ranks[i], NAME, extra=self._extra(i, named, side_of))
                for i, score in ranked]

    def written_names(self, query: str) -> dict[int, float]:
        """Documents the query names by an abbreviation of their subject that no subject holds as a word ("NWT"
        for a filing titled "NORTHWINDTRADERS 2023 10K", "CnP" for "CONTOSO PHARMA 2023 10K"), with the share
        their subject's most specific token carries.

        The name is written as one (subject.written_names), abbreviates the document's subject
        (subject.abbreviates), is in the text of few documents (at most subject.few_documents) and this
        document's text uses it at least MENTIONS times: "EBIT" abbreviates no title, and a title that happens
        to hold a name's letters is not named unless its text says the name too."""
        most = few_documents(self.model.n_docs, MAX_SHARE)
        rows: set[int] = set()
        for name in dict.fromkeys(written_names(query)):
            tokens = [t for t in self.tokenizer.tokens(name) if t not in self.subjects.model.vocab]
            for token in tokens:
                if not 0 < self.model.document_frequency(token) <= most:
                    continue
                docs, counts = self.model.term_frequencies(token)
                rows.update(int(d) for d in docs[counts >= MENTIONS] if abbreviates(name, self.rows[int(d)][3]))
        return self.subjects.standing_for(sorted(rows))

    def _extra(self, row: int, named: dict[int, float], side_of: dict[int, int]) -> dict[str, Any]:
        extra: dict[str, Any] = {DOC_ID: self.rows[row][0], CHUNKS: self.rows[row][2]}
        if row in named:
            extra[SUBJECT] = round(named[row], 4)
        if row in side_of:
            extra[SIDE] = side_of[row]
        return extra


def load(domain: Domain, chunks: Sequence[Chunk] | None = None) -> DocumentChannel:
    """Open index/document, refusing it when it was built from other chunks, code or config."""
    folder, _manifest, chunks = open_index(domain, NAME, FORMAT_VERSION, index_params(domain), chunks)
    with reading(NAME, domain.name):
        listed = json.loads((folder / "documents.json").read_text(encoding="utf-8"))
        rows = [(str(d), str(c), int(n), str(subject)) for d, c, n, subject in listed]
        model = BM25Okapi.load(folder)
        subjects = SubjectIndex.load(folder)
    if len(rows) != model.n_docs or subjects.n_docs != model.n_docs:
        raise damaged(NAME, domain.name, "does not match its manifest")
    return DocumentChannel(model, rows, Tokenizer(domain.config.query.terms), subjects)
