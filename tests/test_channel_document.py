"""The document channel: whole documents ranked by BM25, their rank passed down to their chunks in fusion."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdarag.build.steps import build_domain
from lambdarag.channels import document
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.errors import IndexMismatchError
from lambdarag.ingest.store import load_chunks
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import search
from lambdarag.records import Chunk, Hit
from lambdarag.retrieval.fusion import Fused, document_prior
from lambdarag.retrieval.knowledge import KnowledgeBase

COMPANIES = [("Northwind", 410, "Oslo", "garden tools"), ("Contoso", 275, "Lyon", "bicycles"),
             ("Fabrikam", 530, "Turin", "kitchen appliances"), ("Tailspin", 120, "Porto", "toys")]
QUESTION = "What were Contoso's net sales in 2023?"


def filing(company: str, sales: int, city: str, product: str) -> str:
    """An annual report whose results section does not repeat the company's name (as filings do)."""
    text = (f"# Annual report 2023\n\n## Company overview\n\n{company} designs and sells {product}. "
            f"{company} employs 4,000 people. The headquarters of {company} are in {city}.\n\n"
            f"## Results of operations\n\nNet sales were ${sales} million in fiscal 2023. Gross margin improved. "
            "Operating expenses rose with freight costs.\n\n"
            f"## Risk factors\n\nDemand for {product} is seasonal. Weather affects demand.\n")
    if company == "Northwind":  # a sibling that says "net sales" more often than the one asked about
        text += ("\n## Segment sales\n\nNet sales by segment: net sales of hand tools rose; "
                 "net sales of power tools fell.\n")
    return text


@pytest.fixture(scope="module")
def domain(tmp_path_factory: pytest.TempPathFactory) -> Domain:
    base = tmp_path_factory.mktemp("filings")
    init_domain("filings", base).instance_file.write_text("embedding:\n  backend: none\n", encoding="utf-8")
    domain = open_domain("filings", base)
    for company, sales, city, product in COMPANIES:  # file names that do not name the company either
        (domain.raw_dir / f"report-{sales}.md").write_text(filing(company, sales, city, product), encoding="utf-8")
    assert all(o.ok for o in build_domain(domain, progress=False))
    return domain


def top(kb: KnowledgeBase, channels: tuple[str, ...]) -> list[str]:
    result = search(kb, QUESTION, options=PipelineOptions(channels=channels, use_llm=False, log=False))
    return [str(h["chunk_id"]) for h in result.hits]


def test_a_question_naming_the_documents_subject_ranks_its_chunks_first(domain: Domain) -> None:
    kb = KnowledgeBase.load(domain)
    hits = kb.channels["document"].search(QUESTION, 4)
    assert hits[0].extra == {"doc_id": "report-275", "chunks": 3} and hits[0].chunk_id == "report-275#0000"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    # the cause: the chunk channel alone ranks the sibling that repeats "net sales" first
    assert top(kb, ("bm25",))[0] == "report-410#0003"
    assert top(kb, ("bm25", "document"))[0] == "report-275#0001"  # the results section of Contoso's report
    assert 0 < kb.document_spread < 1


def test_a_stale_document_index_is_refused_with_the_rebuild_command(domain: Domain) -> None:
    chunks = load_chunks(domain.processed_dir)
    with pytest.raises(IndexMismatchError, match=r"rebuild_index\.py --domain filings"):
        document.load(domain, chunks[:-1])


def test_document_tokens_count_each_heading_once() -> None:
    from lambdarag.text.tokenizer import Tokenizer

    group = [Chunk(f"d#{n}", "d", "Report", "Report > Sales", f"body {n}", context="Contoso") for n in range(3)]
    tokenizer = Tokenizer(())
    tokens = document.document_tokens(tokenizer, group)
    [contoso], [sales], [body] = (tokenizer.tokens(word) for word in ("Contoso", "Sales", "body"))
    assert tokens.count(contoso) == 1 and tokens.count(sales) == 1 and tokens.count(body) == 3


def chunk(doc: str, n: int) -> Chunk:
    return Chunk(f"{doc}#{n}", doc, doc, doc, "text")


def test_document_prior_adds_the_documents_share_to_each_of_its_chunks() -> None:
    chunks = {c.chunk_id: c for c in (chunk("a", 0), chunk("a", 1), chunk("b", 0), chunk("c", 0))}
    fused = [Fused("b#0", 0.05, {"bm25": 1}, {"bm25": 0.05}), Fused("a#1", 0.04, {"bm25": 2}, {"bm25": 0.04})]
    docs = [Hit("a#0", 3.0, 1, "document", extra={"doc_id": "a"}),
            Hit("c#0", 2.0, 2, "document", extra={"doc_id": "c"})]
    out = document_prior(fused, chunks, docs, 1.0, 20)
    assert [f.chunk_id for f in out] == ["a#1", "b#0", "c#0"]
    assert out[0].score == pytest.approx(0.04 + 1 / 21) and out[0].ranks == {"bm25": 2, "document": 1}
    assert out[1] == fused[0]  # b is not a ranked document
    # c has no candidate chunk: it joins with the chunk its hit carries, on its share alone
    assert out[2].score == pytest.approx(1 / 22) and out[2].scores == {"document": pytest.approx(1 / 22)}
    assert document_prior(fused, chunks, docs, 0.0, 20) == fused
    assert document_prior(fused, chunks, [], 1.0, 20) == fused


def test_one_chunk_documents_give_the_channel_no_weight(tmp_path: Path) -> None:
    base = tmp_path
    init_domain("notes", base).instance_file.write_text("embedding:\n  backend: none\n", encoding="utf-8")
    domain = open_domain("notes", base)
    for n in range(3):
        (domain.raw_dir / f"n{n}.md").write_text(f"# Note {n}\n\nShort note {n} about sales.\n", encoding="utf-8")
    build_domain(domain, progress=False)
    kb = KnowledgeBase.load(domain)
    assert kb.document_spread == 0.0
    result = search(kb, "sales note", options=PipelineOptions(use_llm=False, log=False))
    assert result.trace["weights"]["document"] == 0.0
