"""PNG plots of an eval report with matplotlib's Agg backend (no display needed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lambdarag.evaluation.runner import BASELINE, FULL, QuestionRecord

PLOT_FILES = {
    "recall_by_intent": "recall_by_intent.png",
    "recall_by_type": "recall_by_type.png",
    "ablation_deltas": "ablation_deltas.png",
    "latency": "latency.png",
}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only: never try to open a window on a server
    import matplotlib.pyplot as plt

    return plt


def grouped_bars(path: Path, groups: Mapping[str, Mapping[str, Any]], series: Sequence[str], metric: str,
                 title: str) -> None:
    """Bars of ``metric`` per group (x) for each series (full, baseline), with the group sizes under the labels."""
    plt = _pyplot()
    names = sorted({g for s in series for g in groups.get(s, {})})
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(names) + 2), 4))
    width = 0.8 / max(1, len(series))
    for i, name in enumerate(series):
        values = [(groups.get(name, {}).get(g) or {}).get(metric) or 0.0 for g in names]
        ax.bar([x + i * width for x in range(len(names))], values, width, label=name)
    sizes = [(groups.get(series[0], {}).get(g) or {}).get("n", 0) for g in names]
    ax.set_xticks([x + width * (len(series) - 1) / 2 for x in range(len(names))])
    ax.set_xticklabels([f"{g}\n(n={n})" for g, n in zip(names, sizes, strict=True)], fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(metric)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def delta_bars(path: Path, ablation: Sequence[Mapping[str, Any]], metrics: Sequence[str]) -> None:
    """Horizontal bars: each variant's delta against the full system for a few metrics."""
    plt = _pyplot()
    rows = [r for r in ablation if r["variant"] != FULL]
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.6 * len(rows) + 1.5)))
    height = 0.8 / max(1, len(metrics))
    for i, metric in enumerate(metrics):
        values = [r["delta"].get(metric) or 0.0 for r in rows]
        ax.barh([y + i * height for y in range(len(rows))], values, height, label=metric)
    ax.set_yticks([y + height * (len(metrics) - 1) / 2 for y in range(len(rows))])
    ax.set_yticklabels([r["variant"] for r in rows], fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("delta against the full system")
    ax.set_title("Ablations and baseline")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def latency_boxes(path: Path, records: Sequence[QuestionRecord]) -> None:
    """Box plot of the full system's per-stage milliseconds (log scale: stages differ by orders of magnitude)."""
    plt = _pyplot()
    stages: dict[str, list[float]] = {}
    for record in records:
        if record.variant == FULL:
            for stage, ms in record.timings.items():
                stages.setdefault(stage, []).append(max(ms, 0.01))
    names = list(stages)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.8 * len(names) + 2), 4))
    if names:
        ax.boxplot([stages[n] for n in names], showfliers=True)
        ax.set_xticks(range(1, len(names) + 1))
        ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
        ax.set_yscale("log")
    ax.set_ylabel("ms")
    ax.set_title("Latency per stage (full system)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_plots(folder: Path, summary: Mapping[str, Any], records: Sequence[QuestionRecord]) -> dict[str, str]:
    """All four plots into ``folder``; returns name → file name."""
    folder.mkdir(parents=True, exist_ok=True)
    series = [s for s in (FULL, BASELINE) if s in summary["summary"]]
    grouped_bars(folder / PLOT_FILES["recall_by_intent"], summary["by_intent"], series, "recall@5",
                 "recall@5 by intent")
    grouped_bars(folder / PLOT_FILES["recall_by_type"], summary["by_type"], series, "recall@5",
                 "recall@5 by question type")
    delta_bars(folder / PLOT_FILES["ablation_deltas"], summary["ablation"], ("recall@5", "mrr@10",
                                                                            "answer_in_context"))
    latency_boxes(folder / PLOT_FILES["latency"], records)
    return dict(PLOT_FILES)
