"""A tuning result as an instance.yml patch: written as a proposal for review, or applied with a backup.

Applying refuses a patch that is not a mapping or that would leave the domain without a valid config.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

import yaml

from lambdarag.config.domain import Domain
from lambdarag.config.schema import CHANNEL_NAMES, Config
from lambdarag.errors import InputError
from lambdarag.tuning.search import TuningResult

TUNING_DIR = "tuning"  # under the domain's feedback folder


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


def apply_model(domain: Domain, path: Path) -> Path:
    """Install a proposed learned-stage model as index/fusion/model.json, after checking it loads under the
    domain's current config (a model trained under other weights would be refused at start-up)."""
    import json

    from lambdarag.config.load import load_config
    from lambdarag.retrieval.learned import fusion_fingerprint, model_path, parse_ranker, save_ranker

    try:
        ranker = parse_ranker(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path} is not a usable learned-stage model: {exc}",
                         "pass index/fusion/proposed.json as written by lambdarag tune") from exc
    config = load_config(domain.instance_file)
    if ranker.fingerprint != fusion_fingerprint(config):
        raise InputError(f"{path} was trained under other weights, k or boosts than instance.yml holds now",
                         "apply the weight proposal of the same run first, or run lambdarag tune again")
    return save_ranker(model_path(domain.index_dir), ranker)
