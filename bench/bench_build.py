"""Build throughput per channel: extract, BM25, entity graph and wiki on one corpus, timed step by step.

    .venv/bin/python bench/bench_build.py                 # DomainRAG passages (../shared), or the demo domain
    .venv/bin/python bench/bench_build.py --corpus FILE   # any corpus.jsonl

The dense-vector build is measured by bench/bench_vector.py (its cost is the embedding model's).
Prints a Markdown table; --write replaces the "## Build throughput per channel" section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lambdarag.build.steps import domain_chunks, run_extract
from lambdarag.channels.base import channel_module
from lambdarag.config.domain import Domain, init_domain

ROOT = Path(__file__).resolve().parent.parent
DOMAINRAG = ROOT.parent / "shared" / "evaldata" / "domainrag_ruc" / "corpus.jsonl"
SECTION = "## Build throughput per channel"
NO_VECTORS = "embedding: {backend: none}\nretrieval:\n  channels:\n    vector: {enabled: false}\n"


def prepare(base: Path, corpus: Path | None) -> tuple[Domain, str]:
    """A throw-away domain holding the corpus (JSONL) or, without one, the generated demo documents."""
    domain = init_domain("bench", base)
    domain.instance_file.write_text(NO_VECTORS, encoding="utf-8")
    if corpus is not None:
        shutil.copy(corpus, domain.raw_dir / "corpus.jsonl")
        return init_domain("bench", base, force=True), f"{corpus.parent.name}/{corpus.name}"
    from lambdarag.demo.generate import generate

    generate(domain.raw_dir)
    return domain, "the demo domain (../shared absent)"


def timed(label: str, func: object, rows: list[tuple[str, int, float]], items: int) -> None:
    start = time.perf_counter()
    func()  # type: ignore[operator]
    rows.append((label, items, time.perf_counter() - start))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DOMAINRAG if DOMAINRAG.exists() else None)
    parser.add_argument("--write", action="store_true", help="write the figures into BENCHMARKS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        domain, source = prepare(Path(tmp), args.corpus)
        rows: list[tuple[str, int, float]] = []
        start = time.perf_counter()
        run_extract(domain, progress=False)
        chunks = domain_chunks(domain)
        rows.append(("extract (JSONL/documents → chunks)", len(chunks), time.perf_counter() - start))
        for name in ("bm25", "graph", "wiki"):
            timed(f"{name} build", lambda n=name: channel_module(n).build(domain, chunks, progress=False), rows,
                  len(chunks))
    table = render(rows, source)
    print(table)
    if args.write:
        write_section(table)
    return 0


def render(rows: list[tuple[str, int, float]], source: str) -> str:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        SECTION, "",
        "`bench/bench_build.py` builds a throw-away domain from one corpus and times each step of the build",
        'path (the dense-vector build is under "Dense vectors": its cost is the embedding model).', "",
        "```sh", ".venv/bin/python bench/bench_build.py --write", "```", "",
        f"Corpus: {source}. Machine: {platform.machine()}, {os.cpu_count()} CPUs (load average {load}), "
        f"Python {platform.python_version()}.", "",
        "| step | chunks | seconds | chunks/s |", "|---|---:|---:|---:|",
    ]
    lines += [f"| {label} | {n} | {s:.2f} | {n / s:,.0f} |" for label, n, s in rows]
    return "\n".join(lines) + "\n"


def write_section(table: str) -> None:
    path = ROOT / "BENCHMARKS.md"
    text = path.read_text(encoding="utf-8")
    if SECTION in text:
        head, _, rest = text.partition(SECTION)
        tail = rest[rest.find("\n## ") + 1:] if "\n## " in rest else ""
        text = head + table + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + table
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
