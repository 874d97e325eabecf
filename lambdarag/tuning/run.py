"""One tuning run: the per-intent RRF weights first, then the learned ranking stage under those weights.

Both learn from the same evidence — liked answers in the feedback logs (cited chunks right, the other shown
candidates wrong) and labelled questions — and both are judged on a seeded held-out split; what does not beat
the current setting there is not proposed. The learned stage is trained on pools made under the proposed
weights (its features depend on them), so the two proposals go together.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from lambdarag.config.load import config_with
from lambdarag.config.schema import Config
from lambdarag.evaluation.dataset import EvalQuestion
from lambdarag.feedback.log import QUERY_LOG, RATINGS_LOG, read_log_family
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.retrieval.learned import fusion_fingerprint
from lambdarag.tuning.candidates import Front, front, pool_sample, question_fronts
from lambdarag.tuning.learn import LearnedTuning, learn
from lambdarag.tuning.patch import current_weights, render_patch
from lambdarag.tuning.samples import samples_from_fronts, samples_from_logs
from lambdarag.tuning.search import Sample, TuningResult, tune


@dataclass(frozen=True)
class TuneSettings:
    min_samples: int = 20
    holdout: float = 0.3
    seed: int = 0
    min_gain: float = 0.01  # held-out MRR a weight change must add
    learned_min_gain: float = 0.0  # held-out MRR the learned stage must add (repeated k-fold: any gain at all)
    weights: bool = True  # tune the per-intent RRF weights
    learned: bool = True  # train the learned ranking stage
    use_llm: bool = True  # the pipeline front as configured (condensation and intent may ask the LLM)


@dataclass
class TuningOutcome:
    """The weight proposal (with its patch text), the learned stage's, and the tuned knowledge base."""

    weights: TuningResult | None
    patch: str
    learned: LearnedTuning | None
    tuned: KnowledgeBase | None  # the knowledge base as --apply would leave it (in memory); None: not built
    notes: list[str] = field(default_factory=list)


def asked_on(record: Mapping[str, Any]) -> date | None:
    """The date a logged request was answered as of (its as_of, else the day it was logged), None if unknown."""
    for value in (record.get("as_of"), str(record.get("time") or "")[:10]):
        try:
            return date.fromisoformat(str(value))
        except ValueError:
            continue
    return None


def liked_fronts(kb: KnowledgeBase, feedback_dir: Path, use_llm: bool) -> tuple[list[Front], int]:
    """Fronts of liked, cited answers searched again with their condensed question (a hashed or dropped text
    cannot be: counted, not used). Right = the documents of the cited chunks."""
    ratings = {str(r.get("request_id")): r.get("rating") for r in read_log_family(feedback_dir / RATINGS_LOG)}
    fronts, unreadable = [], 0
    for record in read_log_family(feedback_dir / QUERY_LOG):
        cited = [str(c) for c in record.get("citations") or [] if str(c) in kb.chunks]
        if ratings.get(str(record.get("request_id"))) != "up" or not cited:
            continue
        question = str(record.get("condensed") or "")
        if not question or question.startswith("sha256:"):
            unreadable += 1
            continue
        fronts.append(front(kb, str(record["request_id"]), question, (), asked_on(record),
                            {kb.doc_of(c) for c in cited}, "rating", use_llm))
    return fronts, unreadable


def propose_weights(config: Config, name: str, feedback_dir: Path | None, labelled: Sequence[Sample],
                    settings: TuneSettings, when: str) -> tuple[TuningResult, str, list[str]]:
    """The weight tuner over the logged rankings (as they were served) and the labelled samples: its result,
    the instance.yml patch text and a line on the logs read."""
    samples: list[Sample] = []
    notes = []
    if feedback_dir is not None:
        samples, stats = samples_from_logs(feedback_dir)
        notes.append(f"feedback: {stats['requests']} requests, {stats['rated']} rated, {stats['liked']} liked, "
                     f"{stats['usable']} usable (liked with citations and channel rankings)")
    samples += labelled
    result = tune(samples, current_weights(config), config.retrieval.rrf_k, settings.min_samples,
                  settings.holdout, settings.seed, settings.min_gain)
    return result, render_patch(result, name, when), notes


def tune_knowledge(kb: KnowledgeBase, questions: Sequence[EvalQuestion], settings: TuneSettings,
                   when: str, feedback: bool = True) -> TuningOutcome:
    """Tune on the domain's feedback logs (when ``feedback``) and ``questions``; nothing is written."""
    notes: list[str] = []
    result, patch = None, ""

    def fronts_of(base: KnowledgeBase) -> list[Front]:
        fronts = question_fronts(base, questions, settings.use_llm)
        if feedback and settings.learned:
            liked, unreadable = liked_fronts(base, base.domain.feedback_dir, settings.use_llm)
            fronts += liked
            if base is kb:
                notes.append(f"learned stage: {len(liked)} liked answers searched again"
                             + (f", {unreadable} with a hashed or dropped question left out" if unreadable else ""))
        return fronts

    fronts = fronts_of(kb)
    if settings.weights:
        labelled = samples_from_fronts(kb, [f for f in fronts if f.source == "label"])
        result, patch, logged = propose_weights(kb.config, kb.domain.name, kb.domain.feedback_dir if feedback
                                                else None, labelled, settings, when)
        notes = logged + notes
        override = yaml.safe_load(patch) or {}
        if override:  # the learned stage reads pools fused under the weights proposed
            kb = dataclasses.replace(kb, config=config_with(kb.config, override), ranker=None)
            fronts = fronts_of(kb)
    learned = None
    if settings.learned:
        learned = learn([pool_sample(kb, f) for f in fronts], fusion_fingerprint(kb.config), settings.seed,
                        settings.learned_min_gain)
        if learned.improved:
            kb = dataclasses.replace(kb, ranker=learned.ranker, ranker_note="")
    return TuningOutcome(result, patch, learned, kb, notes)
