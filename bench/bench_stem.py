"""English stemmer benchmark: PyStemmer (Snowball compiled to C) against snowballstemmer (pure Python).

    .venv/bin/python bench/bench_stem.py [--repeat 3] [--snowball-path DIR]

Words are the alphabetic runs of the normalised FinanceBench filings (../shared/evaldata/financebench_dev);
the reference is snowballstemmer's pure-Python English stemmer, measured in the same run (its package
lazily switches to PyStemmer when that is importable, so the pure-Python class is imported directly).
The output is Markdown, ready for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lambdarag.text.tokenizer import normalize  # noqa: E402

EVALDATA = ROOT.parent / "shared" / "evaldata" / "financebench_dev" / "corpus.jsonl"
WORD_RE = re.compile(r"[a-z]+")
clock = time.process_time  # CPU time: on a shared machine wall time mostly measures waiting for a CPU

Stem = Callable[[Sequence[str]], list[str]]


def load_words(path: Path) -> list[str]:
    """Every alphabetic run of the normalised corpus text, in order."""
    words: list[str] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            words.extend(WORD_RE.findall(normalize(json.loads(line)["text"])))
    return words


def stemmers(snowball_path: str | None) -> dict[str, Stem]:
    """The batch stem functions to compare, by name; the pure-Python one first (the reference)."""
    if snowball_path:
        sys.path.insert(0, snowball_path)
    import Stemmer
    from snowballstemmer.english_stemmer import EnglishStemmer

    pure, fast = EnglishStemmer(), Stemmer.Stemmer("english")
    return {
        "snowballstemmer (pure Python)": pure.stemWords,
        "PyStemmer stemWords (batch)": fast.stemWords,
        "PyStemmer stemWord (one call a word)": lambda ws: [fast.stemWord(w) for w in ws],
    }


def best_time(stem: Stem, words: Sequence[str], repeat: int) -> tuple[float, list[str]]:
    """Fastest CPU time of ``repeat`` runs and the stems of the last."""
    times, out = [], []
    for _ in range(repeat):
        start = clock()
        out = stem(words)
        times.append(clock() - start)
    return min(times), out


def main() -> None:
    """Stem the corpus words with each stemmer (all words, then the distinct ones) and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--snowball-path", help="folder holding snowballstemmer when it is not installed")
    args = parser.parse_args()
    if not EVALDATA.exists():
        print(f"skipped: {EVALDATA} is absent")
        return
    words = load_words(EVALDATA)
    distinct = sorted(set(words))
    funcs = stemmers(args.snowball_path)
    print(f"Machine: {os.uname().machine}, {os.cpu_count()} CPUs (load average {os.getloadavg()[0]:.1f}), "
          f"Python {sys.version.split()[0]}; {len(words):,} words, {len(distinct):,} distinct\n")
    print("| stemmer | words | CPU s | words/s | × reference | stems identical to reference |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, sample in (("all", words), ("distinct", distinct)):
        ref_time, ref_out = 0.0, list[str]()
        for name, stem in funcs.items():
            seconds, out = best_time(stem, sample, args.repeat)
            if not ref_out:
                ref_time, ref_out = seconds, out
            same = sum(a == b for a, b in zip(out, ref_out, strict=True))
            print(f"| {name} | {label} {len(sample):,} | {seconds:.3f} | {len(sample) / seconds:,.0f} | "
                  f"{ref_time / seconds:.1f} | {same:,}/{len(sample):,} |")


if __name__ == "__main__":
    main()
