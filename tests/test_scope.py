"""Request filters: parsing (every fault a FilterError naming the key), matching, the resolved Scope, document tags
from the config's rules and sidecar files, and the build leaving sidecars alone."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from lambdarag.config.load import config_with, load_config
from lambdarag.errors import InputError
from lambdarag.ingest.run import scan_raw
from lambdarag.ingest.tags import document_table, parse_sidecar, rule_tags
from lambdarag.records import Chunk
from lambdarag.scope import DocumentInfo, FilterError, Filters, date_period, matches, parse_filters, resolve_scope


def doc(doc_id: str, title: str = "", source: str = "", dated: str = "", tags: tuple[str, ...] = (),
        chunks: int = 2) -> DocumentInfo:
    return DocumentInfo(doc_id, title, source or f"{doc_id}.md", dated, tags,
                        tuple(f"{doc_id}#{n:04d}" for n in range(chunks)))


DOCS = [
    doc("policies/travel", "Travel Expenses Policy", dated="2023-05-01", tags=("policy", "finance")),
    doc("policies/leave", "Annual Leave Rules", dated="2021", tags=("policy",)),
    doc("notices/canteen", "Canteen opening hours", dated="2024-02", tags=("notice",), chunks=1),
    doc("handbook", "Staff handbook", dated="", chunks=3),
]


def test_no_filters_is_no_scope() -> None:
    assert parse_filters(None) == Filters() and parse_filters({}).empty
    assert resolve_scope(None, DOCS) is None and resolve_scope(Filters(), DOCS) is None


def test_parsed_filters_keep_their_values() -> None:
    parsed = parse_filters({"doc_ids": ["a", " b ", "a"], "title": " Travel ", "source_prefix": "policies/",
                            "date_from": "2023", "date_to": "2024-02", "tags": ["policy"]})
    assert parsed == Filters(("a", "b"), "Travel", "policies/", date(2023, 1, 1), date(2024, 2, 29), ("policy",))
    assert parsed.to_dict() == {"doc_ids": ["a", "b"], "title": "Travel", "source_prefix": "policies/",
                                "date_from": "2023-01-01", "date_to": "2024-02-29", "tags": ["policy"]}


@pytest.mark.parametrize(("value", "param", "fragment"), [
    (["doc_ids"], "filters", "must be an object, got list"),
    ("tags=policy", "filters", "must be an object, got str"),
    ({"doc_id": ["a"]}, "filters.doc_id", "unknown filter"),
    ({"doc_ids": "a"}, "filters.doc_ids", "list of non-empty strings"),
    ({"doc_ids": []}, "filters.doc_ids", "1 to 1000 values"),
    ({"doc_ids": ["a", 3]}, "filters.doc_ids", "list of non-empty strings"),
    ({"tags": [" "]}, "filters.tags", "list of non-empty strings"),
    ({"title": 5}, "filters.title", "must be a string, got int"),
    ({"title": "  "}, "filters.title", "1 to 500 characters"),
    ({"source_prefix": "x" * 501}, "filters.source_prefix", "1 to 500 characters"),
    ({"date_from": 2023}, "filters.date_from", "must be a date string, got int"),
    ({"date_from": "2023-13"}, "filters.date_from", "is not a date"),
    ({"date_to": "2023-02-30"}, "filters.date_to", "is not a date"),
    ({"date_to": "last year"}, "filters.date_to", "is not a date"),
    ({"date_from": "2024", "date_to": "2023-06"}, "filters.date_from", "after date_to"),
])
def test_bad_filters_name_the_key(value: Any, param: str, fragment: str) -> None:
    with pytest.raises(FilterError) as caught:
        parse_filters(value)
    assert isinstance(caught.value, InputError) and caught.value.status == 400
    assert caught.value.param == param and fragment in str(caught.value)


def test_date_periods() -> None:
    assert date_period("2024") == (date(2024, 1, 1), date(2024, 12, 31))
    assert date_period("2024-02") == (date(2024, 2, 1), date(2024, 2, 29))
    assert date_period("2024-02-03") == (date(2024, 2, 3), date(2024, 2, 3))
    assert date_period("") is None and date_period("2024-00") is None and date_period("24") is None


@pytest.mark.parametrize(("filters", "expected"), [
    ({"doc_ids": ["handbook", "nope"]}, ["handbook"]),
    ({"title": "TRAVEL"}, ["policies/travel"]),  # a substring, case folded
    ({"title": "ｔｒａｖｅｌ"}, ["policies/travel"]),  # width folded too
    ({"source_prefix": "policies/"}, ["policies/travel", "policies/leave"]),
    ({"tags": ["notice", "finance"]}, ["policies/travel", "notices/canteen"]),  # any of the tags
    ({"tags": ["policy"], "title": "leave"}, ["policies/leave"]),  # fields AND together
    ({"date_from": "2023-05-01"}, ["policies/travel", "notices/canteen"]),  # undated documents are out
    ({"date_to": "2021-06"}, ["policies/leave"]),  # a document dated 2021 overlaps the first half of 2021
    ({"date_from": "2021-06", "date_to": "2021-06"}, ["policies/leave"]),
    ({"date_from": "2024-02-29", "date_to": "2024-03"}, ["notices/canteen"]),
    ({"date_from": "2025"}, []),
])
def test_matching(filters: dict[str, Any], expected: list[str]) -> None:
    parsed = parse_filters(filters)
    assert [d.doc_id for d in DOCS if matches(parsed, d)] == expected


def test_scope_holds_the_chunks_of_the_allowed_documents() -> None:
    scope = resolve_scope(parse_filters({"source_prefix": "policies/"}), DOCS)
    assert scope is not None and not scope.empty
    assert scope.doc_ids == {"policies/travel", "policies/leave"}
    assert scope.chunk_ids == {"policies/travel#0000", "policies/travel#0001", "policies/leave#0000",
                               "policies/leave#0001"}
    assert scope.allows("policies/leave#0001") and not scope.allows("handbook#0000")
    assert scope.summary() == {"filters": {"source_prefix": "policies/"}, "documents": 2, "chunks": 4,
                               "of_documents": 4, "of_chunks": 8}
    nothing = resolve_scope(parse_filters({"tags": ["missing"]}), DOCS)
    assert nothing is not None and nothing.empty and nothing.summary()["chunks"] == 0


def chunk(doc_id: str, n: int, title: str, source: str, doc_date: str = "") -> Chunk:
    return Chunk(f"{doc_id}#{n:04d}", doc_id, title, title, f"text {n}", source=source, doc_date=doc_date)


def test_tags_from_rules_and_sidecars(tmp_path: Path) -> None:
    cfg = config_with(load_config(), {"tags": {"sources": {"finance": ["finance/*"], "pdf": ["*.pdf"]},
                                               "titles": {"policy": ["Policy", "办法"]}}}).tags
    assert rule_tags("finance/2023/budget.pdf", "Budget Policy", cfg) == ["finance", "pdf", "policy"]
    assert rule_tags("notes.md", "差旅费管理办法", cfg) == ["policy"]
    raw = tmp_path / "raw"
    (raw / "finance").mkdir(parents=True)
    (raw / "finance" / "budget.pdf.tags").write_text("# reviewed by the office\nfinance, internal\n2023，draft\n",
                                                      encoding="utf-8")
    chunks = [chunk("finance/budget", 0, "Budget Policy", "finance/budget.pdf", "2023-04"),
              chunk("finance/budget", 1, "Budget Policy", "finance/budget.pdf"),
              chunk("notes", 0, "Notes", "notes.md")]
    table = document_table(chunks, raw, cfg)
    assert [(d.doc_id, d.source, d.date, d.tags, d.chunk_ids) for d in table] == [
        ("finance/budget", "finance/budget.pdf", "2023-04", ("finance", "pdf", "policy", "internal", "2023", "draft"),
         ("finance/budget#0000", "finance/budget#0001")),
        ("notes", "notes.md", "", (), ("notes#0000",)),
    ]
    off = config_with(load_config(), {"tags": {"sidecar": False}}).tags
    assert document_table(chunks, raw, off)[0].tags == ()


def test_sidecar_text_and_the_build_skipping_sidecars(tmp_path: Path) -> None:
    assert parse_sidecar("a, b\n\n c #comment, d\n#all comment\n") == ["a", "b", "c"]
    (tmp_path / "report.md").write_text("# Report\n", encoding="utf-8")
    (tmp_path / "report.md.tags").write_text("finance\n", encoding="utf-8")
    assert list(scan_raw(tmp_path)) == ["report.md"]


def test_bad_tag_rules_are_config_errors() -> None:
    from lambdarag.errors import ConfigError

    with pytest.raises(ConfigError, match=r"tags.sources.finance"):
        config_with(load_config(), {"tags": {"sources": {"finance": "finance/*"}}})
