"""Subjects named side by side ("A与B有何不同", "Compare A and B"): both sides reach the top of the ranking."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdarag.build.steps import build_domain
from lambdarag.channels import document
from lambdarag.channels.subject import SubjectIndex, named_sides, side_by_side
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import search
from lambdarag.records import Hit
from lambdarag.retrieval.fusion import Fused, cover_sides
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.text.tokenizer import Tokenizer


def report(issuer: str, margin_talk: int) -> str:
    """An annual report of several sections; ``margin_talk`` of them speak of the gross margin at length."""
    sections = []
    for part in range(6):
        if part < margin_talk:
            body = "The gross margin rose on pricing. The gross margin of the segment rose again. " * 4
        else:
            body = f"Headcount and rent in region {part} were stable. Leases were renewed for {part + 2} years. " * 4
        sections.append(f"## Section {part}\n\n{body}\n\n")
    return f"# {issuer} annual report 2023\n\n" + "".join(sections)


def make(base: Path, side_reach: int) -> Domain:
    instance = f"embedding:\n  backend: none\nretrieval:\n  final_top_k: 5\n  side_reach: {side_reach}\n"
    init_domain("reports", base).instance_file.write_text(instance, encoding="utf-8")
    domain = open_domain("reports", base)
    talk = {"Northwind": 6, "Contoso": 1, "Fabrikam": 0, "Tailspin": 0, "Woodgrove": 0}
    for n, (issuer, margin) in enumerate(talk.items()):
        (domain.raw_dir / f"r{n}.md").write_text(report(issuer, margin), encoding="utf-8")
    assert all(o.ok for o in build_domain(domain, progress=False))
    return domain


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    return KnowledgeBase.load(make(tmp_path_factory.mktemp("sides"), 3))


def ranked(kb: KnowledgeBase, question: str) -> list[dict[str, object]]:
    return search(kb, question, options=PipelineOptions(use_llm=False, log=False)).hits


def test_both_sides_of_a_comparison_reach_the_top(kb: KnowledgeBase,
                                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    question = "How did the gross margin of Northwind and Contoso compare?"
    hits = ranked(kb, question)
    docs = [kb.doc_of(str(h["chunk_id"])) for h in hits]
    assert "r0" in docs[:3] and "r1" in docs[:3], docs  # Northwind's six margin sections would fill the top
    raised = [h for h in hits if "side" in h["boosts"]]
    assert [kb.doc_of(str(h["chunk_id"])) for h in raised] == ["r1"]
    off = KnowledgeBase.load(make(tmp_path_factory.mktemp("sides-off"), 0))
    assert "r1" not in [off.doc_of(str(h["chunk_id"])) for h in ranked(off, question)][:3]


def test_one_subject_or_two_names_without_a_conjunction_make_no_sides(kb: KnowledgeBase) -> None:
    channel = kb.channels["document"]
    assert isinstance(channel, document.DocumentChannel)
    for question in ("How did the gross margin of Northwind change?",
                     "Did Northwind buy Contoso shares to lift its gross margin?"):
        assert not any(document.SIDE in h.extra for h in channel.search(question, 10)), question
        assert not any("side" in h["boosts"] for h in ranked(kb, question))
    sides = {h.extra["doc_id"]: h.extra[document.SIDE] for h in channel.search("Northwind versus Contoso", 10)
             if document.SIDE in h.extra}
    assert sorted(sides) == ["r0", "r1"] and set(sides.values()) == {0, 1}  # ordered by the share named


def subject_tokens_of(text: str) -> list[str]:
    return list(dict.fromkeys(Tokenizer().tokens(text)))


def test_named_sides_groups_subjects_and_needs_own_words_apart() -> None:
    subjects = {0: "政治学与行政学", 1: "政治学与行政学", 2: "外交学", 3: "2018年招生简章", 4: "2016年招生简章",
                5: "广播电视学"}
    tokens = Tokenizer().tokens
    index = SubjectIndex.fit(subject_tokens_of(subjects[row]) for row in sorted(subjects))
    holding = index.holding
    named = {0: 0.66, 1: 0.66, 2: 0.42, 5: 0.2}
    q = "政治学与行政学专业与外交学专业有哪些区别？"
    asked = tokens(q)
    assert named_sides(named, subjects.__getitem__, holding, asked, q) == [[0, 1], [2]]  # 广播电视学: too weak
    assert named_sides({0: 0.66, 2: 0.42}, subjects.__getitem__, holding, asked, "政治学行政学外交学") == []
    editions = "2018年招生简章有哪些变化？"  # every word naming the 2016 edition names the 2018 one too
    assert named_sides({3: 0.9, 4: 0.6}, subjects.__getitem__, holding, tokens(editions), editions) == []
    assert holding("外交学") == {2} and holding("未见") == set()

    assert side_by_side([[0, 1, 7], [2]], 3) == [0, 2, 1]


def fused(*scores: float) -> list[Fused]:
    return [Fused(f"d{i}#0", s) for i, s in enumerate(scores)]


def test_cover_sides_moves_the_late_side_up_and_keeps_the_rest_in_order() -> None:
    docs = [Hit("d0#0", 1.0, 1, "document", extra={"side": 0}), Hit("d4#0", 1.0, 2, "document", extra={"side": 1})]
    doc_of = lambda cid: cid.partition("#")[0]  # noqa: E731
    out = cover_sides(fused(0.5, 0.4, 0.3, 0.2, 0.1), doc_of, docs, 3)
    assert [f.chunk_id for f in out] == ["d0#0", "d1#0", "d4#0", "d2#0", "d3#0"]
    assert out[2].score == 0.4 and out[2].boosts["side"] == pytest.approx(3.0)
    assert cover_sides(fused(0.5, 0.4, 0.3, 0.2, 0.1), doc_of, docs, 0)[4].chunk_id == "d4#0"  # off
    assert cover_sides(fused(0.5, 0.1, 0.3, 0.2, 0.1), doc_of, docs[:1], 3)[4].chunk_id == "d4#0"  # one side
    near = [Hit("d0#0", 1.0, 1, "document", extra={"side": 0}), Hit("d1#0", 1.0, 2, "document", extra={"side": 1})]
    assert cover_sides(fused(0.5, 0.4, 0.3), doc_of, near, 3) == fused(0.5, 0.4, 0.3)  # both already near the top
