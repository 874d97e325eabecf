"""Every channel honours a Scope before it ranks: a document that ranks below k unfiltered comes back filtered, with
k hits when k allowed ones match, and nothing outside the scope. All five channels built on one small real domain
(the finance-office corpus; embeddings from the fake OpenAI-compatible server)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from test_channel_graph import make_chunks, make_domain
from test_channel_vector import DIM, char_bag, write_instance

from lambdarag.channels import bm25, document, graph, vector, wiki
from lambdarag.channels.base import Channel
from lambdarag.config.domain import Domain
from lambdarag.ingest.tags import document_table
from lambdarag.records import Chunk, Hit
from lambdarag.scope import Filters, Scope, resolve_scope

QUERIES = {  # a question each channel answers from several documents
    "bm25": "财务处负责报账大厅差旅费",
    "vector": "报账大厅差旅费报销住宿费",
    "graph": "财务处",
    "wiki": "报账大厅 差旅费 财务处",
    "document": "财务处 差旅费 报账大厅",
}
EVERYTHING = 1000


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(embed=char_bag, dim=DIM) as server:
        yield server


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> tuple[Domain, list[Chunk]]:
    base = tmp_path_factory.mktemp("scope")
    domain = write_instance(make_domain(base), fake.base_url)
    chunks = make_chunks()
    for module in (bm25, document, vector, graph, wiki):
        module.build(domain, chunks, progress=False)
    return domain, chunks


def load(domain: Domain, chunks: list[Chunk], name: str) -> Channel:
    modules = {"bm25": bm25, "vector": vector, "graph": graph, "wiki": wiki, "document": document}
    loaded: Channel = modules[name].load(domain, chunks)
    return loaded


def doc_of(hit: Hit) -> str:
    return str(hit.extra.get("doc_id") or hit.chunk_id.rpartition("#")[0])


def scope_of(domain: Domain, chunks: list[Chunk], doc_ids: tuple[str, ...]) -> Scope:
    scope = resolve_scope(Filters(doc_ids=doc_ids), document_table(chunks, domain.raw_dir, domain.config.tags))
    assert scope is not None
    return scope


@pytest.mark.parametrize("name", list(QUERIES))
def test_a_document_below_the_cut_comes_back_filtered(built: tuple[Domain, list[Chunk]], name: str) -> None:
    domain, chunks = built
    channel = load(domain, chunks, name)
    query = QUERIES[name]
    full = channel.search(query, EVERYTHING)
    k = 1
    below = [h for h in full[k:] if doc_of(h) not in {doc_of(t) for t in full[:k]}]
    assert below, f"{name}: the query must match more than one document: {[h.chunk_id for h in full]}"
    target = doc_of(below[-1])  # the lowest-ranked document the query matches
    allowed = [h for h in full if doc_of(h) == target]
    for k in (1, 2):
        hits = channel.search(query, k, scope_of(domain, chunks, (target,)))
        assert [doc_of(h) for h in hits] == [target] * min(k, len(allowed)), name
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
        if name != "wiki":  # the same scores: the scope removes candidates, it does not rescore them
            assert [(h.chunk_id, h.score) for h in hits] == [(h.chunk_id, h.score) for h in allowed[:k]]


@pytest.mark.parametrize("name", list(QUERIES))
def test_nothing_outside_the_scope_and_an_empty_scope(built: tuple[Domain, list[Chunk]], name: str) -> None:
    domain, chunks = built
    channel = load(domain, chunks, name)
    scope = scope_of(domain, chunks, ("hall", "travel-2019"))
    hits = channel.search(QUERIES[name], EVERYTHING, scope)
    assert hits and {doc_of(h) for h in hits} <= {"hall", "travel-2019"}
    assert all(scope.allows(h.chunk_id) for h in hits)
    assert channel.search(QUERIES[name], 5, scope_of(domain, chunks, ("no-such-document",))) == []
    unfiltered = channel.search(QUERIES[name], 5)
    assert channel.search(QUERIES[name], 5, None) == unfiltered


def test_wiki_spreads_a_page_over_its_allowed_sources(built: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = built
    channel = wiki.load(domain, chunks)
    full = channel.search("报账大厅在哪里？", EVERYTHING)
    page = full[0].page_id
    later = [h for h in full if h.page_id == page and doc_of(h) != doc_of(full[0])]
    assert later, [h.chunk_id for h in full]
    target = doc_of(later[0])
    hits = channel.search("报账大厅在哪里？", 1, scope_of(domain, chunks, (target,)))
    assert hits[0].page_id == page and doc_of(hits[0]) == target
    assert hits[0].score == pytest.approx(full[0].score)  # its first allowed source gets the page's score


def test_scope_rows_skip_ids_a_channel_does_not_hold(built: tuple[Domain, list[Chunk]], tmp_path: Path) -> None:
    domain, chunks = built
    channel = bm25.load(domain, chunks)
    scope = Scope(Filters(doc_ids=("hall",)), frozenset({"hall"}), frozenset({"hall#0001", "gone#0000"}))
    hits = channel.search("报账大厅", 10, scope)
    assert [h.chunk_id for h in hits] == ["hall#0001"]


def test_a_repeated_scope_maps_its_rows_once(built: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = built
    channel = bm25.load(domain, chunks)
    scope = scope_of(domain, chunks, ("hall",))
    rows = channel.scope_rows.rows(scope)
    assert [channel.chunk_ids[r] for r in rows] == sorted(scope.chunk_ids, key=channel.chunk_ids.index)
    assert channel.scope_rows.rows(scope) is rows  # the same Scope object: the rows kept
    assert channel.scope_rows.rows(scope_of(domain, chunks, ("hall",))) is not rows  # an equal one is mapped anew
