"""The graph channel's arrays (lambdarag.channels.graph_arrays) against the networkx graph they are written from."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
from test_channel_graph import REBUILD, make_chunks, make_domain

from lambdarag.channels import graph
from lambdarag.channels.base import load_channels
from lambdarag.channels.graph_arrays import META_FILE, GraphArrays
from lambdarag.errors import IndexMismatchError
from lambdarag.graph.build import load_graph
from lambdarag.graph.schema import INVERSE


def reference_neighbours(g: nx.DiGraph, node: str) -> list[tuple[str, str, float, str]]:
    """What the channel read from the networkx graph before: out edges, in edges by their inverse, strongest first."""
    out = [(t, d["relation"], d["weight"], d["relation"]) for _, t, d in g.out_edges(node, data=True)]
    out += [(s, INVERSE.get(d["relation"], d["relation"]), d["weight"], d["relation"])
            for s, _, d in g.in_edges(node, data=True)]
    out.sort(key=lambda item: (-item[2], item[0]))
    return out


def assert_same(g: nx.DiGraph, arrays: GraphArrays) -> None:
    """Every node's kind, mentions, named chunks and edges read from the arrays are the graph's."""
    assert arrays.names == list(g.nodes)
    named: dict[str, list[str]] = {}
    for node, attrs in g.nodes(data=True):
        i = arrays.ids[node]
        assert arrays.kind(i) == attrs["kind"] and arrays.mention_count(i) == len(attrs["chunks"])
        assert [arrays.chunk_id(r) for r in arrays.mentions(i)] == attrs["chunks"]
        for chunk_id in attrs["chunks"]:
            named.setdefault(chunk_id, []).append(node)
        channel = graph.GraphChannel(arrays, {}, 2, 10)
        assert channel._neighbours(node) == reference_neighbours(g, node)[: graph.MAX_FANOUT]
    ids = [arrays.chunk_id(r) for r in range(arrays.n_chunks)]
    assert ids == sorted(named)  # rows order as the chunk ids
    assert {c: [arrays.names[n] for n in arrays.named_in(r)] for r, c in enumerate(ids)} == named


def random_graph(rng: random.Random) -> nx.DiGraph:
    """Nodes naming random chunks, edges both ways between some pairs, weights that tie often."""
    g = nx.DiGraph()
    chunks = [f"doc{rng.randint(0, 30)}#{n:04d}" for n in range(rng.randint(1, 60))]
    for n in range(rng.randint(1, 40)):
        g.add_node(f"实体{n}" if n % 3 else f"e{n}", kind=rng.choice(["org", "role", "person", "ticker"]), aliases=[],
                   chunks=list(dict.fromkeys(rng.sample(chunks, rng.randint(0, min(6, len(chunks)))))))
    nodes = list(g.nodes)
    for _ in range(rng.randint(0, 120)):
        s, t = rng.sample(nodes, 2) if len(nodes) > 1 else (nodes[0], nodes[0])
        if s != t:
            g.add_edge(s, t, relation=rng.choice(["belongs_to", "co_occurs", "based_on", "contact"]),
                       weight=rng.choice([0.3, 0.5, 1.0, 1]), evidence=[])
    return g


@pytest.mark.parametrize("seed", range(40))
def test_arrays_read_back_what_the_graph_holds(seed: int, tmp_path: Path) -> None:
    g = random_graph(random.Random(seed))
    GraphArrays.from_graph(g).save(tmp_path)
    assert_same(g, GraphArrays.load(tmp_path))


def test_a_built_index_has_the_arrays_of_its_graph_json(tmp_path: Path) -> None:
    domain, chunks = make_domain(tmp_path), make_chunks()
    graph.build(domain, chunks, progress=False)
    folder = domain.index_dir / "graph"
    assert_same(load_graph(folder), GraphArrays.load(folder))
    channel = graph.load(domain, chunks)
    assert channel.graph.edges["预算科", "财务处"]["relation"] == "belongs_to"  # graph.json, read when asked for


def test_arrays_that_disagree_with_their_node_list_are_refused(tmp_path: Path) -> None:
    domain, chunks = make_domain(tmp_path), make_chunks()
    graph.build(domain, chunks, progress=False)
    folder = domain.index_dir / "graph"
    meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
    (folder / META_FILE).write_text(json.dumps({**meta, "names": meta["names"][1:]}), encoding="utf-8")
    with pytest.raises(ValueError, match="do not match"):
        GraphArrays.load(folder)
    with pytest.raises(IndexMismatchError, match="damaged") as caught:  # its size differs from the manifest's
        graph.load(domain, chunks)
    assert REBUILD in str(caught.value)


def test_an_index_of_the_former_format_is_refused_naming_the_rebuild(tmp_path: Path) -> None:
    domain, chunks = make_domain(tmp_path), make_chunks()
    graph.build(domain, chunks, progress=False)
    manifest_file = domain.index_dir / "graph" / "manifest.json"
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    manifest_file.write_text(json.dumps({**manifest, "format_version": 1}), encoding="utf-8")
    with pytest.raises(IndexMismatchError, match=f"format 1, this version reads {graph.FORMAT_VERSION}") as caught:
        graph.load(domain, chunks)
    assert REBUILD in str(caught.value)
    loaded, errors = load_channels(domain, ["graph"], chunks)  # serving goes on without the channel, and says why
    assert "graph" not in loaded and "format 1" in errors["graph"] and REBUILD in errors["graph"]


def test_a_damaged_graph_json_is_refused_when_the_wiki_build_reads_it(tmp_path: Path) -> None:
    domain, chunks = make_domain(tmp_path), make_chunks()
    graph.build(domain, chunks, progress=False)
    graph_file = domain.index_dir / "graph" / "graph.json"
    graph_file.write_bytes(random.Random(1).randbytes(graph_file.stat().st_size))  # same size: the manifest agrees
    channel = graph.load(domain, chunks)  # a search does not read graph.json
    assert channel.search("预算科隶属哪个部门", 3)[0].chunk_id == "overview#0001"
    with pytest.raises(IndexMismatchError, match="damaged") as caught:
        _ = channel.graph
    assert REBUILD in str(caught.value)


def test_serving_does_not_import_networkx() -> None:
    """networkx costs a worker 0.3 s to import, and only a build needs it."""
    code = ("import importlib, sys, lambdarag.server; from lambdarag.channels.base import CHANNEL_MODULES; "
            "[importlib.import_module(m) for m in CHANNEL_MODULES.values()]; print('networkx' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "False"
