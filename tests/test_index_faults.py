"""Index faults (issue 14, point 3): every file of every channel's index, and the chunk list, deleted, truncated,
emptied or overwritten, and manifests of another version or other parameters. Each is refused on one line that
names the command rebuilding it; the knowledge base loads the other channels; the server starts degraded or not
ready, saying why; a reload onto a broken index keeps the old one serving."""

from __future__ import annotations

import json
import logging
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from flask import Flask
from index_fixtures import CHANNELS, OLD_QUESTION, full_domain, index_files
from server_fixtures import ADMIN_TOKEN, copy_domain
from test_channel_vector import DIM, char_bag

from lambdarag.channels import load_channels
from lambdarag.channels.base import channel_module
from lambdarag.config.domain import Domain
from lambdarag.errors import REBUILD_COMMANDS, IndexMismatchError
from lambdarag.ingest.store import load_chunks
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.server import create_app

FILES = {
    "bm25": ["bm25.json", "chunk_ids.json", "doc_len.npy", "indices.npy", "indptr.npy", "manifest.json", "terms.txt",
             "vocab.npy", "vocab_ptr.npy", "vocab_slots.npy", "weights.npy"],
    "document": ["bm25.json", "doc_len.npy", "documents.json", "indices.npy", "indptr.npy", "manifest.json",
                 "subject/bm25.json", "subject/doc_len.npy", "subject/indices.npy", "subject/indptr.npy",
                 "subject/vocab.npy", "subject/vocab_ptr.npy", "subject/vocab_slots.npy", "subject/weights.npy",
                 "vocab.npy", "vocab_ptr.npy", "vocab_slots.npy", "weights.npy"],
    "vector": ["background.json", "ids.json", "manifest.json", "vectors.npy"],
    "graph": ["aliases.json", "chunk_ids.npy", "chunk_ids_ptr.npy", "graph-arrays.json", "graph.json", "manifest.json",
              "mention_chunk.npy", "mention_ptr.npy", "named_node.npy", "named_ptr.npy", "neighbour_inverse.npy",
              "neighbour_node.npy", "neighbour_ptr.npy", "neighbour_relation.npy", "neighbour_weight.npy",
              "node_kind.npy"],
    "wiki": ["bm25.json", "doc_len.npy", "indices.npy", "indptr.npy", "manifest.json", "page-names.json",
             "page_aliases.npy", "page_aliases_groups.npy", "page_aliases_ptr.npy", "page_edited.npy",
             "page_excerpt.npy", "page_excerpt_ptr.npy", "page_slug.npy", "page_slug_ptr.npy", "page_slug_rank.npy",
             "page_sources.npy", "page_sources_groups.npy", "page_sources_ptr.npy", "page_title.npy",
             "page_title_ptr.npy", "terms.txt", "vocab.npy", "vocab_ptr.npy", "vocab_slots.npy", "weights.npy"],
}
FILE_FAULTS = ("deleted", "truncated", "emptied", "garbage")
MANIFEST_FAULTS = {"format": "has format {found}, this version reads {reads}", "params": "built with",
                   "chunks": "older than the extracted chunks", "link": "is missing", "folder": "is missing"}
NOT_READ_AT_LOAD = {("graph", "graph.json")}  # the wiki build's input: its size is checked, its bytes read when used
AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(embed=char_bag, dim=DIM) as server:
        yield server


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> Domain:
    return full_domain(tmp_path_factory.mktemp("faults-source"), fake.base_url)


@pytest.fixture
def domain(source: Domain, tmp_path: Path) -> Domain:
    return copy_domain(source, tmp_path / "knowledge")


def damage(path: Path, fault: str) -> None:
    """One fault of a file: gone, cut in half, zero bytes (a full disk), or the same size of random bytes."""
    data = path.read_bytes()
    if fault == "deleted":
        path.unlink()
    elif fault == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif fault == "emptied":
        path.write_bytes(b"")
    else:
        path.write_bytes(random.Random(path.name).randbytes(len(data)))


def break_manifest(domain: Domain, channel: str, fault: str) -> None:
    link = domain.index_dir / channel
    folder = link.resolve()
    if fault == "link":
        link.unlink()
        return
    if fault == "folder":
        shutil.rmtree(folder)
        return
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if fault == "format":
        manifest["format_version"] += 1
    elif fault == "params":
        assert manifest["params"], channel
        manifest["params"] = {key: "other" for key in manifest["params"]}
    else:
        manifest["chunks_hash"] = "0" * 64
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def refusal(domain: Domain, channel: str) -> str:
    """What loading the one channel says (it must not load)."""
    loaded, errors = load_channels(domain, [channel], load_chunks(domain.processed_dir))
    assert channel not in loaded and set(errors) == {channel}
    return errors[channel]


def assert_one_line_naming_the_rebuild(message: str, channel: str) -> None:
    assert "\n" not in message and channel in message, message
    assert REBUILD_COMMANDS[channel].format(domain="kb") in message, message


def test_the_fault_lists_cover_every_index_file(source: Domain) -> None:
    assert {channel: index_files(source, channel) for channel in CHANNELS} == FILES


@pytest.mark.parametrize("fault", FILE_FAULTS)
@pytest.mark.parametrize(("channel", "name"), [(c, n) for c, names in FILES.items() for n in names])
def test_a_damaged_index_file_is_refused_naming_the_rebuild(domain: Domain, channel: str, name: str,
                                                            fault: str) -> None:
    if (channel, name) in NOT_READ_AT_LOAD and fault == "garbage":
        pytest.skip("same size: refused when read (test_channel_graph: graph.json garbage)")
    damage((domain.index_dir / channel).resolve() / name, fault)
    message = refusal(domain, channel)
    assert_one_line_naming_the_rebuild(message, channel)
    if name != "manifest.json":
        assert "damaged" in message or "could not be read" in message, message


@pytest.mark.parametrize("fault", MANIFEST_FAULTS)
@pytest.mark.parametrize("channel", CHANNELS)
def test_a_manifest_of_another_version_or_build_is_refused(domain: Domain, channel: str, fault: str) -> None:
    break_manifest(domain, channel, fault)
    message = refusal(domain, channel)
    assert_one_line_naming_the_rebuild(message, channel)
    reads = channel_module(channel).FORMAT_VERSION
    assert MANIFEST_FAULTS[fault].format(found=reads + 1, reads=reads) in message, message


@pytest.mark.parametrize("channel", CHANNELS)
def test_the_knowledge_base_serves_the_other_channels_degraded(domain: Domain, channel: str) -> None:
    damage((domain.index_dir / channel).resolve() / FILES[channel][0], "garbage")
    kb = KnowledgeBase.load(domain)
    assert set(kb.channel_errors) == {channel} and set(kb.channels) == set(CHANNELS) - {channel}
    health = kb.health()
    assert health["ok"] and health["degraded"]
    assert_one_line_naming_the_rebuild(health["channels"][channel], channel)


CHUNK_FAULTS = {
    "deleted": "no extracted chunks in", "emptied": "no extracted chunks in",
    "truncated": "is not a chunk", "garbage": "is not a chunk",
}


@pytest.mark.parametrize("fault", CHUNK_FAULTS)
def test_a_damaged_chunk_list_refuses_the_domain_naming_a_command(domain: Domain, fault: str) -> None:
    damage(domain.processed_dir / "chunks.jsonl", fault)
    with pytest.raises(IndexMismatchError, match=CHUNK_FAULTS[fault]) as err:
        KnowledgeBase.load(domain)
    message = str(err.value)
    commands = ("lambdarag build --domain kb", "extract_docs.py --domain kb")
    assert "\n" not in message and any(command in message for command in commands), message


def test_a_chunk_list_cut_at_a_line_end_leaves_every_channel_refused_as_stale(domain: Domain) -> None:
    path = domain.processed_dir / "chunks.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-1]), encoding="utf-8")
    kb = KnowledgeBase.load(domain)
    assert kb.channels == {} and not kb.health()["ok"]
    for channel, message in kb.channel_errors.items():
        assert "older than the extracted chunks" in message
        assert_one_line_naming_the_rebuild(message, channel)


def start(domain: Domain, caplog: pytest.LogCaptureFixture) -> tuple[Flask, list[str]]:
    with caplog.at_level(logging.WARNING, logger="lambdarag.server.holder"):
        app = create_app(domain)
    return app, [r.getMessage() for r in caplog.records if r.name == "lambdarag.server.holder"]


def test_start_up_with_a_broken_channel_logs_one_line_and_is_degraded(
        domain: Domain, caplog: pytest.LogCaptureFixture) -> None:
    damage((domain.index_dir / "bm25").resolve() / "weights.npy", "truncated")
    app, lines = start(domain, caplog)
    try:
        assert len(lines) == 1 and lines[0].startswith("index of kb: channel bm25 not loaded: bm25 index of domain")
        assert_one_line_naming_the_rebuild(lines[0], "bm25")
        response = app.test_client().get("/readyz")
        body = response.get_json()
        assert response.status_code == 200 and body["status"] == "degraded"
        assert body["parts"]["index"]["knowledge"]["channels"]["bm25"].endswith(
            "run: python scripts/rebuild_index.py --domain kb")
        assert app.test_client().post("/api/ask", json={"question": OLD_QUESTION}).get_json()["found"] is True
    finally:
        app.extensions["lambdarag"].store.close()


def test_start_up_without_a_chunk_list_logs_the_build_command_and_is_not_ready(
        domain: Domain, caplog: pytest.LogCaptureFixture) -> None:
    (domain.processed_dir / "chunks.jsonl").unlink()
    app, lines = start(domain, caplog)
    try:
        assert len(lines) == 1 and lines[0].endswith("run: lambdarag build --domain kb"), lines
        response = app.test_client().get("/readyz")
        assert response.status_code == 503 and response.get_json()["status"] == "not_ready"
        assert "lambdarag build --domain kb" in response.get_json()["parts"]["index"]["error"]
        answer = app.test_client().post("/api/ask", json={"question": OLD_QUESTION})
        assert answer.status_code == 503 and "lambdarag build --domain kb" in answer.get_json()["error"]["message"]
    finally:
        app.extensions["lambdarag"].store.close()


def publish_broken_copy(domain: Domain, channel: str) -> None:
    """What a build that published a broken index leaves: a new folder, swapped in, with one file damaged."""
    link = domain.index_dir / channel
    broken = domain.index_dir / f".{channel}-20260101000000-1-1"
    shutil.copytree(link.resolve(), broken)
    damage(broken / FILES[channel][-1], "garbage")
    tmp = domain.index_dir / f".{channel}.link-tmp"
    tmp.symlink_to(broken.name)
    tmp.replace(link)


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_reload_onto_a_broken_index_keeps_the_old_one_serving(app: Flask, domain: Domain, channel: str) -> None:
    client = app.test_client()
    publish_broken_copy(domain, channel)
    response = client.post("/admin/reload", headers=AUTH)
    message = response.get_json()["error"]["message"]
    assert response.status_code == 503 and "previous index is still served" in message
    assert f"channel {channel} would stop answering" in message
    assert REBUILD_COMMANDS[channel].format(domain="kb") in message
    ready = client.get("/readyz").get_json()
    assert ready["status"] == "ready" and ready["parts"]["index"]["knowledge"]["channels"][channel] == "loaded"
    assert client.post("/api/ask", json={"question": OLD_QUESTION}).get_json()["found"] is True


def test_a_reload_onto_a_garbled_chunk_list_keeps_the_old_one_serving(app: Flask, domain: Domain) -> None:
    damage(domain.processed_dir / "chunks.jsonl", "garbage")
    response = app.test_client().post("/admin/reload", headers=AUTH)
    assert response.status_code == 503 and "extract_docs.py --domain kb" in response.get_json()["error"]["message"]
    assert app.test_client().post("/api/ask", json={"question": OLD_QUESTION}).get_json()["found"] is True
