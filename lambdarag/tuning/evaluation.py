"""The tuner as `lambdarag eval --tune-split` runs it: lambdarag tune on labelled questions, applied in memory."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from lambdarag.evaluation.dataset import EvalQuestion
from lambdarag.evaluation.evaluate import Tuner
from lambdarag.retrieval.knowledge import KnowledgeBase
from lambdarag.tuning.run import TuneSettings, tune_knowledge


def eval_tuner(settings: TuneSettings) -> Tuner:
    """A Tuner: the weights and the learned stage tuned on the questions (no feedback logs), as --apply would
    leave the domain, and a report of what was found."""

    def run(kb: KnowledgeBase, questions: Sequence[EvalQuestion]) -> tuple[KnowledgeBase, dict[str, Any]]:
        outcome = tune_knowledge(kb, questions, settings, datetime.now().isoformat(timespec="seconds"),
                                 feedback=False)
        assert outcome.tuned is not None
        report: dict[str, Any] = {"notes": outcome.notes}
        if outcome.weights is not None:
            report["weights"] = {
                "changed": {t.intent: {"before": t.before, "after": t.after, "heldout": [round(t.test_before, 4),
                                                                                      round(t.test_after, 4)]}
                            for t in outcome.weights.changes},
                "kept": {t.intent: [round(t.test_before, 4), round(t.test_after, 4)] for t in outcome.weights.intents
                         if not t.improved},
                "thin": dict(outcome.weights.thin),
                "rrf_k": [outcome.weights.k_before, outcome.weights.k_after if outcome.weights.k_improved
                          else outcome.weights.k_before]}
        learned = outcome.learned
        if learned is not None:
            report["learned"] = {"used": learned.improved, "samples": learned.samples, "skipped": learned.skipped,
                                 "c": learned.c, "heldout": [round(learned.before, 4), round(learned.after, 4)],
                                 "per_intent": {i: [n, round(b, 4), round(a, 4)]
                                                for i, (n, b, a) in learned.per_intent.items()}}
        return outcome.tuned, report

    return run
