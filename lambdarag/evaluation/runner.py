"""The eval runner: every question through the full pipeline, the naive baseline and the ablations.

Ablations reuse the one loaded knowledge base and change only PipelineOptions, so every variant
sees the same index, the same questions and the same context budget.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from lambdarag.answer.compose import first_sentence, lead_text
from lambdarag.answer.context import Packed
from lambdarag.answer.sentences import evidence_pieces
from lambdarag.evaluation import metrics as m
from lambdarag.evaluation.baseline import NaiveBM25
from lambdarag.evaluation.dataset import EvalQuestion
from lambdarag.options import PipelineOptions
from lambdarag.progress import Progress
from lambdarag.text.patterns import CITATION_MARK

if TYPE_CHECKING:
    from lambdarag.pipeline.result import Result
    from lambdarag.retrieval.knowledge import KnowledgeBase

FULL = "full"
SINGLE_CHANNEL_PREFIX = "only_"  # the variants with one channel: only_bm25, only_vector…
BASELINE = "baseline"
RANK_CUTOFFS = (1, 5, 10)
KEEP_RANKED = 10  # documents kept per record, enough for every cut-off


@dataclass(frozen=True)
class Variant:
    """One system measured in the run: the full pipeline, an ablation of it, or the naive baseline."""

    name: str
    description: str
    options: PipelineOptions | None  # None: the naive baseline


@dataclass
class QuestionRecord:
    """One question answered by one variant: the ranked documents, the scores and the stage timings."""

    qid: str
    variant: str
    type: str
    intent: str
    ranked: list[str]
    metrics: dict[str, float | None]
    timings: dict[str, float] = field(default_factory=dict)
    found: bool = True
    answer_method: str = ""
    condensed: str = ""
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"qid": self.qid, "variant": self.variant, "type": self.type, "intent": self.intent,
                "ranked": self.ranked, "metrics": self.metrics, "timings": {k: round(v, 2) for k, v in
                                                                           self.timings.items()},
                "found": self.found, "answer_method": self.answer_method, "condensed": self.condensed,
                "error": self.error}


@dataclass(frozen=True)
class Levels:
    """How ranked chunks map to scored documents: doc level always, source-document level when known."""

    doc_of_chunk: Callable[[str], str]
    src_of_doc: Mapping[str, str] = field(default_factory=dict)
    doc_text: Mapping[str, str] = field(default_factory=dict)  # for the "answer is in the gold documents" check
    pages_of_chunk: Callable[[str], tuple[int, ...]] = field(default=lambda _chunk_id: ())  # from its locator

    def page_ranking(self, chunk_ids: Sequence[str]) -> list[m.PageUnit]:
        """The (doc id, page) units of ranked chunks, in rank order."""
        return m.page_ranking(chunk_ids, self.doc_of_chunk, self.pages_of_chunk)


def default_variants(channels: Sequence[str], ablations: bool = True, baseline: bool = True,
                     use_llm: bool = True, leave_one_out: bool = False,
                     entity_expansion: bool = False, gate_retry: bool = False,
                     sentence_vectors: bool = False) -> list[Variant]:
    """The full system first, then the naive baseline, each loaded channel alone and the three ablations.

    ``leave_one_out`` adds one variant per channel with every other channel (what that channel adds);
    ``entity_expansion`` and ``gate_retry`` (corrective.max_retries ≥ 1) are the config's: each ablation switches
    it off when on, on when off (opt-in); with ``sentence_vectors`` (built and loaded) one more answers without them.
    """
    base = PipelineOptions(use_llm=use_llm, log=False)
    out = [Variant(FULL, "full system", base)]
    if baseline:
        out.append(Variant(BASELINE, "naive peer: jieba + BM25Okapi over whole documents", None))
    if not ablations:
        return out
    # weight 1 alone: one channel's order does not depend on its weight (the boosts are relative), and a channel
    # an intent gives weight 0 (not searched in the full system) is still measured alone
    out += [Variant(f"{SINGLE_CHANNEL_PREFIX}{name}", f"{name} channel alone",
                    replace(base, channels=(name,), uniform_weights=True)) for name in channels]
    if leave_one_out and len(channels) > 2:
        out += [Variant(f"without_{name}", f"every channel but {name}",
                        replace(base, channels=tuple(c for c in channels if c != name))) for name in channels]
    out += [
        Variant("uniform_weights", "fusion with weight 1 for every channel", replace(base, uniform_weights=True)),
        Variant("no_gate", "corrective gate's retry off", replace(base, gate=False)) if gate_retry else
        Variant("with_gate", "corrective gate's rewrite and retry (opt-in)", replace(base, gate=True)),
        Variant("no_entity_expansion", "no entity-enhanced query", replace(base, entity_expansion=False))
        if entity_expansion else
        Variant("with_entity_expansion", "entity-enhanced query (opt-in)", replace(base, entity_expansion=True)),
    ]
    if sentence_vectors:
        out.append(Variant("without_sentence_vectors", "the extractive answer without the sentence vectors",
                           replace(base, sentence_vectors=False)))
    return out


def answer_in_gold(question: EvalQuestion, doc_text: Mapping[str, str]) -> float | None:
    """1.0 when the gold documents themselves contain a gold answer (AIC can reach 1 only then); None if unknown."""
    texts = [doc_text[g] for g in question.gold_doc_ids if g in doc_text]
    if not texts or not question.alternatives:
        return None
    return float(m.contains_answer("\n¦\n".join(texts), question.alternatives))  # no answer across documents


def score(question: EvalQuestion, ranked: Sequence[str], context: str, answer: str, found: bool,
          src_of_doc: Mapping[str, str] | None = None,
          page_ranked: Sequence[m.PageUnit] | None = None, lead: str | None = None) -> dict[str, float | None]:
    """Every per-question metric (None where the question has no gold for it, or the system no pages)."""
    out: dict[str, float | None] = {}
    gold = question.gold_doc_ids
    for k in RANK_CUTOFFS:
        out[f"recall@{k}"] = m.recall_at_k(ranked, gold, k) if gold else None
    out["hit@5"] = m.hit_at_k(ranked, gold, 5) if gold else None
    out["mrr@10"] = m.mrr_at_k(ranked, gold, 10) if gold else None
    out["ndcg@10"] = m.ndcg_at_k(ranked, gold, 10) if gold else None
    # source-document level: the question's own gold sources, else those of its gold passages
    src_gold = question.gold_src_doc_ids or tuple(src_of_doc[g] for g in gold if src_of_doc and g in src_of_doc)
    if src_of_doc and src_gold:
        src_ranked = m.doc_ranking(ranked, lambda d: src_of_doc.get(d, d))
        for k in RANK_CUTOFFS:
            out[f"src_recall@{k}"] = m.recall_at_k(src_ranked, src_gold, k)
        out["src_mrr@10"] = m.mrr_at_k(src_ranked, src_gold, 10)
    page_gold = m.gold_page_units(gold, question.gold_pages)
    out["page_recall@5"] = m.recall_at_k(page_ranked, page_gold, 5) if page_gold and page_ranked is not None else None
    alternatives = question.alternatives
    out["answer_in_context"] = float(m.contains_answer(context, alternatives)) if alternatives else None
    out.update(answer_metrics(answer, found, alternatives, lead))
    out["not_found"] = float(not found)
    return out


def answer_metrics(answer: str, found: bool, alternatives: Sequence[Sequence[str]],
                   lead: str | None) -> dict[str, float | None]:
    """What a reader reads: the answer holds a gold part (citations dropped), its first sentence does, its length;
    and the same hit for ``lead``, the first evidence sentences up to the same budget (None: not measured)."""
    shown = CITATION_MARK.sub("", answer) if found else ""
    return {
        "extractive_hit": float(found and m.contains_answer(shown, alternatives)) if alternatives else None,
        "first_sentence_hit": float(found and m.contains_answer(first_sentence(shown), alternatives))
        if alternatives else None,
        "lead_hit": float(m.contains_answer(lead, alternatives)) if alternatives and lead is not None else None,
        "answer_chars": float(len(shown)) if found and shown else None,
    }


def cited_page_hits(answer: str, packed: Packed | None, page_gold: set[m.PageUnit],
                    pages: Callable[[Sequence[str]], list[m.PageUnit]]) -> dict[str, float | None]:
    """Whether the answer's first citation is a chunk on a gold page (answer_page_hit), and whether the lead's
    first sentence, from the first evidence chunk, is (lead_page_hit); None for a question without gold pages.

    Where gold answers are analysts' sentences (FinanceBench), no answer holds one verbatim, but its evidence
    pages are known: this tells an answer quoting the evidence from one quoting a neighbouring page."""
    if not page_gold:
        return {"answer_page_hit": None, "lead_page_hit": None}
    numbers = {c.n: c.chunk_id for c in packed.citations} if packed is not None else {}
    first = CITATION_MARK.search(answer)
    cited = numbers.get(int(first.group(1))) if first else None
    lead = evidence_pieces(packed.pieces)[:1] if packed is not None and answer else []
    lead_id = lead[0].chunk_id if lead else None
    return {"answer_page_hit": float(bool(cited and set(pages([cited])) & page_gold)),
            "lead_page_hit": float(bool(lead_id and set(pages([lead_id])) & page_gold))}


def ranked_chunk_ids(result: Result) -> list[str]:
    """The fused ranking of a pipeline result: trace["ranking"] when the pipeline keeps one, else the fused top-k."""
    trace = result.trace or {}
    if isinstance(trace.get("ranking"), list):
        return [str(c) for c in trace["ranking"]]
    return [str(f.get("chunk_id")) for f in trace.get("fused", []) if isinstance(f, dict)]


def result_timings(result: Result) -> dict[str, float]:
    """Stage timings plus each channel's own search time ("channel:bm25") and the total."""
    timings = dict(result.timings)
    timings["total"] = sum(result.timings.values())
    for name, run in (result.trace.get("channels") or {}).items():
        if isinstance(run, dict) and run.get("ms") is not None and not run.get("error"):
            timings[f"channel:{name}"] = float(run["ms"])
    return timings


def not_found_far(result: Result) -> float:
    """1.0 when the not-found line's dense reading answered "not found": keywords matching weakly and the question no
    nearer the domain than everyday questions (retrieval/off_topic.py), not the keyword floor."""
    topic = result.trace.get("topic") or {}
    return float(not result.found and topic.get("state") == "far")


def gate_triggered(result: Result) -> float:
    """1.0 when the corrective gate found the first attempt below its threshold."""
    gate = result.trace.get("gate") or {}
    return float(gate.get("passed") is False)


class Runner:
    """Runs questions through variants of the system over one loaded knowledge base."""

    def __init__(self, kb: KnowledgeBase, baseline: NaiveBM25 | None, levels: Levels) -> None:
        self.kb = kb
        self.baseline = baseline
        self.levels = levels
        self.errors_shown = 0

    def run_pipeline(self, question: EvalQuestion, variant: Variant) -> QuestionRecord:
        """One question through the pipeline with the variant's options ("today" from as_of)."""
        from lambdarag.pipeline import run as pipeline

        assert variant.options is not None
        options = replace(variant.options, today=question.as_of or variant.options.today)
        try:
            result = pipeline.answer(self.kb, question.question, history=question.history, options=options)
        except Exception as exc:  # one failing question must not lose an hour-long run; the report counts it
            return self._failed(question, variant, exc)
        chunk_ids = ranked_chunk_ids(result)
        ranked = m.doc_ranking(chunk_ids, self.levels.doc_of_chunk)[:KEEP_RANKED]
        lead = lead_text(result.packed.pieces, self.kb.config.context.answer_chars) \
            if result.packed is not None and result.found else ("" if not result.found else None)
        metrics = score(question, ranked, result.context, result.answer, result.found, self.levels.src_of_doc,
                        self.levels.page_ranking(chunk_ids), lead)
        metrics["gate_triggered"] = gate_triggered(result)
        metrics["not_found_far"] = not_found_far(result)
        metrics["answer_in_gold"] = answer_in_gold(question, self.levels.doc_text)
        page_gold = m.gold_page_units(question.gold_doc_ids, question.gold_pages)
        metrics.update(cited_page_hits(result.answer if result.found else "", result.packed, page_gold,
                                       self.levels.page_ranking))
        return QuestionRecord(question.qid, variant.name, question.type, result.intent, ranked, metrics,
                              result_timings(result), result.found, result.answer_method, result.condensed)

    def run_baseline(self, question: EvalQuestion, variant: Variant, intent: str) -> QuestionRecord:
        """One question through the naive baseline, with the context budget the pipeline has."""
        assert self.baseline is not None
        budget = self.kb.config.context.max_chars
        outcome = self.baseline.answer(question.question, question.history, budget, KEEP_RANKED)
        # no page_ranked: the baseline ranks whole documents, so its page recall is None, not 0
        metrics = score(question, outcome.doc_ids, outcome.context, "", True, self.levels.src_of_doc)
        for name in ("extractive_hit", "first_sentence_hit", "answer_chars"):
            metrics[name] = None  # the baseline writes no answer
        metrics["answer_in_gold"] = answer_in_gold(question, self.levels.doc_text)
        timings = {**outcome.timings, "total": sum(outcome.timings.values())}
        return QuestionRecord(question.qid, variant.name, question.type, intent, outcome.doc_ids, metrics,
                              timings, True, "", question.question)

    def _failed(self, question: EvalQuestion, variant: Variant, exc: Exception) -> QuestionRecord:
        if self.errors_shown < 3:  # the first tracebacks say enough; the rest are counted
            traceback.print_exception(exc, file=sys.stderr)
            self.errors_shown += 1
        metrics = score(question, [], "", "", False, self.levels.src_of_doc, [])
        return QuestionRecord(question.qid, variant.name, question.type, "", [], metrics, {}, False, "error", "",
                              f"{type(exc).__name__}: {exc}")

    def run_question(self, question: EvalQuestion, variants: Sequence[Variant]) -> list[QuestionRecord]:
        """The question through every variant; the full system runs first so the baseline shares its intent."""
        records: list[QuestionRecord] = []
        intent = ""
        for variant in variants:
            if variant.options is None:
                if self.baseline is not None:
                    records.append(self.run_baseline(question, variant, intent))
                continue
            record = self.run_pipeline(question, variant)
            intent = intent or record.intent
            records.append(record)
        return records


def run_all(runner: Runner, questions: Sequence[EvalQuestion], variants: Sequence[Variant],
            progress: bool | None = None) -> tuple[list[QuestionRecord], float]:
    """Every question through every variant, sequentially, with a progress bar; returns records and seconds."""
    start = time.perf_counter()
    bar = Progress(len(questions), progress, "eval", "question", line=_status,
                   every=max(1, len(questions) // 10), smoothing=0.05)
    records: list[QuestionRecord] = []
    try:
        for question in questions:
            records.extend(runner.run_question(question, variants))
            bar.update()
    finally:
        bar.close()
    return records, time.perf_counter() - start


def _status(bar: Progress) -> str:
    """The line printed every tenth of the run when stderr is no terminal."""
    return f"[eval] {bar.done}/{bar.total} questions ({bar.rate:.2f}/s)"
