"""A document deleted through the documents API leaves every channel (issue 17, point 1): with all five channels
built (vectors from the fake embeddings server), DELETE /api/documents/<id> and its background job leave no chunk
of it in the bm25, document, vector, graph or wiki index, remove the wiki pages built only from it (a hand-edited
one is moved to wiki/.orphaned/, not lost), and the question it answered no longer cites it."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from flask.testing import FlaskClient
from index_fixtures import CHANNELS, OLD_QUESTION, full_domain
from server_fixtures import ADMIN_TOKEN, NEW_DOC, cited, copy_domain, wait_job
from test_channel_vector import DIM, char_bag

from lambdarag.config.domain import Domain
from lambdarag.wiki.page_format import read_page
from lambdarag.wiki.pages import ORPHANED_DIR

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
OLD_DOC = "差旅费报销办法"
NEW_QUESTION = "校园卡单次充值上限是多少？"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(embed=char_bag, dim=DIM) as server:
        yield server


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> Domain:
    return full_domain(tmp_path_factory.mktemp("documents-source"), fake.base_url)


@pytest.fixture
def domain(source: Domain, tmp_path: Path) -> Domain:
    return copy_domain(source, tmp_path / "knowledge")




def holding(domain: Domain, marker: str) -> set[str]:
    """The channels whose published index folder has a file naming ``marker`` (a chunk id prefix)."""
    found = set()
    for channel in CHANNELS:
        folder = (domain.index_dir / channel).resolve()
        for path in folder.rglob("*"):
            if path.is_file() and marker.encode() in path.read_bytes():
                found.add(channel)
    return found


def pages_from(wiki_dir: Path, doc_id: str) -> dict[str, bool]:
    """Page file → whether all its sources are chunks of ``doc_id`` (pages that list any of them)."""
    out = {}
    for path in sorted(wiki_dir.glob("*.md")):
        sources = [str(s) for s in read_page(path)[0].get("sources") or ()]
        own = [s for s in sources if s.startswith(f"{doc_id}#")]
        if own:
            out[path.name] = len(own) == len(sources)
    return out


def test_a_deleted_document_leaves_every_channel_and_its_wiki_pages(client: FlaskClient, domain: Domain) -> None:
    marker = f"{OLD_DOC}#"
    assert holding(domain, marker) == set(CHANNELS)  # before: every channel holds its chunks
    assert OLD_DOC in cited(client, OLD_QUESTION)
    only_from_it = sorted(name for name, only in pages_from(domain.wiki_dir, OLD_DOC).items() if only)
    assert only_from_it, pages_from(domain.wiki_dir, OLD_DOC)
    edited = domain.wiki_dir / only_from_it[0]
    edited.write_text(edited.read_text(encoding="utf-8") + "\n人工补充：请以最新文件为准。\n", encoding="utf-8")

    response = client.delete(f"/api/documents/{OLD_DOC}", headers=ADMIN)
    assert response.status_code == 202
    job = wait_job(client, response.get_json()["job"]["id"])
    assert job["state"] == "done", job

    assert holding(domain, marker) == set()  # no channel holds a chunk of it any more
    assert OLD_DOC not in cited(client, OLD_QUESTION)
    assert pages_from(domain.wiki_dir, OLD_DOC) == {}  # no page of the wiki lists it as a source
    for name in only_from_it[1:]:
        assert not (domain.wiki_dir / name).exists()
    assert not edited.exists()
    assert "人工补充" in (domain.wiki_dir / ORPHANED_DIR / edited.name).read_text(encoding="utf-8")


def test_an_upload_reaches_every_channel(client: FlaskClient, domain: Domain) -> None:
    data = {"file": (io.BytesIO(NEW_DOC[1].encode()), NEW_DOC[0])}
    response = client.post("/api/documents", data=data, headers=ADMIN, content_type="multipart/form-data")
    assert response.status_code == 202
    job = wait_job(client, response.get_json()["job"]["id"])
    assert job["state"] == "done" and all(s["state"] == "done" for s in job["steps"]), job
    assert holding(domain, "校园卡充值#") >= {"bm25", "document", "vector", "graph"}
    assert "校园卡充值" in cited(client, NEW_QUESTION)
