"""The entity graph built from chunks: nodes are entities, edges are relations, both keep their source chunks.

Rule extraction (lambdarag.graph.entities) runs over every sentence; with graph.llm_extraction and an
LLM configured, the LLM adds entities and relations per chunk (cached by content hash, grounded
in the chunk text, failures counted and skipped). Names written after their parent
(江城大学财务处, 财务处收费管理科) are merged into the short name, which keeps the long one as
an alias and gains a belongs_to edge to the parent.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdarag.errors import ServiceError
from lambdarag.graph.english import join_sentences, short_name
from lambdarag.graph.entities import entity_key, extract_entities
from lambdarag.graph.relations import extract_relations
from lambdarag.graph.schema import KINDS, NODE_KINDS, RELATIONS, Relation
from lambdarag.records import Chunk
from lambdarag.text.fence import fence, fenced_messages
from lambdarag.text.tokenizer import normalize, split_sentences

if TYPE_CHECKING:
    import networkx as nx

    from lambdarag.config.schema import Config
    from lambdarag.models.llm import LLMClient

LLM_WEIGHT = 0.8  # LLM relations are trusted a little less than the explicit patterns
EXTRACTOR_VERSION = 4  # bump when extraction rules change the graph: the manifest records it
_REGULATION_TITLE = re.compile(
    r"^(.{2,60}?(?:办法|规定|细则|条例|规则|规程|章程|实施意见|管理制度))(?:[（(][^）)]*[）)])?$"
)
LLM_PROMPT = (
    "从下面的资料中抽取实体和关系，只输出JSON："
    '{{"entities": [{{"name": "...", "kind": "org|person|regulation|role|place"}}], '
    '"relations": [{{"source": "...", "relation": "{relations}", "target": "..."}}]}}。'
    "名称必须原样出现在资料中。\n资料：\n{text}"
)


@dataclass
class GraphStats:
    """What a graph build did: rule and LLM counts, LLM failures."""

    chunks: int = 0
    llm_chunks: int = 0
    llm_cached: int = 0
    llm_failures: int = 0
    llm_errors: list[str] = field(default_factory=list)


def regulation_subject(title: str) -> str | None:
    """The regulation a document is, from its title (江城大学预算管理办法（2024修订版） → 江城大学预算管理办法)."""
    m = _REGULATION_TITLE.match(entity_key(title))
    return m.group(1) if m else None


def build_graph(
    chunks: Sequence[Chunk], cfg: Config, llm: LLMClient | None = None, cache_file: Path | None = None,
    progress: Iterable[Chunk] | None = None,
) -> tuple[nx.DiGraph, GraphStats]:
    """Extract entities and relations from every chunk into a directed graph (node id = normalised name)."""
    import networkx as nx  # here, not at import: serving never builds a graph, and networkx costs 0.3 s to import

    graph = nx.DiGraph()
    stats = GraphStats(chunks=len(chunks))
    cache = _LLMCache(cache_file) if llm is not None else None
    for chunk in progress if progress is not None else chunks:
        subject = regulation_subject(chunk.title)
        if subject:
            _add_node(graph, subject, "regulation", chunk.chunk_id, chunk.title)
        for sentence in join_sentences(split_sentences(chunk.text)):
            entities = extract_entities(sentence)
            for e in entities:
                if e.kind in NODE_KINDS:
                    _add_node(graph, e.name, e.kind, chunk.chunk_id, sentence[e.start:e.end])
            for rel in extract_relations(sentence, entities, cfg.graph.cooccurrence_weight, subject):
                _add_edge(graph, rel, chunk.chunk_id)
        if llm is not None and cache is not None:
            _llm_extract(graph, chunk, llm, cache, stats, cfg.prompts.data_rule)
    if cache is not None:
        cache.close()
    merge_chained_names(graph)
    return graph, stats


def _add_node(graph: nx.DiGraph, name: str, kind: str, chunk_id: str, surface: str) -> None:
    key = entity_key(name)
    if len(key) < 2:
        return
    if key not in graph:
        graph.add_node(key, kind=kind, aliases=[], chunks=[])
    attrs = graph.nodes[key]
    surface_key = entity_key(surface)
    if surface_key != key and surface_key not in attrs["aliases"] and kind not in ("phone", "email"):
        attrs["aliases"].append(surface_key)
    _append_once(attrs["chunks"], chunk_id)


def _append_once(ids: list[str], chunk_id: str) -> None:
    """Chunks are processed one after another, so a repeat can only be the last id."""
    if chunk_id and (not ids or ids[-1] != chunk_id):
        ids.append(chunk_id)


def _add_edge(graph: nx.DiGraph, rel: Relation, chunk_id: str) -> None:
    """One relation; a stated relation replaces a co-occurrence on the same pair, evidence accumulates."""
    source, target = entity_key(rel.source), entity_key(rel.target)
    if source not in graph or target not in graph or source == target:
        return
    existing = graph.get_edge_data(source, target) or graph.get_edge_data(target, source)
    if existing is None or (existing["relation"] == "co_occurs" and rel.relation != "co_occurs"):
        evidence = list(existing["evidence"]) if existing else []
        graph.remove_edges_from([(source, target), (target, source)])
        graph.add_edge(source, target, relation=rel.relation, weight=rel.weight, evidence=evidence)
        existing = graph.edges[source, target]
    elif existing["relation"] == rel.relation:
        existing["weight"] = max(existing["weight"], rel.weight)
    _append_once(existing["evidence"], chunk_id)


def merge_chained_names(graph: nx.DiGraph) -> None:
    """江城大学财务处 → 财务处 (alias) with 财务处 belongs_to 江城大学; 财务处收费管理科 likewise."""
    # in the graph's order, longest first: a set's order changes with the process's hash seed, and with it which
    # chain a name of equal length joined first (the same chunks built different graphs run to run)
    orgs = dict.fromkeys(n for n, a in graph.nodes(data=True) if a["kind"] == "org")
    for long in sorted(orgs, key=len, reverse=True):
        short = next((long[i:] for i in range(2, len(long) - 1) if long[i:] in orgs and _is_name(long[:i])), None)
        if short is None or not graph.has_node(short):
            continue
        parent = long[: -len(short)]
        if parent not in graph:
            kind = extract_entities(parent)[0].kind
            graph.add_node(parent, kind=kind, aliases=[], chunks=list(graph.nodes[long]["chunks"]))
        _merge_into(graph, long, short)
        evidence = graph.nodes[parent]["chunks"]
        _add_edge(graph, Relation(short, "belongs_to", parent, 1.0), evidence[0] if evidence else "")
    _merge_short_regulations(graph)


def _merge_short_regulations(graph: nx.DiGraph) -> None:
    """《差旅费管理办法》 inside 江城大学差旅费管理办法 is the same rule: the short name becomes an alias."""
    orgs = _org_prefixes(graph)
    regulations = [n for n, a in graph.nodes(data=True) if a["kind"] == "regulation"]
    full: dict[str, list[str]] = {}
    for name in regulations:
        for org in orgs(name):
            full.setdefault(name[len(org):], []).append(name)
    for short, longs in full.items():
        if short in graph and len(set(longs)) == 1 and graph.nodes[short]["kind"] == "regulation":
            _merge_into(graph, short, longs[0])


def _org_prefixes(graph: nx.DiGraph) -> Callable[[str], list[str]]:
    """name → the organisations it starts with that leave at least 4 characters (a regulation's short name), in
    the graph's order: each of the name's prefixes looked up, not every organisation tried (that was quadratic)."""
    position = {n: i for i, (n, a) in enumerate(graph.nodes(data=True)) if a["kind"] == "org"}

    def prefixes(name: str) -> list[str]:
        found = [name[:i] for i in range(1, len(name) - 3) if name[:i] in position]
        return sorted(found, key=position.__getitem__)

    return prefixes


def _is_name(text: str) -> bool:
    """Whether ``text`` is one organisation or place name and nothing else."""
    found = extract_entities(text)
    return len(found) == 1 and found[0].kind in ("org", "place") and found[0].end - found[0].start == len(text)


def _merge_into(graph: nx.DiGraph, old: str, new: str) -> None:
    keep = graph.nodes[new]
    gone = graph.nodes[old]
    keep["aliases"] = list(dict.fromkeys([*keep["aliases"], old, *gone["aliases"]]))
    keep["chunks"] = list(dict.fromkeys([*keep["chunks"], *gone["chunks"]]))
    for _, target, data in list(graph.out_edges(old, data=True)):
        if target != new and not graph.has_edge(new, target):
            graph.add_edge(new, target, **data)
    for source, _, data in list(graph.in_edges(old, data=True)):
        if source != new and not graph.has_edge(source, new):
            graph.add_edge(source, new, **data)
    graph.remove_node(old)


def alias_index(graph: nx.DiGraph, synonyms: Mapping[str, Sequence[str]] = {}) -> dict[str, list[str]]:
    """Normalised alias → node ids: names, surface forms, merged long names, regulation short names, English
    organisations without their legal form (Contoso for Contoso, Inc. and Contoso Ltd.), synonyms."""
    index: dict[str, list[str]] = {}

    def add(alias: str, node: str) -> None:
        alias = normalize(alias)  # queries are matched in normalised form (NFKC, casefolded)
        if len(alias) >= 2 and node not in index.setdefault(alias, []):
            index[alias].append(node)

    orgs = _org_prefixes(graph)
    for node, attrs in graph.nodes(data=True):
        add(node, node)
        for alias in attrs["aliases"]:
            add(alias, node)
        if attrs["kind"] == "org" and (short := short_name(node)):
            add(short, node)
        if attrs["kind"] == "regulation":
            for org in orgs(node):  # 江城大学预算管理办法 is also asked for as 预算管理办法
                add(node[len(org):], node)
    for term, alternatives in synonyms.items():
        group = [entity_key(t) for t in (term, *alternatives)]
        nodes = [n for g in group for n in index.get(g, [])]
        for alias in group:
            for node in nodes:
                add(alias, node)
    return index


# --- LLM extraction ---------------------------------------------------------------------------------

class _LLMCache:
    """JSON lines of chunk-content hash → extraction, so unchanged chunks cost no LLM call on a rebuild."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        if path is not None and path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    item = json.loads(line)
                    self.entries[item["key"]] = item["value"]
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line from a killed build
        self._handle = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = path.open("a", encoding="utf-8")

    def put(self, key: str, value: dict[str, Any]) -> None:
        self.entries[key] = value
        if self._handle is not None:
            self._handle.write(json.dumps({"key": key, "value": value}, ensure_ascii=False) + "\n")
            self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()


def _llm_extract(graph: nx.DiGraph, chunk: Chunk, llm: LLMClient, cache: _LLMCache, stats: GraphStats,
                 rule: str) -> None:
    key = hashlib.sha256(f"{llm.model}\0{chunk.index_text}".encode()).hexdigest()
    value = cache.entries.get(key)
    if value is not None:
        stats.llm_cached += 1
    else:
        prompt = LLM_PROMPT.format(relations="|".join(RELATIONS), text=fence(chunk.index_text[:3000]))
        try:
            value = llm.chat_json(fenced_messages(rule, prompt), lambda v: validate_extraction(v, chunk.text))
        except ServiceError as exc:  # the rules already ran: the graph just lacks this chunk's LLM extras
            stats.llm_failures += 1
            if len(stats.llm_errors) < 3:
                stats.llm_errors.append(f"{chunk.chunk_id}: {exc.message}")
            return
        cache.put(key, value)
        stats.llm_chunks += 1
    for ent in value["entities"]:
        _add_node(graph, ent["name"], ent["kind"], chunk.chunk_id, ent["name"])
    for rel in value["relations"]:
        _add_edge(graph, Relation(rel["source"], rel["relation"], rel["target"], LLM_WEIGHT), chunk.chunk_id)


def validate_extraction(value: Any, text: str) -> dict[str, Any]:
    """The LLM's JSON reduced to known kinds and relations between names that occur in the text."""
    if not isinstance(value, dict) or not isinstance(value.get("entities", []), list):
        raise ValueError("expected an object with an 'entities' list")
    entities = [
        {"name": str(e["name"]).strip(), "kind": str(e["kind"])}
        for e in value.get("entities", []) if isinstance(e, dict) and e.get("kind") in KINDS
        and str(e.get("name", "")).strip() and str(e["name"]).strip() in text
    ]
    names = {e["name"] for e in entities} | {e.name for e in extract_entities(text)}
    relations = [
        {"source": str(r["source"]), "relation": str(r["relation"]), "target": str(r["target"])}
        for r in value.get("relations", []) or [] if isinstance(r, dict) and r.get("relation") in RELATIONS
        and r.get("source") in names and r.get("target") in names
    ]
    return {"entities": entities, "relations": relations}


# --- Persistence ------------------------------------------------------------------------------------

def save_graph(graph: nx.DiGraph, folder: Path) -> None:
    """graph.json as node-link data."""
    import networkx as nx

    data = nx.node_link_data(graph, edges="edges")
    (folder / "graph.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def load_graph(folder: Path) -> nx.DiGraph:
    """The graph written by save_graph."""
    import networkx as nx

    data = json.loads((folder / "graph.json").read_text(encoding="utf-8"))
    graph = nx.node_link_graph(data, directed=True, multigraph=False, edges="edges")
    assert isinstance(graph, nx.DiGraph)
    return graph
