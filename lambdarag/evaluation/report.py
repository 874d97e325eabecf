"""Eval reports: report.json (aggregates), questions.jsonl (every record), report.md and PNG plots in one folder."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from lambdarag.config.load import PROJECT_ROOT
from lambdarag.evaluation.plots import write_plots
from lambdarag.evaluation.runner import BASELINE, FULL, QuestionRecord
from lambdarag.evaluation.summary import HEADLINE, LEAD, misses

REPORT_JSON = "report.json"
REPORT_MD = "report.md"
QUESTIONS_JSONL = "questions.jsonl"
TABLE_METRICS = ("recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10", "answer_in_context", "aic_checkable",
                 "extractive_hit", "not_found", "not_found_far", "gate_triggered")
SHORT = {"answer_in_context": "AIC", "aic_checkable": "AIC¹", "answer_in_gold": "AIC ceiling²",
         "extractive_hit": "ext-hit", "first_sentence_hit": "1st-sent", "not_found": "not-found",
         "not_found_far": "far³", "gate_triggered": "gate"}
FOOTNOTES = ("¹ AIC over the questions whose gold documents contain a gold answer verbatim. "
             "² the share of such questions: the highest AIC any system can reach on this set. "
             "³ answered not found by the dense reading (keywords matching weakly, the question no nearer the domain "
             "than everyday questions), not by the keyword floor.")


def default_out_dir(name: str) -> Path:
    """workspace/reports/<name>-<timestamp>/."""
    return PROJECT_ROOT / "workspace" / "reports" / f"{name}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"


def write_report(out: Path, meta: Mapping[str, Any], summary: Mapping[str, Any], records: Sequence[QuestionRecord],
                 targets: Sequence[Mapping[str, Any]] = ()) -> dict[str, Path]:
    """Write every report file into ``out`` and return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    plots = write_plots(out, summary, records)
    data = {"meta": dict(meta), **summary, "targets": list(targets), "plots": plots}
    (out / REPORT_JSON).write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    with open(out / QUESTIONS_JSONL, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
    (out / REPORT_MD).write_text(render_markdown(data, records), encoding="utf-8")
    return {"json": out / REPORT_JSON, "markdown": out / REPORT_MD, "questions": out / QUESTIONS_JSONL,
            **{name: out / file for name, file in plots.items()}}


def fmt(value: Any, signed: bool = False) -> str:
    """A metric for a table cell: three decimals, '–' when undefined."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:+.3f}" if signed else f"{value:.3f}"
    return str(value)


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _metric_header(metrics: Sequence[str]) -> list[str]:
    return [SHORT.get(m, m) for m in metrics]


def ablation_section(ablation: Sequence[Mapping[str, Any]], descriptions: Mapping[str, str]) -> list[str]:
    """Every variant's metrics, with the delta against the full system under each value."""
    rows = []
    for row in ablation:
        cells = [f"**{row['variant']}**" if row["variant"] == FULL else row["variant"]]
        for metric in TABLE_METRICS:
            value = fmt(row["metrics"].get(metric))
            delta = row["delta"].get(metric)
            cells.append(value if row["variant"] == FULL or delta is None else f"{value} ({fmt(delta, True)})")
        cells.append(descriptions.get(row["variant"], ""))
        rows.append(cells)
    return ["## Full system, baseline and ablations", "",
            "Each cell: the variant's value (its delta against the full system).", "",
            *table(["variant", *_metric_header(TABLE_METRICS), "what"], rows), ""]


PAGE_COLUMNS_NOTE = (" Where the questions name their evidence pages: cited page, the answer's first citation is a "
                     "chunk on one; lead page, the first evidence chunk (the lead's first sentence) is.")


def answer_section(summary: Mapping[str, Any], by_intent: Mapping[str, Mapping[str, Any]],
                   by_type: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What users read: ext-hit, first-sentence hit and length, against the lead reference, by intent and type."""
    columns = {"extractive_hit": "ext-hit", "first_sentence_hit": "first sentence", "lead_hit": "lead (reference)",
               "answer_page_hit": "cited page", "lead_page_hit": "lead page", "answer_chars_p50": "chars p50",
               "answer_chars_p95": "chars p95"}
    if summary.get("answer_page_hit") is None:  # no question names its evidence pages
        columns = {k: v for k, v in columns.items() if k not in ("answer_page_hit", "lead_page_hit")}
    metrics, header = tuple(columns), ["group", "n", *columns.values()]
    rows = [["**all**", str(summary.get("n", 0)), *(fmt(summary.get(m)) for m in metrics)]]
    for kind, groups in (("intent", by_intent), ("type", by_type)):
        rows += [[f"{kind}: {name}", str(g.get("n", 0)), *(fmt(g.get(m)) for m in metrics)]
                 for name, g in groups.items()]
    return ["## The extractive answer", "",
            "ext-hit: the answer as shown (within its budget, citations dropped) holds a gold alternative; first "
            "sentence: its first sentence does; lead: the first evidence sentences up to the same budget, taken "
            "from the same context in the same run (what an answer blind to the question would show)."
            + (PAGE_COLUMNS_NOTE if "answer_page_hit" in columns else ""), "",
            *table(header, rows), ""]


def breakdown_section(title: str, groups: Mapping[str, Mapping[str, Any]],
                      baseline: Mapping[str, Mapping[str, Any]] | None) -> list[str]:
    """Full-system metrics per group, with the baseline's recall@5 and AIC alongside."""
    metrics = ("recall@1", "recall@5", "recall@10", "mrr@10", "answer_in_context", "answer_in_gold",
               "aic_checkable", "extractive_hit", "not_found")
    header = ["group", "n", *_metric_header(metrics)]
    if baseline is not None:
        header += ["baseline R@5", "baseline AIC"]
    rows = []
    for name, summary in groups.items():
        cells = [name, str(summary.get("n", 0)), *(fmt(summary.get(m)) for m in metrics)]
        if baseline is not None:
            other = baseline.get(name, {})
            cells += [fmt(other.get("recall@5")), fmt(other.get("answer_in_context"))]
        rows.append(cells)
    return [f"## {title}", "", *table(header, rows), ""]


def latency_section(latency: Mapping[str, Mapping[str, float]]) -> list[str]:
    """p50 / p95 / mean milliseconds per stage of the full system."""
    rows = [[stage, fmt(v["p50"]), fmt(v["p95"]), fmt(v["mean"]), str(v["n"])] for stage, v in latency.items()]
    return ["## Latency of the full system (ms)", "", *table(["stage", "p50", "p95", "mean", "n"], rows), ""]


def targets_section(targets: Sequence[Mapping[str, Any]]) -> list[str]:
    """Targets with the measured value and met / MISSED."""
    if not targets:
        return []
    rows = [[t["metric"], f"{t['rule']} = {fmt(t['target'])}", fmt(t["value"]),
             "met" if t["met"] else "**MISSED**"] for t in targets]
    return ["## Targets (full system)", "", *table(["metric", "target", "measured", ""], rows), ""]


def source_level_section(summaries: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Recall at the level of the corpus's source documents (src_doc_id), when the corpus has them."""
    metrics = ("src_recall@1", "src_recall@5", "src_recall@10", "src_mrr@10")
    rows = [[name, *(fmt(s.get(m)) for m in metrics)] for name, s in summaries.items()
            if s.get("src_recall@5") is not None]
    if not rows:
        return []
    return ["## Source-document level", "",
            "Passages mapped to the corpus's src_doc_id; a neighbouring window of the gold passage counts.", "",
            *table(["variant", *metrics], rows), ""]


def page_level_section(summaries: Mapping[str, Mapping[str, Any]], types: Mapping[str, Mapping[str, Any]],
                       records: Sequence[QuestionRecord]) -> list[str]:
    """Page recall@5 beside document recall@5, per variant and per question type, when questions carry gold_pages."""
    paged = sum(1 for r in records if r.variant == FULL and r.metrics.get("page_recall@5") is not None)
    if not paged:
        return []
    metrics = ("recall@5", "page_recall@5")
    rows = [[name, *(fmt(s.get(m)) for m in metrics)] for name, s in summaries.items()]
    type_rows = [[name, str(s.get("n", 0)), *(fmt(s.get(m)) for m in metrics)] for name, s in types.items()]
    return ["## Page level", "",
            f"{paged} questions carry gold_pages: page recall@5 is the share of their gold (document, page) pairs "
            "among the first 5 distinct pages of the ranked chunks (a chunk's locator gives its pages). "
            "The baseline ranks whole documents and has no pages (–).", "",
            *table(["variant", *metrics], rows), "",
            "Full system by question type:", "",
            *table(["type", "n", *metrics], type_rows), ""]


def misses_section(records: Sequence[QuestionRecord]) -> list[str]:
    """The first full-system questions with recall@5 = 0: where retrieval fails."""
    failing = misses([r for r in records if r.variant == FULL])
    if not failing:
        return []
    rows = [[r.qid, r.type or "–", r.intent, r.condensed[:60].replace("|", "/"), ", ".join(r.ranked[:3])]
            for r in failing]
    return ["## First questions the full system misses (recall@5 = 0)", "",
            *table(["qid", "type", "intent", "question as searched", "top documents"], rows), ""]


def meta_section(meta: Mapping[str, Any]) -> list[str]:
    """What was measured, on what, with which command."""
    lines = [f"# Evaluation report: {meta.get('name', '')}", ""]
    for key in ("command", "code", "dataset", "domain", "questions", "started", "seconds", "embedding", "llm",
                "channels", "channel_errors", "ranking_depth", "notes"):
        if meta.get(key) not in (None, "", [], {}):
            lines.append(f"- **{key}**: {meta[key]}")
    return [*lines, ""]


def render_markdown(data: Mapping[str, Any], records: Sequence[QuestionRecord]) -> str:
    """The whole Markdown report."""
    descriptions = {**data["meta"].get("variants", {}), LEAD: "first evidence sentences up to the answer budget"}
    baseline_types = data["by_type"].get(BASELINE)
    baseline_intents = data["by_intent"].get(BASELINE)
    lines = [
        *meta_section(data["meta"]),
        *targets_section(data.get("targets", [])),
        *ablation_section(data["ablation"], descriptions),
        *source_level_section(data["summary"]),
        *page_level_section(data["summary"], data["by_type"].get(FULL, {}), records),
        *breakdown_section("Full system by question type", data["by_type"].get(FULL, {}), baseline_types),
        *breakdown_section("Full system by intent", data["by_intent"].get(FULL, {}), baseline_intents),
        *answer_section(data["summary"].get(FULL, {}), data["by_intent"].get(FULL, {}),
                        data["by_type"].get(FULL, {})),
        *latency_section(data["latency_ms"].get(FULL, {})),
        "## Plots", "",
        *(f"![{name}]({file})" for name, file in data.get("plots", {}).items()), "",
        *misses_section(records),
        FOOTNOTES,
        "",
        "Metrics are document-level: chunks map to their doc_id and a document counts at its first rank. "
        "AIC (answer in context): every part of some gold alternative occurs in the packed context. "
        "ext-hit: the extractive answer itself contains a gold alternative. "
        f"Headline metrics: {', '.join(HEADLINE)}.",
        "",
    ]
    return "\n".join(lines)
