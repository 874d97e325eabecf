"""`lambdarag eval`: evaluate a domain on a question set, or a data set folder, with baseline and ablations."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from lambdarag.commands.domains import add_domain_args
from lambdarag.errors import InputError

if TYPE_CHECKING:
    from lambdarag.evaluation.evaluate import EvalOutcome, EvalSettings, Tuner
    from lambdarag.evaluation.targets import Target

SHOWN = ("recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10", "answer_in_context", "not_found")


def register(sub: Any) -> None:
    p = sub.add_parser("eval", help="evaluate retrieval and answers on a question set (baseline and ablations)",
                       description="Either --domain NAME --questions FILE (a built domain), or --dataset DIR "
                                   "(corpus.jsonl + questions.jsonl: a throw-away domain is built first).")
    add_domain_args(p, required=False)
    p.add_argument("--questions", type=Path, help="questions.jsonl for --domain")
    p.add_argument("--dataset", type=Path, help="folder with corpus.jsonl and questions.jsonl")
    p.add_argument("--out", type=Path, help="report folder (default workspace/reports/<name>-<timestamp>/)")
    p.add_argument("--limit", type=int, help="evaluate only the first N questions")
    p.add_argument("--types", default="", help="comma-separated question types to keep")
    p.add_argument("--no-ablations", action="store_true", help="skip the single-channel and other ablations")
    p.add_argument("--no-baseline", action="store_true", help="skip the naive BM25 baseline")
    p.add_argument("--leave-one-out", action="store_true", help="also run every channel but one (per channel)")
    p.add_argument("--no-llm", action="store_true", help="force the embedded default even when an LLM is configured")
    p.add_argument("--cache-dir", type=Path, help="persistent embedding cache for --dataset "
                                                  "(default workspace/eval-cache/<data set>/)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="instance.yml override for the --dataset domain, e.g. embedding.backend=none (repeatable)")
    p.add_argument("--keep-domain", type=Path, help="build the --dataset domain in this folder and keep it")
    p.add_argument("--target", dest="targets", action="append", default=[], metavar="METRIC=VALUE",
                   help="what the full system must reach: recall@5=0.80, mrr@10=baseline+0.10 (another variant of "
                        "the same run plus an offset), mrr@10>best_channel (beat the best single channel); "
                        "exit 1 when missed (repeatable)")
    p.add_argument("--tune-split", type=float, metavar="F",
                   help="tune (lambdarag tune: weights and the learned stage) on a seeded fraction F of the "
                        "questions, evaluate every variant and the tuned system (variant 'tuned') on the rest")
    p.add_argument("--tune-seed", type=int, default=0, help="seed of the --tune-split split and of tuning")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: on a terminal)")
    p.set_defaults(handler=cmd_eval)


def parse_pairs(items: Sequence[str], what: str) -> list[tuple[str, str]]:
    """KEY=VALUE strings as pairs; a malformed one is an InputError."""
    pairs = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InputError(f"{what} {item!r} is not KEY=VALUE", f"write it like {what} recall@5=0.75")
        pairs.append((key.strip(), value.strip()))
    return pairs


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    """dotted.key=yaml-value pairs as one nested mapping (embedding.backend=none → {"embedding": {"backend": ...}})."""
    out: dict[str, Any] = {}
    for key, raw in parse_pairs(items, "--set"):
        node = out
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = yaml.safe_load(raw)
    return out


def parse_targets(items: Sequence[str]) -> list[Target]:
    """--target values (evaluation.targets.parse_target)."""
    from lambdarag.evaluation.targets import parse_target

    return [parse_target(item) for item in items]


def settings_from(args: argparse.Namespace) -> EvalSettings:
    """EvalSettings from the parsed arguments."""
    from lambdarag.evaluation.evaluate import EvalSettings

    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit {args.limit}: must be at least 1", "pass a positive number of questions")
    if args.tune_split is not None and not 0 < args.tune_split < 1:
        raise InputError(f"--tune-split {args.tune_split}: must be between 0 and 1", "pass e.g. --tune-split 0.3")
    return EvalSettings(
        out=args.out, limit=args.limit, types=tuple(t.strip() for t in args.types.split(",") if t.strip()),
        ablations=not args.no_ablations, baseline=not args.no_baseline, use_llm=not args.no_llm,
        leave_one_out=args.leave_one_out,
        progress=args.progress, targets=parse_targets(args.targets), cache_dir=args.cache_dir,
        overrides=parse_overrides(args.overrides), keep_domain=args.keep_domain,
        command="lambdarag eval " + " ".join(shlex.quote(a) for a in sys.argv[1:] if a != "eval"),
        tune_split=args.tune_split, tune_seed=args.tune_seed,
        tuner=_tuner(args) if args.tune_split is not None else None,
    )


def _tuner(args: argparse.Namespace) -> Tuner:
    from lambdarag.tuning.evaluation import eval_tuner
    from lambdarag.tuning.run import TuneSettings

    return eval_tuner(TuneSettings(seed=args.tune_seed, use_llm=not args.no_llm))


def run(args: argparse.Namespace) -> EvalOutcome:
    """Dispatch to a data set or a domain evaluation."""
    from lambdarag.evaluation.evaluate import evaluate_dataset, evaluate_domain

    settings = settings_from(args)
    if args.dataset is not None:
        if args.domain or args.questions:
            raise InputError("--dataset cannot be combined with --domain/--questions", "pass one or the other")
        return evaluate_dataset(args.dataset, settings)
    if not args.domain or args.questions is None:
        raise InputError("nothing to evaluate", "pass --dataset DIR, or --domain NAME --questions FILE")
    if settings.overrides:
        raise InputError("--set applies to --dataset domains only", "edit the domain's instance.yml instead")
    from lambdarag.config.domain import open_domain

    return evaluate_domain(open_domain(args.domain, args.base_dir), args.questions, settings)


def closing_lines(outcome: EvalOutcome) -> list[str]:
    """Variant, headline metrics, then the targets and where the report is."""
    lines = ["variant                 " + " ".join(f"{m:>17}" for m in SHOWN)]
    for name, summary in outcome.summary["summary"].items():
        cells = " ".join(f"{'-' if summary.get(m) is None else format(summary[m], '.3f'):>17}" for m in SHOWN)
        lines.append(f"{name:<23} {cells}")
    for target in outcome.targets:
        status = "met" if target["met"] else "MISSED"
        lines.append(f"target {target['metric']} {target['rule']} = {target['target']}: {target['value']} {status}")
    lines.append(f"report: {outcome.files['markdown']}")
    return lines


def cmd_eval(args: argparse.Namespace) -> int:
    outcome = run(args)
    print("\n".join(closing_lines(outcome)))
    return 0 if outcome.targets_met else 1
