"""The per-request trace: stage timings and the records each stage leaves for people and tools."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from lambdarag.retrieval.rerank import FAILED

STAGES = ("condense", "intent", "expand", "retrieve", "evidence", "slots", "context", "generate", "grounding", "log")


class Stages:
    """Wall-clock milliseconds per stage, in the order the stages ran."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the block as stage ``name`` (a repeated stage adds up)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = self.ms.get(name, 0.0) + (time.perf_counter() - start) * 1000.0

    def rounded(self) -> dict[str, float]:
        return {k: round(v, 2) for k, v in self.ms.items()}


def degraded_paths(trace: dict[str, Any]) -> list[dict[str, str]]:
    """Every stage that fell back from its preferred path, with the reason (LLM errors, dead channels, an installed
    learned-stage model that was refused, a reranker that timed out, failed or answered something unusable)."""
    out: list[dict[str, str]] = []
    for stage in ("condense", "faq", "intent", "slots", "generation"):
        error = (trace.get(stage) or {}).get("error")
        if error:
            out.append({"stage": stage, "error": str(error)})
    for name, run in (trace.get("channels") or {}).items():
        if run.get("error"):
            out.append({"stage": f"channel:{name}", "error": str(run["error"])})
    learned = trace.get("learned") or {}
    if learned.get("refused"):
        out.append({"stage": "learned", "error": str(learned.get("status", ""))})
    topic = trace.get("topic") or {}
    if topic.get("state") == "unavailable":  # the not-found line read the keywords alone (retrieval/off_topic.py)
        out.append({"stage": "topic", "error": str(topic.get("reason", ""))})
    rerank = trace.get("rerank") or {}
    if rerank.get("status") in FAILED:
        out.append({"stage": "rerank", "error": f"{rerank['status']}: {rerank.get('reason', '')}"})
    return out
