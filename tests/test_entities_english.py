"""English rule entities on invented filing-like sentences: every kind found, headings and sentence words not,
Chinese text untouched, spans exact; and the graph channel answering an English question by a company's name."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from test_channel_graph import make_domain

from lambdarag.channels import graph
from lambdarag.graph.build import alias_index, build_graph
from lambdarag.graph.english import english_entities, join_sentences, short_name
from lambdarag.graph.entities import entity_key, extract_entities
from lambdarag.records import Chunk
from lambdarag.text.tokenizer import split_sentences


def names(text: str, kind: str) -> list[str]:
    return [e.name for e in extract_entities(text) if e.kind == kind]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Contoso Holdings, Inc. reported record net sales.", ["Contoso Holdings, Inc."]),
        ("The Fabrikam Corporation acquired Northwind Traders Ltd. in cash.", ["Fabrikam Corporation",
                                                                                "Northwind Traders Ltd."]),
        ("We deposit cash with Bank of Lakeshore Corporation.", ["Bank of Lakeshore Corporation"]),
        ("It filed the report with the Securities and Exchange Commission.", ["Securities and Exchange Commission"]),
        ("Shares of 7Z Company fell after Wingtip Toys, LLC sued.", ["7Z Company", "Wingtip Toys, LLC"]),
        ("The suit names Tailspin Partners L.P. and Alpine Ski House plc.", ["Tailspin Partners L.P.",
                                                                             "Alpine Ski House plc"]),
        ("Litware Co., Inc.’s board approved the plan.", ["Litware Co., Inc."]),  # the possessive stays out
        ("Fees are regulated by the Department of Labor.", ["Department of Labor"]),
        ("Reserves are held at the Central Bank of Ruritania.", ["Central Bank of Ruritania"]),
        ("FABRIKAM CORPORATION", ["FABRIKAM CORPORATION"]),  # a cover page's company line
        ("Exhibit 10.1 Form of Contoso Group Inc. Award Agreement", ["Contoso Group Inc."]),
        ("Jane Q. Doe, Chief Executive Officer of Contoso Ltd., said", ["Contoso Ltd."]),
    ],
)
def test_organisations(text: str, expected: list[str]) -> None:
    assert names(text, "org") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Contoso, Inc. (NYSE: CTSO) today announced results.", ["CTSO"]),
        ("Litware (Nasdaq: LTWR) and Fabrikam (NYSE American: FBK) rose.", ["LTWR", "FBK"]),
        ("Our common stock trades under the ticker symbol “WWI” on the exchange.", ["WWI"]),
        ("It is listed under the trading symbol TSPN.", ["TSPN"]),
        ("Common Stock, $0.01 par value CTSO New York Stock Exchange", ["CTSO"]),
        ("Ordinary Shares LTWR The Nasdaq Stock Market LLC", ["LTWR"]),
    ],
)
def test_tickers(text: str, expected: list[str]) -> None:
    assert names(text, "ticker") == expected


@pytest.mark.parametrize(
    ("text", "person", "role"),
    [
        ('"We grew," said Jane Q. Doe, President and Chief Executive Officer.', "Jane Q. Doe",
         "President and Chief Executive Officer"),
        ("Chief Financial Officer Rohan P. Mehta presented the outlook.", "Rohan P. Mehta", "Chief Financial Officer"),
        ("/s/ Maria Lopez\nMaria Lopez\nExecutive Vice President and General Counsel", "Maria Lopez",
         "Executive Vice President and General Counsel"),
        ("Li Wei – Director", "Li Wei", "Director"),
    ],
)
def test_people_next_to_roles(text: str, person: str, role: str) -> None:
    assert names(text, "person") == [person]
    assert names(text, "role") == [role]


def test_people_after_honorifics() -> None:
    text = "Mr. Alvarez joined in 2019. Ms. Kowalski and Dr. Priya Nair lead the Research Group."
    assert names(text, "person") == ["Mr. Alvarez", "Ms. Kowalski", "Dr. Priya Nair"]
    # British style writes the honorific without its full stop
    assert names("Please contact Dr Maria Okonkwo or Prof Lin Wei.", "person") == ["Dr Maria Okonkwo", "Prof Lin Wei"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The company is headquartered in Austin, Texas and incorporated in Delaware.", ["Austin, Texas",
                                                                                         "Delaware"]),
        ("State of Incorporation: Nevada", ["Nevada"]),
        ("Fabrikam, a New Jersey corporation, owns the plant.", ["New Jersey"]),
        ("Plants in Springfield, IL 62701 and Lyon, France closed.", ["Springfield, IL", "Lyon, France"]),
        ("Our offices in St. Cloud, Minnesota are leased.", ["St. Cloud, Minnesota"]),
        ("We sell in Ohio, Texas and Utah.", []),  # a list of states is no city and its state
        ("Additionally, Texas enacted a law.", []),
        ("It is governed by the laws of the State", []),  # the state's name is on the next line
        ("Most sales are located in the United States.", ["United States"]),
    ],
)
def test_places(text: str, expected: list[str]) -> None:
    assert names(text, "place") == expected


def test_amounts() -> None:
    text = ("Net sales were $1.2 billion, up $275 million, or 12.5 percent; fees of $3,000 and USD 5.0 million; "
            "margin rose 50 basis points; a loss of (123.4) and a rate of 6.5%.")
    assert names(text, "amount") == ["$1.2 billion", "$275 million", "12.5 percent", "$3,000", "USD 5.0 million",
                                     "50 basis points", "6.5%"]


def test_dates_keep_the_phrase_as_written() -> None:
    text = ("As of December 31, 2022 (Dec. 31, 2022; 31 December 2022), in fiscal 2023, fiscal year 2024, FY2023, "
            "FY 2025, Q3 2023, the third quarter of 2023 and the first half of 2022, since March 2021.")
    assert names(text, "date") == ["December 31, 2022", "Dec. 31, 2022", "31 December 2022", "fiscal 2023",
                                   "fiscal year 2024", "FY2023", "FY 2025", "Q3 2023", "third quarter of 2023",
                                   "first half of 2022", "March 2021"]


@pytest.mark.parametrize(
    "text",
    [
        "TABLE OF CONTENTS",
        "PART I\nITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS OF FINANCIAL CONDITION",
        "REPORT OF THE AUDIT COMMITTEE OF THE BOARD",
        "See Note 12 to the Consolidated Financial Statements in this Form 10-K.",
        "In December the Company and its Board of Directors approved the plan.",
        "Revenue grew. Management believes Results of Operations improved in May.",
        "The Controlled Group, the Parent Company and the Total Company are defined terms.",
        "Our Chief Executive Officer and Chief Financial Officer evaluated the controls.",
        "Claims under the Securities Exchange Act of 1934 were dismissed.",
    ],
)
def test_no_false_positives(text: str) -> None:
    assert [e for e in extract_entities(text) if e.kind not in ("date", "amount")] == []
    assert names(text, "date") == []


def test_spans_point_at_the_surface_text() -> None:
    text = ("Contoso Holdings, Inc. (NYSE: CTSO), headquartered in Austin, Texas, said Jane Q. Doe, Chief Executive "
            "Officer, on Dec. 31, 2022 that net sales rose 12.5 percent to $1.2 billion in fiscal 2023.")
    found = extract_entities(text)
    assert {e.kind for e in found} == {"org", "ticker", "place", "person", "role", "date", "amount"}
    for entity in found:
        assert text[entity.start:entity.end] == entity.name
    assert all(a.end <= b.start for a, b in itertools.pairwise(found))
    wrapped = "Net sales of $10\nmillion were reported on December\n31, 2022."
    assert [(e.name, wrapped[e.start:e.end]) for e in extract_entities(wrapped)] == [
        ("$10 million", "$10\nmillion"), ("December 31, 2022", "December\n31, 2022")]  # whitespace made one space


def test_mixed_chinese_and_english_keep_both() -> None:
    text = "预算科隶属财务处，Contoso Ltd. (NYSE: CTSO) 的办公地点位于致远楼三楼，2024年7月1日起施行。"
    found = [(e.name, e.kind) for e in extract_entities(text)]
    assert found == [("预算科", "org"), ("财务处", "org"), ("Contoso Ltd.", "org"), ("CTSO", "ticker"),
                     ("致远楼三楼", "place"), ("2024-07-01", "date")]


def test_chinese_text_never_reaches_the_english_rules() -> None:
    assert english_entities("报账大厅负责人张敏，联系电话027-87654321，住宿费上限1,200元，税率6%。") == []


def test_sentences_split_inside_names_are_joined_for_the_graph() -> None:
    text = "Mr. Alvarez met Timothy D. Cook. Shares of Contoso Inc. rose. Sales at Fabrikam Inc. grew."
    assert join_sentences(split_sentences(text)) == [
        "Mr. Alvarez met Timothy D. Cook.", "Shares of Contoso Inc. rose.", "Sales at Fabrikam Inc. grew."]
    block = split_sentences("/s/ Maria Lopez\nMaria Lopez\nChief Financial Officer\nDate: March 1, 2024")
    assert join_sentences(block)[1] == "Maria Lopez\nChief Financial Officer"
    chinese = ["财务处负责解释。", "本办法自2024年7月1日起施行。"]
    assert join_sentences(chinese) == chinese


def test_entity_key_keeps_spaces_between_latin_words_only() -> None:
    assert entity_key("Bank  of\nAmerica") == "Bank of America"
    assert entity_key("Contoso, Inc.") == "Contoso, Inc."
    assert entity_key("江城大学 财务处") == "江城大学财务处"
    assert entity_key("GB/T 7714 标准") == "GB/T7714标准"


def test_short_names_drop_the_legal_form() -> None:
    assert short_name("Contoso, Inc.") == "Contoso"
    assert short_name("Fabrikam Holdings Ltd.") == "Fabrikam Holdings"
    assert short_name("BEST LITWARE CO., INC.") == "BEST LITWARE"
    assert short_name("Securities and Exchange Commission") is None  # no legal form
    assert short_name("The Company") is None
    assert short_name("江城大学财务处") is None


CHUNKS = [
    Chunk("contoso-10k#0000", "contoso-10k", "Contoso 10-K", "Contoso 10-K > Item 1",
          "Contoso Ltd. (NYSE: CTSO) is headquartered in Austin, Texas. Jane Q. Doe, Chief Executive Officer, "
          "leads the company."),
    Chunk("contoso-10k#0001", "contoso-10k", "Contoso 10-K", "Contoso 10-K > Item 7",
          "Net sales of Contoso Ltd. were $1.2 billion in fiscal 2023, up 12.5 percent."),
    Chunk("fabrikam-8k#0000", "fabrikam-8k", "Fabrikam 8-K", "Fabrikam 8-K > Item 2.02",
          "Fabrikam, Inc. reported revenue of $310 million for the third quarter of 2023."),
    Chunk("fabrikam-8k#0001", "fabrikam-8k", "Fabrikam 8-K", "Fabrikam 8-K > Item 9.01",
          "Contoso, Inc. is a supplier of Fabrikam, Inc. under a five-year agreement."),
]


def test_english_organisations_get_their_short_name_as_alias(tmp_path: Path) -> None:
    index = alias_index(build_graph(CHUNKS, make_domain(tmp_path).config)[0])
    assert set(index["contoso"]) == {"Contoso Ltd.", "Contoso, Inc."}
    assert index["contoso ltd."] == ["Contoso Ltd."]
    assert index["ctso"] == ["CTSO"]


def test_graph_channel_answers_english_questions_by_company_name(tmp_path: Path) -> None:
    domain = make_domain(tmp_path)
    graph.build(domain, CHUNKS, progress=False)
    channel = graph.load(domain, CHUNKS)
    assert channel.match("What were Contoso Ltd.'s net sales?") == {"Contoso Ltd.": 0.9, "Contoso, Inc.": 0.6}
    hits = channel.search("What were Contoso Ltd.'s net sales?", 5)
    assert {h.chunk_id for h in hits[:2]} == {"contoso-10k#0000", "contoso-10k#0001"}
    assert set(channel.match("how big is contoso")) == {"Contoso Ltd.", "Contoso, Inc."}  # case-insensitive
    assert channel.match("Where is Contosoville?") == {}  # no name cut out of a longer word
    assert "CTSO" in channel.match("What does CTSO sell?")
    assert "CTSO" not in channel.match("what does ctso sell?")  # a ticker counts only as written
    hits = channel.search("Who is Jane Q. Doe?", 5)
    assert [h.chunk_id for h in hits] == ["contoso-10k#0000"] and hits[0].entities[0] == "Jane Q. Doe"
