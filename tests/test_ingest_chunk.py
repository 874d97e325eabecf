"""Chunking (sizes, overlap, sentence ends, breadcrumbs, locators, dates, table row groups),
the table rules shared by every reader, and date normalisation."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from lambdarag.ingest import IngestSettings, chunk_document
from lambdarag.ingest.chunk import split_sentences, table_texts
from lambdarag.ingest.document import DocBuilder, Document, Table
from lambdarag.ingest.tables import build_table
from lambdarag.text.dates import find_dates

SENTENCE = "报销人应当在出差结束后三十日内提交单据。"  # 20 characters


def policy(paragraphs: int = 60) -> Document:
    builder = DocBuilder("finance/travel", "finance/travel.pdf", "pdf", page_unit="页")
    builder.heading(1, "第一章 总则", "第1页")
    builder.text(SENTENCE * paragraphs, "第1页", 1)
    builder.heading(2, "第一节 适用范围", "第2页")
    builder.text("本办法自2023年3月1日起施行，适用于全校职工。", "第2页", 2)
    builder.text("二〇二四年一月修订。", "第3页", 3)
    builder.heading(1, "第二章 附则", "第3页")
    builder.text("由财务处负责解释。", "第3页", 3)
    return builder.build("差旅费管理办法")


def test_chunks_respect_size_and_overlap_at_sentence_ends() -> None:
    settings = IngestSettings(chunk_size=200, chunk_overlap=45)
    chunks = [c for c in chunk_document(policy(), settings) if c.breadcrumb == "差旅费管理办法 > 第一章 总则"]
    assert len(chunks) >= 6
    assert all(len(c.text) <= 200 for c in chunks)
    assert all(c.text.endswith("。") for c in chunks)
    for previous, current in itertools.pairwise(chunks):
        overlap = SENTENCE * 2  # the two whole sentences that fit in 45 characters
        assert previous.text.endswith(overlap) and current.text.startswith(overlap)
    assert "".join(c.text[40:] if i else c.text for i, c in enumerate(chunks)) == SENTENCE * 60


def test_default_settings_give_about_500_characters() -> None:
    chunks = chunk_document(policy(200), IngestSettings())
    bodies = [len(c.text) for c in chunks if "总则" in c.breadcrumb and "节" not in c.breadcrumb]
    assert max(bodies) <= 500 and min(bodies[:-1]) >= 400


def test_english_sentences_and_over_long_sentences() -> None:
    assert split_sentences("Claims are due in 30 days. Receipts (e.g. 3.5 kg) apply!\nNext") == [
        "Claims are due in 30 days. ", "Receipts (e.g. ", "3.5 kg) apply!\n", "Next"
    ]
    builder = DocBuilder("d", "d.txt", "txt")
    builder.text("，".join(["第一部分内容较长的说明"] * 40) + "。")
    chunks = chunk_document(builder.build("长句"), IngestSettings(chunk_size=100, chunk_overlap=0))
    assert all(len(c.text) <= 100 for c in chunks) and all(c.text.endswith(("，", "。")) for c in chunks)


def test_breadcrumbs_sections_locators_and_ids() -> None:
    chunks = chunk_document(policy(3), IngestSettings())
    assert [(c.chunk_id, c.breadcrumb, c.locator) for c in chunks] == [
        ("finance/travel#0000", "差旅费管理办法 > 第一章 总则", "第1页"),
        ("finance/travel#0001", "差旅费管理办法 > 第一章 总则 > 第一节 适用范围", "第2-3页"),
        ("finance/travel#0002", "差旅费管理办法 > 第二章 附则", "第3页"),
    ]
    second = chunks[1]
    assert second.text == "本办法自2023年3月1日起施行，适用于全校职工。\n二〇二四年一月修订。"
    assert second.context == "travel"  # the file name, which the title does not say
    assert second.index_text == f"{second.breadcrumb}\ntravel\n{second.text}"
    assert second.dates == ("2023-03-01", "2024-01")
    assert all(c.title == "差旅费管理办法" and c.source == "finance/travel.pdf" and not c.is_table for c in chunks)


def test_document_header_names_the_document_in_every_chunk_but_not_in_its_text() -> None:
    builder = DocBuilder("q3", "filings/contoso_10-Q_2023Q3.pdf", "pdf")
    builder.heading(1, "Results of operations")
    builder.text("Net sales were $275 million. " * 30)
    meta = [("subject", "Quarterly report"), ("company", "Contoso Ltd"), ("form", "10-Q"), ("pages", "x" * 200)]
    doc = dataclasses.replace(builder.build("FORM 10-Q", meta=meta), date="2023-09-30")
    fields = ("file", "company", "form", "subject", "pages", "date")
    chunks = chunk_document(doc, dataclasses.replace(IngestSettings(), metadata_fields=fields))
    assert len(chunks) > 1
    # in the order asked; "10-Q" is the title's, an over-long value is no label
    header = "contoso_10-Q_2023Q3 · Contoso Ltd · Quarterly report · 2023-09-30"
    assert all(c.context == header and c.index_text.startswith(f"FORM 10-Q > Results of operations\n{header}\n")
               for c in chunks)
    assert all("Contoso" not in c.text for c in chunks)
    assert "2023-09-30" in chunks[-1].dates
    assert chunk_document(doc, dataclasses.replace(IngestSettings(), metadata_fields=()))[0].context == ""


def test_small_table_is_one_chunk_and_large_one_row_groups_with_header() -> None:
    small = Table(("项目", "金额"), (("差旅费", "1200"), ("会议费", "3000")), caption="2023年预算")
    assert table_texts(small, IngestSettings()) == ["2023年预算\n| 项目 | 金额 |\n| 差旅费 | 1200 |\n| 会议费 | 3000 |"]
    rows = tuple((f"专业{i}", str(600 - i)) for i in range(45))
    builder = DocBuilder("scores", "scores.xlsx", "xlsx")
    builder.set_section(("2023",), "工作表 2023")
    builder.table(Table(("专业", "最低分"), rows, caption="2023年录取分数"), "工作表 2023")
    chunks = chunk_document(builder.build("录取分数线"), IngestSettings(table_rows_per_chunk=20))
    assert [len(c.text.splitlines()) - 2 for c in chunks] == [20, 20, 5]
    assert all(c.is_table and c.text.startswith("2023年录取分数\n| 专业 | 最低分 |\n") for c in chunks)
    body = [line for c in chunks for line in c.text.splitlines()[2:]]
    assert body == [f"| 专业{i} | {600 - i} |" for i in range(45)]  # none lost, none repeated
    assert {c.locator for c in chunks} == {"工作表 2023"} and chunks[0].breadcrumb == "录取分数线 > 2023"
    assert chunks[0].dates == ("2023",)


def test_table_groups_also_bounded_by_characters() -> None:
    settings = IngestSettings(chunk_size=100, chunk_overlap=0)
    wide = Table(("问题", "回答"), tuple((f"问题{i}", "很长的回答内容。" * 14) for i in range(6)))
    texts = table_texts(wide, settings)
    assert len(texts) == 6 and all(text.startswith("| 问题 | 回答 |\n") for text in texts)
    huge = Table(("问题", "回答"), (("一个问题", "非常长的回答内容，" * 60),))
    pieces = table_texts(huge, settings)
    assert len(pieces) > 1 and all(p.startswith("| 问题 | 回答 |\n") and len(p) <= 215 for p in pieces)


def test_table_rules_for_merged_cells_headers_and_captions() -> None:
    grid = [
        ["2024年学费", "", "", ""],
        ["学院", "学费", "", ""],
        ["", "本科", "硕士", ""],
        ["文学院", "5000", "8000", ""],
        ["", "5200", "8200", ""],
        ["合计", "", "", ""],
        ["", "", "", ""],
    ]
    spans = {(0, 1): (0, 0), (0, 2): (0, 0), (0, 3): (0, 0),  # title across the table
             (2, 0): (1, 0), (1, 2): (1, 1),  # 学院 down two rows, 学费 across two columns
             (4, 0): (3, 0),  # 文学院 down two rows
             (5, 1): (5, 0)}  # 合计 across two columns
    table = build_table(grid, spans)
    assert table == Table(
        header=("学院", "学费 / 本科", "学费 / 硕士"),
        rows=(("文学院", "5000", "8000"), ("文学院", "5200", "8200"), ("合计", "", "")),
        caption="2024年学费",
    )


@pytest.mark.parametrize(("upper", "header", "caption"), [
    # a statement's period set over its last column labels the whole table
    (["In millions of CHF", "", "", "January–June 2023"], ("In millions of CHF", "Sales", "Profit", "Depreciation"),
     "Segments January–June 2023"),
    # two values over the columns are column labels, as before
    (["In millions of CHF", "2023", "", "2022"],
     ("In millions of CHF", "2023 / Sales", "Profit", "2022 / Depreciation"), "Segments"),
])
def test_an_upper_header_rows_lone_value_labels_the_whole_table(upper: list[str], header: tuple[str, ...],
                                                                caption: str) -> None:
    grid = [["Segments", "", "", ""], upper, ["", "Sales", "Profit", "Depreciation"],
            ["Zone NA", "12553", "2713", "-337"]]
    table = build_table(grid, {(0, 1): (0, 0), (0, 2): (0, 0), (0, 3): (0, 0)})
    assert table is not None
    assert table.header == header and table.caption == caption
    assert table.rows == (("Zone NA", "12553", "2713", "-337"),)


def test_stacked_rows_split_only_when_every_cell_agrees() -> None:
    grid = [["州", "数量"], ["甲\n乙\n丙", "1\n2\n3"], ["丁", "4\n5"]]
    table = build_table(grid, split_stacked=True)
    assert table is not None
    assert table.rows == (("甲", "1"), ("乙", "2"), ("丙", "3"), ("丁", "4 5"))


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("2023年3月1日发布", ("2023-03-01",)),
        ("自2023年3月起", ("2023-03",)),
        ("2023年度预算", ("2023",)),
        ("2023-03-01、2023/3/1 与 2023.3.1", ("2023-03-01",)),
        ("二〇二三年三月十五日", ("2023-03-15",)),
        ("２０２４年１月", ("2024-01",)),
        ("2023-2024学年", ("2023", "2024")),
        ("截至2020-12", ("2020-12",)),
        ("价格2023.5元，编号12023年，2023年2月30日", ()),
        ("于2019年至2021年间", ("2019", "2021")),
    ],
)
def test_find_dates(text: str, dates: tuple[str, ...]) -> None:
    assert find_dates(text) == dates


@pytest.mark.parametrize(("text", "dates"), [
    ("For the fiscal year ended December 31, 2022", ("2022-12-31",)),
    ("as of Dec. 31, 2021 and Jan 28 2023", ("2021-12-31", "2023-01-28")),
    ("Signed on 30 June 2020.", ("2020-06", "2020-06-30")),
    ("In March 2023 we opened", ("2023-03",)),
    ("FY2022 against fiscal year 2021; Q2 2024 and 2024Q2", ("2021", "2022", "2024")),
    ("Costs may 2023 rise", ()),  # the verb, not the month
    ("Marching 2022 units", ()),
    ("2022年3月1日起施行，2023-04-05修订", ("2022-03-01", "2023-04-05")),
])
def test_find_dates_reads_english_dates_and_fiscal_years(text: str, dates: tuple[str, ...]) -> None:
    assert find_dates(text) == dates


@pytest.mark.parametrize(("title", "own", "doc_date"), [
    ("Contoso 2022 10-K", "", "2022"),  # no date of its own: the year its title names
    ("2023年艺术类专业招生简章", "", "2023"),
    ("Contoso 2022 10-K", "2023-02-01", "2023-02-01"),  # its own date wins
    ("Contoso 10-K", "", ""), ("2022-2023学年校历", "", ""),  # no single year named
])
def test_a_document_without_a_date_is_dated_by_the_year_its_title_names(title: str, own: str, doc_date: str) -> None:
    builder = DocBuilder("d", "d.txt", "txt")
    builder.text("Net sales were $275 million.")
    doc = dataclasses.replace(builder.build(title), date=own)
    assert {c.doc_date for c in chunk_document(doc, IngestSettings())} == {doc_date}


@pytest.mark.parametrize(("before", "caption", "texts"), [
    ("表1 2024年学费标准", "表1 2024年学费标准", []),  # a numbered title set above the table is its caption
    ("Table 4. Room charges", "Table 4. Room charges", []),
    ("表明各学院的经费情况如下。", "", ["表明各学院的经费情况如下。"]),  # a sentence opening with 表 is text
    ("表1 本表列出各学院经费。共三项", "", ["表1 本表列出各学院经费。共三项"]),  # a title says no sentence
])
def test_a_numbered_title_above_a_table_is_its_caption(before: str, caption: str, texts: list[str]) -> None:
    builder = DocBuilder("fees", "fees.docx", "docx")
    builder.heading(1, "第二章 收费")
    builder.text(before)
    builder.table(Table(header=("学院", "学费"), rows=(("文学院", "5000"),)))
    doc = builder.build(title="收费办法")
    assert [b.text for b in doc.blocks if b.kind == "text"] == texts
    tables = [b.table for b in doc.blocks if b.table is not None]
    assert len(tables) == 1 and tables[0].caption == caption


def test_a_title_in_another_section_or_over_a_captioned_table_stays_text() -> None:
    builder = DocBuilder("fees", "fees.docx", "docx")
    builder.text("表1 2024年学费标准")
    builder.heading(1, "第二章 收费")  # the table sits in a section the title does not
    builder.table(Table(header=("学院", "学费"), rows=(("文学院", "5000"),)))
    builder.text("表2 住宿费标准")
    builder.table(Table(header=("校区", "住宿费"), rows=(("东湖", "1200"),), caption="住宿费（元/年）"))
    doc = builder.build(title="收费办法")
    assert [b.text for b in doc.blocks if b.kind == "text"] == ["表1 2024年学费标准", "表2 住宿费标准"]


def test_a_numbered_title_below_a_table_without_one_is_its_caption() -> None:
    """Word sets captions below by default: "Table 1: …" under a captionless table is its caption; one right over
    the next table is that table's."""
    builder = DocBuilder("rooms", "rooms.docx", "docx")
    builder.table(Table(header=("Room", "Seats"), rows=(("Hall A", "250"),)))
    builder.text("Table 1: Room capacities")
    builder.text("Rooms are booked through the portal.")
    builder.table(Table(header=("Room", "Per day"), rows=(("Hall A", "1000"),)))
    builder.text("Table 3: Room charges")  # over the next table
    builder.table(Table(header=("Room", "Per hour"), rows=(("Hall A", "150"),)))
    doc = builder.build(title="Rooms")
    captions = [b.table.caption for b in doc.blocks if b.table is not None]
    assert captions == ["Table 1: Room capacities", "", "Table 3: Room charges"]
    assert [b.text for b in doc.blocks if b.kind == "text"] == ["Rooms are booked through the portal."]
