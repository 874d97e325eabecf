"""The demo domain: generated files open with their libraries and hold what the questions ask."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import docx
import openpyxl
import pdfplumber
import pptx
import pytest

from lambdarag.demo.content import DOCUMENTS
from lambdarag.demo.generate import QUESTIONS_FILE, generate, main

INTENTS = {"person", "process", "data", "fact", "compare", "relation", "synthesis", "temporal"}
TXT_ENCODINGS = {
    "research-loan-process": "utf-8-sig",
    "tuition-deferral-notice-2024": "gb18030",
    "reimbursement-hall-faq": "utf-8",
}


def pdf_text(path: Path) -> str:
    with pdfplumber.open(path) as pdf:
        return "\n".join(page.extract_text() or "" for page in pdf.pages)


def docx_text(path: Path) -> str:
    document = docx.Document(str(path))
    parts = [p.text for p in document.paragraphs]
    parts += [cell.text for table in document.tables for row in table.rows for cell in row.cells]
    return "\n".join(parts)


def pptx_text(path: Path) -> str:
    parts: list[str] = []
    for slide in pptx.Presentation(str(path)).slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                parts.append(shape.text_frame.text)
            if shape.has_table:
                parts += [cell.text for row in shape.table.rows for cell in row.cells]
        if slide.has_notes_slide:
            parts.append(slide.notes_slide.notes_text_frame.text)
    return "\n".join(parts)


def xlsx_text(path: Path) -> str:
    workbook = openpyxl.load_workbook(path)
    cells = [str(v) for ws in workbook for row in ws.iter_rows(values_only=True) for v in row if v is not None]
    return "\n".join(cells)


def file_text(path: Path) -> str:
    suffix = path.suffix.lstrip(".")
    if suffix in {"md", "txt"}:
        return path.read_bytes().decode(TXT_ENCODINGS.get(path.stem, "utf-8"))
    return {"pdf": pdf_text, "docx": docx_text, "pptx": pptx_text, "xlsx": xlsx_text}[suffix](path)


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def raw_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "raw"
    generate(out)
    return out


@pytest.fixture(scope="module")
def texts(raw_dir: Path) -> dict[str, str]:
    return {path.stem: squash(file_text(path)) for path in sorted(raw_dir.iterdir())}


@pytest.fixture(scope="module")
def questions() -> list[dict[str, Any]]:
    lines = QUESTIONS_FILE.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_at_least_sixteen_files_in_all_six_formats(raw_dir: Path) -> None:
    paths = sorted(raw_dir.iterdir())
    formats = Counter(p.suffix for p in paths)
    assert len(paths) >= 16
    assert set(formats) == {".pdf", ".docx", ".pptx", ".xlsx", ".md", ".txt"}
    assert all(formats[f] >= 2 for f in (".pdf", ".docx", ".pptx", ".xlsx"))
    assert sorted(p.name for p in paths) == sorted(d.file_name for d in DOCUMENTS)


def test_pdf_chinese_extracts_as_real_text_with_running_header(raw_dir: Path) -> None:
    with pdfplumber.open(raw_dir / "travel-policy-2021.pdf") as pdf:
        pages = [page.extract_text() or "" for page in pdf.pages]
        tables = [t for page in pdf.pages for t in page.extract_tables()]
    assert len(pages) >= 2
    assert "江城大学国内差旅费管理办法（2021版）" in pages[0]
    assert "每人每天100元" in squash("".join(pages))
    for number, text in enumerate(pages, start=1):
        assert text.startswith("江城大学财务处 · 规章制度汇编")
        assert f"第 {number} 页" in text
    assert any(row[1:] == ["北京", "800元", "600元", "500元"] for t in tables for row in t)
    assert any(None in row for t in tables for row in t), "spanned city-class cells extract as None"


def test_docx_has_headings_lists_and_vertically_merged_cell(raw_dir: Path) -> None:
    document = docx.Document(str(raw_dir / "travel-reimbursement-process.docx"))
    styles = {p.style.name for p in document.paragraphs if p.style is not None}
    assert {"Title", "Heading 1", "List Number", "List Bullet"} <= styles
    table = document.tables[0]
    assert table.cell(3, 0)._tc is table.cell(5, 0)._tc
    assert table.cell(4, 0).text == "票据类"
    assert document.core_properties.created is not None and document.core_properties.created.year == 2024


def test_pptx_has_title_table_and_speaker_notes(raw_dir: Path) -> None:
    deck = pptx.Presentation(str(raw_dir / "research-funds-vertical-vs-horizontal.pptx"))
    slides = list(deck.slides)
    assert slides[0].shapes.title is not None
    assert slides[0].shapes.title.text == "纵向与横向科研经费管理要点对比"
    assert any(shape.has_table for slide in slides for shape in slide.shapes)
    notes = [s.notes_slide.notes_text_frame.text for s in slides if s.has_notes_slide]
    assert any("纵向3%，横向5%" in n for n in notes)


def test_xlsx_has_two_sheets_and_merged_headers(raw_dir: Path) -> None:
    workbook = openpyxl.load_workbook(raw_dir / "finance-contacts.xlsx")
    assert workbook.sheetnames == ["处领导及科室负责人", "报账大厅窗口"]
    merged = {str(r) for r in workbook["处领导及科室负责人"].merged_cells.ranges}
    assert {"A1:G1", "D2:E2"} <= merged
    assert workbook["处领导及科室负责人"]["D2"].value == "联系方式"
    fees = openpyxl.load_workbook(raw_dir / "tuition-fee-standards-2024.xlsx")["本科学费"]
    assert fees["D9"].value == 6800 and fees["E9"].value == "=C9*D9"


def test_txt_files_use_their_intended_encodings(raw_dir: Path) -> None:
    loan = (raw_dir / "research-loan-process.txt").read_bytes()
    assert loan.startswith(b"\xef\xbb\xbf")
    assert loan.decode("utf-8-sig").startswith("江城大学科研经费借款流程")
    notice = (raw_dir / "tuition-deferral-notice-2024.txt").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        notice.decode("utf-8")
    assert notice.decode("gb18030").startswith("关于办理2024-2025学年学费缓交申请的通知")
    assert (raw_dir / "reimbursement-hall-faq.txt").read_text(encoding="utf-8").startswith("报账大厅")


def test_questions_are_well_formed(questions: list[dict[str, Any]]) -> None:
    qids = [q["qid"] for q in questions]
    assert len(questions) >= 64 and len(set(qids)) == len(qids)
    counts = Counter(q["type"] for q in questions)
    assert set(counts) == INTENTS and min(counts.values()) >= 6
    with_history = [q for q in questions if "history" in q]
    assert len(with_history) >= 6
    for q in with_history:
        assert all(set(turn) == {"question", "answers"} for turn in q["history"])


def test_every_answer_appears_in_its_gold_documents(questions: list[dict[str, Any]], texts: dict[str, str]) -> None:
    for q in questions:
        assert q["gold_doc_ids"] and set(q["gold_doc_ids"]) <= set(texts), q["qid"]
        gold = [texts[doc_id] for doc_id in q["gold_doc_ids"]]
        for answer in q["answers"]:
            assert any(squash(answer) in text for text in gold), (q["qid"], answer)
        for doc_id, text in zip(q["gold_doc_ids"], gold, strict=True):
            assert any(squash(a) in text for a in q["answers"]), (q["qid"], doc_id)


def test_generation_is_reproducible(tmp_path: Path, raw_dir: Path, texts: dict[str, str]) -> None:
    assert main(["--out", str(tmp_path / "again")]) == 0
    again = sorted((tmp_path / "again").iterdir())
    assert [p.name for p in again] == sorted(p.name for p in raw_dir.iterdir())
    assert {p.stem: squash(file_text(p)) for p in again} == texts
    assert all(p.read_bytes() == (raw_dir / p.name).read_bytes() for p in again)
