"""What the graph channel's search reads, as arrays: written at build from the entity graph, memory-mapped at load.

graph.json (networkx node-link data) stays the graph itself, read by the wiki build; a search reads only these, so a
load does no work per mention or edge (at 100k chunks, parsing graph.json, rebuilding the networkx graph and the
chunk → entities index from 535k mentions cost 2.2 s and 127 MB per worker; the arrays' pages are shared by the
workers through the page cache). In graph-arrays.json: the node names in the graph's order, the kind and relation
names; in .npy files, CSR by node (``*_ptr`` offsets): the chunks naming a node (``mention_chunk``, in its list's
order), the chunks' nodes (``named_node``, by chunk, in node order), the edges the walk follows from a node both
ways (``neighbour_*``: strongest first, ties by the neighbour's name, an edge out before one in), and the chunk ids
(``chunk_ids``, channels/strings.py), sorted, so that a chunk's row orders as its id does.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lambdarag.channels.strings import Strings, mapped, offsets

if TYPE_CHECKING:
    import networkx as nx

META_FILE = "graph-arrays.json"
ARRAYS = ("node_kind", "mention_ptr", "mention_chunk", "named_ptr", "named_node", "neighbour_ptr", "neighbour_node",
          "neighbour_weight", "neighbour_relation", "neighbour_inverse")
CHUNK_IDS = "chunk_ids"
Edge = tuple[int, int, float, bool]  # (neighbour, relation code, weight, walked backwards)


class GraphArrays:
    """The entity graph as a search reads it: nodes and chunks by number, their names and ids looked up on demand."""

    def __init__(self, names: list[str], kinds: list[str], relations: list[str], arrays: dict[str, np.ndarray],
                 chunk_ids: Strings) -> None:
        self.names, self.kinds, self.relations, self.chunk_ids = names, kinds, relations, chunk_ids
        self.ids = {name: i for i, name in enumerate(names)}
        self.arrays = arrays
        a = arrays
        self._kind, self._mention_ptr, self._mention_chunk = a["node_kind"], a["mention_ptr"], a["mention_chunk"]
        self._named_ptr, self._named_node, self._neighbour_ptr = a["named_ptr"], a["named_node"], a["neighbour_ptr"]
        if len(self._kind) != len(names) or len(self._mention_ptr) != len(names) + 1 or \
                len(self._neighbour_ptr) != len(names) + 1 or len(self._named_ptr) != len(chunk_ids) + 1:
            raise ValueError("graph arrays do not match their node list")

    @classmethod
    def from_graph(cls, graph: nx.DiGraph) -> GraphArrays:
        """The arrays of ``graph`` (node ids: its names, attributes kind and chunks; edges: relation and weight)."""
        names = list(graph.nodes)
        ids = {name: i for i, name in enumerate(names)}
        kinds = sorted({str(a["kind"]) for _, a in graph.nodes(data=True)})
        relations = sorted({str(d["relation"]) for _, _, d in graph.edges(data=True)})
        chunk_ids = sorted({c for _, a in graph.nodes(data=True) for c in a["chunks"]})
        row = {c: i for i, c in enumerate(chunk_ids)}
        mentions = [[row[c] for c in graph.nodes[n]["chunks"]] for n in names]
        arrays = {"node_kind": np.array([kinds.index(graph.nodes[n]["kind"]) for n in names], dtype=np.uint8),
                  **_mention_arrays(mentions, len(chunk_ids)),
                  **_neighbour_arrays(graph, names, ids, {r: i for i, r in enumerate(relations)})}
        return cls(names, kinds, relations, arrays, Strings.of(chunk_ids))

    def save(self, folder: Path) -> None:
        """Write graph-arrays.json and one .npy file per array into ``folder``."""
        meta = {"names": self.names, "kinds": self.kinds, "relations": self.relations}
        (folder / META_FILE).write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
        for name in ARRAYS:
            np.save(folder / f"{name}.npy", np.ascontiguousarray(self.arrays[name]))
        self.chunk_ids.save(folder, CHUNK_IDS)

    @classmethod
    def load(cls, folder: Path) -> GraphArrays:
        """The arrays written by ``save``, memory-mapped."""
        meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
        arrays = {name: mapped(folder / f"{name}.npy") for name in ARRAYS}
        return cls(list(meta["names"]), list(meta["kinds"]), list(meta["relations"]), arrays,
                   Strings.load(folder, CHUNK_IDS))

    def kind(self, node: int) -> str:
        return self.kinds[int(self._kind[node])]

    def mention_count(self, node: int) -> int:
        """How many chunks name ``node``."""
        return int(self._mention_ptr[node + 1] - self._mention_ptr[node])

    def mentions(self, node: int) -> list[int]:
        """The rows of the chunks naming ``node``, in the order the build found them."""
        return self._mention_chunk[self._mention_ptr[node] : self._mention_ptr[node + 1]].tolist()  # type: ignore[no-any-return]

    def named_in(self, row: int) -> list[int]:
        """The nodes a chunk names, in node order."""
        return self._named_node[self._named_ptr[row] : self._named_ptr[row + 1]].tolist()  # type: ignore[no-any-return]

    def neighbours(self, node: int, limit: int) -> list[Edge]:
        """The first ``limit`` edges the walk follows from ``node``: strongest first, both ways."""
        start, end = int(self._neighbour_ptr[node]), int(self._neighbour_ptr[node + 1])
        end = min(end, start + limit)
        a = self.arrays
        return list(zip(a["neighbour_node"][start:end].tolist(), a["neighbour_relation"][start:end].tolist(),
                        a["neighbour_weight"][start:end].tolist(), a["neighbour_inverse"][start:end].tolist(),
                        strict=True))

    def chunk_id(self, row: int) -> str:
        return self.chunk_ids[row]

    @property
    def n_chunks(self) -> int:
        """Chunks named by some node."""
        return len(self.chunk_ids)


def _mention_arrays(mentions: Sequence[Sequence[int]], n_chunks: int) -> dict[str, np.ndarray]:
    """node → chunk rows (CSR), and chunk row → nodes (CSR, each chunk's nodes in node order)."""
    counts = np.array([len(m) for m in mentions], dtype=np.int64)
    flat = np.array([r for m in mentions for r in m], dtype=np.int32)
    node_of = np.repeat(np.arange(len(mentions), dtype=np.int32), counts)
    by_chunk = np.argsort(flat, kind="stable")
    return {"mention_ptr": offsets(counts), "mention_chunk": flat, "named_node": node_of[by_chunk],
            "named_ptr": offsets(np.bincount(flat, minlength=n_chunks).astype(np.int64))}


def _neighbour_arrays(graph: nx.DiGraph, names: list[str], ids: dict[str, int],
                      codes: dict[str, int]) -> dict[str, np.ndarray]:
    """Per node, its out edges and its in edges (walked backwards), strongest first, ties by neighbour name."""
    lists: list[list[tuple[int, int, float, bool]]] = []
    for name in names:
        edges = [(ids[t], codes[d["relation"]], float(d["weight"]), False)
                 for _, t, d in graph.out_edges(name, data=True)]
        edges += [(ids[s], codes[d["relation"]], float(d["weight"]), True)
                  for s, _, d in graph.in_edges(name, data=True)]
        edges.sort(key=lambda e: (-e[2], names[e[0]]))
        lists.append(edges)
    flat = [e for edges in lists for e in edges]
    return {"neighbour_ptr": offsets(np.array([len(e) for e in lists], dtype=np.int64)),
            "neighbour_node": np.array([e[0] for e in flat], dtype=np.int32),
            "neighbour_relation": np.array([e[1] for e in flat], dtype=np.uint8),
            "neighbour_weight": np.array([e[2] for e in flat], dtype=np.float64),
            "neighbour_inverse": np.array([e[3] for e in flat], dtype=bool)}
