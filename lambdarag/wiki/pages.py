"""Wiki page files on disk: the Page record, hand-edit detection, writing, the LLM summary cache.

A page whose body no longer matches its generated_hash was edited by a person (page_format): write_pages
keeps it and writes the new version next to it as <slug>.generated.md, never over it. An edited page none of
whose sources is left in the corpus (its documents were deleted) leaves the wiki too: it is moved to
wiki/.orphaned/, where the person's text stays, out of the index.
"""

from __future__ import annotations

import json
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path

from lambdarag.wiki.page_format import GENERATED_SUFFIX, body_hash, is_edited, read_page, render_file

CACHE_FILE = Path(".cache") / "summaries.json"
ORPHANED_DIR = ".orphaned"


@dataclass(frozen=True)
class Page:
    """A rendered page: front matter fields and the Markdown body."""

    slug: str
    title: str
    kind: str
    aliases: tuple[str, ...]
    sources: tuple[str, ...]
    latest_revision: str | None
    body: str

    @property
    def generated_hash(self) -> str:
        return body_hash(self.body)

    def render(self) -> str:
        front = {"title": self.title, "kind": self.kind, "aliases": list(self.aliases), "sources": list(self.sources),
                 "latest_revision": self.latest_revision, "generated_hash": self.generated_hash}
        return render_file(front, self.body)


@dataclass
class CompileReport:
    """What a compile did to wiki/: pages written, unchanged, kept because a person edited them, removed."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)  # kept; the new version is in <slug>.generated.md
    removed: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)  # edited pages whose every source is gone: in .orphaned/
    llm_calls: int = 0
    llm_cached: int = 0
    llm_failures: int = 0

    def summary(self) -> str:
        text = (f"{len(self.written) + len(self.unchanged) + len(self.edited)} pages: {len(self.written)} written, "
                f"{len(self.unchanged)} unchanged, {len(self.edited)} edited by hand and kept, "
                f"{len(self.removed)} removed")
        if self.orphaned:
            text += f" ({len(self.orphaned)} edited by hand but built only from deleted documents: in {ORPHANED_DIR}/)"
        if self.llm_calls or self.llm_cached or self.llm_failures:
            text += f"; LLM summaries: {self.llm_calls} new, {self.llm_cached} cached, {self.llm_failures} failed"
        if self.edited:
            text += "; see " + ", ".join(s + GENERATED_SUFFIX for s in self.edited[:3]) + (
                " ..." if len(self.edited) > 3 else "")
        return text


def is_hand_edited(path: Path) -> bool:
    """A page whose body differs from the body its generated_hash records was changed by a person."""
    front, body = read_page(path)
    return is_edited(front, body)


def write_pages(wiki_dir: Path, pages: Sequence[Page], report: CompileReport,
                chunk_ids: Set[str] | None = None) -> None:
    """Write changed pages, keep hand-edited ones (new version beside them), remove stale generated ones; with
    ``chunk_ids`` (the corpus), move a stale edited page whose sources are all gone to .orphaned/."""
    wiki_dir.mkdir(parents=True, exist_ok=True)
    current = {p.slug for p in pages}
    for page in pages:
        path = wiki_dir / f"{page.slug}.md"
        beside = wiki_dir / f"{page.slug}{GENERATED_SUFFIX}"
        text = page.render()
        if path.exists() and path.read_text(encoding="utf-8") == text:
            beside.unlink(missing_ok=True)
            report.unchanged.append(page.slug)
            continue
        if path.exists() and is_hand_edited(path):
            _write_if_changed(beside, text)
            report.edited.append(page.slug)
            continue
        beside.unlink(missing_ok=True)
        (report.written if _write_if_changed(path, text) else report.unchanged).append(page.slug)
    for path in sorted(wiki_dir.glob("*.md")):
        slug = path.name.removesuffix(GENERATED_SUFFIX).removesuffix(".md")
        if slug in current:
            continue
        if path.name.endswith(GENERATED_SUFFIX) or not is_hand_edited(path):
            path.unlink()  # generated for an entity that is no longer salient
            report.removed.append(slug)
        elif chunk_ids is not None and _sources_gone(path, chunk_ids):
            (wiki_dir / ORPHANED_DIR).mkdir(exist_ok=True)
            path.replace(wiki_dir / ORPHANED_DIR / path.name)
            report.removed.append(slug)
            report.orphaned.append(slug)


def _sources_gone(path: Path, chunk_ids: Set[str]) -> bool:
    """Whether the page lists sources and none of them is a chunk of the corpus any more."""
    sources = read_page(path)[0].get("sources") or ()
    return bool(sources) and not any(str(source) in chunk_ids for source in sources)


def _write_if_changed(path: Path, text: str) -> bool:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return True


class SummaryCache:
    """Prompt hash → LLM summary, in wiki/.cache/summaries.json."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.entries: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.entries = {}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _write_if_changed(self.path, json.dumps(self.entries, ensure_ascii=False, indent=1, sort_keys=True))


