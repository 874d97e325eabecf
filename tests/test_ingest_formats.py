"""Each extractor on real files generated in tmp_path (python-docx, python-pptx, openpyxl,
reportlab) or written as bytes in the encodings operators actually have."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_ingest_support import (
    make_docx,
    make_encrypted_pdf,
    make_pdf,
    make_pptx,
    make_two_column_pdf,
    make_xlsx,
)

from lambdarag.ingest import IngestSettings, extract_domain, extract_file, xlsx_reader
from lambdarag.ingest.chunk import chunk_document
from lambdarag.ingest.document import Document, Table, locator_pages
from lambdarag.ingest.text_formats import page_marker

SETTINGS = IngestSettings()


def one(path: Path, doc_id: str = "doc") -> Document:
    [doc] = extract_file(path, doc_id, SETTINGS)
    return doc


def tables(doc: Document) -> list[Table]:
    return [block.table for block in doc.blocks if block.table is not None]


def texts(doc: Document) -> list[str]:
    return [block.text for block in doc.blocks if block.kind == "text"]


def test_docx_sections_body_order_lists_and_merges(tmp_path: Path) -> None:
    doc = one(make_docx(tmp_path / "policy.docx"))
    assert doc.title == "差旅费管理办法"  # the sole top heading at the start
    order = [(b.kind, b.section, b.text[:6]) for b in doc.blocks]
    assert order[1:4] == [
        ("text", ("住宿标准",), "出差人员应当"), ("table", ("住宿标准",), ""), ("text", ("住宿标准",), "表后说明：超")
    ]
    assert "- 乘坐火车二等座" in texts(doc) and "- 乘坐飞机经济舱" in texts(doc)
    hotel, transport = tables(doc)
    assert hotel.header == ("地区", "级别", "标准（元/晚）", "备注")
    assert [row[3] for row in hotel.rows] == ["含早餐", "旺季上浮20%", "旺季上浮20%", "旺季上浮20%"]
    assert transport.header == ("类别", "报销比例", "报销比例")  # a merged header labels each column
    assert transport.rows == (("市内交通", "100%", "限额200元"), ("其他交通（凭票）", "", "据实报销"))


def test_pptx_slide_sections_tables_and_notes(tmp_path: Path) -> None:
    doc = one(make_pptx(tmp_path / "summary.pptx"))
    assert doc.pages == 2 and doc.page_unit == "张幻灯片"
    first, table_block, notes = doc.blocks
    assert (first.section, first.locator, first.text) == (("年度工作总结",), "第1张幻灯片", "2023年完成预算执行率98%")
    assert table_block.section == ("预算执行表",) and table_block.locator == "第2张幻灯片"
    assert table_block.table is not None and table_block.table.rows == (
        ("教务处", "120", "97%"), ("科研处", "300", "99%"), ("后勤处", "80", "99%")
    )
    assert notes.text == "演讲者备注：执行率按财务处口径统计。"


def test_xlsx_computed_values_merged_headers_and_empty_columns(tmp_path: Path) -> None:
    doc = one(make_xlsx(tmp_path / "fees.xlsx"))
    fees, notes = tables(doc)
    assert fees.caption == "2024年学费标准"
    assert fees.header == ("学院", "专业", "学费（元/年） / 本科", "学费（元/年） / 合计")
    assert fees.rows == (
        ("文学院", "汉语言文学", "5000", "20000"),
        ("理学院", "数学", "5500", "22000"),
        ("工学院", "计算机", "6000", "24000"),
    )
    assert notes.header == ("项目", "内容") and notes.rows == (("缴费时间", "每年9月1日前"),)
    assert [b.locator for b in doc.blocks] == ["工作表 收费表", "工作表 说明"]
    assert [b.section for b in doc.blocks] == [("收费表",), ("说明",)]


def test_xlsx_large_workbooks_are_streamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(xlsx_reader, "_READ_ONLY_MB", 0)  # stream even this small workbook
    fees, _ = tables(one(make_xlsx(tmp_path / "fees.xlsx")))
    assert ("理学院", "数学", "5500", "22000") in fees.rows  # merged ranges are not known when streaming
    assert fees.caption == "2024年学费标准"


def test_pdf_headers_footers_headings_tables_and_ocr_pages(tmp_path: Path) -> None:
    doc = one(make_pdf(tmp_path / "rules.pdf", pages=4, image_page=True))
    body = " ".join(texts(doc))
    assert "某某大学财务处文件" not in body and "第 1 页" not in body  # running header, page numbers
    assert "申请人应当提交书面材料。" in body
    assert [s.path for s in doc.sections] == [(f"第{n}章 规定{n}",) for n in range(1, 5)]
    [table] = tables(doc)
    assert table.header == ("项目", "金额（元）", "审批人")
    assert table.rows == (("差旅费", "1200", "处长"), ("会议费", "3000", "校长"))
    assert "差旅费" not in body  # table cells are not repeated as running text
    table_block = next(b for b in doc.blocks if b.table is not None)
    assert (table_block.locator, table_block.page, table_block.section) == ("第2页", 2, ("第2章 规定2",))
    assert doc.needs_ocr_pages == (5,) and doc.pages == 5


def test_pdf_two_columns_are_read_one_after_the_other(tmp_path: Path) -> None:
    doc = one(make_two_column_pdf(tmp_path / "journal.pdf"))
    first_page = " ".join(b.text for b in doc.blocks if b.page == 1)
    left = [first_page.index(f"左栏第{i:02d}行") for i in range(30)]
    right = [first_page.index(f"右栏第{i:02d}行") for i in range(30)]
    assert left == sorted(left) and right == sorted(right) and left[-1] < right[0]
    second_page = " ".join(b.text for b in doc.blocks if b.page == 2)
    assert "项目00 负责人00，办公地点行政楼0室" in second_page  # label and value stay on their row


def test_pdf_encrypted_with_owner_password_only_is_extracted(tmp_path: Path) -> None:
    doc = one(make_encrypted_pdf(tmp_path / "open.pdf", user_password=""))
    assert texts(doc) == ["Confidential budget figures for 2024."]


def markdown(tmp_path: Path, text: str) -> Document:
    """The document a Markdown file of ``text`` gives."""
    path = tmp_path / "page.md"
    path.write_text(text, encoding="utf-8")
    return one(path)


def test_markdown_headings_tables_code_and_front_matter(tmp_path: Path) -> None:
    doc = markdown(tmp_path, "---\ntitle: 报销指南\n---\n# 总则\n见[财务处网站](https://example.org)。\n\n"
                   "## 费用标准\n| 项目 | 标准 |\n|---|---:|\n| 市内交通 | 100 \\| 元 |\n| 餐费 | 50 |\n\n"
                   "```\n# 这不是标题\n```\n附件\n===\n最后一段。\n")
    assert doc.title == "报销指南"
    assert [s.path for s in doc.sections] == [("总则",), ("总则", "费用标准"), ("附件",)]
    assert texts(doc)[0] == "见财务处网站。"
    [table] = tables(doc)
    assert table.header == ("项目", "标准") and table.rows == (("市内交通", "100 | 元"), ("餐费", "50"))
    assert "# 这不是标题" in " ".join(texts(doc))
    assert doc.blocks[-1].section == ("附件",) and doc.blocks[-1].text == "最后一段。"


def test_markdown_quotes_and_html_read_as_the_text_they_lay_out(tmp_path: Path) -> None:
    shown = texts(markdown(tmp_path, "# 退订\n> **说明**：\n>\n> 通过个人或企业认证的用户才可申请。\n\n<ul>\n"
                           "  <li className=\"closed\"><b>Travel:</b> up to &euro;400.</li> <li>Visa fee</li>\n</ul>\n"
                           "病区共有医生5名&nbsp;&nbsp;<BR>护士16名\n\n```\n> kept <b>as written</b>\n```\n"))
    assert shown[:2] == ["说明：", "通过个人或企业认证的用户才可申请。"]
    assert "Travel: up to €400.\nVisa fee\n病区共有医生5名\n护士16名" in shown[2], shown
    assert "> kept <b>as written</b>" in " ".join(shown)


def test_a_markdown_paragraph_of_one_bold_span_heads_a_section(tmp_path: Path) -> None:
    doc = markdown(tmp_path, "## 终止合约\n\n**一、退订类型**\n\n1、全额退订\n\n**说明**：\n\n配额有限。\n\n"
                   "**二、退订流程**\n\n1. 点击合约退订。\n\n## 申请记录\n\n可在详情页查看。\n")
    assert [s.path for s in doc.sections] == [("终止合约",), ("终止合约", "一、退订类型"), ("终止合约", "二、退订流程"),
                                              ("申请记录",)]
    assert [b.section for b in doc.blocks if "配额" in b.text] == [("终止合约", "一、退订类型")]  # a label stays text


def test_an_mdx_page_is_read_as_the_markdown_it_renders(tmp_path: Path) -> None:
    path = tmp_path / "faq.mdx"
    path.write_text("---\ntitle: Event FAQ\n---\nimport { Callout } from '../components/Callout'\n"
                    "export const meta = {\n  author: 'someone',\n}\n\n# Event FAQ\n\n{/* keep answers short */}\n\n"
                    "## Is there parking?\n\n<Callout type=\"info\">\nParking is free in the **north lot**.\n"
                    "</Callout>\n\n```js\nimport x from 'y'\n```\n\nTickets cost $20.\n", encoding="utf-8")
    doc = one(path)
    shown = texts(doc)
    assert doc.title == "Event FAQ" and doc.format == "md"
    assert shown[0] == "Parking is free in the north lot." and "Tickets cost $20." in shown
    assert not any("Callout" in t or "author" in t or "keep answers" in t for t in shown), shown
    assert "import x from 'y'" in shown  # code is kept as written


def test_a_static_site_html_page_s_front_matter_is_no_text_of_it(tmp_path: Path) -> None:
    path = tmp_path / "benefit.html"
    path.write_text('---\nlayout: "page.njk"\ntitle: "Broadband Benefit"\nmeta: "Benefit details The benefit provides: '
                    '$50 a month off [&hellip;]"\n---\n\n<p>The benefit helps you pay for internet.</p>\n'
                    "<h2>Who is eligible</h2><p>Households earning up to $198,000 if filing jointly.</p>\n",
                    encoding="utf-8")
    doc = one(path)
    assert doc.title == "Broadband Benefit"
    assert texts(doc) == ["The benefit helps you pay for internet.", "Households earning up to $198,000 if filing "
                          "jointly."]


def test_an_html_page_saved_as_markdown_is_read_as_html(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text("<!DOCTYPE HTML>\n<html><head><title>就诊指南</title></head><body><h3>住院</h3>"
                    "<DIV>持住院证、医保卡办理。&nbsp;<BR></DIV></body></html>", encoding="utf-8")
    raw = tmp_path / "raw"
    raw.mkdir()
    path = path.rename(raw / "guide.md")
    report = extract_domain(raw, tmp_path / "processed", SETTINGS, progress=False)
    assert report.notes == ["guide.md: content is an HTML page but extension is .md"]
    doc = one(path)
    assert doc.title == "就诊指南" and texts(doc) == ["持住院证、医保卡办理。"]


@pytest.mark.parametrize(("name", "page"), [
    ("leave.jsp", '<%@ page language="java" contentType="text/html; charset=UTF-8"%>\n<!DOCTYPE html>\n<html><head>'
                  '<%@include file="../common.jsp"%><title>假期规则</title></head><body><h1><a href="<%=basePath%>'
                  'index.htm">假期规则</a></h1><h3>婚假：</h3><p>10天（自然日），<% if (x) { %>一次休完<% } %></p>'
                  '</body></html>'),
    ("leave.php", '<?php require "header.php"; ?>\n<html><head><title>假期规则</title></head><body><h1>假期规则</h1>'
                  '<h3>婚假：</h3><p>10天（自然日），<?= $note ?>一次休完</p></body></html>'),
])
def test_a_server_page_saved_with_its_code_is_read_as_html_without_it(tmp_path: Path, name: str, page: str) -> None:
    """A .jsp or .php page whose content is an HTML page is read as one; the server's code is no text of it."""
    raw = tmp_path / "raw"
    raw.mkdir()
    path = raw / name
    path.write_text(page, encoding="utf-8")
    report = extract_domain(raw, tmp_path / "processed", SETTINGS, progress=False)
    assert report.notes == [f"{name}: content is an HTML page but extension is {path.suffix}"]
    doc = one(path)
    assert doc.title == "假期规则" and texts(doc) == ["10天（自然日），一次休完"]


def test_a_page_saved_as_html_keeps_what_a_browser_shows_of_angle_percent(tmp_path: Path) -> None:
    """Only a server page's source holds the server's code; in a page saved as .html, "<% … %>" is text a browser
    shows (a template language's documentation), an XML declaration is none."""
    path = tmp_path / "ejs.html"
    path.write_text('<?xml version="1.0"?>\n<html><body><p>Write <% if (user) { %> to test.</p></body></html>',
                    encoding="utf-8")
    assert texts(one(path)) == ["Write <% if (user) { %> to test."]


def test_a_file_that_extracts_to_no_text_is_said_in_the_report(tmp_path: Path) -> None:
    """A page whose text is only in a component's template (a Vue file saved as .html) extracts without error and
    to nothing: the report says so rather than list it as served with no chunks."""
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "billing.html").write_text('<style src="./a.sass"></style>\n<template lang="pug">\n  h1 计费说明\n'
                                      '  p CDN 按流量计费。\n</template>\n<script>export default {}</script>\n',
                                      encoding="utf-8")
    (raw / "guide.md").write_text("# 指南\n\n报销须在三个月内完成。\n", encoding="utf-8")
    report = extract_domain(raw, tmp_path / "processed", SETTINGS, progress=False)
    assert sorted(report.done) == ["billing.html", "guide.md"] and not report.failed
    assert [n.split(" (")[0] for n in report.notes] == [
        "billing.html: no text extracted: nothing outside markup, scripts, styles and templates"]


def test_txt_encodings_are_detected(tmp_path: Path) -> None:
    text = "第一章 总则\n本办法适用于全校职工。\n\n第二章 报销\n报销须在三个月内完成。"
    encodings = {"utf-8": text.encode("utf-8"), "utf-8-sig": text.encode("utf-8-sig"),
                 "gb18030": text.encode("gb18030"), "utf-16": text.encode("utf-16")}
    for name, data in encodings.items():
        path = tmp_path / f"{name}.txt"
        path.write_bytes(data)
        doc = one(path)
        assert texts(doc) == ["本办法适用于全校职工。", "报销须在三个月内完成。"], name
        assert [s.path for s in doc.sections] == [("第一章 总则",), ("第二章 报销",)], name


def test_txt_first_line_standing_alone_is_the_title(tmp_path: Path) -> None:
    titled = tmp_path / "loan-process.txt"
    titled.write_text("\ufeff河西大学借款流程\n\n发布单位：财务处\n\n借款须提交借款单。", encoding="utf-8")
    doc = one(titled)
    assert doc.title == "河西大学借款流程"
    assert texts(doc) == ["发布单位：财务处", "借款须提交借款单。"]
    assert dict(doc.meta)["file"] == "loan-process"  # the file name stays in the document header
    english = tmp_path / "notes.txt"
    english.write_text("Quarterly Operations Review\n\nRevenue rose in the third quarter.", encoding="utf-8")
    assert one(english).title == "Quarterly Operations Review"
    # a title block: the title line, then up to two short lines (a version and its date, a web address, a
    # publisher and date line) before the blank line; those lines stay text
    licence = tmp_path / "apache.txt"
    licence.write_text("   Apache License\n   Version 2.0, January 2004\n   http://www.apache.org/licenses/\n\n"
                       "TERMS AND CONDITIONS", encoding="utf-8")
    assert one(licence).title == "Apache License" and texts(one(licence))[0].startswith("Version 2.0, January 2004")
    notice = tmp_path / "notice.txt"
    notice.write_text("关于2024年学费缓交的通知\n发布单位：财务处　发布日期：2024年8月26日\n\n"
                      "各学院：现将有关事项通知如下。", encoding="utf-8")
    assert one(notice).title == "关于2024年学费缓交的通知"
    # a sentence, a line inside a paragraph, a lone line or a page marker is not a title: the file name is
    for name, text in {"sentence": "报销须在三个月内完成。\n\n其他内容",
                       "paragraph": "Title line\nsecond line of the same paragraph\n\nmore",
                       "block": "Title line\nSecond Line\nThird Line\nFourth Line\n\nmore",
                       "closed": "Title line\nA sentence under it.\n\nmore",
                       "alone": "只有一行",
                       "page": "[page 1]\n\nbody"}.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(text, encoding="utf-8")
        assert one(path, name).title == name, name


def test_txt_underlined_lines_and_definition_terms_open_sections(tmp_path: Path) -> None:
    path = tmp_path / "reference.txt"
    path.write_text(
        "Emulating containers\n********************\n\n"
        "The following methods can be defined.\n\n"
        "object.__len__(self)\n\n   Called to implement len().  Should return\n   the length of the object.\n\n"
        "-v, --verbose\n   Print each file as it is read.\n\n"
        "The simple form is equivalent to\n\n   if not expression: raise Error\n\n"
        "1. Submit the claim form\n   within 30 days of travel.\n\n"
        "Exceptions\n----------\n\nErrors are raised.\n\n"
        "********************\n*                  *\n*  Disclaimer      *\n********************\n", encoding="utf-8")
    doc = one(path)
    assert doc.title == "Emulating containers"
    sections = [(b.section, b.text) for b in doc.blocks]
    assert sections[0] == ((), "The following methods can be defined.")
    # a term over its indented description: what "Should return the length of the object" is about
    assert sections[1] == (("object.__len__(self)",),
                           "Called to implement len().  Should return\n   the length of the object.")
    assert sections[2] == (("-v, --verbose",), "Print each file as it is read.")
    # a lead-in sentence over a code block is no term; an underlined line is a heading, its rule no text
    assert sections[3] == (("-v, --verbose",), "The simple form is equivalent to")
    # a list item's wrapped first line is no term: its next line goes on with it
    assert sections[5] == (("-v, --verbose",), "1. Submit the claim form\n   within 30 days of travel.")
    assert sections[6] == (("Exceptions",), "Errors are raised.")
    # a box of marks heads nothing, and its rules are no text
    assert [t for _, t in sections[7:]] == ["*                  *\n*  Disclaimer      *"]


def test_html_drops_scripts_keeps_headings_and_tables(tmp_path: Path) -> None:
    page = """<html><head><title>收费公示</title><style>td {color: red}</style></head>
    <body><script>var x = "不要我";</script><h1>学费</h1><p>以下为<b>2024年</b>标准：</p>
    <table><caption>学费表</caption>
      <tr><th rowspan="2">学院</th><th colspan="2">学费</th></tr>
      <tr><th>本科</th><th>硕士</th></tr>
      <tr><td>文学院</td><td>5000</td><td>8000</td></tr>
      <tr><td>理学院</td><td colspan="2">6000<table><tr><td>内</td><td>表</td></tr></table></td></tr>
    </table><h2>说明</h2><ul><li>按学年缴纳</li><li>可分期</li></ul></body></html>"""
    path = tmp_path / "fees.html"
    path.write_bytes(page.encode("gbk"))
    doc = one(path)
    assert doc.title == "收费公示"
    assert "不要我" not in " ".join(texts(doc)) and "color" not in " ".join(texts(doc))
    assert texts(doc) == ["以下为2024年标准：", "- 按学年缴纳", "- 可分期"]
    [table] = tables(doc)
    assert table.caption == "学费表"
    assert table.header == ("学院", "学费 / 本科", "学费 / 硕士")
    assert table.rows == (("文学院", "5000", "8000"), ("理学院", "6000 内 表", ""))
    assert [s.path for s in doc.sections] == [("学费",), ("学费", "说明")]


def test_a_definition_list_reads_each_term_with_its_description(tmp_path: Path) -> None:
    page = ("<html><body><p>Numbers:</p><dl class='dl-horizontal'><dt>Volunteer desk</dt><dd>1009</dd>\n"
            "<dt>EMERGENCY <br />First Aid</dt> <dd>1099</dd><dd>24 hours</dd><dt>报名费</dt><dd>100元</dd>"
            "<dt>Fee:<dd>$5<dt>Alone</dt></dl><p>After.</p></body></html>")
    path = tmp_path / "numbers.html"
    path.write_text(page, encoding="utf-8")
    assert texts(one(path)) == ["Numbers:", "Volunteer desk: 1009", "EMERGENCY First Aid: 1099", "24 hours",
                                "报名费：100元", "Fee: $5", "Alone", "After."]
    shown = texts(markdown(tmp_path, "# Numbers\n\n<dl>\n  <dt>Conduct</dt><dd>1234</dd>\n"
                           "  <dt>EMERGENCY <br />First Aid</dt><dd><b>1099</b></dd>\n</dl>\n"))
    assert shown == ["Conduct: 1234\nEMERGENCY First Aid: 1099"], shown


def test_csv_with_gb18030_and_semicolons(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_bytes("专业;最低分;年份\n数学;612;2023\n物理;605;2023\n".encode("gb18030"))
    [table] = tables(one(path))
    assert table.header == ("专业", "最低分", "年份")
    assert table.rows == (("数学", "612", "2023"), ("物理", "605", "2023"))


def test_jsonl_one_document_per_line_with_ids_unchanged(tmp_path: Path) -> None:
    lines = [
        {"doc_id": "policy/2024-01", "title": "住宿规定", "text": "住宿标准为每晚500元。", "date": "2024-01-05"},
        {"doc_id": "P 2", "title": "", "text": "第二篇。", "date": "not a date"},
        {"doc_id": "policy/2024-01", "title": "重复", "text": "重复的编号。"},
        {"title": "缺编号", "text": "无"},
    ]
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join([*(json.dumps(x, ensure_ascii=False) for x in lines), "{not json"]), encoding="utf-8")
    docs = extract_file(path, "corpus", SETTINGS)
    assert [(d.doc_id, d.title) for d in docs] == [("policy/2024-01", "住宿规定"), ("P 2", "P 2")]
    assert [d.date for d in docs] == ["2024-01-05", ""]  # a line's date is the document's date
    assert [c.doc_date for c in chunk_document(docs[0], SETTINGS)] == ["2024-01-05"]
    assert docs[0].notes == ("3 lines skipped: line 3: duplicate doc_id 'policy/2024-01'; line 4: no doc_id; "
                             "line 5: invalid JSON (Expecting property name enclosed in double quotes)",)


def test_jsonl_page_markers_open_pages_and_chunks_carry_page_locators(tmp_path: Path) -> None:
    text = ("[page 1]\nRevenue grew in the year. Costs were flat.\n\n[Page 2]\nMargins rose again.\n"
            "[第3页]\nCash was 12 million dollars at the end of the year. Debt was repaid in full.")
    path = tmp_path / "filings.jsonl"
    path.write_text(json.dumps({"doc_id": "f1", "title": "Filing", "text": text}) + "\n", encoding="utf-8")
    [doc] = extract_file(path, "filings", SETTINGS)
    assert (doc.pages, doc.page_unit) == (3, "页")
    assert [(b.page, b.locator) for b in doc.blocks] == [(1, "第1页"), (2, "第2页"), (3, "第3页")]
    small = IngestSettings(chunk_size=80, chunk_overlap=0)
    chunks = chunk_document(doc, small)
    assert [c.locator for c in chunks] == ["第1-2页", "第3页"]  # the first chunk spans pages 1 and 2
    assert not any("[page" in c.text.lower() or "第3页" in c.text for c in chunks)  # markers are not text
    assert chunks[0].text == "Revenue grew in the year. Costs were flat.\nMargins rose again."


def test_txt_form_feeds_number_pages_and_printed_numbers_stay_text(tmp_path: Path) -> None:
    path = tmp_path / "report.txt"
    path.write_text("First page text.\n— 1 —\n\fSecond page.\nPage 2 of 3\n\f\fFourth page.\f", encoding="utf-8")
    doc = one(path)
    assert doc.pages == 4
    assert [(b.locator, b.text) for b in doc.blocks] == [
        ("第1页", "First page text.\n— 1 —"), ("第2页", "Second page.\nPage 2 of 3"), ("第4页", "Fourth page.")]


def test_text_without_page_breaks_has_no_pages(tmp_path: Path) -> None:
    path = tmp_path / "plain.txt"
    path.write_text("第一章 总则\n本办法适用于全校。\n\n[page] 与 [附件 2] 不是页码。", encoding="utf-8")
    doc = one(path)
    assert (doc.pages, doc.page_unit) == (0, "")
    assert [(b.locator, b.page, b.text) for b in doc.blocks] == [
        ("", None, "本办法适用于全校。"), ("", None, "[page] 与 [附件 2] 不是页码。")]
    assert all(c.locator == "" for c in chunk_document(doc, SETTINGS))


def test_page_marker_rule_and_page_locators_read_back() -> None:
    assert [page_marker(line) for line in ("[page 12]", " [PAGE 3] ", "[第7页]", "[ Page 4 ]")] == [12, 3, 7, 4]
    assert [page_marker(line) for line in ("page 12", "[page 12] text", "— 12 —", "Page 1 of 15", "12")] == [
        None, None, None, None, None]
    assert [locator_pages(loc) for loc in ("第3页", "第3-5页", "第2张幻灯片", "工作表 收费表", "")] == [
        (3,), (3, 4, 5), (), (), ()]
