"""The wiki channel's page table (channels/wiki_pages.py): the indexed pages read back, old indexes refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_channel_graph import REBUILD, make_chunks, make_domain

from lambdarag.channels import graph, wiki
from lambdarag.channels.base import load_channels
from lambdarag.channels.wiki_pages import IndexedPage, PageTable
from lambdarag.errors import IndexMismatchError

WORDS = st.text("江城大学财务处预算科ab1 ", max_size=8)
PAGES = st.lists(st.builds(IndexedPage, slug=WORDS, title=WORDS, aliases=st.tuples(WORDS, WORDS), sources=st.lists(
    WORDS, max_size=4).map(tuple), excerpt=st.text(max_size=30), text=st.just(""), edited=st.booleans()), max_size=12)


def reference_names(pages: list[IndexedPage]) -> dict[str, list[int]]:
    """name → pages, as the channel worked it out from pages.json at every load before."""
    by_name: dict[str, list[int]] = {}
    for i, page in enumerate(pages):
        for name in dict.fromkeys(page.names):
            by_name.setdefault(name, []).append(i)
    return by_name


@settings(max_examples=60, deadline=None)
@given(PAGES)
def test_a_saved_table_reads_back_its_pages(tmp_path_factory: pytest.TempPathFactory,
                                            pages: list[IndexedPage]) -> None:
    folder = tmp_path_factory.mktemp("pages")
    PageTable.of(pages).save(folder)
    table = PageTable.load(folder)
    assert list(table) == pages and table.by_name == reference_names(pages)
    slugs = np.array([p.slug for p in pages], dtype=object)
    assert table.slug_rank.tolist() == np.argsort(np.argsort(slugs, kind="stable"), kind="stable").tolist()


def test_fields_of_different_lengths_are_refused(tmp_path: Path) -> None:
    pages = [IndexedPage("a", "财务处", (), ("c#0001",), "", ""), IndexedPage("b", "预算科", (), (), "", "")]
    PageTable.of(pages).save(tmp_path)
    np.save(tmp_path / "page_edited.npy", np.zeros(1, dtype=bool))
    with pytest.raises(ValueError, match="different lengths"):
        PageTable.load(tmp_path)


@pytest.fixture()
def indexed(tmp_path: Path) -> tuple[Path, list]:
    domain, chunks = make_domain(tmp_path), make_chunks()
    graph.build(domain, chunks, progress=False)
    wiki.build(domain, chunks, progress=False)
    return tmp_path, chunks


def test_the_index_holds_the_pages_of_wiki_dir_without_pages_json(indexed: tuple[Path, list]) -> None:
    domain, chunks = make_domain(indexed[0]), indexed[1]
    folder = domain.index_dir / "wiki"
    assert not (folder / "pages.json").exists()
    expected = [IndexedPage(p.slug, p.title, p.aliases, p.sources, p.excerpt, "", p.edited)
                for p in wiki.read_pages(domain.wiki_dir)]
    assert list(PageTable.load(folder)) == expected and expected
    hits = wiki.load(domain, chunks).search("报账大厅在哪里？", 3)
    assert hits[0].page_id == "报账大厅" and hits[0].side_text == next(p.excerpt for p in expected
                                                                     if p.slug == "报账大厅")


def test_an_index_of_the_former_format_is_refused_naming_the_rebuild(indexed: tuple[Path, list]) -> None:
    domain, chunks = make_domain(indexed[0]), indexed[1]
    manifest_file = domain.index_dir / "wiki" / "manifest.json"
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    manifest_file.write_text(json.dumps({**manifest, "format_version": 1}), encoding="utf-8")
    with pytest.raises(IndexMismatchError, match=f"format 1, this version reads {wiki.FORMAT_VERSION}") as caught:
        wiki.load(domain, chunks)
    assert REBUILD in str(caught.value)
    loaded, errors = load_channels(domain, ["wiki"], chunks)  # serving goes on without the channel, and says why
    assert "wiki" not in loaded and "format 1" in errors["wiki"] and REBUILD in errors["wiki"]
