"""Wiki compilation: one readable, editable Markdown page per salient entity or topic, from the entity graph.

A page is YAML front matter (title, kind, aliases, sources, latest_revision, generated_hash) and a
body with 摘要 (the most informative sentences, or an LLM summary), 关键事实 (sentences with dates or
amounts, dates normalised: "2023年3月起" → "2023-03起"), 关系 ([[links]] to other pages) and 来源.
A page a person edited is kept on recompile, the new version written beside it (wiki_pages.py).
LLM summaries are cached by prompt hash under wiki/.cache/, so a rerun on unchanged input makes no
LLM call.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lambdarag.errors import ServiceError
from lambdarag.graph.build import alias_index, regulation_subject
from lambdarag.graph.entities import entity_key, extract_entities
from lambdarag.graph.schema import RELATION_LABELS, Entity
from lambdarag.progress import iterate
from lambdarag.records import Chunk
from lambdarag.text.fence import fence, fenced_messages, neutralise_markers
from lambdarag.text.tokenizer import split_sentences
from lambdarag.wiki import page_format
from lambdarag.wiki.pages import CACHE_FILE, CompileReport, Page, SummaryCache, write_pages

if TYPE_CHECKING:
    import networkx as nx

    from lambdarag.config.schema import Config
    from lambdarag.models.llm import LLMClient

PAGE_KINDS = frozenset({"org", "person", "regulation", "role"})
MAX_FACTS = 8
MAX_RELATIONS = 12
MAX_RELATED = 5  # co-occurring entities listed as 相关
SUBJECT_WINDOW = 4  # a name starting within this many characters of a sentence is its subject
SAVE_EVERY = 20  # pages between saves of the LLM summary cache
_REVISION = re.compile(r"修订|修正|修改|施行|实施|印发|发布|生效|执行|更新")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_TITLE_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_PAGE_MARK = re.compile(r"第\s*\d+\s*页")
_CJK_CHAR = re.compile(r"[\u4e00-\u9fff]")
_BULLET = re.compile(r"^(?:[-*•●○■□◆▪·]|\d{1,2}[.、)）](?!\d)|[（(]\d{1,2}[)）])\s*")
LLM_PROMPT = "请只根据下面的资料，用两三句话概括“{title}”的要点，不要编造：\n{sentences}"


@dataclass(frozen=True)
class PageDraft:
    """A page before rendering: what it is about and the text it is written from."""

    title: str
    kind: str  # an entity kind, or "topic" for a document
    aliases: tuple[str, ...]
    sources: tuple[str, ...]  # chunk ids in corpus order (reading order beat salience orders on DomainRAG)
    sentences: tuple[str, ...]  # candidate sentences in corpus order
    relations: tuple[tuple[str, str], ...]  # (label, other entity)


# --- Pure parts: choosing, scoring, rendering -------------------------------------------------------

@functools.lru_cache(maxsize=1 << 19)  # a compile's distinct sentences (231k at 100k chunks, ~65 MB of entities)
def _entities(sentence: str) -> tuple[Entity, ...]:
    """extract_entities, memoised: a sentence is scored, fact-checked and dated for every page it is on."""
    return tuple(extract_entities(sentence))


def slugify(title: str) -> str:
    """A file name for a page: CJK, letters, digits, '-' and '_' kept, anything else '-'."""
    slug = re.sub(r"[^\w\u4e00-\u9fff-]+", "-", entity_key(title)).strip("-_.")
    return slug[:80] or "page"


class PageNames:
    """A page's names (title and aliases, entity keys), tested against every sentence of its sources: the tests cost
    about as much for a hub with hundreds of aliases (财务处, with every 江城大学财务处 merged into it) as for a page
    with one name, where a loop over the names made the wiki step grow faster than the corpus."""

    def __init__(self, names: Iterable[str]) -> None:
        self.listed = tuple(n for n in names if n)  # as given, repeats kept: sentence_score counts each
        self.unique = frozenset(self.listed)
        self.lengths = tuple(sorted({len(n) for n in self.unique}))
        # "is any name in the text" needs only the names that contain no other one (江城大学财务处 ⊃ 财务处)
        minimal: list[str] = []
        for name in sorted(self.unique, key=lambda n: (len(n), n)):
            if not any(short in name for short in minimal):
                minimal.append(name)
        self.minimal = tuple(minimal)

    def __contains__(self, name: object) -> bool:
        return name in self.unique

    def found_in(self, key: str) -> bool:
        """Whether any of the names occurs in ``key``."""
        return any(n in key for n in self.minimal)

    def count(self, key: str, cap: int) -> int:
        """min(Σ occurrences of each name in ``key``, cap)."""
        total = 0
        if self.found_in(key):
            for name in self.listed:
                total += key.count(name)
                if total >= cap:
                    return cap
        return total

    def subject(self, key: str) -> bool:
        """Whether a name occurs within SUBJECT_WINDOW characters of the start of ``key`` (the sentence's subject)."""
        if not self.found_in(key):
            return False
        if len(self.unique) <= 2 * len(self.lengths):
            return any(0 <= key.find(n) <= SUBJECT_WINDOW for n in self.unique)
        # each start and length looked up: a name found there starts within the window
        return any(key[p : p + size] in self.unique for p in range(SUBJECT_WINDOW + 1) for size in self.lengths)


def sentence_score(sentence: str, names: PageNames, entities: Sequence[Entity]) -> float:
    """Informativeness: the page's entity as subject and mentioned, other entities, numbers, dates, useful length."""
    key = _sentence_key(sentence)
    own = names.count(key, 2)
    subject = names.subject(key)  # 预算科负责… / 本办法由… rather than a passing mention
    others = sum(1 for e in entities if e.kind not in ("date", "amount") and e.name not in names)
    dates = sum(1 for e in entities if e.kind == "date")
    numbers = len(_NUMBER.findall(sentence))
    length = len(sentence)
    score = own + 2.0 * subject + 0.5 * min(others, 4) + 0.3 * min(numbers, 3) + 0.5 * min(dates, 2)
    return score + min(length, 100) / 100 - (1.5 if length < 15 else 0.0) - (1.0 if length > 200 else 0.0)


def normalise_dates(sentence: str) -> str:
    """Dates written out in a sentence replaced by their normalised form ("2023年3月起" → "2023-03起")."""
    out, pos = [], 0
    for entity in _entities(sentence):
        if entity.kind == "date" and len(entity.name) > 4:  # a bare year reads better as written (2024年)
            out += [sentence[pos:entity.start], entity.name]
            pos = entity.end
    return "".join([*out, sentence[pos:]])


def _fact_sentences(sentences: Iterable[str]) -> list[str]:
    """Sentences carrying a date or an amount, as written, at most MAX_FACTS."""
    found = [s for s in sentences if any(e.kind in ("date", "amount") for e in _entities(s))]
    return list(dict.fromkeys(found))[:MAX_FACTS]


def key_facts(sentences: Iterable[str]) -> list[str]:
    """Sentences carrying a date or an amount, dates normalised, unique, in order."""
    return list(dict.fromkeys(normalise_dates(s) for s in _fact_sentences(sentences)))


def latest_revision(sentences: Iterable[str]) -> str | None:
    """The latest date in sentences about revising, issuing or taking effect."""
    dates = [e.name for s in sentences if _REVISION.search(s) for e in _entities(s) if e.kind == "date"]
    return max(dates) if dates else None


def rule_summary(draft: PageDraft, count: int) -> list[str]:
    """The ``count`` most informative sentences, in their original order."""
    names = PageNames([entity_key(draft.title), *draft.aliases])
    scored = [(sentence_score(s, names, _entities(s)), -i, s) for i, s in enumerate(draft.sentences)]
    best = sorted(scored, reverse=True)[:count]
    return [s for _, _, s in sorted(best, key=lambda item: -item[1])]


def render_body(draft: PageDraft, summary: Sequence[str], titles: Mapping[str, str]) -> str:
    """The page body of a draft; relations to entities that have a page become [[links]]."""
    relations = [(label, _link(other, titles)) for label, other in draft.relations]
    return page_format.render_body(draft.title, draft.aliases, "".join(map(_closed, summary)),
                                   key_facts(draft.sentences), relations, draft.sources)


def _closed(sentence: str) -> str:
    """A sentence ending in punctuation, so summary sentences taken from lines do not run together."""
    return sentence if sentence[-1:] in "。！？；.!?;…" else sentence + "。"


def _link(name: str, titles: Mapping[str, str]) -> str:
    return f"[[{titles[name]}]]" if name in titles else name


def plan_pages(graph: nx.DiGraph, chunks: Sequence[Chunk], cfg: Config) -> list[PageDraft]:
    """Pages for entities mentioned in at least wiki.min_mentions chunks, and for documents with that many chunks."""
    by_id = {c.chunk_id: c for c in chunks}
    order = {c.chunk_id: i for i, c in enumerate(chunks)}
    aliases: dict[str, list[str]] = {}
    for alias, nodes in alias_index(graph, cfg.query.synonyms).items():
        for node in nodes:
            if alias != node:
                aliases.setdefault(node, []).append(alias)
    drafts = []
    for node, attrs in graph.nodes(data=True):
        sources = sorted((c for c in attrs["chunks"] if c in by_id), key=order.__getitem__)
        if attrs["kind"] in PAGE_KINDS and len(sources) >= cfg.wiki.min_mentions:
            names = (node, *aliases.get(node, ()))
            tested = PageNames(names)
            sources = sorted(sources, key=lambda c: (_aboutness(by_id[c], node, tested), -_edition(by_id[c]), order[c]))
            sentences = _mentioning([by_id[c] for c in sources], tested, node)
            drafts.append(PageDraft(node, attrs["kind"], names[1:], tuple(sources),
                                    tuple(sentences), tuple(_relations(graph, node))))
    taken = {d.title for d in drafts}
    for title, doc_chunks in _documents(chunks).items():
        subject = regulation_subject(title) or entity_key(title)
        if subject not in taken and title not in taken and len(doc_chunks) >= cfg.wiki.min_mentions:
            sentences = list(dict.fromkeys(s for c in doc_chunks for s in prose_sentences(c.text)))
            drafts.append(PageDraft(title, "topic", (), tuple(c.chunk_id for c in doc_chunks), tuple(sentences), ()))
    return sorted(drafts, key=lambda d: d.title)


def _aboutness(chunk: Chunk, node: str, names: PageNames) -> int:
    """0: the entity's own document (a regulation's text); 1: the chunk says what the entity is or does
    (its heading names it, or a sentence starts with it); 2: a passing mention. Sources sort by it, then
    in corpus order, so a page's first chunks are the ones about it."""
    if _title_subject(chunk.title) == node:
        return 0
    heading = _sentence_key(chunk.breadcrumb)
    if names.found_in(heading) or any(map(names.subject, _prose_keys(chunk.text))):
        return 1
    return 2


def _edition(chunk: Chunk) -> int:
    """The year a document's title carries (江城大学国内差旅费管理办法（2024修订版） → 2024), else 0: newer first."""
    years = _TITLE_YEAR.findall(chunk.title)
    return max(map(int, years)) if years else 0


def _documents(chunks: Sequence[Chunk]) -> dict[str, list[Chunk]]:
    docs: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        docs.setdefault(chunk.title or chunk.doc_id, []).append(chunk)
    return docs


def prose_sentences(text: str) -> list[str]:
    """Sentences of running text: table rows (| a | b |) left out, list bullets stripped."""
    return list(_prose(text))


@functools.lru_cache(maxsize=1 << 17)
def _prose(text: str) -> tuple[str, ...]:
    """prose_sentences, memoised: a chunk is read for every page whose entity it mentions (about ten each)."""
    out = []
    for sentence in split_sentences(text):
        if sentence.startswith("|") or _PAGE_MARK.search(sentence):
            continue  # a row without its header, or a running header, says little on a page
        sentence = _BULLET.sub("", sentence).strip()
        if len(_CJK_CHAR.findall(sentence)) >= 8:
            out.append(sentence)
    return tuple(out)


@functools.lru_cache(maxsize=1 << 17)
def _prose_keys(text: str) -> tuple[str, ...]:
    """The entity keys of _prose(text), memoised with it: every page a chunk is a source of tests them."""
    return tuple(map(_sentence_key, _prose(text)))


@functools.lru_cache(maxsize=1 << 19)
def _sentence_key(sentence: str) -> str:
    """entity_key of a sentence (or a breadcrumb), memoised for the same reason as _prose."""
    return entity_key(sentence)


@functools.lru_cache(maxsize=65536)
def _title_subject(title: str) -> str | None:
    """regulation_subject of a chunk's title, memoised: asked for each page the chunk is a source of."""
    return regulation_subject(title)


def _forget() -> None:
    """Drop the memos of one compile (its sentences and chunks), so a process that builds keeps no corpus text."""
    for memo in (_entities, _prose, _prose_keys, _sentence_key, _title_subject):
        memo.cache_clear()


def _mentioning(chunks: Sequence[Chunk], names: PageNames, node: str) -> list[str]:
    """Sentences naming the entity; a regulation's own document counts whole (its sentences say 本办法)."""
    out: list[str] = []
    for chunk in chunks:
        own_document = _title_subject(chunk.title) == node
        sentences = _prose(chunk.text)
        out += sentences if own_document else [s for s, key in zip(sentences, _prose_keys(chunk.text), strict=True)
                                               if names.found_in(key)]
    return list(dict.fromkeys(out))


def _relations(graph: nx.DiGraph, node: str) -> list[tuple[str, str]]:
    """(label, other) for the node's stated relations, then its most frequent co-occurrences."""
    stated, related = [], []
    edges = [(d, t, True) for _, t, d in graph.out_edges(node, data=True)]
    edges += [(d, s, False) for s, _, d in graph.in_edges(node, data=True)]
    for data, other, outgoing in edges:
        entry = (RELATION_LABELS.get((data["relation"], outgoing), data["relation"]), other)
        if data["relation"] == "co_occurs":
            if graph.nodes[other]["kind"] != "role":  # 负责人, 处长: too generic to be related to anything
                related.append((len(data["evidence"]), entry))
        else:
            stated.append(entry)
    related.sort(key=lambda item: (-item[0], item[1]))
    return sorted(stated)[:MAX_RELATIONS] + [entry for _, entry in related[:MAX_RELATED]]


# --- Compilation ---------------------------------------------------------------------------------------

def llm_summary(draft: PageDraft, llm: LLMClient, cache: SummaryCache, report: CompileReport,
                rule: str) -> list[str] | None:
    """An LLM-written summary of the page's best sentences (fenced as data, ``rule`` the domain's
    prompts.data_rule), cached by prompt; None when the LLM fails."""
    evidence = rule_summary(draft, 12)
    prompt = LLM_PROMPT.format(title=neutralise_markers(draft.title),
                               sentences=fence("\n".join(f"- {s}" for s in evidence)))
    key = hashlib.sha256(f"{llm.model}\0{prompt}".encode()).hexdigest()
    if key in cache.entries:
        report.llm_cached += 1
        return [cache.entries[key]]
    try:
        text = " ".join(llm.chat(fenced_messages(rule, prompt), temperature=0.0).split())
    except ServiceError:
        report.llm_failures += 1  # the rule summary stands in; the count shows in the build summary
        return None
    report.llm_calls += 1
    if not text:
        return None
    cache.entries[key] = text
    return [text]


def summary_llm(cfg: Config) -> LLMClient | None:
    """The LLM for page summaries when wiki.llm_summaries and llm.enabled are both on, else None."""
    if not (cfg.wiki.llm_summaries and cfg.llm.enabled):
        return None
    from lambdarag.models.llm import llm_from_config

    return llm_from_config(cfg)


def compile_wiki(
    wiki_dir: Path, graph: nx.DiGraph, chunks: Sequence[Chunk], cfg: Config, llm: LLMClient | None = None,
    progress: bool | None = None,
) -> CompileReport:
    """Write the wiki pages for ``chunks`` into ``wiki_dir`` and report what changed."""
    report = CompileReport()
    drafts = plan_pages(graph, chunks, cfg)
    titles = {entity_key(d.title): d.title for d in drafts}
    cache = SummaryCache(wiki_dir / CACHE_FILE) if llm is not None else None
    pages: list[Page] = []
    slugs: set[str] = set()
    for n, draft in enumerate(iterate(drafts, progress, "wiki pages", "page"), start=1):
        summary = (llm_summary(draft, llm, cache, report, cfg.prompts.data_rule)
                   if llm is not None and cache is not None else None)
        if cache is not None and n % SAVE_EVERY == 0:
            cache.save()  # a build killed midway keeps the summaries it paid for
        body = render_body(draft, summary or rule_summary(draft, cfg.wiki.summary_sentences), titles)
        pages.append(Page(_unique(slugify(draft.title), slugs), draft.title, draft.kind, draft.aliases, draft.sources,
                          latest_revision(draft.sentences), body))
    write_pages(wiki_dir, pages, report, frozenset(c.chunk_id for c in chunks))
    if cache is not None:
        cache.save()
    _forget()
    return report


def _unique(slug: str, taken: set[str]) -> str:
    candidate, n = slug, 2
    while candidate in taken:
        candidate, n = f"{slug}-{n}", n + 1
    taken.add(candidate)
    return candidate
