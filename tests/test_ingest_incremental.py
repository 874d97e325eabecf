"""Incremental extract runs: skip unchanged, redo changed, remove deleted; processed/ layout;
settings changes; progress bar only when asked (or on a terminal); one run per domain."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_ingest_support import make_pdf, make_pptx, make_xlsx

from lambdarag.errors import ExtractionError, IndexMismatchError
from lambdarag.ingest import IngestSettings, extract_domain, load_chunks, store
from lambdarag.ingest.run import doc_id_for

SETTINGS = IngestSettings()


@pytest.fixture
def domain(tmp_path: Path) -> tuple[Path, Path]:
    raw = tmp_path / "raw"
    (raw / "sub").mkdir(parents=True)
    (raw / "travel.md").write_text("# 差旅\n住宿标准为每晚500元。\n## 交通\n火车二等座。", encoding="utf-8")
    (raw / "sub" / "notice.txt").write_text("2024年3月1日起执行新标准。", encoding="utf-8")
    make_xlsx(raw / "fees.xlsx")
    (raw / ".hidden.txt").write_text("不应被读取", encoding="utf-8")
    (raw / "~$fees.xlsx").write_bytes(b"lock")
    return raw, tmp_path / "processed"


def test_doc_ids_are_paths_without_suffix() -> None:
    assert doc_id_for("travel-policy-2024.docx") == "travel-policy-2024"
    assert doc_id_for("sub/a.pdf") == "sub/a"


def test_unchanged_files_are_skipped_changed_redone_deleted_removed(domain: tuple[Path, Path]) -> None:
    raw, processed = domain
    first = extract_domain(raw, processed, SETTINGS, progress=False)
    assert first.done == ["fees.xlsx", "sub/notice.txt", "travel.md"] and first.failed == []
    chunks = load_chunks(processed)
    assert [c.doc_id for c in chunks] == ["fees", "fees", "sub/notice", "travel", "travel"]

    second = extract_domain(raw, processed, SETTINGS, progress=False)
    assert second.done == [] and second.skipped == first.done and load_chunks(processed) == chunks

    os.utime(raw / "travel.md", (1, 1))  # touched, same content: the hash decides
    (raw / "sub" / "notice.txt").write_text("2025年1月1日起执行新标准。", encoding="utf-8")
    third = extract_domain(raw, processed, SETTINGS, progress=False)
    assert third.done == ["sub/notice.txt"] and third.skipped == ["fees.xlsx", "travel.md"]
    notice = [c for c in load_chunks(processed) if c.doc_id == "sub/notice"]
    assert notice[0].text == "2025年1月1日起执行新标准。" and notice[0].dates == ("2025-01-01",)

    (raw / "fees.xlsx").unlink()
    fourth = extract_domain(raw, processed, SETTINGS, progress=False)
    assert fourth.removed == ["fees.xlsx"] and fourth.documents == 2
    assert {c.doc_id for c in load_chunks(processed)} == {"sub/notice", "travel"}
    assert not (processed / "docs" / "fees.xlsx.json").exists()
    assert "fees.xlsx" not in json.loads((processed / "state.json").read_text(encoding="utf-8"))["files"]


def test_processed_layout_is_readable(domain: tuple[Path, Path]) -> None:
    raw, processed = domain
    report = extract_domain(raw, processed, SETTINGS, progress=False)
    assert sorted(p.relative_to(processed).as_posix() for p in processed.rglob("*.json*")) == [
        "chunks.jsonl", "docs/fees.xlsx.json", "docs/sub/notice.txt.json", "docs/travel.md.json", "state.json"
    ]
    record = json.loads((processed / "docs" / "travel.md.json").read_text(encoding="utf-8"))
    [doc] = record["documents"]
    assert doc["title"] == "差旅" and doc["sections"] == [{"path": ["交通"], "locator": ""}]
    assert [b["kind"] for b in doc["blocks"]] == ["text", "text"]
    assert [c["breadcrumb"] for c in doc["chunks"]] == ["差旅", "差旅 > 交通"]
    state = json.loads((processed / "state.json").read_text(encoding="utf-8"))
    entry = state["files"]["fees.xlsx"]
    assert entry["status"] == "done" and entry["doc_ids"] == ["fees"] and len(entry["sha256"]) == 64
    assert state["chunking"] == {"chunk_size": 500, "chunk_overlap": 80, "table_rows_per_chunk": 20,
                                 "metadata_fields": list(IngestSettings().metadata_fields)}
    lines = (processed / "chunks.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == report.chunks and json.loads(lines[0])["chunk_id"] == "fees#0000"


def test_new_chunk_settings_rechunk_without_extracting(domain: tuple[Path, Path]) -> None:
    raw, processed = domain
    (raw / "long.txt").write_text("这是一个用于测试的句子。" * 100, encoding="utf-8")
    extract_domain(raw, processed, SETTINGS, progress=False)
    before = [c for c in load_chunks(processed) if c.doc_id == "long"]
    smaller = IngestSettings(chunk_size=200, chunk_overlap=20)
    report = extract_domain(raw, processed, smaller, progress=False)
    after = [c for c in load_chunks(processed) if c.doc_id == "long"]
    assert report.done == [] and len(report.skipped) == 4
    assert len(after) > len(before) and all(len(c.text) <= 200 for c in after)


def test_failed_files_are_retried_only_when_changed_or_limits_change(domain: tuple[Path, Path]) -> None:
    raw, processed = domain
    make_pptx(raw / "slides.pptx")
    tight = IngestSettings(max_file_mb=0.02)  # the PPTX (~28 KB) is over the cap
    first = extract_domain(raw, processed, tight, progress=False)
    assert [f.path for f in first.failed] == ["slides.pptx"]
    again = extract_domain(raw, processed, tight, progress=False)
    assert again.done == [] and "slides.pptx" not in again.skipped
    assert again.failed[0].reason.endswith("[unchanged since the last run]")
    relaxed = extract_domain(raw, processed, SETTINGS, progress=False)
    assert relaxed.done == ["slides.pptx"] and relaxed.failed == []
    assert relaxed.summary().endswith("completed")


def test_a_doc_id_produced_twice_is_refused(domain: tuple[Path, Path]) -> None:
    raw, processed = domain
    (raw / "travel.txt").write_text("另一份差旅文件。", encoding="utf-8")
    report = extract_domain(raw, processed, SETTINGS, progress=False)
    assert [(f.path, f.reason) for f in report.failed] == [
        ("travel.txt", "doc_id 'travel' is also produced by travel.md: rename one of the files")
    ]
    assert next(c.text for c in load_chunks(processed) if c.doc_id == "travel") == "住宿标准为每晚500元。"


def test_a_lost_chunk_list_is_rebuilt_from_the_records(domain: tuple[Path, Path]) -> None:
    raw, processed = domain
    extract_domain(raw, processed, SETTINGS, progress=False)
    chunks = load_chunks(processed)
    (processed / "chunks.jsonl").unlink()  # as after a run interrupted before publishing
    with pytest.raises(IndexMismatchError, match="no extracted chunks") as missing:
        load_chunks(processed)
    assert isinstance(missing.value, FileNotFoundError)  # what a caller probing for "none yet" catches
    report = extract_domain(raw, processed, SETTINGS, progress=False)
    assert report.done == [] and load_chunks(processed) == chunks


def test_in_process_extraction_gives_the_same_chunks(domain: tuple[Path, Path], tmp_path: Path) -> None:
    raw, processed = domain
    extract_domain(raw, processed, SETTINGS, progress=False)
    extract_domain(raw, tmp_path / "inline", SETTINGS, progress=False, workers=0)
    assert load_chunks(tmp_path / "inline") == load_chunks(processed)


def test_progress_bar_only_when_asked_or_on_a_terminal(
    domain: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw, processed = domain
    extract_domain(raw, processed, SETTINGS)  # stderr is captured, not a terminal: no bar
    assert capsys.readouterr().err == ""
    extract_domain(raw, tmp_path / "again", SETTINGS, progress=True)
    assert "extract: 100%" in capsys.readouterr().err


def test_one_run_per_domain_at_a_time(domain: tuple[Path, Path]) -> None:
    raw, processed = domain
    processed.mkdir()
    with (processed / ".extract.lock").open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ExtractionError, match="another extract run is working on"):
            extract_domain(raw, processed, SETTINGS, progress=False)


def test_a_missing_raw_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ExtractionError, match="does not exist"):
        extract_domain(tmp_path / "nowhere", tmp_path / "processed", SETTINGS, progress=False)


def test_a_script_without_a_main_guard_extracts_once(tmp_path: Path) -> None:
    raw, processed = tmp_path / "raw", tmp_path / "processed"
    raw.mkdir()
    make_pdf(raw / "rules.pdf", pages=1)  # a PDF goes to a worker process
    script = tmp_path / "run.py"
    script.write_text(
        "from pathlib import Path\n"
        "from lambdarag.ingest import IngestSettings, extract_domain\n"
        f"report = extract_domain(Path({str(raw)!r}), Path({str(processed)!r}), IngestSettings(), progress=False)\n"
        "print(report.summary())\n",
        encoding="utf-8",
    )
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("completed") == 1 and "files: 1 extracted" in run.stdout
    assert "Traceback" not in run.stderr


def test_a_run_interrupted_before_publishing_leaves_no_stale_chunks(
    domain: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    raw, processed = domain
    extract_domain(raw, processed, SETTINGS, progress=False)
    (raw / "travel.md").write_text("# 差旅\n住宿标准调整为每晚600元。", encoding="utf-8")

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(store, "write_chunks", interrupted)
    with pytest.raises(KeyboardInterrupt):
        extract_domain(raw, processed, SETTINGS, progress=False, workers=0)
    assert "每晚600元" not in " ".join(c.text for c in load_chunks(processed))  # the last list stands
    monkeypatch.undo()
    report = extract_domain(raw, processed, SETTINGS, progress=False)
    assert report.done == []  # extracted by the interrupted run, not again
    assert [c.text for c in load_chunks(processed) if c.doc_id == "travel"] == ["住宿标准调整为每晚600元。"]
