"""Per-intent RRF weight tuning from feedback: pure search functions, then the log and patch I/O.

A sample is one request with each channel's ranked chunk ids (from query_log.jsonl, or recomputed
for a labelled question) and the chunks that were right (cited in an answer rated "up", or the
gold documents' chunks). Fusion is recomputed with lambdarag.retrieval.fusion.weighted_rrf for candidate
weights, so no retrieval runs during the search; the table and recency boosts are left as they are.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from lambdarag.config.schema import CHANNEL_NAMES, Config
from lambdarag.errors import InputError
from lambdarag.records import Hit
from lambdarag.retrieval.fusion import weighted_rrf

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain
    from lambdarag.evaluation.dataset import EvalQuestion
    from lambdarag.retrieval.knowledge import KnowledgeBase

WEIGHT_GRID = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)
K_GRID = (5, 10, 20, 30, 60, 100)
MRR_CUTOFF = 10
MIN_GAIN = 1e-9  # a change must beat the current setting strictly; ties keep what operators configured
MAX_ROUNDS = 6
TUNING_DIR = "tuning"  # under the domain's feedback folder


@dataclass(frozen=True)
class Sample:
    """One request: the intent, each channel's ranking (as hits) and the chunk ids that were right."""

    key: str  # request id or question id
    intent: str
    hits: Mapping[str, tuple[Hit, ...]]
    relevant: frozenset[str]
    source: str = "rating"  # rating | label


@dataclass(frozen=True)
class IntentTuning:
    """Before/after weights of one intent with train and held-out MRR."""

    intent: str
    n_train: int
    n_test: int
    before: dict[str, float]
    after: dict[str, float]
    train_before: float
    train_after: float
    test_before: float
    test_after: float
    min_gain: float = 0.0

    @property
    def improved(self) -> bool:
        """Proposed only when the held-out MRR rises by more than min_gain (a train-only gain is over-fitting)."""
        return self.after != self.before and self.test_after > self.test_before + max(self.min_gain, MIN_GAIN)


@dataclass
class TuningResult:
    """What the tuner found: per-intent results, the rrf k, and the intents too thin to tune."""

    intents: list[IntentTuning]
    thin: dict[str, int]  # intent -> samples, below the minimum
    k_before: int
    k_after: int
    k_test_before: float = 0.0
    k_test_after: float = 0.0
    samples: int = 0
    min_samples: int = 0
    seed: int = 0
    holdout: float = 0.3
    min_gain: float = 0.0
    sources: dict[str, int] = field(default_factory=dict)

    @property
    def too_thin(self) -> bool:
        return not self.intents

    @property
    def k_improved(self) -> bool:
        return self.k_after != self.k_before and self.k_test_after > self.k_test_before + max(self.min_gain, MIN_GAIN)

    @property
    def changes(self) -> list[IntentTuning]:
        return [t for t in self.intents if t.improved]


def make_sample(key: str, intent: str, rankings: Mapping[str, Sequence[str]], relevant: Sequence[str],
                source: str = "rating") -> Sample:
    """A sample from ranked chunk ids per channel (rank = position + 1, first occurrence kept)."""
    hits = {}
    for channel, ids in rankings.items():
        unique = list(dict.fromkeys(str(i) for i in ids if i))
        hits[channel] = tuple(Hit(chunk_id=c, score=0.0, rank=r, channel=channel) for r, c in enumerate(unique, 1))
    return Sample(key, intent, hits, frozenset(relevant), source)


def sample_mrr(sample: Sample, weights: Mapping[str, float], k: int) -> float:
    """Reciprocal rank of the first relevant chunk in the weighted-RRF fusion, within MRR_CUTOFF."""
    fused = weighted_rrf(sample.hits, weights, k)
    for i, item in enumerate(fused[:MRR_CUTOFF], start=1):
        if item.chunk_id in sample.relevant:
            return 1.0 / i
    return 0.0


def mean_mrr(samples: Sequence[Sample], weights: Mapping[str, float], k: int) -> float:
    """Mean MRR@10 of the samples under these weights and k (0.0 for no samples)."""
    return sum(sample_mrr(s, weights, k) for s in samples) / len(samples) if samples else 0.0


def coordinate_search(samples: Sequence[Sample], start: Mapping[str, float], k: int,
                      grid: Sequence[float] = WEIGHT_GRID) -> dict[str, float]:
    """Coordinate ascent over the channel weights on the grid, from ``start``; only strict gains move it."""
    best = {c: float(start.get(c, 0.0)) for c in CHANNEL_NAMES}
    best_score = mean_mrr(samples, best, k)
    for _ in range(MAX_ROUNDS):
        moved = False
        for channel in CHANNEL_NAMES:
            for value in grid:
                trial = {**best, channel: value}
                if trial == best or not any(trial.values()):
                    continue
                score = mean_mrr(samples, trial, k)
                if score > best_score + MIN_GAIN:
                    best, best_score, moved = trial, score, True
        if not moved:
            break
    return best


def split(samples: Sequence[Sample], holdout: float, seed: int) -> tuple[list[Sample], list[Sample]]:
    """Deterministic train / held-out split: shuffled by seed, at least one sample on each side."""
    ordered = sorted(samples, key=lambda s: s.key)
    random.Random(seed).shuffle(ordered)
    n_test = min(len(ordered) - 1, max(1, round(len(ordered) * holdout)))
    return ordered[n_test:], ordered[:n_test]


def best_k(groups: Mapping[str, Sequence[Sample]], weights: Mapping[str, Mapping[str, float]], current: int,
           grid: Sequence[int] = K_GRID) -> int:
    """The rrf k (shared by every intent) with the best mean MRR over all the samples given."""
    def total(k: int) -> float:
        return sum(mean_mrr(s, weights[i], k) * len(s) for i, s in groups.items())

    best, best_score = current, total(current)
    for k in grid:
        score = total(k)
        if score > best_score + MIN_GAIN:
            best, best_score = k, score
    return best


def tune(samples: Sequence[Sample], current: Mapping[str, Mapping[str, float]], k: int, min_samples: int = 20,
         holdout: float = 0.3, seed: int = 0, min_gain: float = 0.01) -> TuningResult:
    """Tune every intent with at least ``min_samples`` samples, then the shared k; held-out MRR decides.

    A change is proposed only when it raises the held-out MRR by more than ``min_gain``.
    """
    by_intent: dict[str, list[Sample]] = defaultdict(list)
    for sample in samples:
        by_intent[sample.intent].append(sample)
    thin = {i: len(s) for i, s in sorted(by_intent.items()) if len(s) < min_samples}
    tuned: list[IntentTuning] = []
    trains: dict[str, list[Sample]] = {}
    tests: dict[str, list[Sample]] = {}
    for intent in sorted(i for i in by_intent if i not in thin and i in current):
        train, test = split(by_intent[intent], holdout, seed)
        trains[intent], tests[intent] = train, test
        before = {c: float(current[intent].get(c, 0.0)) for c in CHANNEL_NAMES}
        after = coordinate_search(train, before, k)
        tuned.append(IntentTuning(intent, len(train), len(test), before, after, mean_mrr(train, before, k),
                                  mean_mrr(train, after, k), mean_mrr(test, before, k), mean_mrr(test, after, k),
                                  min_gain))
    sources: dict[str, int] = defaultdict(int)
    for sample in samples:
        sources[sample.source] += 1
    result = TuningResult(tuned, thin, k, k, samples=len(samples), min_samples=min_samples, seed=seed,
                          holdout=holdout, min_gain=min_gain, sources=dict(sources))
    if tuned:
        _tune_k(result, trains, tests)
    return result


def _tune_k(result: TuningResult, trains: Mapping[str, Sequence[Sample]],
            tests: Mapping[str, Sequence[Sample]]) -> None:
    """Choose k on the train splits with the proposed weights; report its held-out effect."""
    weights = {t.intent: t.after if t.improved else t.before for t in result.intents}
    result.k_after = best_k(trains, weights, result.k_before)
    n = sum(len(s) for s in tests.values()) or 1
    result.k_test_before = sum(mean_mrr(s, weights[i], result.k_before) * len(s) for i, s in tests.items()) / n
    result.k_test_after = sum(mean_mrr(s, weights[i], result.k_after) * len(s) for i, s in tests.items()) / n


# ---------------------------------------------------------------- I/O: logs in, patch out

def read_log_family(path: Path) -> list[dict[str, Any]]:
    """Records of a JSONL log and its rotations (NAME.N … NAME.1, then NAME), oldest first; bad lines skipped."""
    rotated = sorted(path.parent.glob(path.name + ".[0-9]*"), key=lambda p: -int(p.suffix[1:] or 0))
    records: list[dict[str, Any]] = []
    for file in [*(p for p in rotated if p.suffix[1:].isdigit()), path]:
        if not file.is_file():
            continue
        for line in file.read_text(encoding="utf-8").splitlines():
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict):
                records.append(data)
    return records


def samples_from_logs(feedback_dir: Path) -> tuple[list[Sample], dict[str, int]]:
    """Samples from query_log.jsonl joined with ratings.jsonl by request id (latest rating wins)."""
    from lambdarag.feedback.log import QUERY_LOG, RATINGS_LOG

    ratings = {str(r.get("request_id")): r.get("rating") for r in read_log_family(feedback_dir / RATINGS_LOG)}
    queries = read_log_family(feedback_dir / QUERY_LOG)
    stats = {"requests": len(queries), "rated": 0, "liked": 0, "usable": 0}
    samples = []
    for record in queries:
        rating = ratings.get(str(record.get("request_id")))
        stats["rated"] += rating is not None
        if rating != "up":
            continue
        stats["liked"] += 1
        rankings = record.get("channels") or {}
        liked = [str(c) for c in record.get("citations") or []]
        if not liked or not isinstance(rankings, dict) or not record.get("intent"):
            continue  # an answer liked without citations does not say which chunks were right
        samples.append(make_sample(str(record["request_id"]), str(record["intent"]), rankings, liked))
        stats["usable"] += 1
    return samples, stats


def samples_from_questions(kb: KnowledgeBase, questions: Sequence[EvalQuestion]) -> list[Sample]:
    """Samples for labelled questions: each channel searched at its full depth, gold documents' chunks relevant."""
    from lambdarag.options import PipelineOptions
    from lambdarag.query.condense import condense
    from lambdarag.query.expand import expand_query
    from lambdarag.query.intent import classify
    from lambdarag.retrieval.retrieve import fusion_inputs, run_channels

    cfg = kb.config
    samples = []
    for q in questions:
        condensed = condense(q.question, q.history, None, cfg.prompts.condense).question
        intent = classify(condensed, cfg.intents, None).intent
        expansion = expand_query(condensed, intent, cfg, kb.tokenizer, q.as_of or date.today(), True,
                                 kb.entity_aliases())
        runs = run_channels(kb, expansion, PipelineOptions(log=False))
        # what fusion would see: the same filters as the pipeline (the proximity boost is not searched over)
        rankings = {name: [h.chunk_id for h in hits] for name, hits in fusion_inputs(kb, runs, intent).items()}
        gold = set(q.gold_doc_ids)
        relevant = [c for ids in rankings.values() for c in ids if c in kb.chunks and kb.chunks[c].doc_id in gold]
        if gold:
            samples.append(make_sample(q.qid, intent, rankings, relevant, "label"))
    return samples


def collect_samples(domain: Domain, questions: Path | None) -> tuple[list[Sample], list[str]]:
    """Samples from the logs (and labelled questions), with lines describing where they came from."""
    samples, stats = samples_from_logs(domain.feedback_dir)
    notes = [f"feedback: {stats['requests']} requests, {stats['rated']} rated, {stats['liked']} liked, "
             f"{stats['usable']} usable (liked with citations and channel rankings)"]
    if questions is not None:
        from lambdarag.evaluation.dataset import load_questions
        from lambdarag.retrieval.knowledge import KnowledgeBase

        labelled = samples_from_questions(KnowledgeBase.load(domain), load_questions(questions))
        notes.append(f"labelled: {len(labelled)} questions from {questions}")
        samples += labelled
    return samples, notes


def current_weights(config: Config) -> dict[str, dict[str, float]]:
    """Every intent's configured channel weights."""
    return {name: {c: float(w) for c, w in cls.weights.items()} for name, cls in config.intents.classes.items()}


def _flow(weights: Mapping[str, float]) -> str:
    return "{" + ", ".join(f"{c}: {round(weights.get(c, 0.0), 4)}" for c in CHANNEL_NAMES) + "}"


def render_patch(result: TuningResult, domain: str, when: str) -> str:
    """The proposed instance.yml patch as YAML, with the evidence in comments."""
    sources = ", ".join(f"{k}: {v}" for k, v in sorted(result.sources.items())) or "none"
    lines = [f"# LambdaRAG tuning proposal for domain {domain!r}, {when}",
             f"# {result.samples} samples ({sources}); at least {result.min_samples} per intent; "
             f"held-out {result.holdout:.0%}, seed {result.seed}",
             "# MRR@10 of the liked (cited in answers rated up) or gold chunks, fusion recomputed by weighted RRF.",
             f"# apply: lambdarag tune --domain {domain} --apply <this file>   (instance.yml is backed up first)"]
    if result.thin:
        lines.append("# too thin to tune: " + ", ".join(f"{i} ({n})" for i, n in result.thin.items()))
    for t in result.intents:
        if not t.improved:
            lines.append(f"# kept {t.intent}: held-out MRR {t.test_before:.3f} -> {t.test_after:.3f} "
                         f"(gain not above {result.min_gain:g})")
    body: list[str] = []
    if result.changes:
        body += ["intents:", "  classes:"]
        for t in result.changes:
            body += [f"    {t.intent}:",
                     f"      # train n={t.n_train}: MRR {t.train_before:.3f} -> {t.train_after:.3f}; "
                     f"held-out n={t.n_test}: MRR {t.test_before:.3f} -> {t.test_after:.3f}",
                     f"      # before: {_flow(t.before)}",
                     f"      weights: {_flow(t.after)}"]
    if result.k_improved:
        body += ["retrieval:", f"  # held-out MRR {result.k_test_before:.3f} -> {result.k_test_after:.3f} "
                               f"(k {result.k_before} -> {result.k_after}, with the weights above)",
                 f"  rrf_k: {result.k_after}"]
    if not body:
        body = ["# no change proposed: nothing beat the current settings on the held-out split", "{}"]
    return "\n".join([*lines, *body]) + "\n"


def write_proposal(domain: Domain, text: str, when: str) -> Path:
    """feedback/tuning/proposed-<timestamp>.yml."""
    folder = domain.feedback_dir / TUNING_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"proposed-{when.replace(':', '').replace('-', '')}.yml"
    path.write_text(text, encoding="utf-8")
    return path


def apply_patch(domain: Domain, patch_text: str, when: str) -> Path | None:
    """Merge the patch into instance.yml after checking the result loads; returns the backup (None: no change)."""
    from lambdarag.config.load import load_config, merge, read_yaml

    patch = yaml.safe_load(patch_text) or {}
    if not isinstance(patch, dict):
        raise InputError("the tuning patch is not a YAML mapping", "pass a file written by lambdarag tune")
    if not patch:
        return None
    current = read_yaml(domain.instance_file) if domain.instance_file.exists() else {}
    merged = merge(current, patch)
    header = f"# patched by lambdarag tune at {when}; the previous version (with its comments) is in the backup\n"
    text = header + yaml.safe_dump(merged, allow_unicode=True, sort_keys=False)
    candidate = domain.instance_file.with_name(f".instance.yml.{when}.tmp")
    candidate.write_text(text, encoding="utf-8")
    try:
        load_config(candidate)  # refuse a patch that would leave the domain without a valid config
        backup = domain.instance_file.with_name(f"instance.yml.bak-{when.replace(':', '').replace('-', '')}")
        if domain.instance_file.exists():
            shutil.copy2(domain.instance_file, backup)
        else:
            backup.write_text("# there was no instance.yml before tuning\n", encoding="utf-8")
        os.replace(candidate, domain.instance_file)
    finally:
        candidate.unlink(missing_ok=True)
    return backup
