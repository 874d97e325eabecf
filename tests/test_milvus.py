"""retrieval.backend: milvus against a real milvus-lite: the in-process file and `milvus-lite server` on loopback.

Build, query, incremental update and delete by content hash, the alias switched under running queries, stale
manifests and changed parameters refused, the server going down (the channels degrade, /readyz says so) and
coming back, and the one-line error when the milvus extra is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fake_openai import FakeOpenAI
from milvus_fixtures import LiteServer, milvus_domain, milvus_instance, rebuild, reopen
from server_fixtures import NEW_DOC, ROOT, free_port
from test_channel_vector import BACKGROUND, DIM, char_bag

from lambdarag.answer.units import chunk_sentences
from lambdarag.channels import load_channels
from lambdarag.channels.milvus_bm25 import MilvusBM25Channel
from lambdarag.channels.milvus_store import build_collections, client, current_collection, forget_client, target
from lambdarag.channels.milvus_vector import MilvusVectorChannel
from lambdarag.config.domain import Domain
from lambdarag.errors import IndexMismatchError
from lambdarag.ingest.store import load_chunks
from lambdarag.pipeline.run import answer, search
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.scope import Filters
from lambdarag.server import create_app

QUESTION = "教职工出差住宿费标准是多少"
TRAVEL = "差旅费报销办法"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(embed=char_bag, dim=DIM) as server:
        yield server


@pytest.fixture
def domain(tmp_path: Path, fake: FakeOpenAI) -> Iterator[Domain]:
    built = milvus_domain(tmp_path, fake.base_url)
    yield built
    forget_client(target(built))


def rows(domain: Domain, expr: str = 'chunk_id != ""') -> dict[str, dict[str, Any]]:
    """Every row of the domain's collection (through its alias), by chunk id, without the vectors."""
    fields = ["doc_id", "text", "title", "date", "source", "type", "tags", "dates", "is_table", "hash"]
    found = client(target(domain), 10).query(target(domain).alias, filter=expr, output_fields=fields, limit=1000)
    return {str(r["chunk_id"]): dict(r) for r in found}


def docs_of(hits: list[Any]) -> list[str]:
    return [h.chunk_id.split("#")[0] for h in hits]


def test_build_writes_one_collection_and_both_channels_query_it(domain: Domain, fake: FakeOpenAI) -> None:
    kb = KnowledgeBase.load(domain)
    assert kb.channel_errors == {}
    assert isinstance(kb.channels["bm25"], MilvusBM25Channel)
    assert isinstance(kb.channels["vector"], MilvusVectorChannel)
    for name in ("bm25", "vector"):
        hits = kb.channels[name].search(QUESTION, 5)
        assert docs_of(hits)[0] == TRAVEL, (name, hits)
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
        assert all(a.score >= b.score > 0 for a, b in pairwise(hits))
    stored = rows(domain)
    assert set(stored) == set(kb.chunks)
    chunk = kb.chunks[kb.channels["bm25"].search(QUESTION, 1)[0].chunk_id]
    row = stored[chunk.chunk_id]
    assert row["text"] == chunk.index_text and chunk.breadcrumb in row["text"]  # with its contextual header
    assert (row["doc_id"], row["title"], row["source"], row["type"]) == (TRAVEL, chunk.title, chunk.source, "md")
    assert row["date"] == chunk.doc_date and list(row["dates"]) == list(chunk.dates)
    # the metadata answer Milvus filter expressions (what a search scope will map onto)
    assert set(rows(domain, f'doc_id == "{TRAVEL}" and type == "md"')) == {
        c.chunk_id for c in kb.chunks.values() if c.doc_id == TRAVEL}
    hits = kb.channels["bm25"].search(QUESTION, 5, expr='doc_id != "差旅费报销办法"')
    assert hits and TRAVEL not in docs_of(hits)
    # a request's filters: the scope becomes a doc_id filter inside Milvus, before its ranking
    others = sorted({c.doc_id for c in kb.chunks.values()} - {TRAVEL})
    scope = kb.scope(Filters(doc_ids=(others[0],)))
    assert scope is not None
    for name in ("bm25", "vector"):
        scoped = kb.channels[name].search(QUESTION, 5, scope)
        assert scoped and set(docs_of(scoped)) == {others[0]}, (name, scoped)
    # /readyz's view of the server, probed
    health = kb.health()
    assert health["degraded"] is False and health["services"]["bm25"]["state"] == "ok"
    # the sentence vectors, read with the question's vector the Milvus channel embedded
    assert health["sentence_vectors"].startswith("loaded (")
    before, asked = len(fake.requests_to("/v1/embeddings")), "出差的住宿费怎么报销"  # not asked before
    assert answer(kb, asked).trace["context"]["nearest"] is not None
    sent = [t for r in fake.requests_to("/v1/embeddings")[before:] for t in r.body["input"]]
    assert sum(asked in t for t in sent) == 1  # embedded once: the search's vector is the one packing reads with
    # the background of everyday questions, each searched in the collection: the not-found line's dense reading
    background = kb.channels["vector"].background
    assert background is not None and health["off_topic_check"] == "ready"
    vectors = np.array([char_bag(c.index_text) for c in kb.chunks.values()], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    exact = sorted(float(np.max(vectors @ (v / np.linalg.norm(v)))) for v in (
        np.array(char_bag(q), dtype=np.float32) for q in sorted(BACKGROUND) if not q.isascii()))
    np.testing.assert_allclose(background.scores["zh"], exact, atol=1e-4)
    assert (domain.index_dir / "milvus-bm25" / "terms.txt").is_file()
    assert not (domain.index_dir / "bm25").exists() and not (domain.index_dir / "vector").exists()


def in_place(domain: Domain) -> Domain:
    """The domain with incremental: always (milvus-lite's ``auto`` writes a fresh collection instead)."""
    return reopen(domain, domain.instance_file.read_text(encoding="utf-8") + "    incremental: always\n")


def passages_sent(fake: FakeOpenAI, since: int, domain: Domain) -> list[str]:
    """The passages embedded by requests after the first ``since`` (not the background questions, which every build
    searches in the collection it wrote: channels/vector_background.py, nor the chunks' sentences, which the
    sentence vectors embed beside the collection: channels/sentence_vectors.py)."""
    texts = [t for r in fake.requests_to("/v1/embeddings")[since:] for t in r.body["input"]]
    sentences = {s for c in load_chunks(domain.processed_dir) for s in chunk_sentences(c.text)}
    return [t for t in texts if t not in BACKGROUND and t not in sentences]


def test_incremental_build_upserts_changed_rows_and_deletes_removed_ones(domain: Domain, fake: FakeOpenAI) -> None:
    domain = in_place(domain)
    before = rows(domain)
    collection = current_collection(client(target(domain), 10), target(domain).alias)
    embedded = len(fake.requests_to("/v1/embeddings"))
    (domain.raw_dir / NEW_DOC[0]).write_text(NEW_DOC[1], encoding="utf-8")  # added
    (domain.raw_dir / "科研经费管理.md").unlink()  # removed
    summaries = rebuild(domain)
    after = rows(domain)
    assert current_collection(client(target(domain), 10), target(domain).alias) == collection  # no new collection
    new_ids = {c for c in after if c.startswith("校园卡充值#")}
    assert new_ids and not any(c.startswith("科研经费管理#") for c in after)
    unchanged = {c for c in before if not c.startswith("科研经费管理#")}
    assert {c: after[c]["hash"] for c in unchanged} == {c: before[c]["hash"] for c in unchanged}
    assert f"{len(new_ids)} upserted" in summaries[1] and "deleted" in summaries[1]
    # only the new document's passages were embedded: the vector cache served the rest
    sent = passages_sent(fake, embedded, domain)  # the build also embeds the background questions, as queries
    assert len(sent) == len(new_ids) and all("校园卡" in t for t in sent)
    kb = KnowledgeBase.load(domain)
    # found, though not ranked first: milvus-lite scores the upserted row with its own segment's BM25 statistics
    assert "校园卡充值" in docs_of(kb.channels["bm25"].search("校园卡单次充值上限", 10))
    assert "科研经费管理" not in docs_of(kb.channels["bm25"].search("科研项目劳务费发放标准", 10))
    assert docs_of(kb.channels["vector"].search("校园卡单次充值上限", 3))[0] == "校园卡充值"


def test_auto_on_milvus_lite_writes_a_changed_corpus_to_a_fresh_collection(domain: Domain, fake: FakeOpenAI) -> None:
    cl, where = client(target(domain), 10), target(domain)
    first = current_collection(cl, where.alias)
    assert rebuild(domain)[1].count("0 upserted, 0 deleted") == 1  # nothing changed: nothing written
    assert current_collection(cl, where.alias) == first
    embedded = len(fake.requests_to("/v1/embeddings"))
    (domain.raw_dir / NEW_DOC[0]).write_text(NEW_DOC[1], encoding="utf-8")
    assert "alias switched" in rebuild(domain)[1]
    second = current_collection(cl, where.alias)
    assert first is not None and second is not None and second[0] != first[0]
    assert len(passages_sent(fake, embedded, domain)) == 1  # the cache served every other passage
    kb = KnowledgeBase.load(domain)
    assert docs_of(kb.channels["bm25"].search("校园卡单次充值上限", 3))[0] == "校园卡充值"


def test_a_changed_chunk_is_upserted_in_place(domain: Domain) -> None:
    domain = in_place(domain)
    path = domain.raw_dir / "财务处联系方式.md"
    path.write_text(path.read_text(encoding="utf-8").replace("张明", "王强"), encoding="utf-8")
    before = rows(domain)
    rebuild(domain)
    after = rows(domain)
    changed = {c for c in after if after[c]["hash"] != before.get(c, {}).get("hash")}
    assert changed and all("王强" in after[c]["text"] for c in changed)
    assert not any("张明" in r["text"] for r in after.values())
    hits = KnowledgeBase.load(domain).channels["bm25"].search("王强", 3)
    assert hits and hits[0].chunk_id in changed


def test_a_rebuild_switches_the_alias_under_running_queries(domain: Domain) -> None:
    kb = KnowledgeBase.load(domain)
    cl, where = client(target(domain), 10), target(domain)
    first = current_collection(cl, where.alias)
    assert first is not None
    stop, results, errors = threading.Event(), [], []

    def query() -> None:
        while not stop.is_set():
            try:
                results.append(docs_of(kb.channels["bm25"].search(QUESTION, 3))[0])
                results.append(docs_of(kb.channels["vector"].search(QUESTION, 3))[0])
            except Exception as exc:  # any failure during the switch is what this test is for
                errors.append(exc)

    thread = threading.Thread(target=query)
    thread.start()
    try:
        changed = reopen(domain, domain.instance_file.read_text(encoding="utf-8") + "    bm25_k1: 1.2\n")
        summaries = rebuild(changed)  # other parameters: a fresh collection, then the alias switched
    finally:
        stop.set()
        thread.join()
    second = current_collection(cl, where.alias)
    assert second is not None and second[0] != first[0] and second[1]["bm25"] == [1.2, 0.75]
    assert "alias switched" in summaries[1]
    assert errors == [] and len(results) > 2 and set(results) == {TRAVEL}
    assert build_collections(cl, where.alias) == sorted([first[0], second[0]])  # the previous one is kept
    third = reopen(changed, changed.instance_file.read_text(encoding="utf-8") + "    dense_index: FLAT\n")
    rebuild(third)
    kept = build_collections(cl, where.alias)
    assert first[0] not in kept and second[0] in kept and len(kept) == 2  # ... until the next rebuild
    assert docs_of(KnowledgeBase.load(third).channels["vector"].search(QUESTION, 3))[0] == TRAVEL


def test_a_stale_manifest_or_changed_parameters_are_refused_naming_the_build(domain: Domain) -> None:
    (domain.raw_dir / NEW_DOC[0]).write_text(NEW_DOC[1], encoding="utf-8")
    from lambdarag.build.steps import build_domain

    assert all(o.ok for o in build_domain(domain, ["extract"], progress=False))
    _, errors = load_channels(domain, ["bm25", "vector"])
    assert set(errors) == {"bm25", "vector"} and all("older than the extracted chunks" in e for e in errors.values())
    rebuild(domain)
    changed = reopen(domain, domain.instance_file.read_text(encoding="utf-8") + "    dense_index: FLAT\n")
    loaded, errors = load_channels(changed, ["bm25", "vector"])
    assert "bm25" in loaded and "dense_index" in errors["vector"] and "lambdarag build --domain kb" in errors["vector"]
    from lambdarag.channels import milvus_vector

    with pytest.raises(IndexMismatchError):
        milvus_vector.load(changed)


@pytest.fixture
def lite_server(tmp_path: Path) -> Iterator[LiteServer]:
    server = LiteServer(tmp_path / "milvus-data", free_port())
    server.start()
    yield server
    server.stop()


def test_server_down_degrades_the_channels_and_readyz_then_they_recover(
        tmp_path: Path, fake: FakeOpenAI, lite_server: LiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
    domain = milvus_domain(tmp_path / "knowledge", fake.base_url, uri=lite_server.uri)
    assert str(lite_server.data_dir) not in str(domain.index_dir) and not (domain.index_dir / "milvus.db").exists()
    monkeypatch.setenv("LAMBDARAG_ADMIN_TOKEN", "x")
    app = create_app(domain)
    try:
        state = app.extensions["lambdarag"]
        kb = state.holder.get()
        http = app.test_client()
        assert search(kb, QUESTION).trace["degraded"] == []
        assert http.get("/readyz").get_json()["status"] == "ready"

        lite_server.stop()
        result = search(kb, QUESTION)
        failed = {d["stage"]: d["error"] for d in result.trace["degraded"]}
        assert {"channel:bm25", "channel:vector"} <= set(failed), failed
        assert all(lite_server.uri in failed[f"channel:{c}"] for c in ("bm25", "vector"))
        assert result.hits and {"graph", "wiki", "document"} <= set(result.trace["channels"])  # the local ones answer
        ready = http.get("/readyz")
        body = ready.get_json()
        assert ready.status_code == 200 and body["status"] == "degraded"
        knowledge = body["parts"]["index"]["knowledge"]
        assert knowledge["services"]["bm25"]["state"] == "unreachable"
        assert knowledge["channels"]["vector"].startswith("loaded, unreachable: Milvus at " + lite_server.uri)

        lite_server.start()
        assert wait_for(lambda: search(kb, QUESTION).trace["degraded"] == [])
        assert http.get("/readyz").get_json()["status"] == "ready"
    finally:
        state.store.close()
        forget_client(target(domain))


def wait_for(check: Any, attempts: int = 50) -> bool:
    """True once ``check()`` is (the client reconnects with a short back-off)."""
    import time

    for _ in range(attempts):
        if check():
            return True
        time.sleep(0.2)
    return False


BLOCK_PYMILVUS = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pymilvus", "milvus_lite"):
            raise ImportError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
from lambdarag.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_without_the_extra_the_backend_is_a_one_line_error_naming_the_install(tmp_path: Path,
                                                                              fake: FakeOpenAI) -> None:
    from lambdarag.config.domain import init_domain

    domain = reopen(init_domain("kb", tmp_path), milvus_instance(fake.base_url))
    (domain.raw_dir / "a.md").write_text("# 标题\n\n住宿费标准为每天500元。\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LAMBDARAG_KNOWLEDGE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", BLOCK_PYMILVUS, "build", "--domain", "kb", ],
                          capture_output=True, text=True, env=env, timeout=300)
    lines = [line for line in done.stderr.splitlines() + done.stdout.splitlines() if "[index]" in line]
    assert len(lines) == 1 and "failed: retrieval.backend is milvus but pymilvus is not installed" in lines[0]
    assert "pip install -e '.[milvus]'" in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_the_jieba_analyzer_lets_milvus_cut_the_text(tmp_path: Path, fake: FakeOpenAI) -> None:
    domain = milvus_domain(tmp_path, fake.base_url, extra="    analyzer: jieba\n")
    try:
        kb = KnowledgeBase.load(domain)
        params = current_collection(client(target(domain), 10), target(domain).alias)
        assert params is not None and params[1]["analyzer_params"]["tokenizer"]["type"] == "jieba"
        assert "tokens" not in client(target(domain), 10).describe_collection(target(domain).alias)["fields"]
        assert docs_of(kb.channels["bm25"].search(QUESTION, 3))[0] == TRAVEL
        assert docs_of(kb.channels["bm25"].search("预算科的联系人", 3))[0] == "财务处联系方式"
    finally:
        forget_client(target(domain))


HOLD_CHANNELS = """
import json, sys
from lambdarag.answer.units import chunk_sentences
from lambdarag.channels import load_channels
from lambdarag.config.domain import open_domain
_, errors = load_channels(open_domain("kb", sys.argv[1]), ["bm25"])
print(json.dumps(errors, ensure_ascii=False))
"""


def test_a_milvus_lite_file_held_by_another_process_is_reported_with_the_server_alternative(
        domain: Domain) -> None:
    assert load_channels(domain, ["bm25"])[1] == {}  # this process holds index/milvus.db now
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", HOLD_CHANNELS, str(domain.root.parent)], capture_output=True,
                          text=True, env=env, timeout=300)
    error = json.loads(done.stdout.strip().splitlines()[-1])["bm25"]
    assert str(domain.index_dir / "milvus.db") in error and "one process at a time" in error
    assert "milvus-lite server" in error
