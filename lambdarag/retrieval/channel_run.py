"""The channels searched in parallel for one request, each within its time budget.

A channel that raises or overruns its budget is recorded with the reason and no hits; results are
collected in the configured channel order, so what follows sees the same order as a sequential run.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

import numpy as np

from lambdarag.channels import Channel
from lambdarag.channels.vector import NAME as DENSE_CHANNEL
from lambdarag.channels.vector import VectorChannel
from lambdarag.errors import LambdaRAGError
from lambdarag.options import PipelineOptions
from lambdarag.query.expand import Expansion
from lambdarag.records import Hit
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.retrieval.threads import ProcessPool
from lambdarag.scope import Scope

POOL_WORKERS = 16  # per process: four channels for a few concurrent requests, plus stragglers past their budget

_POOL = ProcessPool(POOL_WORKERS, "lambdarag-channel")


@dataclass(frozen=True)
class ChannelRun:
    """One channel's search for one request: the query it got, its hits, time and error."""

    channel: str
    query: str
    hits: list[Hit]
    ms: float
    error: str | None = None
    skipped: str | None = None  # why the channel was not searched for this request (no error: nothing to vote)


def channel_pool() -> ThreadPoolExecutor:
    """The process-wide pool channel searches run on."""
    return _POOL.get()


def _timed_search(channel: Channel, query: str, k: int, scope: Scope | None) -> tuple[list[Hit], float]:
    start = time.perf_counter()
    # no scope, no argument: a channel written to the older search(query, k) still serves unfiltered requests
    hits = channel.search(query, k) if scope is None else channel.search(query, k, scope)
    return list(hits), (time.perf_counter() - start) * 1000


def channel_names(kb: KnowledgeBase, options: PipelineOptions) -> list[str]:
    """The channels to search: the options' selection, else every enabled one, in config order."""
    if options.channels is not None:
        return list(dict.fromkeys(options.channels))
    return [name for name, cfg in kb.config.retrieval.channels.items() if cfg.enabled]


def run_channels(kb: KnowledgeBase, expansion: Expansion, options: PipelineOptions,
                 scope: Scope | None = None, weights: Mapping[str, float] | None = None) -> dict[str, ChannelRun]:
    """Search the channels in parallel, each within config.retrieval.channels[name].timeout_s, each restricted to
    ``scope`` when given (an empty scope searches nothing: no channel can hold an allowed hit). A channel whose
    fusion weight in ``weights`` (the intent's) is 0 is not searched: it would have no say in the ranking."""
    settings = kb.config.retrieval.channels
    start = time.monotonic()
    runs: dict[str, ChannelRun] = {}
    futures: dict[str, Future[tuple[list[Hit], float]]] = {}
    for name in channel_names(kb, options):
        query = expansion.query_for(name)
        if name not in settings:
            runs[name] = ChannelRun(name, query, [], 0.0, f"unknown channel (known: {', '.join(settings)})")
        elif name not in kb.channels:
            reason = kb.channel_errors.get(name, "disabled in retrieval.channels")
            runs[name] = ChannelRun(name, query, [], 0.0, f"not loaded: {reason}")
        elif scope is not None and scope.empty:
            runs[name] = ChannelRun(name, query, [], 0.0)
        elif weights is not None and weights.get(name, 0.0) <= 0.0:
            runs[name] = ChannelRun(name, query, [], 0.0, skipped="not searched: its weight for this intent is 0")
        else:
            futures[name] = channel_pool().submit(_timed_search, kb.channels[name], query, settings[name].top_k,
                                                  scope)
    for name, future in futures.items():
        runs[name] = _collect(name, expansion.query_for(name), future, start, settings[name].timeout_s)
    return {name: runs[name] for name in channel_names(kb, options)}


def _collect(name: str, query: str, future: Future[tuple[list[Hit], float]], start: float,
             budget: float) -> ChannelRun:
    try:
        hits, ms = future.result(timeout=max(0.0, start + budget - time.monotonic()))
    except FutureTimeout:
        future.cancel()  # a search already running cannot be stopped; its result is simply ignored
        return ChannelRun(name, query, [], (time.monotonic() - start) * 1000, f"timed out after {budget:g}s budget")
    except Exception as exc:  # any channel failure degrades retrieval, never the request
        return ChannelRun(name, query, [], (time.monotonic() - start) * 1000, f"{type(exc).__name__}: {exc}")
    return ChannelRun(name, query, hits, ms)


def question_vector(kb: KnowledgeBase, run: ChannelRun | None) -> np.ndarray | None:
    """The question's vector as the vector channel embedded it for its ``run`` (the channel's query cache: no second
    embedding), None when the channel did not run, failed or found nothing."""
    channel = kb.channels.get(DENSE_CHANNEL)
    if run is None or run.error or not run.hits or not isinstance(channel, VectorChannel):
        return None
    try:
        return channel.queries().embed_query(run.query)
    except LambdaRAGError:
        return None
