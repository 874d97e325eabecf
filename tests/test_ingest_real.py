"""Extraction of the real documents in ../shared/evaldata (skipped when that folder is absent).

Expected cells were read off the documents themselves (pdfplumber's page text, Word, Excel).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_ingest_support import EVALDATA, real_file

from lambdarag.ingest import IngestSettings, extract_domain, extract_file, load_chunks
from lambdarag.ingest.chunk import chunk_document
from lambdarag.ingest.document import Document, Table

SETTINGS = IngestSettings()
LINKED = IngestSettings(follow_symlinks=True)  # raw/ links to the shared files instead of copying them


def tables(doc: Document) -> list[Table]:
    return [block.table for block in doc.blocks if block.table is not None]


@pytest.fixture(scope="module")
def csrc() -> Document:
    path = real_file("pdf/csrc_2018Q3_listed_company_industry_classification_zh.pdf")
    [doc] = extract_file(path, "csrc", SETTINGS)
    return doc


def test_docx_vertical_merge_keeps_each_rows_cells(tmp_path: Path) -> None:
    path = real_file("docx/weknora_genetic_test_table_vertical_merge_zh.docx")
    [doc] = extract_file(path, "genetic", SETTINGS)
    merged, control = tables(doc)
    assert merged.header == ("项目编号", "检测项目", "相关基因", "周期", "检测方法")
    assert [row[:3] for row in merged.rows] == [
        ("Q0101", "遗传性乳腺癌", "BRCA1"),
        ("Q0102", "遗传性卵巢癌", "BRCA2"),
        ("Q0103", "林奇综合征", "MLH1"),
        ("Q0104", "家族性腺瘤性息肉病", "APC"),
    ]
    assert all(row[4].startswith("检测方法：提取外周血基因组 DNA") for row in merged.rows)
    assert control.rows == (("相同值", "相同值", "独立值"),)  # equal neighbours are not a merge
    chunk_texts = [c.text for c in chunk_document(doc, SETTINGS) if c.is_table]
    assert any("| Q0103 | 林奇综合征 | MLH1 | 15个工作日 | 检测方法：" in text for text in chunk_texts)


def test_docx_tables_stay_in_body_order() -> None:
    [doc] = extract_file(real_file("docx/unstructured_docx-tables_en.docx"), "tables", SETTINGS)
    kinds = [(b.kind, b.text or b.table.header[0]) for b in doc.blocks if b.kind == "text" or b.table]
    assert kinds == [
        ("text", "Simple uniform table"), ("table", "Header Col 1"),
        ("text", "Nested Table"), ("table", "a"),
        ("text", "Table with merged cells"), ("table", "a"),
    ]
    nested, merged = tables(doc)[1:]
    assert nested.rows[0] == ("d", "e f; g&t h", "i")  # the nested table's text is kept in its cell
    assert merged.header == ("a", "b / c", "b / d") and merged.rows == (("e", "", "d"),)


def test_pdf_table_rows_with_header_and_page(csrc: Document) -> None:
    assert csrc.pages == 85 and not csrc.needs_ocr_pages
    assert csrc.title == "2018年3季度上市公司行业分类结果"
    found = {(b.locator, row) for b in csrc.blocks if b.table for row in b.table.rows}
    assert ("第1页", ("农、林、牧、渔业(A)", "01", "农业", "000998", "隆平高科")) in found
    assert ("第2页", ("采矿业(B)", "07", "石油和天然气开采业", "601857", "中国石油")) in found
    assert ("第6页", ("制造业(C)", "15", "酒、饮料和精制茶制造业", "600519", "贵州茅台")) in found
    assert ("第85页", ("综合(S)", "90", "综合", "000009", "中国宝安")) in found
    assert all(t.header == ("门类名称及代码", "行业大类代码", "行业大类名称", "上市公司代码", "上市公司简称")
               for t in tables(csrc))
    assert sum(len(t.rows) for t in tables(csrc)) > 3000


def test_pdf_table_text_is_not_repeated_as_running_text(csrc: Document) -> None:
    running = " ".join(b.text for b in csrc.blocks if b.kind == "text")
    assert "门类名称及代码" not in running and "隆平高科" not in running


def test_pdf_table_chunks_repeat_the_header(csrc: Document) -> None:
    chunks = chunk_document(csrc, SETTINGS)
    assert chunks and all(c.is_table for c in chunks)
    assert all(c.text.startswith("| 门类名称及代码 | 行业大类代码") for c in chunks)
    assert all(len(c.text.splitlines()) <= SETTINGS.table_rows_per_chunk + 1 for c in chunks)
    assert {c.locator for c in chunks} == {f"第{n}页" for n in range(1, 86)}


def test_pdf_rows_stacked_in_one_ruled_cell_are_split() -> None:
    [doc] = extract_file(real_file("pdf/nics-background-checks-2015-11_en_table.pdf"), "nics", SETTINGS)
    [table] = tables(doc)
    assert table.caption == "NICS Firearm Background Checks November - 2015"
    by_state = {row[0]: row for row in table.rows}
    assert by_state["Alabama"][1] == "18,870" and by_state["Alabama"][-1] == "71,137"
    assert by_state["Texas"][-1] == "146,982" and by_state["Wyoming"][-1] == "5,017"
    assert len(by_state) >= 54


def test_scanned_pdf_is_reported_as_needing_ocr(tmp_path: Path) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    scan = real_file("pdf/table-multi-row-column-cells_en_scanned_no_text_layer.pdf")
    (raw / "scan.pdf").symlink_to(scan)
    report = extract_domain(raw, tmp_path / "processed", LINKED, progress=False)
    assert report.needs_ocr == ["scan.pdf"] and report.failed == [] and report.chunks == 0
    assert report.summary().endswith("completed")


def test_xlsx_merged_headers_give_every_column_a_label() -> None:
    [doc] = extract_file(real_file("xlsx/mineru_xlsx_01_merged_headers.xlsx"), "book", SETTINGS)
    found = tables(doc)
    assert all(all(label for label in t.header) for t in found)
    headers = {(b.locator, b.table.header) for b in doc.blocks if b.table}
    assert ("工作表 Sheet3", ("first", "header / second", "header / third")) in headers
    assert ("工作表 Sheet3", ("first (f)", "header (f) / second", "header (f) / third")) in headers
    assert ("工作表 Sheet2", ("col-1", "col-2", "col-3", "col-4")) in headers
    assert sum(1 for b in doc.blocks if b.table and b.locator == "工作表 Sheet2") == 3  # side by side, below


def test_xlsx_title_rows_become_captions() -> None:
    [doc] = extract_file(real_file("xlsx/unstructured_stanley-cups_en.xlsx"), "cups", SETTINGS)
    first = tables(doc)[0]
    assert first.caption == "Stanley Cups" and first.header == ("Team", "Location", "Stanley Cups")
    assert ("Maple Leafs", "TOR", "13") in first.rows  # 13.0 computed, shown as 13


def test_pptx_tables_survive() -> None:
    [plain] = extract_file(real_file("pptx/unstructured_fake-power-point-table_en.pptx"), "p", SETTINGS)
    [table] = tables(plain)
    assert table.header == ("Column 1", "Column 2", "Column 3")
    assert table.rows == (("Red", "Green", "Blue"), ("Purple", "Orange", "Yellow"), ("Tangerine", "Pink", "Aqua"))
    assert plain.blocks[0].section == ("A Slide with a Table",) and plain.blocks[0].locator == "第1张幻灯片"
    [merged] = extract_file(real_file("pptx/mineru_pptx_01_table.pptx"), "m", SETTINGS)
    first = tables(merged)[0]
    assert first.header[1:4] == ("Class1 / A merged with B", "Class1 / A merged with B", "Class1 / C")
    assert [row[0] for row in first.rows] == ["R1", "R2", "R3", "R3", "R4", "R4", "R4"]
    notes = [b.text for b in merged.blocks if b.text.startswith("演讲者备注")]
    assert notes[0] == "演讲者备注：Some notes on the second slide."


def test_jsonl_corpus_imports_with_doc_ids_unchanged(tmp_path: Path) -> None:
    corpus = EVALDATA / "cmrc2018_dev" / "corpus.jsonl"
    if not corpus.is_file():
        pytest.skip(f"real evaluation corpus not available: {corpus}")
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "cmrc.jsonl").symlink_to(corpus)
    report = extract_domain(raw, tmp_path / "processed", LINKED, progress=False)
    expected = {}
    with corpus.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            expected[record["doc_id"]] = record["title"]
    chunks = load_chunks(tmp_path / "processed")
    assert report.failed == [] and report.documents == len(expected)
    assert {c.doc_id for c in chunks} == set(expected)
    assert all(c.chunk_id.startswith(f"{c.doc_id}#") for c in chunks)
    # titles as in the corpus; the two passages without one are titled by their doc_id
    assert all(c.title == (expected[c.doc_id] or c.doc_id) for c in chunks)
