"""Training the learned ranking stage: a pairwise logistic model over the pool's candidate features.

Learner: scikit-learn's LogisticRegression on feature differences (a relevant candidate minus an irrelevant one
of the same question: RankNet's pairwise loss with a linear scorer). Linear, because the samples of a domain
are few (tens to hundreds of questions) and a linear scorer can be stored as JSON and scored with one numpy
product (retrieval/learned.py). Whether a model is proposed at all is decided on held-out questions: a seeded
k-fold split holds every question out once, the regularisation C chosen by cross-validation inside each fold.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from lambdarag.retrieval.features import FEATURE_VERSION, FEATURES
from lambdarag.retrieval.learned import LearnedRanker
from lambdarag.tuning.candidates import POOL_DEPTH, PoolSample, order_mrr

C_GRID = (0.01, 0.1, 1.0, 10.0)
OUTER_FOLDS = 5  # held-out estimate: every sample is held out once per repeat
REPEATS = 3  # seeded repeats of the held-out split, averaged (a few hundred questions give a noisy estimate)
INNER_FOLDS = 3  # choosing C within the training part
LEARNER = "scikit-learn LogisticRegression (pairwise differences, L2, newton-cholesky)"


@dataclass
class LearnedTuning:
    """What training found: held-out MRR of the fused order and of the model, overall and per intent."""

    ranker: LearnedRanker | None  # fit on every sample; None when nothing could be learned
    samples: int
    before: float  # held-out MRR@10 of the fused order
    after: float  # held-out MRR@10 of the model's order (each sample ordered by a model that did not see it)
    per_intent: dict[str, tuple[int, float, float]] = field(default_factory=dict)  # intent -> (n, before, after)
    c: float = 0.0
    skipped: int = 0  # samples with no relevant or no irrelevant candidate
    min_gain: float = 0.0

    @property
    def improved(self) -> bool:
        return self.ranker is not None and self.after > self.before + max(self.min_gain, 1e-9)


def stacked_pairs(samples: Sequence[PoolSample], scale: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every sample's pair differences over the standardisation's scale (the mean cancels in a difference) and
    their negations, labels 1/0 and weights (each question counts 1)."""
    diffs = [s.pair_diffs for s in samples if len(s.pair_diffs)]
    if not diffs:
        return np.zeros((0, len(FEATURES))), np.zeros(0), np.zeros(0)
    diff = np.vstack(diffs) / scale
    w = np.concatenate([np.full(len(d), 1.0 / len(d)) for d in diffs])
    return np.vstack([diff, -diff]), np.concatenate([np.ones(len(diff)), np.zeros(len(diff))]), np.concatenate([w, w])


def standardisation(samples: Sequence[PoolSample]) -> tuple[np.ndarray, np.ndarray]:
    """Mean and scale of every feature over the candidates (scale 1 for a constant feature)."""
    rows = np.vstack([s.rows for s in samples])
    mean, scale = rows.mean(axis=0), rows.std(axis=0)
    return mean, np.where(scale > 1e-9, scale, 1.0)


def fit(samples: Sequence[PoolSample], c: float, scale: np.ndarray) -> np.ndarray | None:
    """Coefficients over standardised features, or None when the samples give no pair to learn from."""
    from sklearn.linear_model import LogisticRegression

    x, y, w = stacked_pairs(samples, scale)
    if not len(x):
        return None
    model = LogisticRegression(C=c, fit_intercept=False, solver="newton-cholesky", max_iter=200)
    model.fit(x, y, sample_weight=w)
    return np.asarray(model.coef_[0], dtype=np.float64)


def ranker_from(samples: Sequence[PoolSample], c: float, fingerprint: str,
                manifest: Mapping[str, Any] | None = None) -> LearnedRanker | None:
    mean, scale = standardisation(samples)
    coef = fit(samples, c, scale)
    if coef is None:
        return None
    return LearnedRanker(FEATURES, tuple(map(float, mean)), tuple(map(float, scale)), tuple(map(float, coef)),
                         POOL_DEPTH, fingerprint, FEATURE_VERSION, dict(manifest or {}))


def mrr(samples: Sequence[PoolSample], ranker: LearnedRanker | None) -> float:
    """Mean MRR@10 of the samples in fused order (ranker None) or in the ranker's order."""
    total = 0.0
    for s in samples:
        if ranker is None or not len(s.rows):
            order: Sequence[int] = range(len(s.docs))
        else:
            scores = ranker.scores(s.rows)
            order = sorted(range(len(s.docs)), key=lambda i: (-scores[i], i))
        total += order_mrr(s.docs, s.relevant_docs, order)
    return total / len(samples) if samples else 0.0


def folds(samples: Sequence[PoolSample], k: int, seed: int) -> list[list[PoolSample]]:
    """A seeded split of the samples into k folds of (nearly) equal size, by question key."""
    ordered = sorted(samples, key=lambda s: s.key)
    random.Random(seed).shuffle(ordered)
    return [ordered[i::k] for i in range(k)]


def choose_c(train: Sequence[PoolSample], seed: int, k: int = INNER_FOLDS) -> float:
    """The C of C_GRID with the best cross-validated MRR over k folds of ``train`` (ties: the smaller C)."""
    parts = folds(train, k, seed)
    best, best_score = C_GRID[0], -1.0
    for c in C_GRID:
        score = 0.0
        for i, held in enumerate(parts):
            rest = [s for j, fold in enumerate(parts) if j != i for s in fold]
            model = ranker_from(rest, c, "") if rest and held else None
            score += mrr(held, model) * len(held)
        if score > best_score + 1e-12:
            best, best_score = c, score
    return best


def held_out_orders(samples: Sequence[PoolSample], seed: int, repeat: int = 0) -> dict[str, LearnedRanker | None]:
    """Per sample key, the model that did not see it: seeded OUTER_FOLDS-fold, C chosen inside each fold."""
    out: dict[str, LearnedRanker | None] = {}
    parts = folds(samples, OUTER_FOLDS, seed * 1000 + repeat)
    for i, held in enumerate(parts):
        train = [s for j, fold in enumerate(parts) if j != i for s in fold]
        model = ranker_from(train, choose_c(train, seed), "")
        out.update({s.key: model for s in held})
    return out


def held_out_mrr(samples: Sequence[PoolSample], seed: int) -> dict[str, float]:
    """Per sample key, its MRR@10 under the models that did not see it, averaged over REPEATS seeded splits."""
    total: dict[str, float] = defaultdict(float)
    for repeat in range(REPEATS):
        models = held_out_orders(samples, seed, repeat)
        for s in samples:
            total[s.key] += mrr([s], models.get(s.key)) / REPEATS
    return dict(total)


def learn(samples: Sequence[PoolSample], fingerprint: str, seed: int = 0, min_gain: float = 0.0,
          manifest: Mapping[str, Any] | None = None) -> LearnedTuning:
    """Held-out MRR of the whole procedure (every sample held out once, seeded OUTER_FOLDS-fold, C chosen
    within each fold) decides; the proposed model is then fit on every sample with C chosen by cross-validation."""
    usable = [s for s in samples if s.learnable]
    skipped = len(samples) - len(usable)
    if len(usable) < OUTER_FOLDS * INNER_FOLDS:
        return LearnedTuning(None, len(samples), 0.0, 0.0, skipped=skipped, min_gain=min_gain)
    learned = held_out_mrr(usable, seed)
    # the figures are over every sample, the unlearnable included (their order cannot change, their MRR counts)
    fused = {s.key: mrr([s], None) for s in samples}
    after_of = {s.key: learned.get(s.key, fused[s.key]) for s in samples}
    before, after = sum(fused.values()) / len(samples), sum(after_of.values()) / len(samples)
    by_intent: dict[str, list[str]] = defaultdict(list)
    for s in samples:
        by_intent[s.intent].append(s.key)
    per_intent = {i: (len(keys), sum(fused[k] for k in keys) / len(keys), sum(after_of[k] for k in keys) / len(keys))
                  for i, keys in sorted(by_intent.items())}
    c = choose_c(usable, seed)
    info = {"created": datetime.now().isoformat(timespec="seconds"), "learner": LEARNER, "c": c, "seed": seed,
            "samples": {"total": len(samples), "learnable": len(usable), "sources": _sources(samples)},
            "heldout": {"method": f"{REPEATS} seeded {OUTER_FOLDS}-fold splits, every sample held out once in each",
                        "before": round(before, 4),
                        "after": round(after, 4)},
            "per_intent": {i: {"n": n, "before": round(b, 4), "after": round(a, 4)} for i, (n, b, a) in
                           per_intent.items()}, **(manifest or {})}
    final = ranker_from(usable, c, fingerprint, info)
    return LearnedTuning(final, len(samples), before, after, per_intent, c, skipped, min_gain)


def _sources(samples: Sequence[PoolSample]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for s in samples:
        counts[s.source] += 1
    return dict(counts)
