"""`lambdarag tune`: propose per-intent RRF weights (and k) from rated requests and labelled questions."""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdarag.commands.domains import add_domain_args
from lambdarag.errors import InputError

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain
    from lambdarag.tuning.search import TuningResult


def register(sub: Any) -> None:
    p = sub.add_parser("tune", help="propose per-intent channel weights from feedback logs (and labelled questions)",
                       description="Reads feedback/query_log.jsonl joined with ratings.jsonl (and --questions), "
                                   "tunes each intent with enough samples on a train split, reports held-out MRR "
                                   "and writes a proposed instance.yml patch to feedback/tuning/. Nothing changes "
                                   "without --apply.")
    add_domain_args(p)
    p.add_argument("--questions", type=Path, help="labelled questions.jsonl (gold_doc_ids) to tune on as well")
    p.add_argument("--min-samples", type=int, default=20, help="samples an intent needs to be tuned (default 20)")
    p.add_argument("--holdout", type=float, default=0.3, help="held-out fraction per intent (default 0.3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the train / held-out split (default 0)")
    p.add_argument("--min-gain", type=float, default=0.01,
                   help="held-out MRR gain a change needs to be proposed (default 0.01)")
    p.add_argument("--apply", nargs="?", const="", default=None, metavar="PATCH",
                   help="merge the proposal (or a reviewed PATCH file) into instance.yml, keeping a backup")
    p.set_defaults(handler=cmd_tune)


def thin_message(result: TuningResult) -> str:
    """The "too thin to tune" explanation with the count per intent."""
    counts = ", ".join(f"{i} {n}" for i, n in result.thin.items()) or "no usable samples at all"
    return (f"too thin to tune: no intent has {result.min_samples} samples ({counts}). Collect more rated "
            f"answers (POST /api/feedback with rating up), pass --questions with labelled questions, "
            f"or lower --min-samples.")


def summary_lines(result: TuningResult) -> list[str]:
    """Per intent: sample counts and MRR before/after on train and held-out."""
    lines = ["intent      train  test  train MRR        held-out MRR     proposed"]
    for t in result.intents:
        lines.append(f"{t.intent:<11} {t.n_train:>5} {t.n_test:>5}  {t.train_before:.3f} -> {t.train_after:.3f}"
                     f"   {t.test_before:.3f} -> {t.test_after:.3f}   {'yes' if t.improved else 'no'}")
    if result.k_improved:
        lines.append(f"rrf_k {result.k_before} -> {result.k_after}: held-out MRR "
                     f"{result.k_test_before:.3f} -> {result.k_test_after:.3f}")
    if result.thin:
        lines.append("not tuned (too few samples): " + ", ".join(f"{i} {n}" for i, n in result.thin.items()))
    return lines


def cmd_tune(args: argparse.Namespace) -> int:
    from lambdarag.config.domain import open_domain
    from lambdarag.tuning.patch import current_weights, render_patch, write_proposal
    from lambdarag.tuning.samples import collect_samples
    from lambdarag.tuning.search import tune

    if args.min_samples < 2 or not 0 < args.holdout < 1:
        raise InputError("--min-samples must be at least 2 and --holdout between 0 and 1", "fix the arguments")
    domain = open_domain(args.domain, args.base_dir)
    when = datetime.now().isoformat(timespec="seconds")
    if args.apply:  # a reviewed patch file: apply it as it is, no tuning run
        return _apply(domain, Path(args.apply).read_text(encoding="utf-8"), when)
    samples, notes = collect_samples(domain, args.questions)
    print("\n".join(notes))
    result = tune(samples, current_weights(domain.config), domain.config.retrieval.rrf_k, args.min_samples,
                  args.holdout, args.seed, args.min_gain)
    if result.too_thin:
        print(thin_message(result))
        return 0
    print("\n".join(summary_lines(result)))
    text = render_patch(result, domain.name, when)
    print(f"proposal written to {write_proposal(domain, text, when)}")
    if args.apply is None:
        print("nothing applied; review the proposal, then run with --apply [PATCH]")
        return 0
    return _apply(domain, text, when)


def _apply(domain: Domain, text: str, when: str) -> int:
    from lambdarag.tuning.patch import apply_patch

    backup = apply_patch(domain, text, when)
    if backup is None:
        print("no change to apply: instance.yml left as it is")
    else:
        print(f"applied to {domain.instance_file}; previous version kept in {backup}")
    return 0
