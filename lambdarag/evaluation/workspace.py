"""A throw-away domain built from a data set's corpus.jsonl, with a persistent embedding cache.

Embedding is the slow step (a few passages a second with the local model), so the vector channel's
cache (index/.vector-cache/) is copied in from ``cache_dir`` before the build and every record the
build added is merged back afterwards. Copying instead of linking keeps the persistent cache whole
even when the vector build compacts the domain's copy for a smaller corpus.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.config.load import PROJECT_ROOT
from lambdarag.errors import InputError

CORPUS_FILE = "corpus.jsonl"
QUESTIONS_FILE = "questions.jsonl"
DEFAULT_CACHE_ROOT = PROJECT_ROOT / "workspace" / "eval-cache"


def dataset_name(dataset_dir: Path) -> str:
    """A valid domain name from the data set's folder name ("cmrc2018_dev" stays, "My Set" → "my-set")."""
    name = re.sub(r"[^a-z0-9_-]+", "-", dataset_dir.resolve().name.lower()).strip("-_")
    return (name or "dataset")[:64]


def check_dataset(dataset_dir: Path) -> tuple[Path, Path]:
    """corpus.jsonl and questions.jsonl of a data set folder, or an InputError naming what is missing."""
    corpus, questions = dataset_dir / CORPUS_FILE, dataset_dir / QUESTIONS_FILE
    missing = [p.name for p in (corpus, questions) if not p.is_file()]
    if missing:
        raise InputError(f"{dataset_dir} lacks {', '.join(missing)}",
                         "a data set folder holds corpus.jsonl and questions.jsonl")
    return corpus, questions


def default_cache_dir(dataset_dir: Path) -> Path:
    """workspace/eval-cache/<data set name>/ (git-ignored)."""
    return DEFAULT_CACHE_ROOT / dataset_name(dataset_dir)


def vector_cache_dir(domain: Domain) -> Path:
    """Where the vector channel keeps its embedding cache for this domain."""
    from lambdarag.channels.vector import CACHE_DIR

    return domain.index_dir / CACHE_DIR


def copy_cache_in(cache_dir: Path, domain: Domain) -> None:
    """Seed the domain's vector cache with the persistent one (nothing to do on a first run)."""
    source = cache_dir / "vector-cache"
    if source.is_dir():
        shutil.copytree(source, vector_cache_dir(domain), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("lock"))


def merge_cache_out(domain: Domain, cache_dir: Path) -> int:
    """Append the records the build embedded to the persistent cache; returns how many were added."""
    source = vector_cache_dir(domain)
    if not source.is_dir():
        return 0
    added = 0
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        added += _merge_folder(folder, cache_dir / "vector-cache" / folder.name)
    return added


def _merge_folder(source: Path, target: Path) -> int:
    from lambdarag.channels.vector import EmbeddingCache

    dim = _folder_dim(source.name)
    if dim is None:
        return 0
    with EmbeddingCache(source, dim).opened() as new, EmbeddingCache(target, dim).opened() as old:
        keys = [k for k in new.rows if k not in old.rows]
        if keys:
            records = new.records()
            rows = [new.rows[k] for k in keys]
            old.append(keys, records["vec"][rows])
        return len(keys)


def _folder_dim(name: str) -> int | None:
    """The dimension in a cache folder name "<backend>-<model>-<dim>-<tag>", the sentence vectors' cache with its
    "-sentences" after it (channels/sentence_vectors.py)."""
    from lambdarag.channels.sentence_vectors import NAME as SENTENCES

    m = re.search(rf"-(\d+)-[^-]+(?:-{SENTENCES})?$", name)
    return int(m.group(1)) if m else None


def write_instance(domain: Domain, overrides: Mapping[str, Any]) -> Domain:
    """Merge ``overrides`` into the domain's instance.yml and reopen it with the new config."""
    if overrides:
        from lambdarag.config.load import merge

        text = domain.instance_file.read_text(encoding="utf-8") if domain.instance_file.exists() else ""
        merged = merge(yaml.safe_load(text) or {}, overrides)
        domain.instance_file.write_text(yaml.safe_dump(merged, allow_unicode=True, sort_keys=False), "utf-8")
    return open_domain(domain.name, domain.root.parent)


@contextmanager
def dataset_domain(dataset_dir: Path, cache_dir: Path | None = None, overrides: Mapping[str, Any] | None = None,
                   progress: bool | None = None, keep: Path | None = None) -> Iterator[Domain]:
    """Build a domain from ``dataset_dir``/corpus.jsonl in a temporary workspace and yield it.

    ``overrides`` is merged into the domain's instance.yml (e.g. {"embedding": {"backend": "none"}});
    ``keep`` builds in that folder instead of a temporary one and leaves it in place.
    """
    corpus, _ = check_dataset(dataset_dir)
    cache = cache_dir or default_cache_dir(dataset_dir)
    with _workspace(keep) as base:
        domain = write_instance(init_domain(dataset_name(dataset_dir), base, force=True), overrides or {})
        shutil.copyfile(corpus, domain.raw_dir / CORPUS_FILE)
        copy_cache_in(cache, domain)
        try:
            _build(domain, progress)
        finally:
            added = merge_cache_out(domain, cache)
            if added:
                print(f"[eval] {added} new embeddings saved to {cache}", file=sys.stderr)
        yield domain


@contextmanager
def _workspace(keep: Path | None) -> Iterator[Path]:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep.resolve()
        return
    with tempfile.TemporaryDirectory(prefix="lambdarag-eval-") as tmp:
        yield Path(tmp)


def _build(domain: Domain, progress: bool | None) -> None:
    """Every build step; extract and index must succeed, a missing optional channel only costs its ablation."""
    from lambdarag.build.steps import STEPS, build_domain

    for step in STEPS:
        try:
            outcomes = build_domain(domain, [step], progress=progress)
        except ImportError as exc:  # a channel module not installed here: the eval runs without it
            print(f"[eval] build step {step} unavailable ({exc}); evaluating without it", file=sys.stderr)
            continue
        failed = [o for o in outcomes if not o.ok]
        if failed and step in ("extract", "index"):
            detail = "; ".join(o.summary for o in failed)
            raise InputError(f"building the evaluation domain failed at {step}: {detail}", "check corpus.jsonl")
