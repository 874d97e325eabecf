"""One evaluation from start to report: a domain (or a data set's throw-away domain) and a question set."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdarag.evaluation.baseline import NaiveBM25
from lambdarag.evaluation.dataset import EvalQuestion, load_corpus, load_questions, src_doc_map
from lambdarag.evaluation.report import default_out_dir, write_report
from lambdarag.evaluation.runner import FULL, Levels, QuestionRecord, Runner, Variant, default_variants, run_all
from lambdarag.evaluation.summary import summarize
from lambdarag.evaluation.targets import Target, check_targets
from lambdarag.evaluation.workspace import check_dataset, dataset_domain, dataset_name
from lambdarag.ingest.document import locator_pages

if TYPE_CHECKING:
    from lambdarag.config.domain import Domain
    from lambdarag.retrieval.knowledge import KnowledgeBase

TUNED = "tuned"  # the variant tuned on the --tune-split questions
# tunes a knowledge base on labelled questions: the tuned knowledge base (in memory) and what the tuning found
Tuner = Callable[["KnowledgeBase", Sequence[EvalQuestion]], tuple["KnowledgeBase", dict[str, Any]]]


@dataclass(frozen=True)
class EvalSettings:
    """What to run and where to write it."""

    out: Path | None = None  # report folder; None = workspace/reports/<name>-<timestamp>/
    limit: int | None = None  # first N questions only
    types: tuple[str, ...] = ()  # only these question types
    ablations: bool = True
    leave_one_out: bool = False  # also every channel but one
    baseline: bool = True
    use_llm: bool = True
    progress: bool | None = None  # None: a bar on a terminal, a line per tenth otherwise
    targets: Sequence[Target] = ()  # what the full system must reach (evaluation.targets)
    cache_dir: Path | None = None  # persistent embedding cache for --dataset
    overrides: Mapping[str, Any] = field(default_factory=dict)  # instance.yml overrides for the throw-away domain
    keep_domain: Path | None = None  # build the throw-away domain here and keep it
    command: str = ""  # the command line, recorded in the report
    tune_split: float | None = None  # tune on this seeded fraction of the questions, evaluate on the rest
    tune_seed: int = 0
    tuner: Tuner | None = None  # what tunes (lambdarag.tuning.evaluation.eval_tuner); needed with tune_split


@dataclass
class EvalOutcome:
    """The report's aggregates, every record, the files written and the targets checked."""

    summary: dict[str, Any]
    records: list[QuestionRecord]
    files: dict[str, Path]
    targets: list[dict[str, Any]]

    @property
    def targets_met(self) -> bool:
        return all(t["met"] for t in self.targets)


def documents_from_chunks(kb: KnowledgeBase) -> list[dict[str, str]]:
    """Whole documents rebuilt from a domain's chunks (for the baseline when no corpus.jsonl exists)."""
    docs: dict[str, dict[str, str]] = {}
    for chunk in kb.chunks.values():
        doc = docs.setdefault(chunk.doc_id, {"doc_id": chunk.doc_id, "title": chunk.title, "text": ""})
        doc["text"] = f"{doc['text']}\n{chunk.text}" if doc["text"] else chunk.text
    return list(docs.values())


def evaluate_kb(kb: KnowledgeBase, questions: Sequence[EvalQuestion], settings: EvalSettings, name: str,
                corpus: Sequence[dict[str, Any]] | None = None,
                meta: Mapping[str, Any] | None = None) -> EvalOutcome:
    """Run every variant over the loaded domain and write the report."""
    started = datetime.now().isoformat(timespec="seconds")
    docs: list[dict[str, Any]] = list(corpus) if corpus is not None else list(documents_from_chunks(kb))
    baseline = NaiveBM25(docs) if settings.baseline else None
    doc_text = {str(d["doc_id"]): f"{d.get('title') or ''}\n{d.get('text') or ''}" for d in docs}
    levels = Levels(kb.doc_of, src_doc_map(docs), doc_text,
                    lambda cid: locator_pages(kb.chunks[cid].locator) if cid in kb.chunks else ())
    channels = sorted(kb.channels)
    variants = default_variants(channels, settings.ablations, settings.baseline, settings.use_llm,
                                settings.leave_one_out, kb.config.query.entity_expansion,
                                kb.config.corrective.max_retries >= 1, kb.sentences is not None)
    tune_on: list[EvalQuestion] = []
    if settings.tune_split is not None:
        tune_on, questions = split_questions(questions, settings.tune_split, settings.tune_seed)
    records, seconds = run_all(Runner(kb, baseline, levels), questions, variants, settings.progress)
    tuning: dict[str, Any] = {}
    if tune_on:
        tuned, more, extra_seconds, tuning = run_tuned(kb, tune_on, questions, variants, levels, settings)
        records, seconds, variants = records + more, seconds + extra_seconds, [*variants, tuned]
    summary = summarize(records)
    targets = check_targets(summary["summary"], settings.targets)
    info = {
        "name": name, "command": settings.command, "code": code_version(), "questions": len(questions),
        "started": started,
        "seconds": round(seconds, 1), "domain": kb.domain.name, "channels": channels,
        "channel_errors": dict(kb.channel_errors),
        "embedding": f"{kb.config.embedding.backend}/{kb.config.embedding.model}/{kb.config.embedding.dim}",
        "llm": _llm_label(kb, settings.use_llm),
        "ranking_depth": f"fused top-{kb.config.retrieval.final_top_k} chunks (the evidence the system keeps)",
        "context_chars": kb.config.context.max_chars,
        "variants": {v.name: v.description for v in variants},
        **({"tuning": tuning} if tuning else {}),
        **(meta or {}),
    }
    out = settings.out or default_out_dir(name)
    files = write_report(out, info, summary, records, targets)
    return EvalOutcome(summary, records, files, targets)


def run_tuned(kb: KnowledgeBase, tune_on: Sequence[EvalQuestion], questions: Sequence[EvalQuestion],
              variants: Sequence[Variant], levels: Levels,
              settings: EvalSettings) -> tuple[Variant, list[QuestionRecord], float, dict[str, Any]]:
    """settings.tuner on ``tune_on``, then the full system's options on the tuned knowledge base over
    ``questions``: the variant, its records, seconds, and what the tuning found."""
    assert settings.tuner is not None, "tune_split needs a tuner"
    tuned_kb, found = settings.tuner(kb, tune_on)
    full = next(v for v in variants if v.name == FULL)
    tuned = Variant(TUNED, f"full system tuned on {len(tune_on)} other questions (lambdarag tune, applied)",
                    full.options)
    records, seconds = run_all(Runner(tuned_kb, None, levels), questions, [tuned], settings.progress)
    tuning = {"questions": len(tune_on), "evaluated": len(questions), "seed": settings.tune_seed,
              "fraction": settings.tune_split, **found}
    return tuned, records, seconds, tuning


def split_questions(questions: Sequence[EvalQuestion], fraction: float,
                    seed: int) -> tuple[list[EvalQuestion], list[EvalQuestion]]:
    """A seeded split: ``fraction`` of the questions (by qid, shuffled by seed) to tune on, the rest (in their
    order) to evaluate; at least one on each side."""
    ordered = sorted(questions, key=lambda q: q.qid)
    random.Random(seed).shuffle(ordered)
    n = min(len(ordered) - 1, max(1, round(len(ordered) * fraction)))
    tune_ids = {q.qid for q in ordered[:n]}
    return ordered[:n], [q for q in questions if q.qid not in tune_ids]


def code_version() -> str:
    """The checkout's commit (with "+changes" when the tree differs from it), for the report; "" outside git."""
    import subprocess

    from lambdarag.config.load import PROJECT_ROOT

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT_ROOT, capture_output=True,
                                text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "lambdarag"],
                               cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return f"{commit}+changes" if dirty else commit


def _llm_label(kb: KnowledgeBase, use_llm: bool) -> str:
    if kb.llm is None or not use_llm:
        return "none (embedded default: rule intent, extractive answers)"
    return f"{kb.config.llm.model} at {kb.config.llm.base_url}"


def evaluate_domain(domain: Domain, questions_file: Path, settings: EvalSettings) -> EvalOutcome:
    """Evaluate an existing, built domain on a questions.jsonl file."""
    from lambdarag.retrieval.knowledge import KnowledgeBase

    questions = load_questions(questions_file, settings.limit, settings.types)
    kb = KnowledgeBase.load(domain)
    meta = {"questions_file": str(questions_file)}
    return evaluate_kb(kb, questions, settings, f"{domain.name}-{questions_file.stem}", None, meta)


def evaluate_dataset(dataset_dir: Path, settings: EvalSettings) -> EvalOutcome:
    """Build a throw-away domain from the data set's corpus.jsonl, then evaluate its questions.jsonl."""
    from lambdarag.retrieval.knowledge import KnowledgeBase

    corpus_file, questions_file = check_dataset(dataset_dir)
    questions = load_questions(questions_file, settings.limit, settings.types)
    corpus = load_corpus(corpus_file)
    start = time.perf_counter()
    with dataset_domain(dataset_dir, settings.cache_dir, settings.overrides, settings.progress,
                        settings.keep_domain) as domain:
        build_seconds = time.perf_counter() - start
        print(f"[eval] domain built in {build_seconds:.1f} s; evaluating {len(questions)} questions",
              file=sys.stderr)
        kb = KnowledgeBase.load(domain)
        meta = {"dataset": str(dataset_dir), "documents": len(corpus), "build_seconds": round(build_seconds, 1)}
        return evaluate_kb(kb, questions, settings, dataset_name(dataset_dir), corpus, meta)
