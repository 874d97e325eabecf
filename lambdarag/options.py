"""PipelineOptions: per-request knobs read by retrieval, the answer step and the pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from lambdarag.scope import Filters


@dataclass(frozen=True)
class PipelineOptions:
    """Per-request knobs: ablations for evaluation, the injectable "today", the result size and filters."""

    channels: tuple[str, ...] | None = None  # None = every enabled channel
    uniform_weights: bool = False  # RRF with weight 1 for every channel instead of the intent's
    gate: bool | None = None  # the corrective gate's rewrite-and-retry: None = corrective.max_retries; True = once
    entity_expansion: bool | None = None  # entity-enhanced BM25 query; None = the config's query.entity_expansion
    learned: bool = True  # the domain's learned ranking stage when one is installed; False = weighted RRF only
    rerank: bool | None = None  # rerank after fusion: None = the config's rerank.enabled; False = off for this request
    use_llm: bool = True  # False forces the embedded default even when an LLM is configured
    sentence_vectors: bool = True  # the extractive answer reads the sentence vectors when built; False = off (ablation)
    today: date | None = None  # "today" for temporal expansion; None = the real date
    log: bool = True  # append to the feedback logs
    top_k: int | None = None  # fused chunks kept (evidence, context); None = the config's retrieval.final_top_k
    filters: Filters | None = None  # restrict retrieval to some documents (lambdarag/scope.py); None = all
    explain: bool = False  # add the hit test's view (pipeline/explain.py) to the trace as trace["explain"]
