"""Per-intent RRF weight tuning: pure search over samples (samples.py reads them, patch.py writes the result).

A sample is one request with each channel's ranked chunk ids (from query_log.jsonl, or recomputed
for a labelled question) and the chunks that were right (cited in an answer rated "up", or the
gold documents' chunks). Fusion is recomputed with lambdarag.retrieval.fusion.fuse for candidate
weights, so no retrieval runs during the search; the table and recency boosts are left as they are.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from lambdarag.config.schema import CHANNEL_NAMES
from lambdarag.records import Hit, chunk_doc_id
from lambdarag.retrieval.fusion import fuse

WEIGHT_GRID = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)
K_GRID = (5, 10, 20, 30, 60, 100)
MRR_CUTOFF = 10
MIN_GAIN = 1e-9  # a change must beat the current setting strictly; ties keep what operators configured
MAX_ROUNDS = 6


@dataclass(frozen=True)
class Sample:
    """One request: the intent, each channel's ranking (as hits) and the chunk ids that were right."""

    key: str  # request id or question id
    intent: str
    hits: Mapping[str, tuple[Hit, ...]]
    relevant: frozenset[str]
    source: str = "rating"  # rating | label
    document_spread: float = 1.0  # the knowledge base's, which scales the document channel's weight


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
                source: str = "rating", document_spread: float = 1.0) -> Sample:
    """A sample from ranked chunk ids per channel (rank = position + 1, first occurrence kept)."""
    hits = {}
    for channel, ids in rankings.items():
        unique = list(dict.fromkeys(str(i) for i in ids if i))
        hits[channel] = tuple(Hit(chunk_id=c, score=0.0, rank=r, channel=channel) for r, c in enumerate(unique, 1))
    return Sample(key, intent, hits, frozenset(relevant), source, document_spread)


def sample_mrr(sample: Sample, weights: Mapping[str, float], k: int) -> float:
    """Reciprocal rank of the first relevant chunk in the weighted-RRF fusion, within MRR_CUTOFF."""
    fused = fuse(sample.hits, weights, k, chunk_doc_id, sample.document_spread)
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















