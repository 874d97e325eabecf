"""The optional cross-encoder stage after fusion and the gate: the top-N fused candidates reordered by a rerank
endpoint's scores, within a time budget.

It can never make retrieval worse than no reranker: a time-out, an error or a malformed reply keeps the fused
order exactly, and the decision record says why (the trace, trace["degraded"] and /readyz show it).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from lambdarag.config.schema import RerankConfig
from lambdarag.models.rerank import ERROR, MALFORMED, TIMEOUT, RerankClient, RerankError
from lambdarag.records import Chunk
from lambdarag.retrieval.fusion import Fused
from lambdarag.retrieval.threads import ProcessPool

OK, OFF, SKIPPED = "ok", "off", "skipped"
FAILED = (TIMEOUT, ERROR, MALFORMED)  # statuses that kept the fused order because the reranker let us down
MIN_CANDIDATES = 2  # fewer leave nothing to reorder, so no call is made
POOL_WORKERS = 8  # per process; its own pool, so a hung rerank server cannot hold the channels' threads

_POOL = ProcessPool(POOL_WORKERS, "lambdarag-rerank")


def call_pool() -> ThreadPoolExecutor:
    """The process-wide pool rerank calls run on."""
    return _POOL.get()


@dataclass(frozen=True)
class RerankDecision:
    """What the rerank stage did for one request: status (ok, off, skipped, timeout, error, malformed), time,
    candidates sent and why."""

    status: str = OFF
    ms: float = 0.0
    n: int = 0
    reason: str = ""

    @property
    def failed(self) -> bool:
        return self.status in FAILED

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "ms": round(self.ms, 2), "n": self.n, "reason": self.reason}


def candidate_text(chunk: Chunk, max_chars: int) -> str:
    """What the cross-encoder reads of a candidate: its contextual header, a newline, its text, cut to max_chars."""
    return chunk.index_text[:max_chars]


def reorder(pool: Sequence[Fused], scores: Mapping[int, float], top_n: int) -> list[Fused]:
    """The first ``top_n`` candidates that have a score, by score (higher first, ties in fused order), each
    carrying its score; then every other candidate in fused order."""
    ranked = sorted((i for i in range(min(top_n, len(pool))) if i in scores), key=lambda i: (-scores[i], i))
    chosen = set(ranked)
    head = [dataclasses.replace(pool[i], rerank=scores[i]) for i in ranked]
    return head + [f for i, f in enumerate(pool) if i not in chosen]


def rerank_pool(client: RerankClient | None, question: str, pool: Sequence[Fused], chunks: Mapping[str, Chunk],
                cfg: RerankConfig, option: bool | None = None) -> tuple[list[Fused], RerankDecision]:
    """``pool`` reordered by the reranker when it is configured (``client``), not switched off for the request
    (``option``: PipelineOptions.rerank) and answers well within rerank.timeout_s; otherwise ``pool`` unchanged.
    Either way the decision record; a call's status is also kept on the client, for /readyz."""
    if option is False:
        return list(pool), RerankDecision(OFF, reason="switched off for this request")
    if client is None:
        return list(pool), RerankDecision(OFF, reason="rerank.enabled is false")
    texts = [candidate_text(chunks[f.chunk_id], cfg.max_chars) for f in pool[: cfg.top_n]]
    if len(texts) < MIN_CANDIDATES:
        reason = f"{len(texts)} candidate(s): nothing to reorder"
        return list(pool), RerankDecision(SKIPPED, n=len(texts), reason=reason)
    start = time.monotonic()
    scores, status, reason = _call(client, question, texts, cfg.timeout_s)
    ms = (time.monotonic() - start) * 1000
    client.outcome.record(status, reason, ms)
    if scores is None:
        return list(pool), RerankDecision(status, ms, len(texts), reason + "; the fused order is kept")
    return reorder(pool, scores, len(texts)), RerankDecision(OK, ms, len(texts), f"{len(texts)} candidates reordered")


def _call(client: RerankClient, question: str, texts: list[str],
          budget_s: float) -> tuple[dict[int, float] | None, str, str]:
    """(scores, "ok", "") or (None, failure status, reason); the wait ends at the budget whatever the socket does."""
    future = call_pool().submit(client.rerank, question, texts)
    try:
        return future.result(timeout=budget_s), OK, ""
    except FutureTimeout:
        future.cancel()  # a call already running cannot be stopped; its reply is ignored
        return None, TIMEOUT, f"no reply within the {budget_s:g}s budget ({client.url})"
    except RerankError as exc:
        return None, exc.kind, exc.message
    except Exception as exc:  # whatever goes wrong in the reranker, the request keeps its fused order
        return None, ERROR, f"{type(exc).__name__}: {exc}"
