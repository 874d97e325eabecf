"""Layer 3: the request path. answer(), answer_stream() and search() run the stages and build the trace.

condense → intent → expand → retrieve (channels, fusion, current-version preference, gate) → evidence (the
best parts of the top documents, repeal statements: answer/evidence.py) → slots → context → generate →
grounding → log. Each stage is timed into Result.timings and trace["stages"]; each leaves its
record in the trace; a failing LLM or channel degrades the request and says so in trace["degraded"].
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lambdarag.answer.context import Packed, pack_context
from lambdarag.answer.evidence import Added, distinct_chunks, expand_evidence, repealed_in, with_added
from lambdarag.answer.generate import AnswerStream, Generation, generate, not_found_answer
from lambdarag.answer.grounding import apply_grounding, check_grounding
from lambdarag.answer.needs import asks_something, is_english, question_need
from lambdarag.answer.slots import SlotResult, fill_slots, slot_evidence
from lambdarag.faq.lookup import FaqLookup, faq_citations, faq_lookup, has_faq
from lambdarag.feedback.log import now_iso
from lambdarag.models.llm import LLMClient
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.explain import explain
from lambdarag.pipeline.log import log_result
from lambdarag.pipeline.result import Result, SearchResult, StreamEvent
from lambdarag.pipeline.trace import Stages, degraded_paths
from lambdarag.query.condense import Condensed, condense
from lambdarag.query.expand import Expansion, expand_query
from lambdarag.query.intent import IntentResult, classify
from lambdarag.records import Citation, Turn
from lambdarag.retrieval.channel_run import question_vector
from lambdarag.retrieval.gate import overlap_score
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.retrieval.off_topic import FAR, OFF, SENTENCES, TopicCheck, topic_check
from lambdarag.retrieval.retrieve import Retrieval, retrieval_trace, retrieve

__all__ = ["Citation", "PipelineOptions", "Result", "SearchResult", "StreamEvent", "Turn", "answer",
           "answer_stream", "retrieval_front", "search"]

DEFAULT_OPTIONS = PipelineOptions()  # frozen, so one shared default is safe
PRECISE_TOP_OVERLAP = 0.5  # the top hit alone must hold half the query keywords for PRECISE
_MARKER_CHARS = "0123456789"


@dataclass
class _Request:
    """State of one request between the stages."""

    kb: KnowledgeBase
    question: str
    session_id: str | None
    options: PipelineOptions
    llm: LLMClient | None
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    stages: Stages = field(default_factory=Stages)
    trace: dict[str, Any] = field(default_factory=dict)
    condensed: Condensed | None = None
    intent: IntentResult | None = None
    expansion: Expansion | None = None
    retrieval: Retrieval | None = None
    found: bool = False
    relevance: str = "none"
    topic: TopicCheck | None = None  # the not-found line's dense reading (retrieval/off_topic.py)
    added: list[Added] = field(default_factory=list)  # evidence beyond the fused top-k
    evidence_ids: list[str] = field(default_factory=list)
    copies: list[str] = field(default_factory=list)  # fused chunks left out of the evidence as near copies
    slots: SlotResult = field(default_factory=SlotResult)
    packed: Packed = field(default_factory=lambda: Packed("", [], [], [], []))
    faq: FaqLookup | None = None  # the curated answers' decision (answer() and answer_stream() only)


def answer(kb: KnowledgeBase, question: str, history: Sequence[Turn] = (), session_id: str | None = None,
           options: PipelineOptions = DEFAULT_OPTIONS) -> Result:
    """Answer ``question`` (with the session's earlier turns) from the knowledge base, cited and traced."""
    req = _prepare(kb, question, history, session_id, options)
    with req.stages.stage("generate"):
        generation = _generation(req, stream=False)
        assert isinstance(generation, Generation)
    return _finish(req, generation)


def answer_stream(kb: KnowledgeBase, question: str, history: Sequence[Turn] = (), session_id: str | None = None,
                  options: PipelineOptions = DEFAULT_OPTIONS) -> Iterator[StreamEvent]:
    """("meta", {...}) first, then ("delta", text) pieces, then ("result", Result) last.

    Deltas are sent as generated; the grounding check runs on the whole answer afterwards, so with
    llm.ungrounded "drop" the final Result's answer may lack a sentence that was streamed.
    """
    req = _prepare(kb, question, history, session_id, options)
    yield StreamEvent("meta", _meta(req))
    with req.stages.stage("generate"):
        generation = _generation(req, stream=True)
    if isinstance(generation, AnswerStream):
        for delta in generation:
            yield StreamEvent("delta", delta)
        generation = generation.generation()
    else:
        yield StreamEvent("delta", generation.text)
    yield StreamEvent("result", _finish(req, generation))


def search(kb: KnowledgeBase, question: str, options: PipelineOptions = DEFAULT_OPTIONS) -> SearchResult:
    """Retrieval only: the fused evidence with each channel's rank and score, no answer step (the stages before it
    are answer()'s own, so a search ranks what an answer to the same question would)."""
    req = _Request(kb, question, None, options, kb.llm if options.use_llm else None)
    _front(req, ())
    assert req.retrieval is not None and req.intent is not None and req.condensed is not None
    trace = _base_trace(req)
    if options.explain:
        trace["explain"] = _explain(req)
    return SearchResult(
        request_id=req.request_id, question=question, condensed=req.condensed.question, intent=req.intent.intent,
        intent_scores=dict(req.intent.scores), hits=[_hit_view(kb, f) for f in req.retrieval.fused],
        gate=req.retrieval.gate.to_dict(), timings=dict(req.stages.ms), trace=trace,
    )


def _explain(req: _Request) -> dict[str, Any]:
    """The hit test's view of this request (pipeline/explain.py), with the stages timed so far."""
    assert req.condensed is not None and req.intent is not None and req.expansion is not None
    assert req.retrieval is not None
    return explain(req.kb, req.condensed, req.intent, req.expansion, req.retrieval, req.stages.rounded(), req.found)


def _prepare(kb: KnowledgeBase, question: str, history: Sequence[Turn], session_id: str | None,
             options: PipelineOptions) -> _Request:
    req = _Request(kb, question, session_id, options, kb.llm if options.use_llm else None)
    _front(req, history, faq=True)
    assert req.condensed is not None
    with req.stages.stage("evidence"):
        _expand_evidence(req)
    with req.stages.stage("slots"):
        if req.found and req.retrieval is not None and req.intent is not None:
            fused = [kb.chunks[cid] for cid in req.evidence_ids]
            evidence = slot_evidence(req.intent.intent, req.condensed.question, fused, kb.chunks)
            req.slots = fill_slots(req.intent.intent, req.condensed.question, evidence, req.llm, kb.config)
    with req.stages.stage("context"):
        if req.found and req.retrieval is not None:
            req.packed = pack_context(req.slots.slots, req.retrieval, kb, kb.config.context.max_chars,
                                      req.evidence_ids, english=is_english(req.condensed.question),
                                      sentences=req.options.sentence_vectors)
            req.packed = dataclasses.replace(req.packed, repealed=repealed_in(req.packed, kb.versions),
                                             as_of=req.options.today)
    return req


def _front(req: _Request, history: Sequence[Turn], faq: bool = False) -> None:
    """condense → (FAQ) → intent → expand → retrieve: the stages every answer runs before its evidence; a
    question close enough to a curated one is answered from it, without retrieval (lambdarag/faq/)."""
    kb = req.kb
    with req.stages.stage("condense"):
        req.condensed = condense(req.question, history, req.llm,
                                 kb.config.prompts.reader(is_english(req.question)).condense)
    if faq and has_faq(kb.domain.root, kb.config.faq):  # a domain without curated answers has no "faq" stage
        with req.stages.stage("faq"):
            req.faq = faq_lookup(kb.domain.root, kb.config.faq, kb.tokenizer, req.condensed.question)
    _understand(req, history)
    if req.faq is not None and req.faq.entry is not None:
        req.found, req.relevance = True, "PRECISE"
        req.packed.citations.extend(faq_citations(req.faq.entry, kb.chunks, kb.config.context.excerpt_chars))
        return
    _retrieve(req)


def retrieval_front(kb: KnowledgeBase, question: str, history: Sequence[Turn] = (),
                    options: PipelineOptions = DEFAULT_OPTIONS) -> tuple[str, str, Retrieval]:
    """The condensed question, its intent and the retrieval exactly as answer() computes them (the tuner's
    samples are made here, so they see what the pipeline ranks)."""
    req = _Request(kb, question, None, options, kb.llm if options.use_llm else None)
    _front(req, history)
    assert req.condensed is not None and req.intent is not None and req.retrieval is not None
    return req.condensed.question, req.intent.intent, req.retrieval


def _expand_evidence(req: _Request) -> None:
    """The fused chunks plus the best parts of the top documents and repeal statements (answer/evidence.py)."""
    assert req.condensed is not None and req.intent is not None and req.expansion is not None
    if not req.found or req.retrieval is None:
        return
    kb = req.kb
    # the fused top-k without near copies of a chunk ranked above; the next ranked chunks take their places
    fused, req.copies = distinct_chunks(req.retrieval.ranking or [f.chunk_id for f in req.retrieval.fused],
                                        kb.chunks, len(req.retrieval.fused))
    compare = kb.config.intents.classes.get("compare")
    cues = set(compare.keywords) if compare is not None else set()  # words that ask for a comparison
    req.added = expand_evidence(req.condensed.question, req.expansion.keywords, req.intent.intent, fused,
                                kb.chunks, kb.versions, cues)
    scope = req.retrieval.scope
    if scope is not None:  # a sibling or repeal statement of a document the filters leave out is no evidence
        req.added = [a for a in req.added if scope.allows(a.chunk_id)]
    req.evidence_ids = with_added(fused, req.added)


def _understand(req: _Request, history: Sequence[Turn] = ()) -> None:
    assert req.condensed is not None
    cfg = req.kb.config
    with req.stages.stage("intent"):
        req.intent = classify(req.condensed.question, cfg.intents, req.llm, cfg.prompts.intent)
        if req.intent.method == "default" and history and not asks_something(req.condensed.question):
            req.intent = _inherited_intent(req, history[-1])
    with req.stages.stage("expand"):
        today = req.options.today or date.today()
        expanded = req.options.entity_expansion
        req.expansion = expand_query(req.condensed.question, req.intent.intent, cfg, req.kb.tokenizer, today,
                                     cfg.query.entity_expansion if expanded is None else expanded,
                                     req.kb.entity_aliases(), req.condensed.topic)


def _inherited_intent(req: _Request, previous: Turn) -> IntentResult:
    """A follow-up without any intent keyword or question word of its own ("那人工智能专业呢？") asks the same kind of
    thing as the turn before; one that asks its own question ("宿舍条件怎么样？" after "学费是哪一年调整的？") keeps
    the default intent."""
    assert req.intent is not None
    cfg = req.kb.config
    before = classify(previous.question, cfg.intents, None)
    if before.method != "rules":
        return req.intent
    note = f"no intent keyword in the follow-up: intent {before.intent!r} carried over from the previous question"
    return dataclasses.replace(req.intent, intent=before.intent, method="history", error=req.intent.error or None,
                               matched={**req.intent.matched, "_inherited": [note]})


def _retrieve(req: _Request) -> None:
    assert req.condensed is not None and req.intent is not None and req.expansion is not None
    kb = req.kb
    with req.stages.stage("retrieve"):
        r = retrieve(kb, req.condensed.question, req.expansion, req.intent.intent, req.options)
    req.retrieval = r
    req.found = bool(r.fused) and r.gate.overlap >= kb.config.corrective.not_found_below
    if req.found:
        req.topic = _topic(req, r)
        req.found = req.topic.state != FAR
    if req.found:
        top = overlap_score(req.expansion.keywords, [kb.chunks[r.fused[0].chunk_id].index_text])
        req.relevance = "PRECISE" if r.gate.passed and top >= PRECISE_TOP_OVERLAP else "REFERENCE"


def _topic(req: _Request, r: Retrieval) -> TopicCheck:
    """Whether a question the keywords match weakly is nearer the domain than everyday questions are."""
    assert req.condensed is not None
    cfg = req.kb.config
    if not req.kb.dense_configured():
        return TopicCheck(OFF, "no dense channel configured: the keywords decide")
    english, run = is_english(req.condensed.question), r.runs.get("vector")
    # the evidence's sentences where they are embedded: a question's answer is a sentence, not a whole chunk
    sentences = req.kb.sentence_reading(question_vector(req.kb, run), [f.chunk_id for f in r.fused], english)
    if sentences is not None:
        return topic_check(r.gate.overlap, cfg.corrective.dense_check_below, *sentences, reading=SENTENCES)
    fence, missing = req.kb.background_fence(english)
    top = run.hits[0].score if run is not None and run.hits and not run.error else None
    if top is None and fence is not None:
        why = (run.error or run.skipped or "no hit") if run is not None else "not run"
        missing = f"the vector channel gave no score ({why})"
    return topic_check(r.gate.overlap, cfg.corrective.dense_check_below, top, fence, missing)


def _generation(req: _Request, stream: bool) -> Generation | AnswerStream:
    assert req.condensed is not None and req.intent is not None and req.expansion is not None
    if not req.found:
        return not_found_answer(req.condensed.question, req.kb.config)
    if req.faq is not None and req.faq.entry is not None:
        return Generation(req.faq.entry.answer, "faq")
    question, intent, slots = req.condensed.question, req.intent.intent, req.slots.slots
    keywords, domain = req.expansion.keywords, req.kb.domain.name
    if stream:
        return generate(question, req.packed, intent, slots, req.llm, req.kb.config, True,
                        keywords=keywords, domain=domain)
    return generate(question, req.packed, intent, slots, req.llm, req.kb.config, False,
                    keywords=keywords, domain=domain)


def _finish(req: _Request, generation: Generation) -> Result:
    kb = req.kb
    text = generation.text
    with req.stages.stage("grounding"):
        supports = check_grounding(text, req.packed.citations, kb.chunks) if req.found else []
        if generation.method == "llm":
            text = apply_grounding(text, supports, kb.config.llm.ungrounded)
    cited = _cited_numbers(text)
    faq = generation.method == "faq"  # a curated answer shows its sources whether or not it marks them [n]
    result = _result(req, generation, text, [c for c in req.packed.citations if faq or c.n in cited])
    result.grounding = [s.to_dict() for s in supports]
    result.trace["grounding"] = {"mode": kb.config.llm.ungrounded if generation.method == "llm" else "report",
                                 "sentences": result.grounding,
                                 "unsupported": sum(1 for s in supports if not s.supported)}
    result.timings = dict(req.stages.ms)  # the log line carries every stage up to grounding
    with req.stages.stage("log"):
        if req.options.log:
            log_result(kb, result)
    result.timings = dict(req.stages.ms)
    result.trace["stages"] = req.stages.rounded()
    if req.options.explain:
        result.trace["explain"] = _explain(req)
    return result


def _cited_numbers(text: str) -> set[int]:
    numbers: set[int] = set()
    for part in text.split("[")[1:]:
        digits, bracket, _ = part.partition("]")
        if bracket and digits and all(ch in _MARKER_CHARS for ch in digits):
            numbers.add(int(digits))
    return numbers


def _result(req: _Request, generation: Generation, text: str, citations: list[Citation]) -> Result:
    assert req.condensed is not None and req.intent is not None
    trace = _base_trace(req)
    trace["evidence"] = {"added": [a.to_dict() for a in req.added], "near_copies": list(req.copies)}
    trace["slots"] = req.slots.to_dict()
    trace["context"] = {**req.packed.summary(), "citations": [c.n for c in req.packed.citations]}
    trace["generation"] = {"method": generation.method, "error": generation.error, "chars": len(text),
                           "need": question_need(req.condensed.question).to_dict(),
                           "answer_chars": req.kb.config.context.answer_chars}
    trace["degraded"] = degraded_paths(trace)
    return Result(
        request_id=req.request_id, session_id=req.session_id, question=req.question,
        condensed=req.condensed.question, found=req.found, answer=text,
        citations=citations if req.found else [], intent=req.intent.intent,
        intent_scores=dict(req.intent.scores), slots=req.slots.slots, relevance=req.relevance,
        context=req.packed.text, trace=trace, answer_method=generation.method, packed=req.packed,
    )


def _base_trace(req: _Request) -> dict[str, Any]:
    trace: dict[str, Any] = {
        "request_id": req.request_id, "session_id": req.session_id, "domain": req.kb.domain.name,
        "time": now_iso(), "options": _options_view(req.options), "llm": req.llm is not None,
        "condense": req.condensed.to_dict() if req.condensed else None,
        "intent": req.intent.to_dict() if req.intent else None,
        "expansion": req.expansion.to_dict() if req.expansion else None,
        "found": req.found, "relevance": req.relevance, "topic": req.topic.to_dict() if req.topic else None,
    }
    if req.faq is not None:
        trace["faq"] = req.faq.to_dict()
    if req.retrieval is not None:
        trace.update(retrieval_trace(req.retrieval))
    kb = req.kb
    trace["learned"] = {"used": kb.ranker is not None and req.options.learned, "status": kb.ranker_status(),
                        "refused": kb.ranker_refused}  # the learned ranking stage
    trace["degraded"] = degraded_paths(trace)  # search's too; an answer adds the later stages' (_result)
    trace["stages"] = req.stages.rounded()
    return trace


def _options_view(options: PipelineOptions) -> dict[str, Any]:
    return {"channels": list(options.channels) if options.channels is not None else None,
            "uniform_weights": options.uniform_weights, "gate": options.gate,
            "entity_expansion": options.entity_expansion, "rerank": options.rerank,  # None: the config's
            "learned": options.learned,
            "use_llm": options.use_llm,
            "today": options.today.isoformat() if options.today else None, "log": options.log,
            "top_k": options.top_k, "filters": options.filters.to_dict() if options.filters is not None else None}


def _meta(req: _Request) -> dict[str, Any]:
    assert req.condensed is not None and req.intent is not None
    return {"request_id": req.request_id, "session_id": req.session_id, "question": req.question,
            "condensed": req.condensed.question, "intent": req.intent.intent,
            "intent_scores": dict(req.intent.scores), "found": req.found, "relevance": req.relevance,
            "slots": req.slots.slots, "citations": [c.to_dict() for c in req.packed.citations]}


def _hit_view(kb: KnowledgeBase, fused: Any) -> dict[str, Any]:
    chunk = kb.chunks[fused.chunk_id]
    excerpt_chars = kb.config.context.excerpt_chars
    text = " ".join(chunk.text.split())
    return {"chunk_id": chunk.chunk_id, "doc_id": chunk.doc_id, "title": chunk.title,
            "breadcrumb": chunk.breadcrumb, "locator": chunk.locator, "is_table": chunk.is_table,
            "score": round(fused.score, 6), "ranks": dict(fused.ranks),
            "scores": {k: round(v, 6) for k, v in fused.scores.items()}, "boosts": dict(fused.boosts),
            "excerpt": text[:excerpt_chars]}
