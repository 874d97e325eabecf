"""The wiki channel's pages as its search reads them: written at build, memory-mapped at load.

pages.json (a JSON list of page records, 49 MB at 100k chunks, mostly excerpts) cost every worker 0.45 s to parse
and a Python string per field, and the names of 38k pages had to be worked out again at each load (entity_key and
normalize: 0.5 s). The index now holds each field as a string list (channels/strings.py: page_slug, page_title,
page_excerpt; page_aliases and page_sources one group per page), page_edited.npy, page_slug_rank.npy (a page's rank
by slug, the ties' order) and page-names.json (normalised name → the pages it names, in page order), so a load reads
the name index and maps the rest; a page is decoded when a search returns it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lambdarag.channels.strings import Groups, Strings, mapped
from lambdarag.graph.entities import entity_key
from lambdarag.records import Rows
from lambdarag.text.tokenizer import normalize

NAMES_FILE = "page-names.json"


@dataclass(frozen=True)
class IndexedPage:
    """A page as the index sees it."""

    slug: str
    title: str
    aliases: tuple[str, ...]
    sources: tuple[str, ...]
    excerpt: str
    text: str  # what BM25 indexes (title, aliases, body): held while building only, not in the index
    edited: bool = False  # changed by a person since it was generated

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n in (normalize(entity_key(x)) for x in (self.title, *self.aliases)) if len(n) >= 2)


class PageTable(Rows[IndexedPage]):
    """Every indexed page's fields, a page built when asked for; ``by_name`` and ``slug_rank`` for the search."""

    def __init__(self, fields: dict[str, Strings], groups: dict[str, Groups], edited: np.ndarray,
                 slug_rank: np.ndarray, by_name: dict[str, list[int]]) -> None:
        self.slugs, self.titles, self.excerpts = fields["slug"], fields["title"], fields["excerpt"]
        self.aliases, self.sources = groups["aliases"], groups["sources"]
        self.edited, self.slug_rank, self.by_name = edited, slug_rank, by_name
        sizes = {len(self.slugs), len(self.titles), len(self.excerpts), len(self.aliases), len(self.sources),
                 len(edited), len(slug_rank)}
        if len(sizes) != 1:
            raise ValueError(f"the page fields have different lengths: {sorted(sizes)}")

    @classmethod
    def of(cls, pages: Sequence[IndexedPage]) -> PageTable:
        by_name: dict[str, list[int]] = {}
        for i, page in enumerate(pages):
            for name in dict.fromkeys(page.names):
                by_name.setdefault(name, []).append(i)
        slugs = np.array([p.slug for p in pages], dtype=object)
        slug_rank = np.argsort(np.argsort(slugs, kind="stable"), kind="stable").astype(np.int64)
        return cls({"slug": Strings.of(p.slug for p in pages), "title": Strings.of(p.title for p in pages),
                    "excerpt": Strings.of(p.excerpt for p in pages)},
                   {"aliases": Groups.of(p.aliases for p in pages), "sources": Groups.of(p.sources for p in pages)},
                   np.array([p.edited for p in pages], dtype=bool), slug_rank, by_name)

    def save(self, folder: Path) -> None:
        for name, strings in (("slug", self.slugs), ("title", self.titles), ("excerpt", self.excerpts)):
            strings.save(folder, f"page_{name}")
        self.aliases.save(folder, "page_aliases")
        self.sources.save(folder, "page_sources")
        np.save(folder / "page_edited.npy", self.edited)
        np.save(folder / "page_slug_rank.npy", self.slug_rank)
        (folder / NAMES_FILE).write_text(json.dumps(self.by_name, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> PageTable:
        """The table written by ``save``: the name index read, the rest memory-mapped."""
        by_name = json.loads((folder / NAMES_FILE).read_text(encoding="utf-8"))
        if not isinstance(by_name, dict):
            raise ValueError(f"{NAMES_FILE} is not an object")
        return cls({name: Strings.load(folder, f"page_{name}") for name in ("slug", "title", "excerpt")},
                   {name: Groups.load(folder, f"page_{name}") for name in ("aliases", "sources")},
                   mapped(folder / "page_edited.npy"), mapped(folder / "page_slug_rank.npy"), by_name)

    def __len__(self) -> int:
        return len(self.slugs)

    def at(self, row: int) -> IndexedPage:
        """The page at ``row`` (0 ≤ row < len), built from its fields."""
        return IndexedPage(self.slugs.at(row), self.titles.at(row), self.aliases.at(row), self.sources.at(row),
                           self.excerpts.at(row), "", bool(self.edited[row]))
