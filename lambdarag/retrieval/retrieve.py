"""Retrieval: the channels' runs (channel_run) ranked by weighted RRF and the boosts, the corrective gate, then
the optional reranker (rerank.py) on the kept attempt.

A channel that failed or overran its budget is left out of the ranking with its reason in the trace;
rankings are fused with a fixed summation order, so the result equals that of a sequential run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lambdarag.channels import graph as graph_channel
from lambdarag.channels import wiki as wiki_channel
from lambdarag.options import PipelineOptions
from lambdarag.query.expand import Expansion
from lambdarag.query.temporal import as_of_scope, expand_years
from lambdarag.records import Hit
from lambdarag.retrieval.channel_run import ChannelRun, channel_names, run_channels
from lambdarag.retrieval.features import candidate_features
from lambdarag.retrieval.fusion import (
    DOCUMENT,
    Fused,
    after_today,
    cover_sides,
    fuse,
    proximity_boost,
    recency_boost,
    subject_boost,
    table_boost,
    version_preference,
    without_matches,
)
from lambdarag.retrieval.gate import TOP_N, GateDecision, core_rewrite, gate_reason, overlap_score
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.retrieval.learned import LearnedRanker, reorder
from lambdarag.retrieval.rerank import OK, RerankDecision, rerank_pool
from lambdarag.scope import Scope
from lambdarag.text.tokenizer import normalize

HISTORY_INTENTS = frozenset({"compare"})  # comparing versions needs every version at full weight
TRACE_TOP = 5  # hits per channel shown in the trace
RANKING_DEPTH = 30  # fused chunk ids kept in the trace past the cut, for ranking metrics (recall@10 of documents)


@dataclass(frozen=True)
class FusionOutcome:
    """Weights used, the fused top-k (boosts applied) and how many candidates were fused; ``pool`` is the fused
    order deeper than the cut (max of RANKING_DEPTH, final_top_k and rerank.top_n), what the reranker reorders."""

    weights: dict[str, float]
    fused: list[Fused]
    candidates: int = 0
    ranking: list[str] = field(default_factory=list)  # chunk ids of the fused ranking past the cut (RANKING_DEPTH)
    notes: dict[str, str] = field(default_factory=dict)  # channel -> why (part of) its hits were not fused
    document_spread: float = 0.0  # KnowledgeBase.document_spread, which scaled the document channel's weight
    pool: list[Fused] = field(default_factory=list)  # the fused order to pool_depth, past the cut (reranker, tuner)
    rankings: dict[str, list[Hit]] = field(default_factory=dict)  # what was fused (fusion_filter's output)


@dataclass(frozen=True)
class Retrieval:
    """The kept attempt's fused top-k and channel runs, the weights used, and the gate's decision."""

    fused: list[Fused]
    runs: dict[str, ChannelRun]
    weights: dict[str, float]
    gate: GateDecision
    expansion: Expansion | None = None  # the expansion of the kept attempt
    candidates: int = 0
    demoted: Mapping[str, str] = field(default_factory=dict)  # doc id -> why its chunks were scaled down
    ranking: list[str] = field(default_factory=list)  # the fused ranking's chunk ids, deeper than final_top_k
    document_spread: float = 0.0  # KnowledgeBase.document_spread
    notes: dict[str, str] = field(default_factory=dict)  # channel -> why (part of) its hits were not fused
    pool: list[Fused] = field(default_factory=list)  # the fused ranking to RANKING_DEPTH (boosts, learned stage)
    rankings: dict[str, list[Hit]] = field(default_factory=dict)  # each channel's hits as fusion saw them
    rerank: RerankDecision = field(default_factory=RerankDecision)  # what the reranker did (status off by default)
    scope: Scope | None = None  # the request's filters resolved (None: every document)
    top_k: int = 0  # the fused chunks kept: PipelineOptions.top_k, else retrieval.final_top_k
    demoted_candidates: dict[str, str] = field(default_factory=dict)  # the demoted among the pool's documents

    def versions_trace(self) -> dict[str, Any]:
        """What a trace says of the version preference: the demoted documents among this ranking's candidates and
        how many were demoted in all (the whole map can name every older version in the corpus: 150 kB a request
        at 10k chunks of many versioned titles, too much to store with each request's trace)."""
        return {"demoted": dict(self.demoted_candidates), "demoted_documents": len(self.demoted)}



@dataclass(frozen=True)
class _Attempt:
    expansion: Expansion
    runs: dict[str, ChannelRun]
    outcome: FusionOutcome
    overlap: float
    summary: dict[str, Any] = field(default_factory=dict)


def final_top_k(kb: KnowledgeBase, options: PipelineOptions) -> int:
    """The fused chunks a request keeps: its own top_k (the server bounds it by server.max_top_k), else the
    config's retrieval.final_top_k."""
    return options.top_k or kb.config.retrieval.final_top_k


def intent_weights(kb: KnowledgeBase, intent: str, channels: Sequence[str], uniform: bool) -> dict[str, float]:
    """RRF weight per channel: the intent's from config, or 1 for every channel when ``uniform``."""
    classes = kb.config.intents.classes
    if uniform or intent not in classes:
        return {name: 1.0 for name in channels}
    return {name: float(classes[intent].weights.get(name, 0.0)) for name in channels}


def superseded_penalty(kb: KnowledgeBase) -> float:
    """Score cut for chunks of a superseded or repealed document (answer/versions.py decides which)."""
    return kb.config.retrieval.superseded_penalty


def demoted_documents(kb: KnowledgeBase, question: str, intent: str, today: date) -> Mapping[str, str]:
    """Documents whose other version (or whose repeal) should rank after the current one for this question."""
    if intent in HISTORY_INTENTS or not superseded_penalty(kb):
        return {}
    return kb.versions.demoted(question, today)


def fusion_filter(kb: KnowledgeBase, runs: Mapping[str, ChannelRun],
                  intent: str) -> tuple[dict[str, list[Hit]], dict[str, str]]:
    """The rankings fusion sees, and per channel why part of its hits (or all) are not used.

    Left out: channels that failed, hits on unknown chunk ids (a stale index) and the hits of a channel that has
    no signal for this question: wiki pages the question does not name (matched by their text alone) unless the
    intent is one of wiki.body_match_intents, graph entities the question does not name (a long name one of
    its words covers) unless it is one of graph.term_match_intents.
    """
    rankings = {n: [h for h in r.hits if h.chunk_id in kb.chunks] for n, r in runs.items() if r.error is None}
    notes: dict[str, str] = {n: r.skipped for n, r in runs.items() if r.skipped is not None}
    unnamed = {"wiki": (wiki_channel.MATCH, wiki_channel.BODY, kb.config.wiki.body_match_intents,
                        "pages the question does not name"),
               "graph": (graph_channel.MATCH, graph_channel.WORD, kb.config.graph.term_match_intents,
                         "entities the question does not name")}
    for name, (key, value, intents, what) in unnamed.items():
        if name not in rankings or intent in intents:
            continue
        kept = without_matches(rankings[name], key, value)
        if len(kept) < len(rankings[name]):
            notes[name] = (f"{len(rankings[name]) - len(kept)} of {len(rankings[name])} hits left out: {what} "
                           f"do not vote for intent {intent}")
        rankings[name] = kept
    if DOCUMENT in rankings and kb.document_spread == 0.0:
        notes[DOCUMENT] = "every document is one chunk: the document ranking repeats the chunk channels (weight × 0)"
    return rankings, notes


def rank(kb: KnowledgeBase, runs: Mapping[str, ChannelRun], intent: str, expansion: Expansion,
         options: PipelineOptions, demoted: Mapping[str, str] | None = None) -> FusionOutcome:
    """Weighted RRF over the channels that answered, the named-subject, proximity, table (data) and recency
    (temporal) boosts, then the current-version preference (chunks of ``demoted`` documents scaled by
    1 - superseded_penalty), the learned stage when installed, and last the sides a question names side by side,
    each within the first retrieval.side_reach places."""
    cfg = kb.config.retrieval
    rankings, notes = fusion_filter(kb, runs, intent)
    weights = intent_weights(kb, intent, list(rankings), options.uniform_weights)
    fused = fuse(rankings, weights, cfg.rrf_k, kb.doc_of, kb.document_spread)
    fused = subject_boost(fused, kb.doc_of, rankings.get(DOCUMENT, ()), cfg.subject_boost)
    fused = proximity_boost(fused, kb.chunks, expansion.keywords, cfg.proximity_boost, RANKING_DEPTH)
    if intent == "data":
        fused = table_boost(fused, kb.chunks, cfg.table_boost)
    scope = expansion.time_scope
    named_years = scope is not None and (scope.start_year is not None or scope.end_year is not None)
    if intent == "temporal" or named_years:
        fused = recency_boost(fused, kb.chunks, scope, cfg.recency_boost)
    elif options.today is not None and intent not in HISTORY_INTENTS:
        # asked as of a given date, naming no time itself: what was current then, the latest first
        fused = recency_boost(fused, kb.chunks, as_of_scope(options.today), cfg.recency_boost)
    if intent not in HISTORY_INTENTS:
        fused = after_today(fused, kb.chunks, options.today or date.today(), superseded_penalty(kb))
    fused = version_preference(fused, kb.chunks, demoted or {}, superseded_penalty(kb))
    if kb.ranker is not None and options.learned and fused:
        fused = learned_order(kb.ranker, fused, candidate_features(fused[: kb.ranker.depth], rankings, kb.chunks,
                                                                   expansion, intent))
    fused = cover_sides(fused, kb.doc_of, rankings.get(DOCUMENT, ()), cfg.side_reach)
    top_k = final_top_k(kb, options)
    depth = max(RANKING_DEPTH, top_k)
    return FusionOutcome(weights, fused[:top_k], len(fused), [f.chunk_id for f in fused[:depth]], notes,
                         kb.document_spread, fused[: pool_depth(kb, top_k)], rankings)


def learned_order(ranker: LearnedRanker, fused: Sequence[Fused], rows: Any) -> list[Fused]:
    """The first ranker.depth candidates re-ordered by the learned model (rows: their features), the rest after."""
    head = list(fused[: ranker.depth])
    return reorder(head, [float(x) for x in ranker.scores(rows)]) + list(fused[ranker.depth:])


def _attempt(kb: KnowledgeBase, expansion: Expansion, intent: str, options: PipelineOptions,
             keywords: Sequence[str], demoted: Mapping[str, str], scope: Scope | None) -> _Attempt:
    weights = intent_weights(kb, intent, channel_names(kb, options), options.uniform_weights)
    runs = run_channels(kb, expansion, options, scope, weights)
    outcome = rank(kb, runs, intent, expansion, options, demoted)
    top = [kb.chunks[f.chunk_id].index_text for f in outcome.fused[:TOP_N]]
    overlap = overlap_score(keywords, top)
    summary = {
        "query": expansion.bm25_query,
        "dense_query": expansion.dense_query,
        "overlap": round(overlap, 4),
        "top": [f.chunk_id for f in outcome.fused[:TOP_N]],
        "errors": {n: r.error for n, r in runs.items() if r.error},
    }
    return _Attempt(expansion, runs, outcome, overlap, summary)


def retry_expansion(expansion: Expansion, rewritten: str) -> Expansion:
    """The expansion searched on retry: the core rewrite everywhere, synonyms and years kept for BM25."""
    extra = [w for words in expansion.synonyms.values() for w in words]
    extra += [y for y in expand_years(expansion.time_scope) if y not in rewritten]
    bm25 = " ".join([rewritten, *dict.fromkeys(w for w in extra if w not in rewritten.split())])
    return dataclasses.replace(expansion, bm25_query=bm25, dense_query=rewritten, graph_query=rewritten,
                               wiki_query=rewritten)


def retrieve(kb: KnowledgeBase, question: str, expansion: Expansion, intent: str,
             options: PipelineOptions) -> Retrieval:
    """Channels (each restricted to the scope of the options' filters, resolved once here), fusion and the
    corrective gate (below the overlap threshold, one retry with the core rewrite), then the reranker, once, on
    the kept attempt."""
    demoted = demoted_documents(kb, question, intent, options.today or date.today())
    scope = kb.scope(options.filters)
    kept, gate = _gated(kb, question, expansion, intent, options, demoted, scope)
    pool, decision = rerank_pool(kb.reranker, question, kept.outcome.pool, kb.chunks, kb.config.rerank,
                                 options.rerank)
    top_k = final_top_k(kb, options)
    kept = dataclasses.replace(kept, outcome=reranked(kb, kept.outcome, pool, decision, top_k))
    docs = dict.fromkeys(kb.chunks[f.chunk_id].doc_id for f in kept.outcome.pool if f.chunk_id in kb.chunks)
    return dataclasses.replace(_result(kept, gate, demoted, decision), scope=scope, top_k=top_k,
                               demoted_candidates={d: demoted[d] for d in docs if d in demoted})


def _gated(kb: KnowledgeBase, question: str, expansion: Expansion, intent: str, options: PipelineOptions,
           demoted: Mapping[str, str], scope: Scope | None) -> tuple[_Attempt, GateDecision]:
    """The attempt the corrective gate keeps, and its decision."""
    threshold = kb.config.corrective.threshold
    first = _attempt(kb, expansion, intent, options, expansion.keywords, demoted, scope)
    passed = first.overlap >= threshold
    retries = kb.config.corrective.max_retries >= 1 if options.gate is None else options.gate
    if passed or not retries:
        reason = gate_reason(first.overlap, threshold, None, None)
        if not passed:
            reason = ("gate disabled: " if options.gate is False else "retries disabled: ") + reason
        return first, GateDecision(first.overlap, passed, threshold, reason=reason, attempts=[first.summary])
    rewritten = core_rewrite(question, expansion, kb.tokenizer)
    if not rewritten or normalize(rewritten) == normalize(question):
        return first, GateDecision(first.overlap, False, threshold,
                                   reason=gate_reason(first.overlap, threshold, None, None), attempts=[first.summary])
    second = _attempt(kb, retry_expansion(expansion, rewritten), intent, options, expansion.keywords, demoted,
                      scope)
    better = second.overlap > first.overlap
    kept = second if better else first
    gate = GateDecision(
        overlap=kept.overlap, passed=False, threshold=threshold, rewritten=rewritten,
        retry_overlap=second.overlap, kept="retry" if better else "first",
        reason=gate_reason(first.overlap, threshold, second.overlap, rewritten),
        attempts=[first.summary, second.summary],
    )
    return kept, gate


def pool_depth(kb: KnowledgeBase, top_k: int | None = None) -> int:
    """How deep the fused order is kept for the reranker and the trace's ranking."""
    cfg = kb.config
    return max(RANKING_DEPTH, top_k or cfg.retrieval.final_top_k, cfg.rerank.top_n)


def reranked(kb: KnowledgeBase, outcome: FusionOutcome, pool: list[Fused],
             decision: RerankDecision, top_k: int | None = None) -> FusionOutcome:
    """The fusion outcome with its cut and ranking recomputed from the reranked pool when the reranker answered;
    any other status leaves it exactly as fused."""
    if decision.status != OK:
        return outcome
    top_k = top_k or kb.config.retrieval.final_top_k
    return dataclasses.replace(outcome, fused=pool[:top_k], pool=pool,
                               ranking=[f.chunk_id for f in pool[: max(RANKING_DEPTH, top_k)]])


def _result(attempt: _Attempt, gate: GateDecision, demoted: Mapping[str, str],
            rerank: RerankDecision) -> Retrieval:
    return Retrieval(attempt.outcome.fused, attempt.runs, attempt.outcome.weights, gate, attempt.expansion,
                     attempt.outcome.candidates, demoted, list(attempt.outcome.ranking),
                     attempt.outcome.document_spread, dict(attempt.outcome.notes), list(attempt.outcome.pool),
                     dict(attempt.outcome.rankings), rerank)


def retrieval_trace(r: Retrieval) -> dict[str, Any]:
    """The trace of retrieval: per channel query, candidates, top ids and scores, error; weights; fused; gate;
    the reranker's decision."""
    channels = {
        name: {
            "query": run.query,
            "candidates": len(run.hits),
            "top": [{"chunk_id": h.chunk_id, "score": round(h.score, 6), "rank": h.rank} for h in run.hits[:TRACE_TOP]],
            "ms": round(run.ms, 2),
            "error": run.error,
            "note": r.notes.get(name),  # why (part of) its hits were not fused
        }
        for name, run in r.runs.items()
    }
    return {
        "channels": channels,
        "weights": dict(r.weights),
        "document_spread": round(r.document_spread, 6),  # the document channel's weight is scaled by it
        "candidates": r.candidates,
        "fused": [f.to_dict() for f in r.fused],
        "ranking": list(r.ranking),  # the fused order past the cut: what evaluation ranks documents by
        "gate": r.gate.to_dict(),  # its attempts carry the queries of both searches
        "versions": r.versions_trace(),
        "rerank": r.rerank.to_dict(),  # status ok | off | skipped | timeout | error | malformed, ms, n, reason
        "top_k": r.top_k,
        "scope": r.scope.summary() if r.scope is not None else None,  # the filters and the documents they leave
    }
