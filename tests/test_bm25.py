"""lambdarag.channels.okapi.BM25Okapi against the reference rank_bm25.BM25Okapi on the same tokens."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import rank_bm25

from lambdarag.channels.okapi import BM25Okapi, rank_scores
from lambdarag.text.tokenizer import Tokenizer

EVALDATA = Path(__file__).resolve().parents[2] / "shared" / "evaldata" / "domainrag_ruc"


def generated_corpus(n_docs: int = 300, seed: int = 7) -> list[list[str]]:
    """Zipf-like token lists: a few very common words (negative idf) and a long tail."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(400)]
    weights = [1.0 / (i + 1) for i in range(len(words))]
    return [rng.choices(words, weights, k=rng.randint(0, 60)) for _ in range(n_docs)]


def reference_top(ref: rank_bm25.BM25Okapi, query: Sequence[str], k: int) -> list[int]:
    scores = ref.get_scores(list(query))
    order = sorted((i for i in range(len(scores)) if scores[i] != 0), key=lambda i: (-scores[i], i))
    return order[:k]


def assert_equal_to_reference(corpus: list[list[str]], queries: list[list[str]]) -> None:
    ours, ref = BM25Okapi.fit(corpus), rank_bm25.BM25Okapi(corpus)
    assert ours.avgdl == pytest.approx(ref.avgdl)
    for query in queries:
        np.testing.assert_allclose(ours.scores(query), ref.get_scores(query), rtol=0, atol=1e-6)
        assert [i for i, _ in ours.top_k(query, 10)] == reference_top(ref, query, 10)


def test_equal_to_rank_bm25_on_generated_corpus() -> None:
    corpus = generated_corpus()
    rng = random.Random(1)
    vocab = [*sorted({t for doc in corpus for t in doc}), "unseen"]
    queries = [rng.sample(vocab, rng.randint(1, 6)) for _ in range(40)]
    queries += [["w0", "w0", "w1"], ["unseen"], []]  # repeated tokens count twice, as in rank_bm25
    assert_equal_to_reference(corpus, queries)


def test_negative_idf_gets_the_epsilon_floor() -> None:
    corpus = [["a", "b"], ["a", "c"], ["a", "d"], ["e"]]
    ours, ref = BM25Okapi.fit(corpus), rank_bm25.BM25Okapi(corpus)
    assert ours.idf[ours.vocab["a"]] == pytest.approx(ref.idf["a"])
    assert ours.idf[ours.vocab["a"]] == pytest.approx(0.25 * ref.average_idf)


@pytest.mark.parametrize(("k1", "b", "epsilon"), [(1.2, 0.75, 0.25), (2.0, 0.3, 0.5)])
def test_parameters_follow_the_reference(k1: float, b: float, epsilon: float) -> None:
    corpus = generated_corpus(120, seed=3)
    ours = BM25Okapi.fit(corpus, k1=k1, b=b, epsilon=epsilon)
    ref = rank_bm25.BM25Okapi(corpus, k1=k1, b=b, epsilon=epsilon)
    for query in (["w1", "w5", "w40"], ["w2", "w300"]):
        np.testing.assert_allclose(ours.scores(query), ref.get_scores(query), rtol=0, atol=1e-6)


def test_equal_to_rank_bm25_on_real_corpus() -> None:
    """First 2000 DomainRAG passages and its questions, tokenised by our Tokenizer."""
    corpus_file, questions_file = EVALDATA / "corpus.jsonl", EVALDATA / "questions.jsonl"
    if not corpus_file.exists() or not questions_file.exists():
        pytest.skip(f"evaluation data not found in {EVALDATA}")
    tok = Tokenizer()
    with corpus_file.open(encoding="utf-8") as fh:
        docs = [json.loads(line) for _, line in zip(range(2000), fh, strict=False)]
    corpus = [tok.tokens(f"{d['title']}\n{d['text']}") for d in docs]
    with questions_file.open(encoding="utf-8") as fh:
        queries = [tok.tokens(json.loads(line)["question"]) for _, line in zip(range(60), fh, strict=False)]
    assert_equal_to_reference(corpus, queries)


def test_top_k_ties_by_lower_index_and_no_zero_scores() -> None:
    corpus = [["x"], ["y"], ["x"], ["z"], ["x"]]
    model = BM25Okapi.fit(corpus)
    hits = model.top_k(["x"], 10)
    assert [i for i, _ in hits] == [0, 2, 4]
    assert hits[0][1] == hits[1][1] > 0
    assert [i for i, _ in model.top_k(["x"], 2)] == [0, 2]
    assert model.top_k(["nothing"], 5) == []
    assert model.top_k(["x"], 0) == []


def test_rank_scores_partition_keeps_ties_exact() -> None:
    scores = np.array([0.0, 2.0, 1.0, 2.0, 1.0, 1.0, 0.0, 3.0])
    assert rank_scores(scores, 3) == [(7, 3.0), (1, 2.0), (3, 2.0)]
    assert rank_scores(scores, 4) == [(7, 3.0), (1, 2.0), (3, 2.0), (2, 1.0)]
    assert rank_scores(np.zeros(3), 2) == []


def test_empty_documents_and_empty_corpus() -> None:
    model = BM25Okapi.fit([[], ["a"], []])
    assert model.top_k(["a"], 3) == [(1, pytest.approx(model.scores(["a"])[1]))]
    empty = BM25Okapi.fit([])
    assert empty.n_docs == 0 and empty.top_k(["a"], 3) == []


def test_save_load_round_trip(tmp_path: Path) -> None:
    corpus = [*generated_corpus(200, seed=11), ["标准", "报销", "va004"]]
    model = BM25Okapi.fit(corpus)
    model.save(tmp_path / "idx")
    loaded = BM25Okapi.load(tmp_path / "idx")
    assert isinstance(loaded.indices, np.memmap)
    assert loaded.vocab == model.vocab
    for query in (["w1", "w7", "w99"], ["报销", "va004"], ["missing"]):
        np.testing.assert_array_equal(loaded.scores(query), model.scores(query))
        assert loaded.top_k(query, 10) == model.top_k(query, 10)
    in_memory = BM25Okapi.load(tmp_path / "idx", mmap=False)
    assert not isinstance(in_memory.indices, np.memmap)
    np.testing.assert_array_equal(in_memory.scores(["w3"]), model.scores(["w3"]))


def test_load_refuses_inconsistent_files(tmp_path: Path) -> None:
    BM25Okapi.fit(generated_corpus(20)).save(tmp_path)
    np.save(tmp_path / "doc_len.npy", np.zeros(3, dtype=np.int32))
    with pytest.raises(ValueError, match="do not match"):
        BM25Okapi.load(tmp_path)
