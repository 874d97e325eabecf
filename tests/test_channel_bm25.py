"""The BM25 channel on a small real domain: build, search, manifest checks, crash safety."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lambdarag.channels import bm25
from lambdarag.channels.base import load_channels
from lambdarag.cli import main
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.errors import IndexMismatchError
from lambdarag.records import Chunk

REBUILD = "python scripts/rebuild_index.py --domain finance"

DOCS = {
    "travel": ("差旅费管理办法", [
        "第一条 为规范差旅费报销，根据国家有关规定制定本办法。",
        "第五条 出差人员住宿费标准：省会城市每人每天500元，其他城市每人每天380元。",
        "第九条 差旅费报销须在出差结束后30日内到报账大厅办理，附发票原件和审批单。",
    ]),
    "codes": ("学科分类与代码", [
        "本校学科编码执行国家标准GB/T 2261.1-2003《个人基本信息分类与代码》。",
        "实验室设备型号VA004的采购需经资产管理处审批，单价上限为20万元。",
        "2024年起，科研经费报销统一使用网上预约系统。",
    ]),
    "contacts": ("联系方式", [
        "财务处王丽负责科研经费报销咨询，联系电话010-62510000。",
        "报账大厅位于行政楼一层，工作时间为周一至周五8:30-17:00。",
        "预算科负责年度预算编制与调整。",
    ]),
}


def make_chunks(docs: dict[str, tuple[str, list[str]]] = DOCS) -> list[Chunk]:
    chunks = []
    for doc_id, (title, paragraphs) in docs.items():
        for n, paragraph in enumerate(paragraphs):
            chunks.append(Chunk(f"{doc_id}#{n:04d}", doc_id, title, title, paragraph))
    return chunks


def make_domain(base: Path, terms: list[str]) -> Domain:
    domain = init_domain("finance", base) if not (base / "finance").exists() else open_domain("finance", base)
    domain.instance_file.write_text(f"query:\n  terms: {json.dumps(terms, ensure_ascii=False)}\n", encoding="utf-8")
    return open_domain("finance", base)


@pytest.fixture()
def domain(tmp_path: Path) -> Domain:
    return make_domain(tmp_path, ["报账大厅", "差旅费"])


@pytest.fixture()
def built(domain: Domain) -> tuple[Domain, list[Chunk]]:
    chunks = make_chunks()
    bm25.build(domain, chunks, progress=False)
    return domain, chunks


def top_id(domain: Domain, chunks: list[Chunk], query: str) -> str:
    hits = bm25.load(domain, chunks).search(query, 3)
    assert hits, f"no hit for {query!r}"
    return hits[0].chunk_id


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("差旅费报销要在多少天内办理？", "travel#0002"),
        ("省会城市住宿费标准是多少", "travel#0001"),
        ("GB/T 2261.1-2003", "codes#0000"),
        ("gb/t2261.1", "codes#0000"),
        ("ＧＢ／Ｔ　２２６１．１－２００３是什么标准", "codes#0000"),
        ("VA004的单价上限", "codes#0001"),
        ("va004", "codes#0001"),
        ("2024年科研经费怎么报销", "codes#0002"),
        ("报账大厅在哪里？工作时间", "contacts#0001"),
        ("谁负责科研经费报销咨询", "contacts#0000"),
        ("预算编制", "contacts#0002"),
    ],
)
def test_finds_the_right_chunk(built: tuple[Domain, list[Chunk]], query: str, expected: str) -> None:
    assert top_id(*built, query) == expected


def test_hits_are_ranked_bm25_hits(built: tuple[Domain, list[Chunk]]) -> None:
    hits = bm25.load(*built).search("报销", 4)
    assert [h.rank for h in hits] == [1, 2, 3, 4]
    assert all(h.channel == "bm25" and h.score > 0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert bm25.load(*built).search("的吗？", 5) == []


def test_index_folder_keeps_dictionary_and_manifest(built: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = built
    folder = (domain.index_dir / "bm25").resolve()
    expected = {"manifest.json", "terms.txt", "chunk_ids.json", "vocab.npy", "vocab_slots.npy", "weights.npy"}
    assert expected <= {p.name for p in folder.iterdir()}
    assert {"报账大厅", "差旅费"} <= set((folder / "terms.txt").read_text(encoding="utf-8").split())
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["format_version"] == bm25.FORMAT_VERSION
    assert manifest["counts"]["chunks"] == len(chunks)
    assert {"tokenizer", "k1", "b", "epsilon", "config_terms"} <= set(manifest["params"])


def test_query_uses_the_build_dictionary(built: tuple[Domain, list[Chunk]]) -> None:
    channel = bm25.load(*built)
    assert "报账大厅" in channel.tokenizer.tokens("报账大厅在哪")


def test_entity_names_join_the_dictionary(domain: Domain) -> None:
    terms = bm25.dictionary(domain, make_chunks())
    assert {"财务处", "预算科"} <= set(terms)
    assert all(2 <= len(t) <= 20 for t in terms)


def test_missing_index_names_the_rebuild_command(domain: Domain) -> None:
    with pytest.raises(IndexMismatchError, match="missing") as err:
        bm25.load(domain, make_chunks())
    assert REBUILD in str(err.value)


def _edit_manifest(domain: Domain, key: str, value: object) -> None:
    path = (domain.index_dir / "bm25").resolve() / "manifest.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    section, _, field = key.partition(".")
    if field:
        data[section][field] = value
    else:
        data[section] = value
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("format_version", 999, "format 999"),
        ("params.k1", 1.2, "k1=1.2"),
        ("params.tokenizer", "jieba-0.1", "tokenizer="),
    ],
)
def test_manifest_mismatch_is_refused(built: tuple[Domain, list[Chunk]], key: str, value: object, message: str) -> None:
    domain, chunks = built
    _edit_manifest(domain, key, value)
    with pytest.raises(IndexMismatchError, match=message) as err:
        bm25.load(domain, chunks)
    assert REBUILD in str(err.value)


def test_changed_chunks_are_refused(built: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = built
    changed = [*chunks[:-1], Chunk("contacts#0002", "contacts", "联系方式", "联系方式", "预算科已并入财务处。")]
    with pytest.raises(IndexMismatchError, match="older than the extracted chunks") as err:
        bm25.load(domain, changed)
    assert REBUILD in str(err.value)


def test_changed_config_terms_are_refused(built: tuple[Domain, list[Chunk]], tmp_path: Path) -> None:
    _, chunks = built
    changed = make_domain(tmp_path, ["报账大厅", "差旅费", "网上预约系统"])
    with pytest.raises(IndexMismatchError, match="config_terms") as err:
        bm25.load(changed, chunks)
    assert REBUILD in str(err.value)


def test_damaged_index_is_refused(built: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = built
    ((domain.index_dir / "bm25").resolve() / "vocab.npy").unlink()
    with pytest.raises(IndexMismatchError, match="damaged") as err:
        bm25.load(domain, chunks)
    assert REBUILD in str(err.value)


def test_failing_writer_keeps_the_old_index(built: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = built
    before = (domain.index_dir / "bm25").resolve()
    broken = [*chunks, Chunk(b"not-json#0000", "x", "x", "x", "新文档")]  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        bm25.build(domain, broken, progress=False)
    assert (domain.index_dir / "bm25").resolve() == before
    assert [p.name for p in domain.index_dir.iterdir() if p.name.startswith(".bm25-")] == [before.name]
    assert top_id(domain, chunks, "VA004") == "codes#0001"


CHILD = """
import json, sys, time
from pathlib import Path
from lambdarag.channels import bm25
from lambdarag.config.domain import open_domain
from lambdarag.records import Chunk

base, marker = Path(sys.argv[1]), Path(sys.argv[2])
domain = open_domain("finance", base)
published = (domain.index_dir / "bm25").resolve()

class StallWhileWriting(list):
    # Stalls the first time the chunks are read after the BM25 arrays reached the temp folder.
    def __iter__(self):
        writing = [p for p in domain.index_dir.glob(".bm25-*/vocab_slots.npy") if p.parent != published]
        if writing and not marker.exists():
            marker.write_text("writing")
            time.sleep(120)
        return super().__iter__()

rows = json.loads(Path(sys.argv[3]).read_text(encoding="utf-8"))
bm25.build(domain, StallWhileWriting(Chunk.from_dict(r) for r in rows), progress=False)
print("finished without stalling")
"""


def test_build_killed_midway_keeps_the_old_index(built: tuple[Domain, list[Chunk]], tmp_path: Path) -> None:
    domain, chunks = built
    old = (domain.index_dir / "bm25").resolve()
    rows = tmp_path / "new_chunks.json"
    notices = ["图书馆开放时间为每天8点至22点。"] + [f"第{i}号通知：食堂菜单更新。" for i in range(1, 50)]
    new_chunks = make_chunks({"other": ("新文件", notices)})
    rows.write_text(json.dumps([c.to_dict() for c in new_chunks], ensure_ascii=False), encoding="utf-8")
    marker = tmp_path / "marker"
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(CHILD), str(tmp_path), str(marker), str(rows)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), "the child build never reached the write step"
        half_built = [p for p in domain.index_dir.glob(".bm25-*") if p != old]
        assert half_built and not (half_built[0] / "manifest.json").exists()
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
        child.communicate()  # reaps the child and closes its pipes
    assert (domain.index_dir / "bm25").resolve() == old
    assert top_id(domain, chunks, "GB/T 2261.1-2003") == "codes#0000"
    bm25.build(domain, new_chunks, progress=False)  # the next build publishes over the leftovers
    assert top_id(domain, new_chunks, "图书馆开放时间") == "other#0000"


def test_registry_loads_the_channel_from_processed_chunks(built: tuple[Domain, list[Chunk]]) -> None:
    from lambdarag.ingest.store import write_chunks

    domain, chunks = built
    write_chunks(domain.processed_dir, chunks)
    loaded, errors = load_channels(domain, ["bm25"])
    assert errors == {}
    assert loaded["bm25"].search("VA004", 1)[0].chunk_id == "codes#0001"
    write_chunks(domain.processed_dir, chunks[:-1])
    loaded, errors = load_channels(domain, ["bm25"])
    assert loaded == {} and REBUILD in errors["bm25"]


def test_index_command_builds_from_processed_chunks(domain: Domain, capsys: pytest.CaptureFixture[str]) -> None:
    from lambdarag.ingest.store import write_chunks

    write_chunks(domain.processed_dir, make_chunks())
    assert main(["index", "--domain", "finance", "--base-dir", str(domain.root.parent), "--no-progress"]) == 0
    assert "bm25 index of finance: 9 chunks" in capsys.readouterr().out
    assert bm25.load(domain).search("GB/T 2261.1-2003", 1)[0].chunk_id == "codes#0000"


def test_index_command_without_chunks_says_to_extract_first(domain: Domain, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", "--domain", "finance", "--base-dir", str(domain.root.parent)]) == 2
    err = capsys.readouterr().err
    assert "python scripts/extract_docs.py --domain finance" in err
    assert len(err.strip().splitlines()) == 1


def test_build_shows_progress_when_asked(domain: Domain, capsys: pytest.CaptureFixture[str]) -> None:
    result = bm25.build(domain, make_chunks(), progress=True)
    assert result.channel == "bm25" and result.items == 9
    err = capsys.readouterr().err
    assert "bm25 entities" in err and "bm25 tokens" in err
