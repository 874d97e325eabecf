"""`lambdarag tune`: propose per-intent RRF weights (and k), then a learned ranking stage, from rated requests and
labelled questions; nothing changes without --apply."""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdarag.commands.domains import add_domain_args
from lambdarag.errors import IndexMismatchError, InputError

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain
    from lambdarag.tuning.learn import LearnedTuning
    from lambdarag.tuning.run import TuneSettings, TuningOutcome
    from lambdarag.tuning.search import TuningResult


def register(sub: Any) -> None:
    p = sub.add_parser("tune", help="propose channel weights and a learned ranking stage from feedback logs "
                                    "(and labelled questions)",
                       description="Reads feedback/query_log.jsonl joined with ratings.jsonl (and --questions), "
                                   "tunes each intent with enough samples on a train split, then trains the "
                                   "learned ranking stage under the proposed weights; reports held-out MRR, writes "
                                   "a proposed instance.yml patch to feedback/tuning/ and the proposed model to "
                                   "index/fusion/proposed.json. Nothing changes without --apply.")
    add_domain_args(p)
    p.add_argument("--questions", type=Path, help="labelled questions.jsonl (gold_doc_ids) to tune on as well")
    p.add_argument("--min-samples", type=int, default=20, help="samples an intent needs to be tuned (default 20)")
    p.add_argument("--holdout", type=float, default=0.3, help="held-out fraction per intent (default 0.3)")
    p.add_argument("--seed", type=int, default=0, help="seed of the train / held-out split (default 0)")
    p.add_argument("--min-gain", type=float, default=0.01,
                   help="held-out MRR gain a change needs to be proposed (default 0.01)")
    p.add_argument("--learned-min-gain", type=float, default=0.0,
                   help="held-out MRR gain the learned stage needs to be proposed (default 0: any gain)")
    p.add_argument("--weights", action=argparse.BooleanOptionalAction, default=True,
                   help="tune the per-intent RRF weights (default on)")
    p.add_argument("--learned", action=argparse.BooleanOptionalAction, default=True,
                   help="train the learned ranking stage (default on)")
    p.add_argument("--apply", nargs="?", const="", default=None, metavar="FILE",
                   help="apply what this run proposes (instance.yml patch with a backup, and the model); or apply "
                        "a reviewed FILE: a .yml patch, or a model .json (index/fusion/proposed.json)")
    p.set_defaults(handler=cmd_tune)


def thin_message(result: TuningResult) -> str:
    """The "too thin to tune" explanation with the count per intent."""
    counts = ", ".join(f"{i} {n}" for i, n in result.thin.items()) or "no usable samples at all"
    return (f"weights: too thin to tune: no intent has {result.min_samples} samples ({counts}). Collect more rated "
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


def learned_lines(learned: LearnedTuning | None) -> list[str]:
    """The learned stage's held-out MRR, overall and per intent, and whether it is proposed."""
    if learned is None:
        return []
    if learned.ranker is None:
        return [f"learned stage: too few questions with a right and a wrong candidate ({learned.samples} samples, "
                f"{learned.skipped} without both); weighted RRF stays"]
    lines = [f"learned stage ({learned.samples} samples, C={learned.c:g}): held-out MRR {learned.before:.3f} -> "
             f"{learned.after:.3f}   proposed: {'yes' if learned.improved else 'no'}"]
    lines += [f"  {i:<11} {n:>5}  {b:.3f} -> {a:.3f}" for i, (n, b, a) in learned.per_intent.items()]
    return lines


def cmd_tune(args: argparse.Namespace) -> int:
    from lambdarag.config.domain import open_domain
    from lambdarag.evaluation.dataset import load_questions
    from lambdarag.retrieval.knowledge import KnowledgeBase
    from lambdarag.tuning.run import TuneSettings, tune_knowledge

    if args.min_samples < 2 or not 0 < args.holdout < 1:
        raise InputError("--min-samples must be at least 2 and --holdout between 0 and 1", "fix the arguments")
    domain = open_domain(args.domain, args.base_dir)
    when = datetime.now().isoformat(timespec="seconds")
    if args.apply:  # a reviewed file: apply it as it is, no tuning run
        return _apply_file(domain, Path(args.apply), when)
    questions = load_questions(args.questions) if args.questions is not None else []
    settings = TuneSettings(args.min_samples, args.holdout, args.seed, args.min_gain, args.learned_min_gain,
                            weights=args.weights, learned=args.learned)
    try:
        kb = KnowledgeBase.load(domain)
    except IndexMismatchError as exc:
        if questions or not args.weights:
            raise
        outcome = _logs_only(domain, settings, when, exc)  # the logged rankings can still move the weights
    else:
        outcome = tune_knowledge(kb, questions, settings, when)
    print("\n".join(outcome.notes + ([f"labelled: {len(questions)} questions from {args.questions}"]
                                    if args.questions is not None else [])))
    result = outcome.weights
    if result is not None:
        print(thin_message(result) if result.too_thin else "\n".join(summary_lines(result)))
    print("\n".join(learned_lines(outcome.learned)))
    proposed = _write_proposals(domain, outcome, when)
    if not proposed:
        return 0
    if args.apply is None:
        print("nothing applied; review the proposal, then run with --apply [FILE]")
        return 0
    for path in proposed:
        _apply_file(domain, path, when)
    return 0


def _logs_only(domain: Domain, settings: TuneSettings, when: str, why: IndexMismatchError) -> TuningOutcome:
    """A domain that is not built: the weights from the logged rankings only, no learned stage."""
    from lambdarag.tuning.run import TuningOutcome, propose_weights

    result, patch, notes = propose_weights(domain.config, domain.name, domain.feedback_dir, [], settings, when)
    return TuningOutcome(result, patch, None, None, [*notes, f"learned stage skipped: {why.message}"])


def _write_proposals(domain: Domain, outcome: TuningOutcome, when: str) -> list[Path]:
    from lambdarag.retrieval.learned import PROPOSED_FILE, model_path, save_ranker
    from lambdarag.tuning.patch import write_proposal

    written = []
    if outcome.weights is not None and not outcome.weights.too_thin:
        written.append(write_proposal(domain, outcome.patch, when))
        print(f"proposal written to {written[-1]}")
    learned = outcome.learned
    if learned is not None and learned.improved and learned.ranker is not None:
        written.append(save_ranker(model_path(domain.index_dir, PROPOSED_FILE), learned.ranker))
        print(f"learned stage proposed in {written[-1]}")
    return written


def _apply_file(domain: Domain, path: Path, when: str) -> int:
    from lambdarag.tuning.patch import apply_model, apply_patch

    if not path.is_file():
        raise InputError(f"{path}: no such file", "pass a proposal written by lambdarag tune")
    if path.suffix == ".json":
        installed = apply_model(domain, path)
        print(f"learned stage installed in {installed}; reload the service (SIGHUP or POST /admin/reload)")
        return 0
    backup = apply_patch(domain, path.read_text(encoding="utf-8"), when)
    if backup is None:
        print("no change to apply: instance.yml left as it is")
    else:
        print(f"applied to {domain.instance_file}; previous version kept in {backup}")
    return 0
