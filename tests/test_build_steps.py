"""The build's chunk list: read once for its channel steps, read again after the extract step writes a new one."""

from __future__ import annotations

from pathlib import Path

import pytest
from server_fixtures import write_corpus

from lambdarag.build.steps import BuildChunks, build_domain, run_step
from lambdarag.channels.base import channel_module
from lambdarag.channels.manifest import ChunkList, read_manifest
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.errors import IndexMismatchError
from lambdarag.ingest.chunkstore import content_hash
from lambdarag.ingest.store import load_chunks


def _domain(base: Path) -> Domain:
    domain = init_domain("kb", base)
    domain.instance_file.write_text("llm: {enabled: false}\nembedding: {backend: none}\n", encoding="utf-8")
    return open_domain("kb", base)


def test_the_chunk_list_is_read_once_and_again_after_extraction(tmp_path: Path) -> None:
    domain = _domain(tmp_path)
    chunks = BuildChunks(domain, staged=False)
    with pytest.raises(IndexMismatchError, match="no extracted chunks"):
        chunks.get()
    write_corpus(domain.raw_dir)
    assert run_step(domain, "extract", progress=False, chunks=chunks).ok
    first = chunks.get()
    assert isinstance(first, ChunkList) and first == load_chunks(domain.processed_dir)
    assert chunks.get() is first  # the next step gets the same list, its hash worked out once
    assert first.digest == content_hash(first)
    (domain.raw_dir / "extra.md").write_text("# 新增\n\n校园卡单次充值上限为五百元。\n", encoding="utf-8")
    assert run_step(domain, "extract", progress=False, chunks=chunks).ok
    again = chunks.get()
    assert again is not first and len(again) == len(first) + 1


def test_every_channel_of_a_build_records_the_chunks_it_was_built_from(tmp_path: Path) -> None:
    domain = _domain(tmp_path)
    write_corpus(domain.raw_dir)
    outcomes = build_domain(domain, progress=False)
    assert [o.step for o in outcomes if o.ok] == ["extract", "index", "vectors", "wiki"]
    digest = content_hash(load_chunks(domain.processed_dir))
    for channel in ("bm25", "document", "graph", "wiki"):
        version = channel_module(channel, "local").FORMAT_VERSION
        _, manifest = read_manifest(domain.index_dir, channel, domain.name, version)
        assert manifest.chunks_hash == digest, channel
