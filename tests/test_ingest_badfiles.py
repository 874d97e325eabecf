"""Bad files never stop a build nor lose what was built: each is reported with its reason."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest
from test_ingest_support import make_docx, make_encrypted_pdf, make_pdf, make_zip_bomb

from lambdarag.errors import ExtractionError
from lambdarag.ingest import IngestSettings, extract_domain, extract_file, load_chunks
from lambdarag.ingest.report import ExtractReport

OLE_HEADER = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504


def reasons(report: ExtractReport) -> dict[str, str]:
    return {failure.path: failure.reason for failure in report.failed}


@pytest.fixture
def raw(tmp_path: Path) -> Path:
    folder = tmp_path / "raw"
    folder.mkdir()
    return folder


def test_bad_files_are_reported_and_the_rest_is_built(raw: Path, tmp_path: Path) -> None:
    (raw / "good.txt").write_text("报销须在三个月内完成。", encoding="utf-8")
    (raw / "empty.txt").write_bytes(b"")
    truncated = make_docx(tmp_path / "whole.docx").read_bytes()
    (raw / "truncated.docx").write_bytes(truncated[: len(truncated) // 2])
    make_encrypted_pdf(raw / "locked.pdf", user_password="secret")
    make_zip_bomb(raw / "bomb.docx", megabytes=3)
    (raw / "large.txt").write_text("大" * 40_000, encoding="utf-8")  # 117 KB
    shutil.copy(make_pdf(tmp_path / "real.pdf", pages=1), raw / "renamed.docx")
    (raw / "binary.txt").write_bytes(bytes(range(256)) * 4)
    (raw / "legacy.doc").write_bytes(OLE_HEADER)
    (raw / "archive.xlsx").write_bytes(OLE_HEADER + "EncryptedPackage".encode("utf-16-le"))
    (raw / "notes.json").write_text("{}", encoding="utf-8")
    (raw / "fake.pdf").write_text("<html>404 not found</html>", encoding="utf-8")
    (raw / "garbage.pdf").write_bytes(b"%PDF-1.4\nnot a pdf at all\n")
    settings = IngestSettings(max_file_mb=0.1, max_unzipped_mb=1)
    report = extract_domain(raw, tmp_path / "processed", settings, progress=False)
    assert sorted(report.done) == ["good.txt", "renamed.docx"]
    got = reasons(report)
    assert got["empty.txt"] == "file is empty (0 bytes)"
    assert got["truncated.docx"].startswith("corrupt or truncated file: not a readable ZIP container")
    assert got["locked.pdf"] == "encrypted PDF: cannot extract without the password"
    assert got["bomb.docx"] == "zip expands to 3 MB > cap 1 MB (archive bomb?)"
    assert got["large.txt"] == "file is 0.1 MB > cap 0.1 MB"
    assert got["binary.txt"] == "content is binary, not text (extension .txt)"
    assert got["legacy.doc"] == "legacy Office format (.doc) is not supported: save it as .docx"
    assert got["archive.xlsx"] == "encrypted (password-protected) Office file: save a copy without the password"
    assert got["notes.json"].startswith("unsupported file type .json (supported: .csv, .docm, .docx")
    assert got["fake.pdf"] == "not a valid PDF file: the content is plain text"
    assert got["garbage.pdf"].startswith("corrupt or truncated PDF:")
    assert len(got) == 11
    assert report.notes == ["renamed.docx: content is PDF but extension is .docx"]
    summary = report.summary()
    assert summary.endswith("completed with 11 failures")
    assert "failed: bomb.docx: zip expands to 3 MB > cap 1 MB (archive bomb?)" in summary.splitlines()
    chunks = load_chunks(tmp_path / "processed")
    assert {c.doc_id for c in chunks} == {"good", "renamed"}


def test_zip_bomb_is_refused_from_the_central_directory(tmp_path: Path) -> None:
    bomb = make_zip_bomb(tmp_path / "report.xlsx", megabytes=2)
    assert bomb.stat().st_size < 20_000
    with pytest.raises(ExtractionError, match=r"^zip expands to 2 MB > cap 1 MB \(archive bomb\?\)$"):
        extract_file(bomb, "report", IngestSettings(max_unzipped_mb=1))


def test_image_files_need_ocr_and_are_not_failures(raw: Path, tmp_path: Path) -> None:
    from PIL import Image

    Image.new("RGB", (20, 20), "white").save(raw / "scan.png")
    report = extract_domain(raw, tmp_path / "processed", IngestSettings(), progress=False)
    assert report.needs_ocr == ["scan.png"] and report.failed == [] and report.chunks == 0


def test_a_hanging_file_is_abandoned_at_the_time_limit(raw: Path, tmp_path: Path) -> None:
    rows = "".join(f"2023-01-{i % 28 + 1:02d},项目{i},{i * 3.5},说明第{i}行\n" for i in range(300_000))
    (raw / "huge.csv").write_text("日期,项目,金额,备注\n" + rows, encoding="utf-8")  # ~15 s to extract
    for n in range(6):
        (raw / f"small{n}.md").write_text(f"# 标题{n}\n内容{n}。", encoding="utf-8")
    report = extract_domain(raw, tmp_path / "processed", IngestSettings(timeout_s=4), progress=False, workers=2)
    assert reasons(report) == {
        "huge.csv": "timed out after 4 s: extraction abandoned (raise ingest.timeout_s if the file is just very large)"
    }
    assert sorted(report.done) == [f"small{n}.md" for n in range(6)]
    assert report.seconds < 12
    assert report.summary().endswith("completed with 1 failure")


def test_a_file_that_turns_bad_keeps_its_previous_chunks(raw: Path, tmp_path: Path) -> None:
    processed = tmp_path / "processed"
    make_docx(raw / "policy.docx")
    first = extract_domain(raw, processed, IngestSettings(), progress=False)
    before = load_chunks(processed)
    assert first.done == ["policy.docx"] and before
    data = (raw / "policy.docx").read_bytes()
    (raw / "policy.docx").write_bytes(data[: len(data) // 3])  # an interrupted upload
    second = extract_domain(raw, processed, IngestSettings(), progress=False)
    assert reasons(second)["policy.docx"].endswith("(its previous version stays in the index)")
    assert load_chunks(processed) == before
    third = extract_domain(raw, processed, IngestSettings(), progress=False)
    assert third.failed[0].reason.endswith("[unchanged since the last run]") and load_chunks(processed) == before
    (raw / "policy.docx").write_bytes(data)
    fixed = extract_domain(raw, processed, IngestSettings(), progress=False)
    assert fixed.done == ["policy.docx"] and fixed.failed == [] and load_chunks(processed) == before


def test_a_worker_killed_mid_file_is_reported_and_replaced(raw: Path, tmp_path: Path) -> None:
    rows = "".join(f"2023-01-{i % 28 + 1:02d},项目{i},{i * 3.5}\n" for i in range(300_000))
    (raw / "a_huge.csv").write_text("日期,项目,金额\n" + rows, encoding="utf-8")  # the first job
    make_pdf(raw / "b_after.pdf", pages=1)  # needs a new worker once the first one is killed

    def kill_the_busy_worker() -> None:  # as the kernel's OOM killer would
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            busy = [p for p in multiprocessing.active_children() if p.pid is not None]
            if busy:
                time.sleep(1.0)
                os.kill(busy[0].pid, signal.SIGKILL)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_the_busy_worker)
    killer.start()
    report = extract_domain(raw, tmp_path / "processed", IngestSettings(), progress=False, workers=1)
    killer.join()
    assert reasons(report) == {"a_huge.csv": "extraction process died (exit code -9): killed, out of memory?"}
    assert report.done == ["b_after.pdf"]
