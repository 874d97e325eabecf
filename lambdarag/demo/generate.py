"""Write the demo domain's raw documents: `python scripts/make_demo.py --out DIR`."""

from __future__ import annotations

import argparse
from pathlib import Path

from .content import DOCUMENTS
from .writers import write_document

QUESTIONS_FILE = Path(__file__).with_name("questions.jsonl")


def generate(raw_dir: Path) -> list[Path]:
    """Write every demo document into `raw_dir` (created if missing) and return the paths written."""
    raw_dir.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for doc in DOCUMENTS:
        path = raw_dir / doc.file_name
        write_document(doc, path)
        paths.append(path)
    return paths


def _default_raw_dir() -> Path:
    # Imported here so that generating into an explicit folder never needs the project config.
    from lambdarag.config.domain import domain_root

    return domain_root("demo") / "raw"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate the demo domain's documents (江城大学财务处).")
    parser.add_argument("--out", type=Path, help="folder to write into (default: the demo domain's raw/)")
    args = parser.parse_args(argv)
    out: Path = args.out if args.out is not None else _default_raw_dir()
    paths = generate(out)
    for path in paths:
        print(path)
    print(f"{len(paths)} files written to {out}")
    return 0
