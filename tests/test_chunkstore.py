"""processed/chunks.store: written with chunks.jsonl from the same chunks, read back identical, refused when damaged,
not used when it names another chunks.jsonl (the domain then loads from chunks.jsonl, as one from before the store)."""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
from pathlib import Path

import pytest

from lambdarag.channels import channel_module
from lambdarag.channels.manifest import chunks_hash
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.errors import IndexMismatchError
from lambdarag.ingest.chunkstore import ChunkRows, StoredChunks, chunk_headers, chunk_ids, chunks_containing
from lambdarag.ingest.run import extract_domain
from lambdarag.ingest.settings import IngestSettings
from lambdarag.ingest.store import (
    CHUNKS_FILE,
    STAGED_FILE,
    STAGED_STORE_FILE,
    STORE_FILE,
    atomic_write,
    discard_staged,
    load_chunks,
    open_chunks,
    promote_staged,
    write_chunks,
)
from lambdarag.records import Chunk
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.retrieval.versions import build_index

HINT = r"extract_docs\.py --domain kb"


def sample() -> list[Chunk]:
    """Chunks with every kind of field: shared and unique strings, empty ones, dates, tables, odd characters."""
    chunks = []
    for d, title in enumerate(["差旅办法（2021版）", "差旅办法（2024修订版）", "", "Annual Report 2023 😀"]):
        for n in range(3):
            chunks.append(Chunk(
                chunk_id=f"dir/doc{d}#{n:04d}", doc_id=f"dir/doc{d}", title=title,
                breadcrumb=f"{title} > 第{n}节" if n else title,
                text=["总则：本办法适用于全校。", "本办法自2024年7月1日起施行。《差旅办法（2021版）》同时废止。",
                      "| 城市 | 标准 |\n| 北京 | 800元 |", "line\x1fwith\x00controls\u2028and \"quotes\""][(d + n) % 4],
                locator=f"第{n + 1}页" if d % 2 else "", is_table=(d + n) % 4 == 2,
                dates=("2024", "2024-07-01") if n == 1 else (), source=f"dir/doc{d}.txt",
                doc_date="2024-07-01" if d == 1 else "", context="" if d == 2 else f"doc{d}.txt · 2024"))
    chunks.append(Chunk("solo#0000", "solo", "solo", "solo", "", dates=("2023",)))
    chunks.append(Chunk("odd#0000", "odd", "odd", "odd", "x", dates=("", "a\nb", "[1]")))  # not normalised: kept
    return chunks


def test_the_store_reads_back_the_chunks_of_chunks_jsonl_and_their_hash(tmp_path: Path) -> None:
    chunks = sample()
    write_chunks(tmp_path, chunks)
    stored = open_chunks(tmp_path)
    assert isinstance(stored, StoredChunks)
    parsed = load_chunks(tmp_path)
    assert parsed == chunks
    assert list(stored) == [c.chunk_id for c in parsed]
    assert [stored[c.chunk_id] for c in parsed] == parsed
    assert list(stored.values()) == parsed and len(stored) == len(parsed)
    assert "solo#0000" in stored and "solo#0001" not in stored and stored.get("nope") is None
    rows = stored.rows()
    assert isinstance(rows, ChunkRows) and list(rows) == parsed and rows[-1] == parsed[-1]
    assert rows[2:5] == parsed[2:5]
    assert chunks_hash(rows) == chunks_hash(parsed) == stored.digest
    assert chunk_ids(rows) == chunk_ids(parsed) == list(stored)
    assert chunk_headers(stored) == chunk_headers({c.chunk_id: c for c in parsed})
    for needle in ("《", "北京", "2023", "😀", "absent"):
        assert chunks_containing(stored, needle) == chunks_containing({c.chunk_id: c for c in parsed}, needle)


def test_the_version_index_from_a_store_is_the_one_from_the_chunks(tmp_path: Path) -> None:
    chunks = sample()
    write_chunks(tmp_path, chunks)
    stored = open_chunks(tmp_path)
    assert stored is not None
    from_list, from_store = build_index(chunks), build_index(stored)
    assert from_list.repeals and from_list.groups
    assert (from_store.groups, from_store.years, from_store.repeals, from_store.titles) == \
           (from_list.groups, from_list.years, from_list.repeals, from_list.titles)


def damage(path: Path, offset: int, data: bytes) -> None:
    raw = bytearray(path.read_bytes())
    raw[offset : offset + len(data)] = data
    path.write_bytes(bytes(raw))


def header_end(path: Path) -> int:
    raw = path.read_bytes()
    return 16 + int.from_bytes(raw[8:16], "little")


@pytest.mark.parametrize("how", ["truncated", "appended", "magic", "header", "version", "table", "text"])
def test_a_damaged_store_is_refused_with_the_extract_command(tmp_path: Path, how: str) -> None:
    processed = tmp_path / "kb" / "processed"
    write_chunks(processed, sample())
    path = processed / STORE_FILE
    size = path.stat().st_size
    if how == "truncated":
        path.write_bytes(path.read_bytes()[: size - 10])
    elif how == "appended":
        path.write_bytes(path.read_bytes() + b"\0" * 64)
    elif how == "magic":
        damage(path, 0, b"XX")
    elif how == "header":
        damage(path, 20, b"\xff\xfe")
    elif how == "version":
        raw = path.read_bytes()
        path.write_bytes(raw.replace(b'"version": 1', b'"version": 9', 1))
    elif how == "table":  # the first chunk's id ends past the text
        damage(path, stored_offset(path, "spans") + 8, (2**40).to_bytes(8, "little"))
    else:  # the first string (a chunk id) is no longer UTF-8
        damage(path, stored_offset(path, "blob"), b"\xff")
    with pytest.raises(IndexMismatchError, match=HINT):
        open_chunks(processed)


def stored_offset(path: Path, section: str) -> int:
    raw = path.read_bytes()
    header = json.loads(raw[16:header_end(path)])
    start = header_end(path) + (-header_end(path) % 64)
    return start + int(header["sections"][section]["offset"])


def test_a_store_naming_another_chunks_jsonl_is_not_used(tmp_path: Path) -> None:
    chunks = sample()
    write_chunks(tmp_path, chunks)
    # chunks.jsonl rewritten without its store (older code, or a run that died between the two files)
    atomic_write(tmp_path / CHUNKS_FILE, [json.dumps(c.to_dict(), ensure_ascii=False) + "\n" for c in chunks[:-1]])
    assert open_chunks(tmp_path) is None
    (tmp_path / CHUNKS_FILE).unlink()
    assert open_chunks(tmp_path) is None


def test_a_staged_pair_is_promoted_together_and_discarded_together(tmp_path: Path) -> None:
    chunks = sample()
    write_chunks(tmp_path, chunks[:3])
    write_chunks(tmp_path, chunks, staged=True)
    assert (tmp_path / STAGED_STORE_FILE).is_file()
    assert list(open_chunks(tmp_path) or {}) == [c.chunk_id for c in chunks[:3]]  # the served pair is untouched
    assert promote_staged(tmp_path)
    assert not (tmp_path / STAGED_FILE).exists() and not (tmp_path / STAGED_STORE_FILE).exists()
    assert list((open_chunks(tmp_path) or {}).values()) == chunks == load_chunks(tmp_path)
    write_chunks(tmp_path, chunks[:2], staged=True)
    discard_staged(tmp_path)
    assert not (tmp_path / STAGED_FILE).exists() and not (tmp_path / STAGED_STORE_FILE).exists()


RAW = {
    "差旅办法（2024修订版）.txt": ("本办法自2024年7月1日起施行。《差旅办法（2021版）》同时废止。\n\n"
                                  "伙食补助费每人每天120元。"),
    "差旅办法（2021版）.txt": "伙食补助费每人每天100元。",
}


def extracted(base: Path) -> Domain:
    """A real domain: raw files extracted, the bm25 channel built."""
    domain = init_domain("kb", base)
    for name, text in RAW.items():
        (domain.raw_dir / name).write_text(text, encoding="utf-8")
    extract(domain)
    channel_module("bm25").build(domain, load_chunks(domain.processed_dir), progress=False)
    return open_domain("kb", base)


def extract(domain: Domain) -> None:
    settings = IngestSettings(**dataclasses.asdict(domain.config.ingest))
    extract_domain(domain.raw_dir, domain.processed_dir, settings, progress=False, workers=0)


def test_a_domain_loads_from_its_store_and_from_chunks_jsonl_alike(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    domain = extracted(tmp_path / "knowledge")
    stored = KnowledgeBase.load(domain)
    assert isinstance(stored.chunks, StoredChunks) and "bm25" in stored.channels, stored.channel_errors
    # a domain extracted before the store existed: it loads from chunks.jsonl, with the hint that writes the store
    (domain.processed_dir / STORE_FILE).unlink()
    with caplog.at_level(logging.WARNING):
        parsed = KnowledgeBase.load(domain)
    assert isinstance(parsed.chunks, dict) and "bm25" in parsed.channels, parsed.channel_errors
    assert any("extract_docs.py --domain kb" in r.getMessage() for r in caplog.records)
    assert list(parsed.chunks.values()) == list(stored.chunks.values())
    for kb in (stored, parsed):
        assert kb.health()["chunks"] == len(parsed.chunks)
    assert stored.documents == parsed.documents and stored.titles == parsed.titles
    assert stored.document_spread == parsed.document_spread
    assert stored.versions.repeals == parsed.versions.repeals and stored.versions.repeals
    # an extract run over unchanged files writes the store again, and the index still fits its chunks
    extract(domain)
    again = KnowledgeBase.load(domain)
    assert isinstance(again.chunks, StoredChunks) and "bm25" in again.channels, again.channel_errors


def test_a_copied_domain_keeps_its_store_and_a_damaged_one_does_not_load(tmp_path: Path) -> None:
    domain = extracted(tmp_path / "knowledge")
    shutil.copytree(domain.root, tmp_path / "copy" / "kb", symlinks=True)
    copy = open_domain("kb", tmp_path / "copy")
    assert isinstance(KnowledgeBase.load(copy).chunks, StoredChunks)
    damage(copy.processed_dir / STORE_FILE, 0, b"XX")
    with pytest.raises(IndexMismatchError, match=HINT):
        KnowledgeBase.load(copy)
