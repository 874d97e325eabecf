"""The BM25 channel: jieba tokens with the domain dictionary, scored by lambdarag.channels.okapi.BM25Okapi.

index/bm25/ holds the BM25 arrays (bm25.py's save format), chunk_ids.json (row i of the index is
chunk i) and terms.txt, the dictionary the build tokenised with, so queries are cut the same way.
The dictionary is the config's query.terms plus entity names found in the chunks.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdarag.channels.base import BuildResult, ScopeRows, scoped_scores
from lambdarag.channels.manifest import Manifest, chunks_hash, damaged, open_index, publish, reading
from lambdarag.channels.okapi import BM25Okapi, rank_scores
from lambdarag.graph.entities import extract_entities
from lambdarag.progress import iterate
from lambdarag.records import Chunk, Hit
from lambdarag.scope import Scope
from lambdarag.text.tokenizer import Tokenizer, normalize, terms_digest

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain

NAME = "bm25"
FORMAT_VERSION = 2  # 2: the vocabulary memory-mapped (channels/vocab.py) instead of vocab.json
K1, B, EPSILON = 1.5, 0.75, 0.25  # rank_bm25.BM25Okapi defaults, kept so scores stay comparable
ENTITY_KINDS = frozenset({"org", "role", "person", "regulation", "place"})
MIN_TERM, MAX_TERM = 2, 20  # entity names outside this length are noise or whole sentences


def tokenizer_name() -> str:
    """Name and version of the tokenisation rules, recorded in the manifest."""
    return Tokenizer(()).name


def index_params(domain: Domain) -> dict[str, Any]:
    """Build parameters the loader compares with the current code and config."""
    return {
        "tokenizer": tokenizer_name(),
        "k1": K1,
        "b": B,
        "epsilon": EPSILON,
        "config_terms": terms_digest(domain.config.query.terms),
    }


def entity_terms(chunks: Iterable[Chunk]) -> set[str]:
    """Names of organisations, roles, people, regulations and places mentioned in the chunks."""
    names: set[str] = set()
    for chunk in chunks:
        names.update(e.name for e in extract_entities(chunk.index_text) if e.kind in ENTITY_KINDS)
    # Names with Latin letters or digits are tokenised into their parts anyway; as dictionary
    # words they would each add a regex alternative scanned over every text.
    return {n for n in names if MIN_TERM <= len(n) <= MAX_TERM and not _has_ascii_alnum(normalize(n))}


def _has_ascii_alnum(name: str) -> bool:
    return any(ch.isascii() and ch.isalnum() for ch in name)


def dictionary(domain: Domain, chunks: Sequence[Chunk], progress: bool | None = False) -> list[str]:
    """The build's dictionary: config terms plus extracted entity names, sorted and unique."""
    configured = {t.strip() for t in domain.config.query.terms}
    found = entity_terms(iterate(chunks, progress, "bm25 entities", "chunk"))
    return sorted(t for t in configured | found if t and "\n" not in t)


def build(domain: Domain, chunks: Sequence[Chunk], progress: bool | None = None) -> BuildResult:
    """Tokenise every chunk with the domain dictionary, fit BM25 and publish index/bm25 atomically."""
    start = time.perf_counter()
    terms = dictionary(domain, chunks, progress)
    tokenizer = Tokenizer(terms)
    tokens = [tokenizer.tokens(c.index_text) for c in iterate(chunks, progress, "bm25 tokens", "chunk")]
    model = BM25Okapi.fit(tokens, K1, B, EPSILON)

    def write(folder: Path) -> Manifest:
        model.save(folder)
        ids = [c.chunk_id for c in chunks]
        (folder / "chunk_ids.json").write_text(json.dumps(ids, ensure_ascii=False), encoding="utf-8")
        (folder / "terms.txt").write_text("".join(f"{t}\n" for t in terms), encoding="utf-8")
        return Manifest(
            channel=NAME,
            format_version=FORMAT_VERSION,
            params=index_params(domain),
            counts={"chunks": len(chunks), "vocabulary": len(model.vocab), "dictionary": len(terms)},
            chunks_hash=chunks_hash(chunks),
            extra={"dictionary_hash": terms_digest(terms), "tokens": int(model.doc_len.sum())},
        )

    publish(domain.index_dir, NAME, write)
    detail = f"{len(model.vocab)} distinct tokens, {len(terms)} dictionary words"
    return BuildResult(NAME, len(chunks), time.perf_counter() - start, detail=detail)


class BM25Channel:
    """A loaded BM25 index answering queries with chunk-id hits."""

    name = NAME

    def __init__(self, model: BM25Okapi, chunk_ids: Sequence[str], tokenizer: Tokenizer) -> None:
        self.model = model
        self.chunk_ids = list(chunk_ids)
        self.tokenizer = tokenizer
        self.scope_rows = ScopeRows({cid: i for i, cid in enumerate(self.chunk_ids)})

    def search(self, query: str, k: int, scope: Scope | None = None) -> list[Hit]:
        """The k best chunks for ``query`` (of the scope's, when given), tokenised with the dictionary the index was
        built with."""
        tokens = self.tokenizer.tokens(query)
        if scope is None:
            ranked = self.model.top_k(tokens, k)
        else:  # rows outside the scope score 0 before the top k are taken
            ranked = rank_scores(scoped_scores(self.model.scores(tokens), self.scope_rows.rows(scope), 0.0), k)
        return [Hit(self.chunk_ids[i], score, rank, NAME) for rank, (i, score) in enumerate(ranked, start=1)]


def load(domain: Domain, chunks: Sequence[Chunk] | None = None) -> BM25Channel:
    """Open index/bm25, refusing it when it was built from other chunks, code or config."""
    folder, manifest, chunks = open_index(domain, NAME, FORMAT_VERSION, index_params(domain), chunks)
    with reading(NAME, domain.name):
        terms = (folder / "terms.txt").read_text(encoding="utf-8").splitlines()
        chunk_ids = json.loads((folder / "chunk_ids.json").read_text(encoding="utf-8"))
        model = BM25Okapi.load(folder)
    if terms_digest(terms) != manifest.extra.get("dictionary_hash") or len(chunk_ids) != model.n_docs:
        raise damaged(NAME, domain.name, "does not match its manifest")
    return BM25Channel(model, chunk_ids, Tokenizer(terms))
