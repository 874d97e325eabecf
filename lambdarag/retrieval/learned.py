"""The learned ranking stage: a per-domain linear model over candidate features re-orders the fused pool.

Trained by ``lambdarag tune`` (lambdarag/tuning/learn.py, scikit-learn) and stored as plain JSON beside the
index (index/fusion/model.json: feature names, standardisation, coefficients, a manifest), scored here with
numpy alone: no pickle is ever loaded, and 30 candidates cost one small matrix product. A model trained under
other fusion settings (weights, k, boosts) or on other features is refused with the reason, and the domain
keeps weighted RRF.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lambdarag.config.schema import Config
from lambdarag.retrieval.features import FEATURE_VERSION, FEATURES
from lambdarag.retrieval.fusion import Fused

MODEL_DIR = "fusion"  # under the domain's index folder; no channel build touches it
MODEL_FILE = "model.json"  # the model in use
PROPOSED_FILE = "proposed.json"  # written by lambdarag tune, installed by --apply
FORMAT = "lambdarag-learned-fusion"


@dataclass(frozen=True)
class LearnedRanker:
    """score(x) = coef · (x − mean) / scale over the features of a candidate; higher ranks first."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    depth: int  # the first ``depth`` fused candidates are re-ordered; the rest keep their order after them
    fingerprint: str  # fusion_fingerprint of the config it was trained under
    feature_version: int = FEATURE_VERSION
    manifest: Mapping[str, Any] = field(default_factory=dict)  # training counts, held-out figures, learner

    def scores(self, rows: np.ndarray) -> np.ndarray:
        """One score per row of the feature matrix."""
        mean, scale, coef = (np.asarray(v, dtype=np.float64) for v in (self.mean, self.scale, self.coef))
        return np.asarray(((rows - mean) / scale) @ coef, dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "feature_version": self.feature_version, "features": list(self.features),
                "mean": list(self.mean), "scale": list(self.scale), "coef": list(self.coef), "depth": self.depth,
                "fingerprint": self.fingerprint, "manifest": dict(self.manifest)}


def fusion_fingerprint(config: Config) -> str:
    """A digest of every setting that shapes the learned stage's input: the intents' weights, rrf k and boosts."""
    r = config.retrieval
    settings = {"rrf_k": r.rrf_k, "boosts": [r.table_boost, r.recency_boost, r.proximity_boost, r.superseded_penalty,
                                           r.subject_boost],
                "weights": {i: dict(sorted(c.weights.items())) for i, c in sorted(config.intents.classes.items())}}
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]


def reorder(pool: Sequence[Fused], scores: Sequence[float]) -> list[Fused]:
    """The pool by descending model score, ties in fused order; each item carries its score in ``learned``."""
    order = sorted(range(len(pool)), key=lambda i: (-scores[i], i))
    return [dataclasses.replace(pool[i], learned=float(scores[i])) for i in order]


def model_path(index_dir: Path, name: str = MODEL_FILE) -> Path:
    return index_dir / MODEL_DIR / name


def parse_ranker(data: Any) -> LearnedRanker:
    """A LearnedRanker from its JSON form; ValueError naming what is wrong (format, features, sizes, numbers)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} file")
    if data.get("feature_version") != FEATURE_VERSION or tuple(data.get("features") or ()) != FEATURES:
        raise ValueError(f"trained on feature set v{data.get('feature_version')}, this code computes "
                         f"v{FEATURE_VERSION}")
    vectors = [v for v in (data.get(k) for k in ("mean", "scale", "coef")) if isinstance(v, list)]
    if len(vectors) != 3 or not all(len(v) == len(FEATURES) for v in vectors):
        raise ValueError(f"mean, scale and coef must each hold {len(FEATURES)} numbers")
    numbers = [float(x) for v in vectors for x in v if isinstance(x, int | float) and not isinstance(x, bool)]
    if len(numbers) != 3 * len(FEATURES) or not all(math.isfinite(x) for x in numbers):
        raise ValueError("mean, scale and coef must be finite numbers")
    mean, scale, coef = (tuple(numbers[i * len(FEATURES):(i + 1) * len(FEATURES)]) for i in range(3))
    if any(s <= 0 for s in scale):
        raise ValueError("scale must be positive")
    depth = data.get("depth")
    if not isinstance(depth, int) or not 2 <= depth <= 1000:
        raise ValueError("depth must be an integer between 2 and 1000")
    manifest = data["manifest"] if isinstance(data.get("manifest"), dict) else {}
    return LearnedRanker(FEATURES, mean, scale, coef, depth, str(data.get("fingerprint") or ""), FEATURE_VERSION,
                         manifest)


def load_ranker(index_dir: Path, config: Config) -> tuple[LearnedRanker | None, str]:
    """The installed model and "" — or None and why not ("no model" when none is installed)."""
    path = model_path(index_dir)
    if not config.retrieval.learned:
        return None, "off (retrieval.learned: false): weighted RRF"
    if not path.exists():
        return None, "no model: weighted RRF (train one with lambdarag tune)"
    try:
        ranker = parse_ranker(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
        return None, f"{path} refused ({exc}): weighted RRF; run lambdarag tune again"
    if ranker.fingerprint != fusion_fingerprint(config):
        return None, (f"{path} was trained under other fusion settings (weights, k or boosts changed since): "
                      "weighted RRF; run lambdarag tune again")
    return ranker, ""


def save_ranker(path: Path, ranker: LearnedRanker) -> Path:
    """Write the model atomically (a temporary file renamed over the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(ranker.to_dict(), ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, path)
    return path
