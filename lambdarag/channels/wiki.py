"""The wiki channel: compiled pages searched by BM25 plus a title/alias match, mapped back to their source chunks.

build() compiles domain.wiki_dir (lambdarag.wiki.compile) from the entity graph, then indexes the pages as
they are on disk after the compile, so a page a person edited is indexed with their text. The index
(index/wiki/: BM25 arrays, the pages' fields (channels/wiki_pages.py), terms.txt) is a snapshot: edits made later reach
search at the next `python scripts/wiki_compile.py --domain NAME`, which keeps them and costs no
LLM call for unchanged input. A snapshot keeps what a server reads atomic and consistent with its
manifest, instead of following half-saved files in an editor.

A page's score (BM25 normalised to the best page, plus TITLE_BOOST · page_specificity when the question
names the page's title or an alias) is spread over its source chunks, best first: the j-th source gets
score · SPREAD^j. Each hit carries the page id, an excerpt (summary and key facts, at most
EXCERPT_CHARS) as side text for the context, and in ``extra["match"]`` whether the question names the
page ("named") or only the page's text matched ("body"); fusion keeps body matches only for the intents
of ``wiki.body_match_intents``.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from lambdarag.channels.base import BuildResult
from lambdarag.channels.manifest import Manifest, chunks_hash, damaged, open_index, publish, reading
from lambdarag.channels.okapi import BM25Okapi
from lambdarag.channels.wiki_pages import IndexedPage, PageTable
from lambdarag.errors import IndexMismatchError
from lambdarag.graph.build import EXTRACTOR_VERSION
from lambdarag.graph.entities import entity_key
from lambdarag.records import Chunk, Hit
from lambdarag.scope import Scope
from lambdarag.text.tokenizer import Tokenizer, normalize
from lambdarag.wiki.compile import compile_wiki, summary_llm
from lambdarag.wiki.page_format import GENERATED_SUFFIX, excerpt, is_edited, read_page

if TYPE_CHECKING:
    import networkx as nx

    from lambdarag.config.domain import Domain

NAME = "wiki"
FORMAT_VERSION = 2  # 2: pages (channels/wiki_pages.py) and vocabulary (channels/vocab.py) memory-mapped, no JSON
K1, B, EPSILON = 1.5, 0.75, 0.25  # rank_bm25 defaults, as in the BM25 channel
TITLE_BOOST = 1.0  # added to the normalised BM25 score when the question names the page
SPREAD = 0.8  # the j-th source chunk of a page gets page score · SPREAD^j
EXCERPT_CHARS = 600
MATCH, NAMED, BODY = "match", "named", "body"  # Hit.extra[MATCH]: the question names the page, or only its text matched


def index_params(domain: Domain) -> dict[str, Any]:
    """Build parameters the loader compares with the current code and config."""
    cfg = domain.config
    return {
        "tokenizer": Tokenizer(()).name, "extractor": EXTRACTOR_VERSION,
        "min_mentions": cfg.wiki.min_mentions, "summary_sentences": cfg.wiki.summary_sentences,
        "llm_summaries": bool(cfg.wiki.llm_summaries and cfg.llm.enabled),
        "cooccurrence_weight": cfg.graph.cooccurrence_weight,
    }


def read_pages(wiki_dir: Path) -> list[IndexedPage]:
    """Every page in wiki/ (hand-written and hand-edited ones included; .generated.md copies left out)."""
    pages = []
    for path in sorted(wiki_dir.glob("*.md")):
        if path.name.endswith(GENERATED_SUFFIX):
            continue
        front, body = read_page(path)
        edited = is_edited(front, body)
        title = str(front.get("title") or path.stem)
        aliases = tuple(str(a) for a in front.get("aliases") or ())
        sources = tuple(str(s) for s in front.get("sources") or ())
        text = "\n".join([title, *aliases, body])
        pages.append(IndexedPage(path.stem, title, aliases, sources, excerpt(body, EXCERPT_CHARS), text, edited))
    return pages


def _graph(domain: Domain, chunks: Sequence[Chunk]) -> nx.DiGraph:
    """The published entity graph when it matches the chunks, else one built now (same settings)."""
    from lambdarag.channels import graph as graph_channel

    try:
        return graph_channel.load(domain, chunks).graph
    except IndexMismatchError:
        from lambdarag.graph.build import build_graph

        return build_graph(chunks, domain.config, graph_channel.llm_client(domain),
                           domain.index_dir / graph_channel.LLM_CACHE)[0]


def build(domain: Domain, chunks: Sequence[Chunk], progress: bool | None = None) -> BuildResult:
    """Compile the wiki pages, then index them and publish index/wiki atomically."""
    start = time.perf_counter()
    cfg = domain.config
    llm = summary_llm(cfg)
    try:
        report = compile_wiki(domain.wiki_dir, _graph(domain, chunks), chunks, cfg, llm, progress)
    finally:
        if llm is not None:
            llm.close()  # its connections, not left to the garbage collector
    pages = read_pages(domain.wiki_dir)
    terms = sorted({n for p in pages for n in (p.title, *p.aliases) if 2 <= len(n) <= 20})
    tokenizer = Tokenizer(terms)
    model = BM25Okapi.fit([tokenizer.tokens(p.text) for p in pages], K1, B, EPSILON)
    edited = sum(1 for p in pages if p.edited)

    def write(folder: Path) -> Manifest:
        model.save(folder)
        PageTable.of(pages).save(folder)  # without the text: the model holds what was indexed
        (folder / "terms.txt").write_text("".join(f"{t}\n" for t in terms), encoding="utf-8")
        return Manifest(
            channel=NAME, format_version=FORMAT_VERSION, params=index_params(domain),
            counts={"chunks": len(chunks), "pages": len(pages), "edited_pages": edited},
            chunks_hash=chunks_hash(chunks), extra={"compile": report.summary()},
        )

    publish(domain.index_dir, NAME, write)
    return BuildResult(NAME, len(pages), time.perf_counter() - start, detail=report.summary())


def page_specificity(page: IndexedPage, n_chunks: int) -> float:
    """ln(1 + N / max(1, sources)) / ln(1 + N), 1 when N ≤ 1: the graph's mention_idf scaled to 0..1 for a page."""
    return specificity(len(page.sources), n_chunks)


def specificity(sources: int, n_chunks: int) -> float:
    """page_specificity of a page with ``sources`` source chunks."""
    if n_chunks <= 1:
        return 1.0
    return math.log(1 + n_chunks / max(1, sources)) / math.log(1 + n_chunks)


class WikiChannel:
    """Loaded wiki pages answering queries with the source chunks of the best pages."""

    name = NAME

    def __init__(self, pages: PageTable, model: BM25Okapi, tokenizer: Tokenizer, n_chunks: int) -> None:
        self.pages = pages
        self.model = model
        self.tokenizer = tokenizer
        self.n_chunks = n_chunks
        # per page, once: the title boost it would get; its rank by slug (ties) and its names come with the table
        sizes = pages.sources.ptr
        self._boost = np.array([TITLE_BOOST * specificity(int(sizes[i + 1] - sizes[i]), n_chunks)
                                for i in range(len(pages))], dtype=np.float64)
        self._slug_rank = pages.slug_rank
        self._by_name = pages.by_name
        self._name_lengths = sorted({len(n) for n in self._by_name})

    def _named(self, text: str) -> list[int]:
        """Pages one of whose names occurs in ``text``: every substring of a name's length looked up (not every
        page's names searched for, which costs a loop over all pages per question)."""
        found: set[int] = set()
        for length in self._name_lengths:
            if length > len(text):
                break
            for start in range(len(text) - length + 1):
                found.update(self._by_name.get(text[start : start + length], ()))
        return sorted(found)

    def _ranked(self, query: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Indices of the pages with a positive score, best first (ties by slug); every page's score and named flag."""
        n = len(self.pages)
        if not n:
            return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=bool)
        raw = np.asarray(self.model.scores(self.tokenizer.tokens(query)), dtype=np.float64)
        top = float(raw.max())
        named = np.zeros(n, dtype=bool)
        named[self._named(normalize(entity_key(query)))] = True
        scores = (raw / top if top > 0 else np.zeros(n)) + np.where(named, self._boost, 0.0)
        hit = np.flatnonzero(scores > 0)
        return hit[np.lexsort((self._slug_rank[hit], -scores[hit]))], scores, named

    def page_scores(self, query: str) -> list[tuple[float, IndexedPage, bool]]:
        """Pages with a positive score, best first: normalised BM25 plus the title/alias boost, and whether named."""
        order, scores, named = self._ranked(query)
        return [(float(scores[i]), self.pages[i], bool(named[i])) for i in order.tolist()]

    def search(self, query: str, k: int, scope: Scope | None = None) -> list[Hit]:
        """The k best source chunks of the best pages, each with its page id, excerpt and how the page matched; with a
        scope, a page's sources outside it are dropped before the spread (its first allowed source gets the score)."""
        best: dict[str, tuple[float, int, bool]] = {}  # chunk id -> (value, page, named)
        kept: list[float] = []  # min-heap: the first values of up to k distinct chunks (lower bounds of theirs)
        order, scores, named_pages = self._ranked(query)
        for i in map(int, order):  # lazily: the loop stops once the top k is settled
            score = float(scores[i])
            if k > 0 and len(kept) >= k and score < kept[0]:
                break  # pages come best first and a page gives no chunk more than its score: the top k is settled
            named = bool(named_pages[i])
            sources = self.pages.sources.at(i)
            if scope is not None:
                sources = tuple(c for c in sources if c in scope.chunk_ids)
            for j, chunk_id in enumerate(sources):
                value = score * SPREAD**j
                if chunk_id not in best:
                    (heapq.heappush if len(kept) < k else heapq.heappushpop)(kept, value)
                if chunk_id not in best or value > best[chunk_id][0]:
                    best[chunk_id] = (value, i, named)
        ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))[:k]
        return [self._hit(chunk_id, score, rank, i, named)
                for rank, (chunk_id, (score, i, named)) in enumerate(ranked, start=1)]

    def _hit(self, chunk_id: str, score: float, rank: int, page: int, named: bool) -> Hit:
        pages = self.pages
        return Hit(chunk_id, score, rank, NAME, entities=(pages.titles.at(page),), page_id=pages.slugs.at(page),
                   side_text=pages.excerpts.at(page), extra={MATCH: NAMED if named else BODY})


def load(domain: Domain, chunks: Sequence[Chunk] | None = None) -> WikiChannel:
    """Open index/wiki, refusing it when built from other chunks, code or settings."""
    folder, manifest, chunks = open_index(domain, NAME, FORMAT_VERSION, index_params(domain), chunks)
    with reading(NAME, domain.name, (OSError, ValueError, KeyError, TypeError)):
        pages = PageTable.load(folder)
        terms = (folder / "terms.txt").read_text(encoding="utf-8").splitlines()
        model = BM25Okapi.load(folder)
    if model.n_docs != len(pages):
        raise damaged(NAME, domain.name, "does not match its pages")
    return WikiChannel(pages, model, Tokenizer(terms), manifest.counts.get("chunks", len(chunks)))
