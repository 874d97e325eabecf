"""Document subjects: a question that names a document by a word of its title or header ranks that document's
chunks first, even where whole-document BM25 and the chunk channels prefer a sibling."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdarag.build.steps import build_domain
from lambdarag.channels import document
from lambdarag.channels.subject import SubjectIndex, abbreviates, joined_names, subject_tokens, written_names
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import search
from lambdarag.records import Chunk, Hit
from lambdarag.retrieval.fusion import Fused, subject_boost
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.scope import Filters
from lambdarag.text.tokenizer import Tokenizer

ISSUERS = ["Northwind", "Contoso", "Fabrikam", "Tailspin", "Woodgrove", "Litware"]
QUESTION = "How did pricing and freight change the gross margin of Contoso?"


def filing(issuer: str, n: int) -> str:
    """A quarterly report whose body never names its issuer (the title alone does). Only the first sibling and
    the report asked about (n = 1) speak of pricing and freight, the sibling in every section; the others say
    as much about other things, so every report is about as long."""
    topic = "Pricing and freight drove the gross margin. " if n == 0 else "Volumes and wages were stable. "
    sections = "".join(f"## Section {part}\n\n{topic * 3}Other notes follow for part {part}.\n\n"
                       for part in range(4))
    asked = "Pricing helped the gross margin, freight hurt it. " if n == 1 else "Rent was unchanged. "
    return (f"# {issuer} quarterly report Q3 2023\n\n## Results\n\n{asked}The gross margin was {30 + n}.{n} "
            f"percent in fiscal 2023.\n\n{sections}")


def make_domain(base: Path, subject_boost: float = 1.0) -> Domain:
    # term proximity off: it would pick the asked report's one sentence that holds every word, whatever its subject
    instance = f"embedding:\n  backend: none\nretrieval:\n  proximity_boost: 0\n  subject_boost: {subject_boost}\n"
    init_domain("quarterly", base).instance_file.write_text(instance, encoding="utf-8")
    domain = open_domain("quarterly", base)
    for n, issuer in enumerate(ISSUERS):  # file names that do not name the issuer
        (domain.raw_dir / f"q3-{n}.md").write_text(filing(issuer, n), encoding="utf-8")
    assert all(o.ok for o in build_domain(domain, progress=False))
    return domain


@pytest.fixture(scope="module")
def domain(tmp_path_factory: pytest.TempPathFactory) -> Domain:
    return make_domain(tmp_path_factory.mktemp("subjects"))


def top_docs(kb: KnowledgeBase, question: str = QUESTION) -> list[str]:
    result = search(kb, question, options=PipelineOptions(use_llm=False, log=False))
    return [kb.doc_of(str(h["chunk_id"])) for h in result.hits]


def test_the_named_issuers_report_ranks_first(domain: Domain) -> None:
    kb = KnowledgeBase.load(domain)
    hits = kb.channels["document"].search(QUESTION, 10)
    named = [h for h in hits if document.SUBJECT in h.extra]
    assert [h.extra["doc_id"] for h in named] == ["q3-1"] and 0 < named[0].extra[document.SUBJECT] <= 1
    assert top_docs(kb)[0] == "q3-1"
    result = search(kb, QUESTION, options=PipelineOptions(use_llm=False, log=False))
    assert result.hits[0]["boosts"]["subject"] == pytest.approx(kb.config.retrieval.subject_boost
                                                                 * named[0].extra[document.SUBJECT])


def test_without_the_boost_the_sibling_that_says_it_more_often_wins(tmp_path: Path) -> None:
    kb = KnowledgeBase.load(make_domain(tmp_path, subject_boost=0.0))
    assert top_docs(kb)[0] == "q3-0"  # the cause the boost is for


def test_a_question_naming_no_subject_boosts_nothing(domain: Domain) -> None:
    kb = KnowledgeBase.load(domain)
    hits = kb.channels["document"].search("What was the gross margin in fiscal 2023?", 10)
    assert not any(document.SUBJECT in h.extra for h in hits)
    # a word every subject holds ("quarterly") names none of them
    assert not any(document.SUBJECT in h.extra for h in kb.channels["document"].search("quarterly margin", 10))


def test_a_named_document_past_the_top_k_is_added_at_its_own_rank(domain: Domain) -> None:
    channel = KnowledgeBase.load(domain).channels["document"]
    question = "How did pricing and freight change at Litware?"
    rank_of = {h.extra["doc_id"]: h.rank for h in channel.search(question, 10)}
    assert rank_of["q3-5"] > 1  # its body says nothing of pricing or freight
    hits = channel.search(question, 1)
    assert [h.extra["doc_id"] for h in hits] == ["q3-0", "q3-5"]
    assert hits[1].rank == rank_of["q3-5"] and hits[1].extra[document.SUBJECT] > 0
    assert document.SUBJECT not in hits[0].extra


def test_a_named_document_outside_the_filters_scope_is_not_added(domain: Domain) -> None:
    kb = KnowledgeBase.load(domain)
    scope = kb.scope(Filters(doc_ids=("q3-0", "q3-2")))
    hits = kb.channels["document"].search(QUESTION, 10, scope)
    assert {h.extra["doc_id"] for h in hits} <= {"q3-0", "q3-2"}
    assert not any(document.SUBJECT in h.extra for h in hits)


def test_subject_strength_is_the_share_of_the_subjects_idf_the_tokens_name() -> None:
    index = SubjectIndex.fit([["amcor", "2023", "10k"], ["boeing", "2022", "10k"], ["boeing", "2023", "10q"],
                              ["pepsico", "2022", "10k"]])
    assert index.named(["margin"], 0.05) == {}
    only = index.named(["amcor", "margin"], 0.05)  # a token of one subject names that document
    assert list(only) == [0]
    assert only[0] == pytest.approx(index.idf[index.model.vocab["amcor"]] / index.mass[0])
    # "boeing" is in two of four subjects: above max(1, 0.05 · 4) it names nothing; at half the subjects, both
    assert index.named(["boeing"], 0.05) == {}
    assert set(index.named(["boeing"], 0.5)) == {1, 2}
    both = index.named(["boeing", "2023"], 0.5)  # naming more of a subject names it more strongly
    assert both[2] > both[1]
    assert all(0 < v <= 1 for v in both.values())


def test_in_a_small_corpus_a_subject_word_few_documents_share_names_them_when_their_text_holds_it_alone() -> None:
    subjects = [["boeing", "2022", "10k"], ["boeing", "2023", "10q"], ["amcor", "2023", "10k"],
                ["pepsico", "2022", "10k"], ["lyon", "2021", "10k"], ["reimburs", "guid"], ["reimburs", "rule"],
                ["budget", "rule"], ["travel", "polici"]]
    index = SubjectIndex.fit(subjects)  # 9 subjects: max(1, 0.05 · 9) = 1, √9 = 3
    texts = {"boeing": 2, "reimburs": 9}  # how many whole documents hold each word
    body = texts.get
    assert index.named(["boeing"], 0.05) == {}  # without the documents' text: two subjects are too many
    assert set(index.named(["boeing"], 0.05, lambda t: body(t, 0))) == {0, 1}  # an issuer only its filings name
    assert index.named(["reimburs"], 0.05, lambda t: body(t, 0)) == {}  # a topic word all the texts hold
    assert index.named(["10k"], 0.05, lambda t: 4) == {}  # in more than √N subjects: never a name
    assert list(index.named(["amcor"], 0.05, lambda t: 9)) == [2]  # one subject's word names it, however common


def test_a_name_written_with_spaces_finds_its_squeezed_form() -> None:
    assert joined_names(["best", "buy", "store"]) == ["best", "buy", "store", "bestbuy", "buystore"]
    assert joined_names(["科研", "经费", "fy2024"]) == ["科研", "经费", "fy2024"]  # only Latin neighbours are joined
    index = SubjectIndex.fit([["americanexpress", "2022", "10k"], ["boeing", "2022", "10k"]])
    assert list(index.named(["american", "express", "margin"], 0.05)) == [0]


def test_subject_tokens_are_the_title_and_header_not_the_sections() -> None:
    tokenizer = Tokenizer(())
    chunk = Chunk("d#0", "d", "Contoso report", "Contoso report > Risk factors", "body", context="Lyon · 10-Q")
    tokens = subject_tokens(tokenizer, chunk)
    assert tokenizer.tokens("Contoso")[0] in tokens and tokenizer.tokens("Lyon")[0] in tokens
    assert not set(tokenizer.tokens("Risk factors body")) & set(tokens)


def test_subject_boost_scales_the_named_documents_chunks() -> None:
    def doc_of(chunk_id: str) -> str:
        return chunk_id.split("#")[0]
    fused = [Fused("b#0", 0.05, {"bm25": 1}, {"bm25": 0.05}), Fused("a#1", 0.04, {"bm25": 2}, {"bm25": 0.04})]
    docs = [Hit("b#0", 3.0, 1, "document", extra={"doc_id": "b"}),
            Hit("a#0", 1.0, 2, "document", extra={"doc_id": "a", document.SUBJECT: 0.5})]
    out = subject_boost(fused, doc_of, docs, 1.0)
    assert [f.chunk_id for f in out] == ["a#1", "b#0"]
    assert out[0].score == pytest.approx(0.04 * 1.5) and out[0].boosts == {"subject": 0.5}
    assert subject_boost(fused, doc_of, docs, 0.0) == fused
    assert subject_boost(fused, doc_of, docs[:1], 1.0) == fused


ABBREVIATED = {"NORTHWINDTRADERS": "NWT", "CONTOSOPHARMA": "CnP", "FABRIKAMFOODS": "FBF"}


def abbreviated_filing(title: str, short: str, mentions: int) -> str:
    """A report titled by a squeezed issuer name whose body calls the issuer by ``short`` ``mentions`` times and
    also uses a metric's acronym (ZQRT) that abbreviates no title."""
    said = " ".join(f"{short} reported segment {n} results." for n in range(mentions))
    return (f"# {title} Q3 2023\n\n## Results\n\nPricing and freight moved the gross margin. {said}\n\n"
            f"## Metrics\n\nZQRT rose. ZQRT is the adjusted ratio. ZQRT fell in one segment.\n\n")


@pytest.fixture(scope="module")
def abbreviated(tmp_path_factory: pytest.TempPathFactory) -> Domain:
    base = tmp_path_factory.mktemp("abbreviated")
    instance = "embedding:\n  backend: none\nretrieval:\n  proximity_boost: 0\n"
    init_domain("filings", base).instance_file.write_text(instance, encoding="utf-8")
    domain = open_domain("filings", base)
    mentions = {"NWT": 5, "CnP": 4, "FBF": 2}  # FBF's report says its short name too seldom to be named by it
    for n, (title, short) in enumerate(ABBREVIATED.items()):
        (domain.raw_dir / f"r{n}.md").write_text(abbreviated_filing(title, short, mentions[short]), encoding="utf-8")
    for n, issuer in enumerate(["LITWAREINC", "TAILSPINTOYS", "WOODGROVEBANK"], start=3):
        (domain.raw_dir / f"r{n}.md").write_text(abbreviated_filing(issuer, "the company", 3), encoding="utf-8")
    assert all(o.ok for o in build_domain(domain, progress=False))
    return domain


def named_docs(kb: KnowledgeBase, question: str) -> dict[str, float]:
    return {str(h.extra["doc_id"]): float(h.extra[document.SUBJECT])
            for h in kb.channels["document"].search(question, 10) if document.SUBJECT in h.extra}


def test_a_document_is_named_by_an_abbreviation_its_text_uses(abbreviated: Domain) -> None:
    kb = KnowledgeBase.load(abbreviated)
    channel = kb.channels["document"]
    assert isinstance(channel, document.DocumentChannel)
    named = named_docs(kb, "How did freight change the gross margin of NWT?")
    assert list(named) == ["r0"]
    row = channel.scope_rows.row_of["r0"]
    assert named["r0"] == pytest.approx(channel.subjects.standing_for([row])[row], abs=1e-4)  # rounded in the hit
    assert list(named_docs(kb, "Did CnP's freight costs rise?")) == ["r1"]  # camel case, possessive
    assert top_docs(kb, "How did freight change the gross margin of NWT?")[0] == "r0"


def test_an_acronym_of_no_title_a_seldom_used_name_and_a_line_in_capitals_name_nothing(abbreviated: Domain) -> None:
    kb = KnowledgeBase.load(abbreviated)
    assert named_docs(kb, "What is ZQRT?") == {}  # in every report's text, and abbreviates no title
    assert named_docs(kb, "How did freight change the gross margin of FBF?") == {}  # said twice: below MENTIONS
    assert named_docs(kb, "HOW DID FREIGHT CHANGE AT NWT?") == {}  # a line in capitals says nothing of names


def test_abbreviations_and_written_names() -> None:
    assert abbreviates("NWT", "NORTHWINDTRADERS Q3 2023")
    assert abbreviates("CnP", "CONTOSO PHARMA 2023 10-K")  # letters across neighbouring words
    assert abbreviates("ab", "x_alpha_beta")  # file names' underscores split words
    assert not abbreviates("ZQRT", "NORTHWINDTRADERS Q3 2023")
    assert not abbreviates("TQ", "NORTHWINDTRADERS Q3 2023")  # the first letter must start a word
    assert not abbreviates("NG", "NORTH WIND TRADERS GROUP")  # G is in the fourth word: too far
    assert not abbreviates("N", "NORTHWINDTRADERS")
    assert written_names("Does NWT's FY2022 Q3 margin beat eBay and CnP?\nREVENUE OF ACME") == ["NWT", "eBay", "CnP"]
    assert written_names("河西省的GDP是多少") == ["GDP"]
