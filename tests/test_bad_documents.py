"""Bad documents (issue 14, point 5): each hostile or broken file is reported with its reason and skipped, within a
memory cap, while the rest is built; names that would lead out of raw/ or the knowledge base are refused."""

from __future__ import annotations

import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hostile_files import GB, MB, deflate_bomb, encrypted_pdf, sparse_file, with_big_text, with_laughs
from test_ingest_support import DOCUMENTS, make_docx, make_pdf, make_pptx, make_xlsx

from lambdarag.config.domain import init_domain, open_domain
from lambdarag.ingest import IngestSettings, extract_domain, extract_file, load_chunks
from lambdarag.ingest.names import unsafe_doc_id
from lambdarag.ingest.report import ExtractReport
from lambdarag.ingest.worker import MAX_REASON_CHARS

ROOT = Path(__file__).resolve().parents[1]
WORKER_CAP_MB = 400  # ingest.max_memory_mb of the test domain: the address space of one extraction worker
BUILD_RSS_CAP_MB = 700  # what the whole `lambdarag build` process may reach (resident), hostile files and all
INSTANCE = f"""
ingest: {{max_memory_mb: {WORKER_CAP_MB}}}
retrieval:
  channels:
    vector: {{enabled: false}}
    graph: {{enabled: false}}
    wiki: {{enabled: false}}
embedding: {{backend: none}}
llm: {{enabled: false}}
"""
OLE_ENCRYPTED = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504 + "EncryptedPackage".encode("utf-16-le")
UNSAFE_LINES = ['{"doc_id": "../../etc/passwd", "text": "x"}', '{"doc_id": "/srv/abs", "text": "x"}',
                '{"doc_id": "C:\\\\Windows\\\\x", "text": "x"}', '{"doc_id": "a\\u0000b", "text": "x"}']


def hostile(raw: Path, tmp: Path) -> dict[str, str]:
    """Write the hostile files into raw/; their names with a fragment of the reason each must be reported with."""
    for kind, make in (("docx", make_docx), ("xlsx", make_xlsx), ("pptx", make_pptx)):
        with_laughs(make(tmp / f"plain.{kind}"), raw / f"laughs.{kind}")
    deflate_bomb(make_docx(tmp / "a.docx"), raw / "bomb.docx", "word/media/zeros.bin", 2 * GB)
    deflate_bomb(make_docx(tmp / "b.docx"), raw / "liar.docx", "word/document.xml", 2 * GB, declared=MB)
    deflate_bomb(make_docx(tmp / "c.docx"), raw / "plausible_liar.docx", "word/document.xml", 2 * GB, declared=200 * MB)
    with_big_text(make_docx(tmp / "d.docx"), raw / "hog.docx", megabytes=100)
    sparse_file(raw / "huge.pdf", 2 * GB, b"%PDF-1.4\n")
    encrypted_pdf(raw / "locked.pdf")
    (raw / "locked.docx").write_bytes(OLE_ENCRYPTED)
    whole = make_docx(tmp / "whole.docx").read_bytes()
    (raw / "truncated.docx").write_bytes(whole[: len(whole) // 2])
    os.mkfifo(raw / "pipe.txt")
    (tmp / "secret.md").write_text("# 机密\n不应进入索引。", encoding="utf-8")
    (raw / "outside.md").symlink_to(tmp / "secret.md")
    (tmp / "elsewhere").mkdir()
    (raw / "elsewhere").symlink_to(tmp / "elsewhere", target_is_directory=True)
    (raw / "evil\\..\\name.md").write_text("# x\n反斜杠路径。", encoding="utf-8")
    (raw / "line\nbreak.md").write_text("# x\n换行文件名。", encoding="utf-8")
    cap = f"out of memory (cap ingest.max_memory_mb = {WORKER_CAP_MB} MB)"
    return {
        "laughs.docx": "XML part word/document.xml declares a DTD or entities (entity expansion attack?): refused",
        "laughs.xlsx": "XML part xl/worksheets/sheet1.xml declares a DTD or entities",
        "laughs.pptx": "XML part ppt/slides/slide1.xml declares a DTD or entities",
        "bomb.docx": "zip expands to 2049 MB > cap 300 MB (archive bomb?)",
        "liar.docx": "zip member word/document.xml claims 1048576 bytes but holds",
        "plausible_liar.docx": cap, "hog.docx": cap,
        "huge.pdf": "file is 2048.0 MB > cap 50 MB",
        "locked.pdf": "encrypted PDF: cannot extract without the password",
        "locked.docx": "encrypted (password-protected) Office file",
        "truncated.docx": "corrupt or truncated file: not a readable ZIP container",
        "pipe.txt": "not a regular file (named pipe): refused",
        "outside.md": f"symbolic link to {tmp / 'secret.md'}, outside raw/: refused",
        "elsewhere": f"symbolic link to {tmp / 'elsewhere'}, outside raw/: refused",
        "evil\\..\\name.md": "gives an unsafe doc id (doc_id has a '.' or '..' path segment)",
        repr("line\nbreak.md"): "gives an unsafe doc id (doc_id holds control characters)",
    }


def good(raw: Path) -> set[str]:
    """The files that must be built; their doc ids."""
    (raw / "travel.md").write_text("# 差旅费\n出差住宿费每晚不超过五百元。", encoding="utf-8")
    make_docx(raw / "policy.docx")
    make_pdf(raw / "rules.pdf", pages=1)
    (raw / "inside.md").symlink_to(raw / "travel.md")  # a link that stays in raw/ is read
    lines = ['{"doc_id": "notice-1", "title": "通知", "text": "校园卡单次充值上限为1000元。"}', *UNSAFE_LINES]
    (raw / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"travel", "policy", "rules", "inside", "notice-1"}


def run_build(base: Path, log: Path) -> tuple[int, float, str]:
    """`lambdarag build` (extract and index) as a subprocess: exit code, peak resident MB (wait4), stderr."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with log.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "lambdarag", "build", "--domain", "kb", "--base-dir", str(base),
                                 "--steps", "extract,index"], cwd=ROOT, env=env, stdout=err, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss / 1024, log.read_text(encoding="utf-8", errors="replace")


def test_a_build_reports_every_hostile_file_and_indexes_the_rest_within_the_memory_caps(tmp_path: Path) -> None:
    domain = init_domain("kb", tmp_path / "knowledge")
    domain.instance_file.write_text(INSTANCE, encoding="utf-8")
    expected = hostile(domain.raw_dir, tmp_path)
    doc_ids = good(domain.raw_dir)
    started = time.monotonic()
    code, build_rss_mb, log = run_build(domain.root.parent, tmp_path / "build.log")
    seconds = time.monotonic() - started
    failed = dict(re.findall(r"^failed: (.+?): (.+)$", log, flags=re.M))
    for name, reason in expected.items():
        assert reason in failed.get(name, ""), (name, failed.get(name), log[-3000:])
    assert len(failed) == len(expected), sorted(set(failed) - set(expected))
    assert all(len(reason) <= MAX_REASON_CHARS for reason in failed.values())
    assert "note: corpus.jsonl: 4 lines skipped: line 2: doc_id has a '.' or '..' path segment" in log
    assert code == 1 and re.search(r"^\[index\] bm25: \d+ items", log, flags=re.M)  # extract failed, index built
    chunks = load_chunks(open_domain("kb", domain.root.parent).processed_dir)
    assert {c.doc_id for c in chunks} == doc_ids and "机密" not in " ".join(c.text for c in chunks)
    worker_peak = float(re.search(r"extraction workers peaked at (\d+) MB resident", log).group(1))  # type: ignore[union-attr]
    print(f"\nhostile build: {len(expected)} refused, {len(doc_ids)} built in {seconds:.1f} s; worker peak "
          f"{worker_peak:.0f} MB (cap {WORKER_CAP_MB} MB address space), build process peak {build_rss_mb:.0f} MB")
    assert worker_peak < WORKER_CAP_MB and build_rss_mb < BUILD_RSS_CAP_MB


def real_documents() -> list[Path]:
    files = sorted(p for p in DOCUMENTS.glob("*/*") if p.suffix in {".pdf", ".docx", ".xlsx", ".pptx"})
    if not files:
        pytest.skip(f"real evaluation documents not available: {DOCUMENTS}")
    return files


def reasons(report: ExtractReport) -> dict[str, str]:
    return {failure.path: failure.reason for failure in report.failed}


def test_truncated_copies_of_the_real_documents_are_each_reported(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    files = real_documents()
    for path in files:
        data = path.read_bytes()
        (raw / path.name).write_bytes(data[: len(data) // 2])
    (raw / "good.md").write_text("# 好文件\n正常内容。", encoding="utf-8")
    report = extract_domain(raw, tmp_path / "processed", IngestSettings(), progress=False)
    got = reasons(report)
    assert sorted(got) == sorted(p.name for p in files) and report.done == ["good.md"]
    for name, reason in got.items():
        wanted = "corrupt or truncated PDF" if name.endswith(".pdf") else "corrupt or truncated file"
        assert reason.startswith(wanted), (name, reason)


def test_real_office_files_with_garbage_inside_are_each_reported_on_one_short_line(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    rng = random.Random(14)
    office = [p for p in real_documents() if p.suffix != ".pdf"]
    for path in office:
        data = bytearray(path.read_bytes())
        middle = len(data) // 2
        data[middle : middle + 4096] = rng.randbytes(4096)
        (raw / path.name).write_bytes(bytes(data))
    report = extract_domain(raw, tmp_path / "processed", IngestSettings(), progress=False)
    got = reasons(report)
    # damage inside a part no reader needs (an embedded image) is harmless: such a file is extracted
    assert sorted([*got, *report.done]) == sorted(p.name for p in office) and len(got) > len(report.done)
    assert all(len(reason) <= MAX_REASON_CHARS and "\n" not in reason for reason in got.values()), got


def test_a_file_rewritten_while_it_is_read_is_reported_then_extracted_next_run(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    rows = "".join(f"2023-01-{i % 28 + 1:02d},项目{i},{i * 3.5}\n" for i in range(40_000))
    sheet = raw / "ledger.csv"
    sheet.write_text("日期,项目,金额\n" + rows, encoding="utf-8")  # about 2 s of extraction in a worker
    (raw / "other.md").write_text("# 其他\n不受影响。", encoding="utf-8")

    def rewrite_while_the_worker_reads() -> None:
        deadline = time.monotonic() + 60
        while not multiprocessing.active_children() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)
        with sheet.open("a", encoding="utf-8") as handle:  # an upload still being written
            handle.write("2023-02-01,追加,1.0\n")

    writer = threading.Thread(target=rewrite_while_the_worker_reads)
    writer.start()
    first = extract_domain(raw, tmp_path / "processed", IngestSettings(), progress=False, workers=1)
    writer.join()
    assert reasons(first) == {"ledger.csv": "the file changed while it was read: it is extracted again at the next run"}
    assert first.done == ["other.md"]
    second = extract_domain(raw, tmp_path / "processed", IngestSettings(), progress=False, workers=1)
    assert second.done == ["ledger.csv"] and second.failed == []
    assert any("追加" in c.text for c in load_chunks(tmp_path / "processed"))


@pytest.mark.parametrize("doc_id", ["../x", "a/../../b", "..", "./a", "/etc/passwd", "\\\\server\\share", "C:\\x",
                                    "~root/x", "a\nb", "a\x00b", "", "x" * 513, "a\\..\\b"])
def test_doc_ids_that_read_as_paths_are_refused(doc_id: str) -> None:
    assert unsafe_doc_id(doc_id)


@pytest.mark.parametrize("doc_id", ["travel", "sub/a", "2024/通知-1", "a..b", "report v2.1", "x" * 512, "a#1"])
def test_plain_doc_ids_pass(doc_id: str) -> None:
    assert unsafe_doc_id(doc_id) == ""


def test_a_jsonl_file_of_only_unsafe_doc_ids_fails_with_the_first_reason(tmp_path: Path) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("\n".join(UNSAFE_LINES) + "\n", encoding="utf-8")
    from lambdarag.errors import ExtractionError

    with pytest.raises(ExtractionError, match=r"no valid lines: .*line 1: doc_id has a '\.' or '\.\.' path segment"):
        extract_file(corpus, "c", IngestSettings())


def test_links_out_of_raw_are_read_only_when_allowed(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    (tmp_path / "shared.md").write_text("# 共享\n共享目录中的文件。", encoding="utf-8")
    (raw / "shared.md").symlink_to(tmp_path / "shared.md")
    refused = extract_domain(raw, tmp_path / "processed", IngestSettings(), progress=False)
    assert reasons(refused)["shared.md"].endswith("(copy the file into raw/, or set ingest.follow_symlinks: true)")
    allowed = extract_domain(raw, tmp_path / "processed", IngestSettings(follow_symlinks=True), progress=False)
    assert allowed.done == ["shared.md"] and allowed.failed == []
    shutil.rmtree(raw)
