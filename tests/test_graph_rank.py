"""The graph channel's bounded ranking returns what scoring every reached chunk returns, and stops early."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

import pytest

from lambdarag.channels.graph import WALKED_PER_CHUNK, NameText, chunk_score
from lambdarag.channels.graph_rank import top_chunks


def chunk_index(mentions: Mapping[str, Sequence[str]]) -> Callable[[str], list[str]]:
    """chunk id → the entities naming it, from entity → chunk ids."""
    index: dict[str, list[str]] = {}
    for entity, chunk_ids in mentions.items():
        for chunk_id in chunk_ids:
            index.setdefault(chunk_id, []).append(entity)
    return index.__getitem__


def score_all(values: dict[str, tuple[float, int]], mentions: dict[str, list[str]], k: int,
              allowed: set[str] | None) -> list[tuple[str, float, list[tuple[float, str]]]]:
    """The channel's former ranking: every chunk of every reached entity scored."""
    found: dict[str, list[tuple[float, str]]] = {}
    for entity, (value, _) in values.items():
        for chunk_id in mentions[entity]:
            if allowed is None or chunk_id in allowed:
                found.setdefault(chunk_id, []).append((value, entity))
    scores = {c: chunk_score([(v, values[e][1]) for v, e in f]) for c, f in found.items()}
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
    return [(c, s, found[c]) for c, s in ranked]


def random_walk(rng: random.Random, entities: int, chunks: int) -> tuple[dict[str, tuple[float, int]],
                                                                        dict[str, list[str]]]:
    """Reached entities with a few hubs named by many chunks, values that tie often (as idf values do)."""
    mentions = {}
    for i in range(entities):
        size = rng.choice([1, 1, 2, 3, 5, 8, chunks // 3]) if i % 7 else chunks // 2
        mentions[f"e{i}"] = rng.sample([f"c{j:04d}" for j in range(chunks)], min(size, chunks))
    values = {e: (rng.choice([0.25, 0.5, 1.0, 1.5, 2.0, 3.0]) * rng.choice([1.0, 0.5, 1 / 3]),
                  0 if rng.random() < 0.1 else rng.choice([1, 2])) for e in rng.sample(list(mentions), entities)}
    return values, mentions


@pytest.mark.parametrize("seed", range(60))
def test_bounded_ranking_equals_scoring_every_chunk(seed: int) -> None:
    rng = random.Random(seed)
    values, mentions = random_walk(rng, rng.randint(1, 120), rng.randint(5, 400))
    k = rng.choice([0, 1, 5, 20, 50])
    allowed = None if seed % 3 else {c for c in {c for m in mentions.values() for c in m} if rng.random() < 0.5}
    got = top_chunks(values, mentions.__getitem__, chunk_index(mentions), k, chunk_score, WALKED_PER_CHUNK,
                     None if allowed is None else allowed.__contains__)
    assert got == score_all(values, mentions, k, allowed)


def test_a_hub_far_down_the_ranking_is_never_scored() -> None:
    mentions = {"rare": ["c1", "c2"], "hub": [f"h{i}" for i in range(10_000)], "other": ["c3"]}
    values = {"rare": (5.0, 0), "other": (4.0, 1), "hub": (0.1, 1)}
    asked: list[str] = []

    def listed(entity: str) -> list[str]:
        asked.append(entity)
        return mentions[entity]

    got = top_chunks(values, listed, chunk_index(mentions), 2, chunk_score, WALKED_PER_CHUNK)
    assert [c for c, _, _ in got] == ["c1", "c2"] and "hub" not in asked


def test_name_text_finds_each_name_containing_a_word_once_in_order() -> None:
    names = ["财务处", "国内差旅费管理办法", "差旅费", "差旅费差旅费", "x"]
    text = NameText(names)
    assert text.containing("差旅费") == ["国内差旅费管理办法", "差旅费", "差旅费差旅费"]
    assert text.containing("处国") == [] and text.containing("") == [] and text.containing("x") == ["x"]
