"""The entity-graph channel: entities in the question → breadth-first walk → chunks that mention what was reached.

index/graph/ holds graph.json (networkx node-link data: nodes with kind, aliases and the chunk ids
that mention them; edges with relation, weight and evidence chunk ids: the wiki build's input), aliases.json
(normalised alias → node ids) and what a search reads of the graph as memory-mapped arrays (graph_arrays.py). An
entity reached by the walk contributes match · Π edge weights / (1 + hops) · ln(1 + N / chunks naming it) to each
chunk that names it; a chunk scores the sum over the entities the question names plus its two strongest walked ones
(chunk_score). Each hit carries a relation path read from the question's entity outwards
(inverse relations spelt out: 财务处 has_part 预算科). The top k are found without scoring every chunk the walk
reaches (channels/graph_rank.py): same hits, bounded work for a question naming a hub.
"""

from __future__ import annotations

import bisect
import json
import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdarag.channels.base import BuildResult
from lambdarag.channels.graph_arrays import GraphArrays
from lambdarag.channels.graph_rank import top_chunks
from lambdarag.channels.manifest import Manifest, chunks_hash, open_index, publish, reading
from lambdarag.graph.build import EXTRACTOR_VERSION, alias_index, build_graph, load_graph, save_graph
from lambdarag.graph.schema import INVERSE
from lambdarag.progress import iterate
from lambdarag.records import Chunk, Hit
from lambdarag.scope import Scope
from lambdarag.text.tokenizer import Tokenizer, normalize

if TYPE_CHECKING:
    import networkx as nx

    from lambdarag.config.domain import Domain
    from lambdarag.models.llm import LLMClient

NAME = "graph"
FORMAT_VERSION = 2  # 2: the search's arrays (channels/graph_arrays.py) beside graph.json
LLM_CACHE = Path(".graph-cache") / "llm-extraction.jsonl"
EXACT, ALIAS, INSIDE, TERM = 1.0, 0.9, 0.6, 0.5  # match strength: name, alias, inside a longer match, query term
MIN_TERM_COVERAGE = 0.4  # a query term must cover this much of a long entity name to match it
MIN_TERM_CHARS = 3  # shorter query words (国家, 招生) match too many names to mean one of them
WALKED_PER_CHUNK = 2
MATCH, NAMED, WORD = "match", "named", "word"  # Hit.extra[MATCH]: the question names an entity, or a word of one
MAX_FANOUT = 64  # neighbours followed per node, strongest edges first, so hubs cannot blow up the walk
HUB_KINDS = frozenset({"role"})  # generic nodes (处长, 负责人): matched directly, never walked through
OFF_HINT = 0.5  # when the question names a relation (依据 → based_on), other edges count this much
RELATION_HINTS = {
    "belongs_to": ("隶属", "上级", "属于", "归口", "下设", "下属", "哪个部门", "归属"),
    "based_on": ("依据", "根据", "基于"), "responsible_for": ("负责", "主管", "分管", "谁"),
    "issued_by": ("制定", "发布", "印发", "颁布"), "contact": ("电话", "联系", "邮箱", "找谁"),
    "revises": ("修订", "修改", "新版"), "repeals": ("废止", "失效", "作废"),
}


def index_params(domain: Domain) -> dict[str, Any]:
    """Build parameters the loader compares with the current code and config."""
    cfg = domain.config
    return {
        "extractor": EXTRACTOR_VERSION,
        "cooccurrence_weight": cfg.graph.cooccurrence_weight,
        "llm_extraction": bool(cfg.graph.llm_extraction and cfg.llm.enabled),
    }


def llm_client(domain: Domain) -> LLMClient | None:
    """The LLM for extraction when graph.llm_extraction and llm.enabled are both on, else None."""
    if not (domain.config.graph.llm_extraction and domain.config.llm.enabled):
        return None
    from lambdarag.models.llm import llm_from_config

    return llm_from_config(domain.config)


def build(domain: Domain, chunks: Sequence[Chunk], progress: bool | None = None) -> BuildResult:
    """Extract the entity graph from the chunks and publish index/graph atomically."""
    start = time.perf_counter()
    llm = llm_client(domain)
    shown = iterate(chunks, progress, "graph", "chunk")
    try:
        graph, stats = build_graph(chunks, domain.config, llm, domain.index_dir / LLM_CACHE, shown)
    finally:
        if llm is not None:
            llm.close()  # its connections, not left to the garbage collector
    aliases = alias_index(graph, domain.config.query.synonyms)

    def write(folder: Path) -> Manifest:
        save_graph(graph, folder)
        GraphArrays.from_graph(graph).save(folder)
        (folder / "aliases.json").write_text(json.dumps(aliases, ensure_ascii=False), encoding="utf-8")
        return Manifest(
            channel=NAME, format_version=FORMAT_VERSION, params=index_params(domain),
            counts={"chunks": len(chunks), "nodes": graph.number_of_nodes(), "edges": graph.number_of_edges(),
                    "aliases": len(aliases)},
            chunks_hash=chunks_hash(chunks),
            extra={"llm_chunks": stats.llm_chunks, "llm_cached": stats.llm_cached,
                   "llm_failures": stats.llm_failures},
        )

    publish(domain.index_dir, NAME, write)
    detail = f"{graph.number_of_nodes()} entities, {graph.number_of_edges()} relations"
    if llm is not None:
        detail += f"; LLM: {stats.llm_chunks} chunks, {stats.llm_cached} cached, {stats.llm_failures} failed"
        if stats.llm_errors:
            detail += f" (first: {stats.llm_errors[0]})"
    return BuildResult(NAME, graph.number_of_nodes(), time.perf_counter() - start, detail=detail)


def mention_idf(mentions: int, n_chunks: int) -> float:
    """ln(1 + N / df), 0 when unmentioned: an entity named in few chunks tells more than one named everywhere."""
    return math.log(1 + n_chunks / mentions) if mentions else 0.0


def chunk_score(contributions: Sequence[tuple[float, int]]) -> float:
    """Σ contributions of entities the question names + the WALKED_PER_CHUNK strongest reached by the walk.

    Capping the walked part keeps a long chunk that merely lists many related names from outranking
    one that names the asked entity.
    """
    direct = sum(value for value, hops in contributions if hops == 0)
    walked = sorted((value for value, hops in contributions if hops > 0), reverse=True)
    return direct + sum(walked[:WALKED_PER_CHUNK])


@dataclass(frozen=True)
class Reach:
    """How the walk reached a node: hops, product of edge weights, match strength and the path."""

    hops: int
    weight: float
    path: tuple[str, ...]

    @property
    def score(self) -> float:
        return self.weight / (1 + self.hops)


class GraphChannel:
    """A loaded entity graph answering queries with chunk-id hits."""

    name = NAME

    def __init__(self, arrays: GraphArrays, aliases: dict[str, list[str]], max_hops: int, n_chunks: int,
                 source: tuple[Path, str] | None = None) -> None:
        self.arrays = arrays
        self.aliases = aliases
        self.max_hops = max_hops
        self.n_chunks = n_chunks
        self.source = source  # the index folder holding graph.json and its domain's name: ``graph`` reads it
        self._by_prefix: dict[str, list[str]] = {}
        for alias in aliases:
            self._by_prefix.setdefault(alias[:2], []).append(alias)
        self._tokenizer = Tokenizer(())
        self._names = NameText(arrays.names)
        self._neighbour_lists: dict[str, list[tuple[str, str, float, str]]] = {}

    @cached_property
    def graph(self) -> nx.DiGraph:
        """The networkx graph of graph.json (the wiki build's input; a search reads only the arrays); a file that does
        not read back is an IndexMismatchError naming the rebuild."""
        if self.source is None:
            raise ValueError("this graph channel was made without its index folder")
        folder, domain = self.source
        with reading(NAME, domain, (OSError, ValueError, KeyError, TypeError)):
            return load_graph(folder)

    def search(self, query: str, k: int, scope: Scope | None = None) -> list[Hit]:
        """Chunks mentioning the entities of ``query`` or entities up to max_hops away, best first; with a scope the
        walk is the same (an entity may be reached through any document) but only the scope's chunks are scored."""
        hinted = frozenset(rel for rel, words in RELATION_HINTS.items() if any(w in query for w in words))
        matched, named = self.matched(query)
        reached = self.walk(matched, hinted)
        arrays, ids = self.arrays, self.arrays.ids
        values = {node: (reach.score * mention_idf(arrays.mention_count(ids[node]), self.n_chunks), reach.hops)
                  for node, reach in reached.items()}
        allowed = None if scope is None else lambda row: arrays.chunk_id(row) in scope.chunk_ids
        names = arrays.names
        ranked = top_chunks(values, lambda node: arrays.mentions(ids[node]),
                            lambda row: [names[i] for i in arrays.named_in(row)], k, chunk_score, WALKED_PER_CHUNK,
                            allowed)  # chunks by row: a row orders as its chunk id
        hits = []
        for rank, (row, score, found) in enumerate(ranked, start=1):
            entities = tuple(n for _, n in sorted(found, key=lambda c: (-c[0], c[1])))
            hits.append(Hit(arrays.chunk_id(row), score, rank, NAME, entities=entities,
                            path=_shown_path(found, reached),
                            extra={MATCH: NAMED if named else WORD}))
        return hits

    def matched(self, query: str) -> tuple[dict[str, float], bool]:
        """Entity nodes of ``query`` and whether the question names them (exact names, aliases, names inside
        longer matches); with no name, the long names a query word covers (``_term_matches``), flagged False."""
        named = self.match(query)
        return (named, True) if named else (self._term_matches(normalize(query)), False)

    def match(self, query: str) -> dict[str, float]:
        """Entity nodes named in ``query``: exact names, aliases, names inside longer matches."""
        text = normalize(query)
        spans: list[tuple[int, int, str]] = []
        for i in range(len(text) - 1):
            for alias in self._by_prefix.get(text[i:i + 2], ()):
                if text.startswith(alias, i) and (not alias.isascii() or _whole_words(text, i, i + len(alias))):
                    spans.append((i, i + len(alias), alias))
        found: dict[str, float] = {}
        for start, end, alias in spans:
            inner = any(s <= start and end <= e and (s, e) != (start, end) for s, e, _ in spans)
            for node in self.aliases[alias]:
                if self.arrays.kind(self.arrays.ids[node]) == "ticker" and not _written(node, query):
                    continue  # a symbol counts only in capitals: "ALL" or "KEY" in a question is a word
                strength = INSIDE if inner else EXACT if node == alias else ALIAS
                found[node] = max(found.get(node, 0.0), strength)
        return found

    def _term_matches(self, text: str) -> dict[str, float]:
        """Long names containing a query word (差旅费管理办法 in 江城大学国内差旅费管理办法), scored by coverage."""
        found: dict[str, float] = {}
        for term in self._tokenizer.keywords(text):
            if len(term) < MIN_TERM_CHARS:
                continue
            for node in self._names.containing(term):
                coverage = len(term) / len(node)
                if coverage >= MIN_TERM_COVERAGE:
                    found[node] = max(found.get(node, 0.0), TERM * coverage)
        return found

    def walk(self, starts: dict[str, float], hinted: frozenset[str] = frozenset()) -> dict[str, Reach]:
        """Breadth-first walk up to max_hops, keeping per node the fewest hops, then the strongest path."""
        reached = {node: Reach(0, strength, (node,)) for node, strength in starts.items() if node in self.arrays.ids}
        # a name inside a longer match (江城大学 in 江城大学借款管理办法) counts where it stands but is no start
        frontier = [n for n, r in reached.items() if r.weight >= ALIAS] or list(reached)
        for hop in range(1, self.max_hops + 1):
            found: dict[str, Reach] = {}
            for node in frontier:
                if hop > 1 and self.arrays.kind(self.arrays.ids[node]) in HUB_KINDS:
                    continue
                for neighbour, relation, weight, base in self._neighbours(node):
                    if neighbour in reached:
                        continue
                    weight *= OFF_HINT if hinted and base not in hinted else 1.0
                    here = reached[node]
                    candidate = Reach(hop, here.weight * weight, (*here.path, relation, neighbour))
                    if neighbour not in found or candidate.weight > found[neighbour].weight:
                        found[neighbour] = candidate
            reached.update(found)
            frontier = list(found)
        return reached

    def _neighbours(self, node: str) -> list[tuple[str, str, float, str]]:
        """(neighbour, label, weight, relation) both ways, strongest first, at most MAX_FANOUT; an edge walked
        backwards is labelled by its inverse. Worked out once per node (the graph does not change once loaded)."""
        known = self._neighbour_lists.get(node)
        if known is not None:
            return known
        names, relations = self.arrays.names, self.arrays.relations
        out = []
        for neighbour, code, weight, inverse in self.arrays.neighbours(self.arrays.ids[node], MAX_FANOUT):
            relation = relations[code]
            out.append((names[neighbour], INVERSE.get(relation, relation) if inverse else relation, weight, relation))
        self._neighbour_lists[node] = out
        return out


class NameText:
    """Every entity name in one string, so the names containing a word are found by str.find, not by testing each
    name (a question without a name tried every one of the graph's entities for each of its words)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.starts: list[int] = []
        offset = 0
        for name in names:
            self.starts.append(offset)
            offset += len(name) + 1
        self.text = "\0".join(names)

    def containing(self, word: str) -> list[str]:
        """The names containing ``word``, each once, in the order given."""
        out: list[int] = []
        at = self.text.find(word) if word and "\0" not in word else -1
        while at >= 0:
            index = bisect.bisect_right(self.starts, at) - 1
            if not out or out[-1] != index:
                out.append(index)
            at = self.text.find(word, at + 1)
        return [self.names[i] for i in out]


def _whole_words(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is not cut out of a longer Latin word or number (contoso in contosoville).

    Checked for ASCII aliases only: Chinese is written without spaces between words.
    """
    def ascii_alnum(pos: int) -> bool:
        return 0 <= pos < len(text) and text[pos].isascii() and text[pos].isalnum()

    return not (ascii_alnum(start) and ascii_alnum(start - 1)) and not (ascii_alnum(end - 1) and ascii_alnum(end))


def _written(symbol: str, query: str) -> bool:
    """Whether the ticker ``symbol`` stands in ``query`` as written, as a word of its own."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(symbol)}(?![A-Za-z0-9])", query) is not None


def _shown_path(contributors: list[tuple[float, str]], reached: dict[str, Reach]) -> tuple[str, ...]:
    """The relation path shown with a hit: the chunk's entity reached most strongly by the walk, nearer on ties."""
    walked = [node for _, node in contributors if reached[node].hops > 0]
    if not walked:
        return ()
    node = max(walked, key=lambda n: (reached[n].score, -reached[n].hops, n))
    return reached[node].path


def load(domain: Domain, chunks: Sequence[Chunk] | None = None) -> GraphChannel:
    """Open index/graph, refusing it when built from other chunks, code or settings."""
    folder, manifest, chunks = open_index(domain, NAME, FORMAT_VERSION, index_params(domain), chunks)
    with reading(NAME, domain.name, (OSError, ValueError, KeyError)):
        arrays = GraphArrays.load(folder)
        aliases = json.loads((folder / "aliases.json").read_text(encoding="utf-8"))
    return GraphChannel(arrays, aliases, domain.config.graph.max_hops, manifest.counts.get("chunks", len(chunks)),
                        (folder, domain.name))
