"""Extraction benchmark: throughput (pages/s, MB/s) on the real documents of ../shared/evaldata.

    .venv/bin/python bench/bench_extract.py [--repeat 3] [--small-files 500]

Three measurements, printed as Markdown ready for BENCHMARKS.md:
1. each real document extracted and chunked in this process (best of --repeat runs): pages
   (PDF pages, slides, sheets), MB, chunks, seconds, pages/s, MB/s; totals per format;
2. `extract_domain` over all of them (worker processes, time limit, records written), cold and
   then warm (everything unchanged, skipped), plus a JSONL corpus import (DomainRAG passages);
3. the many-small-files case: --small-files generated Markdown files through `extract_domain`.
Skips with a message when ../shared/evaldata is absent.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lambdarag.ingest import IngestSettings, chunk_document, extract_domain, extract_file  # noqa: E402

EVALDATA = ROOT.parent / "shared" / "evaldata"
DOCUMENTS = EVALDATA / "documents"
MB = 1024 * 1024


def measure_file(path: Path, settings: IngestSettings, repeat: int) -> tuple[int, int, float, float]:
    """(pages, chunks, wall s, CPU s) of the fastest of ``repeat`` in-process extract + chunk runs."""
    best, cpu, pages, chunks = float("inf"), 0.0, 0, 0
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        docs = extract_file(path, path.stem, settings)
        chunks = sum(len(chunk_document(doc, settings)) for doc in docs)
        wall = time.perf_counter() - start
        if wall < best:
            best, cpu = wall, time.process_time() - start_cpu
        pages = sum(doc.pages for doc in docs)
    return pages, chunks, best, cpu


def per_file_table(files: list[Path], settings: IngestSettings, repeat: int) -> list[str]:
    lines = [
        "| file | pages | MB | chunks | wall s | CPU s | pages/s (CPU) | MB/s (CPU) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0.0, 0.0])
    for path in files:
        pages, chunks, wall, cpu = measure_file(path, settings, repeat)
        size = path.stat().st_size / MB
        lines.append(_row(str(path.relative_to(DOCUMENTS)), pages, size, chunks, wall, cpu))
        for key in (path.suffix[1:], "all"):
            for i, value in enumerate((pages, size, chunks, wall, cpu)):
                totals[key][i] += value
    for key, (pages, size, chunks, wall, cpu) in sorted(totals.items(), key=lambda kv: kv[0] == "all"):
        lines.append(_row(f"**{key} total**", int(pages), size, int(chunks), wall, cpu))
    return lines


def _row(name: str, pages: int, size: float, chunks: int, wall: float, cpu: float) -> str:
    cpu = max(cpu, 1e-6)
    rate = f"{pages / cpu:.0f}" if pages else "–"  # DOCX has no pages to count
    return f"| {name} | {pages or '–'} | {size:.2f} | {chunks} | {wall:.3f} | {cpu:.3f} | {rate} | {size / cpu:.2f} |"


def domain_runs(files: list[Path], settings: IngestSettings) -> list[str]:
    """extract_domain over the real documents (cold, warm) and over a JSONL corpus."""
    lines = ["| run | files | pages | MB | chunks | s | pages/s | MB/s |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw"
        for path in files:
            target = raw / path.relative_to(DOCUMENTS)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(path)
        cold = extract_domain(raw, Path(tmp) / "processed", settings, progress=False)
        mb = cold.bytes / MB
        lines.append(f"| real documents, cold | {len(files)} | {cold.pages} | {mb:.2f} | {cold.chunks} | "
                     f"{cold.seconds:.2f} | {cold.pages / cold.seconds:.0f} | {mb / cold.seconds:.2f} |")
        warm = extract_domain(raw, Path(tmp) / "processed", settings, progress=False)
        lines.append(f"| real documents, warm (all {len(warm.skipped)} unchanged, skipped) | {len(files)} | – | – | "
                     f"{warm.chunks} | {warm.seconds:.2f} | – | – |")
    corpus = EVALDATA / "domainrag_ruc" / "corpus.jsonl"
    if corpus.is_file():
        with tempfile.TemporaryDirectory() as tmp:
            raw = Path(tmp) / "raw"
            raw.mkdir()
            (raw / "corpus.jsonl").symlink_to(corpus)
            report = extract_domain(raw, Path(tmp) / "processed", settings, progress=False)
            mb = report.bytes / MB
            lines.append(f"| JSONL corpus (domainrag_ruc, {report.documents} documents) | 1 | – | {mb:.2f} | "
                         f"{report.chunks} | {report.seconds:.2f} | {report.documents / report.seconds:.0f} docs/s "
                         f"| {mb / report.seconds:.2f} |")
    return lines


def small_files_run(count: int, settings: IngestSettings) -> list[str]:
    """Many small files: the per-file cost of the worker round trip, hashing and records."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw"
        raw.mkdir()
        for n in range(count):
            (raw / f"note{n:05d}.md").write_text(f"# 通知{n}\n第{n}号通知：2024年3月{n % 28 + 1}日起执行。\n",
                                                 encoding="utf-8")
        cold = extract_domain(raw, Path(tmp) / "processed", settings, progress=False)
        warm = extract_domain(raw, Path(tmp) / "processed", settings, progress=False)
    return [
        f"- {count} small Markdown files: cold {cold.seconds:.2f} s ({count / cold.seconds:.0f} files/s), "
        f"warm {warm.seconds:.2f} s ({count / warm.seconds:.0f} files/s, all skipped)"
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="in-process runs per file; the best counts")
    parser.add_argument("--small-files", type=int, default=500, help="generated files for the small-files run")
    args = parser.parse_args()
    if not DOCUMENTS.is_dir():
        print(f"skipped: the real documents are not available ({DOCUMENTS})")
        return 0
    settings = IngestSettings(follow_symlinks=True)  # raw/ links to the real documents
    files = sorted(p for p in DOCUMENTS.rglob("*") if p.suffix.lower() in {".pdf", ".docx", ".pptx", ".xlsx"})
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Machine: {platform.machine()}, {os.cpu_count()} CPUs (load average at start {load}), "
          f"Python {platform.python_version()}; default `ingest:` settings; command: "
          f"`.venv/bin/python bench/bench_extract.py --repeat {args.repeat} --small-files {args.small_files}`\n")
    print("In-process extraction + chunking per document (fastest of the runs; CPU time is the stable figure "
          "on a shared machine, wall time includes waiting for a CPU):\n")
    print("\n".join(per_file_table(files, settings, args.repeat)))
    print("\n`extract_domain` (worker processes with the per-file time limit, records and chunks written):\n")
    print("\n".join(domain_runs(files, settings)))
    print()
    print("\n".join(small_files_run(args.small_files, settings)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
