"""Document tags for the ``tags`` filter, and the table of documents the filters read (lambdarag/scope.py).

A document's tags are, in this order and without repeats:

- the ``tags.sources`` rules of the config: tag -> globs (fnmatch, ``*`` crossing folders) on the raw file's
  path relative to raw/;
- the ``tags.titles`` rules: tag -> words the document's title contains (case and width folded);
- with ``tags.sidecar``, the file raw/<file>.tags beside the raw file (``raw/policies/travel.pdf.tags``): tags
  separated by commas or line breaks, ``#`` starting a comment. The build skips ``.tags`` files (ingest/run.py),
  and a sidecar of a JSONL file tags every document of its lines.

Tags are read when the knowledge base loads, so a changed rule or sidecar counts from the next reload.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from pathlib import Path

from lambdarag.config.schema import TagsConfig
from lambdarag.ingest.chunkstore import ChunkHeader
from lambdarag.records import Chunk
from lambdarag.scope import DocumentInfo, fold

SIDECAR_SUFFIX = ".tags"
MAX_SIDECAR_BYTES = 64 * 1024  # a sidecar is a few words; anything bigger is not one


def sidecar_path(raw_dir: Path, source: str) -> Path:
    """raw/<source>.tags: the sidecar of the raw file ``source``."""
    return raw_dir / (source + SIDECAR_SUFFIX)


def parse_sidecar(text: str) -> list[str]:
    """Tags of a sidecar's text: separated by commas (ASCII or full-width) or lines; ``#`` starts a comment."""
    tags: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        tags.extend(t.strip() for t in line.replace("，", ",").split(",") if t.strip())
    return tags


def read_sidecar(raw_dir: Path, source: str) -> list[str]:
    """The tags of ``source``'s sidecar file ([] when there is none or it cannot be read as UTF-8 text)."""
    path = sidecar_path(raw_dir, source)
    try:
        if not path.is_file() or path.stat().st_size > MAX_SIDECAR_BYTES:
            return []
        return parse_sidecar(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return []


def rule_tags(source: str, title: str, cfg: TagsConfig) -> list[str]:
    """The tags the config's rules give a document with raw path ``source`` and ``title``."""
    tags = [tag for tag, globs in cfg.sources.items() if any(fnmatch.fnmatchcase(source, g) for g in globs)]
    folded = fold(title)
    tags += [tag for tag, words in cfg.titles.items() if any(fold(w) in folded for w in words if w)]
    return tags


def document_table(chunks: Iterable[Chunk | ChunkHeader], raw_dir: Path, cfg: TagsConfig) -> list[DocumentInfo]:
    """One DocumentInfo per document, in order of its first chunk: id, title, raw path, date, tags, chunk ids."""
    groups: dict[str, list[Chunk | ChunkHeader]] = {}
    for chunk in chunks:
        groups.setdefault(chunk.doc_id, []).append(chunk)
    sidecars: dict[str, list[str]] = {}
    table = []
    for doc_id, group in groups.items():
        first = group[0]
        tags = rule_tags(first.source, first.title, cfg)
        if cfg.sidecar and first.source:
            if first.source not in sidecars:
                sidecars[first.source] = read_sidecar(raw_dir, first.source)
            tags += sidecars[first.source]
        dated = next((c.doc_date for c in group if c.doc_date), "")
        table.append(DocumentInfo(doc_id, first.title, first.source, dated, tuple(dict.fromkeys(tags)),
                                  tuple(c.chunk_id for c in group)))
    return table
