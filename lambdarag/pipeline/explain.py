"""The hit test's view of one request: what each stage made of the question, read from the run's own records.

``explain`` is built from the same objects the answer is made from (condensed question, intent, expansion, the
kept Retrieval, the stage timer), so what /hittest and ``/api/search?explain=1`` show is what /api/ask ranked:
the condensed and expanded queries, the intent with its scores, each channel's top hits (rank, score, chunk,
document title), the fused order with each channel's RRF contribution, the boosts, the learned and rerank
stages, the gate's decision, the filters' scope and the milliseconds of every stage.
"""

from __future__ import annotations

from typing import Any

from lambdarag.query.condense import Condensed
from lambdarag.query.expand import Expansion
from lambdarag.query.intent import IntentResult
from lambdarag.records import Hit, json_safe
from lambdarag.retrieval.fusion import Fused
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.retrieval.retrieve import Retrieval

CHANNEL_HITS = 10  # hits shown per channel
FUSED_SHOWN = 20  # fused candidates shown (at least top_k): those past the cut show what just missed it


def explain(kb: KnowledgeBase, condensed: Condensed, intent: IntentResult, expansion: Expansion,
            retrieval: Retrieval, stages: dict[str, float], found: bool) -> dict[str, Any]:
    """The hit test of one request (JSON-safe)."""
    view = {
        "question": condensed.original, "condensed": condensed.to_dict(), "expanded": expansion.to_dict(),
        "intent": {"intent": intent.intent, "method": intent.method, "margin": round(intent.margin, 4),
                   "scores": dict(sorted(intent.scores.items(), key=lambda kv: -kv[1])),
                   "matched": dict(intent.matched), "error": intent.error},
        "channels": [_channel(kb, retrieval, name) for name in retrieval.runs],
        "fusion": {"rrf_k": kb.config.retrieval.rrf_k, "weights": dict(retrieval.weights),
                   "document_spread": round(retrieval.document_spread, 6), "candidates": retrieval.candidates,
                   "top_k": retrieval.top_k},
        "fused": [_fused(kb, f, n, retrieval.top_k) for n, f in
                  enumerate(retrieval.pool[: max(FUSED_SHOWN, retrieval.top_k)], start=1)],
        "learned": {"used": kb.ranker is not None and any(f.learned is not None for f in retrieval.pool),
                    "status": kb.ranker_status()},
        "rerank": retrieval.rerank.to_dict(),
        "gate": retrieval.gate.to_dict(),
        "versions": retrieval.versions_trace(),
        "scope": retrieval.scope.summary() if retrieval.scope is not None else None,
        "found": found,
        "stages": {name: round(ms, 2) for name, ms in stages.items()},
    }
    out: dict[str, Any] = json_safe(view)
    return out


def _channel(kb: KnowledgeBase, retrieval: Retrieval, name: str) -> dict[str, Any]:
    run = retrieval.runs[name]
    fused_ids = {f.chunk_id for f in retrieval.fused}
    return {"name": name, "query": run.query, "weight": retrieval.weights.get(name), "ms": round(run.ms, 2),
            "error": run.error, "note": retrieval.notes.get(name), "candidates": len(run.hits),
            "hits": [_hit(kb, h, fused_ids) for h in run.hits[:CHANNEL_HITS]]}


def _hit(kb: KnowledgeBase, hit: Hit, fused_ids: set[str]) -> dict[str, Any]:
    chunk = kb.chunks.get(hit.chunk_id)
    out: dict[str, Any] = {"rank": hit.rank, "score": round(hit.score, 6), "chunk_id": hit.chunk_id,
                           "doc_id": chunk.doc_id if chunk else "", "title": chunk.title if chunk else "",
                           "kept": hit.chunk_id in fused_ids}
    if hit.entities:
        out["entities"] = list(hit.entities[:5])
    if hit.page_id:
        out["page_id"] = hit.page_id
    return out


def _fused(kb: KnowledgeBase, fused: Fused, rank: int, top_k: int) -> dict[str, Any]:
    chunk = kb.chunks.get(fused.chunk_id)
    out: dict[str, Any] = {"rank": rank, "chunk_id": fused.chunk_id, "doc_id": chunk.doc_id if chunk else "",
                           "title": chunk.title if chunk else "", "breadcrumb": chunk.breadcrumb if chunk else "",
                           "score": round(fused.score, 6), "ranks": dict(fused.ranks),
                           "rrf": {k: round(v, 6) for k, v in fused.scores.items()}, "boosts": dict(fused.boosts),
                           "kept": rank <= top_k}
    if fused.learned is not None:
        out["learned"] = round(fused.learned, 6)
    if fused.rerank is not None:
        out["rerank"] = round(fused.rerank, 6)
    return out
