"""Query expansion: one query per channel from the (condensed) question.

BM25 gets the question plus the other names its rule entities go by in the entity graph (skipped for
``compare``, whose two sides must keep equal weight; without a graph, the entities' own names), domain
synonyms and the explicit years of a temporal phrase; the vector channel gets the question as is; graph
and wiki get the question and match entities themselves.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lambdarag.config.schema import Config
from lambdarag.graph.entities import entity_key, extract_entities
from lambdarag.graph.schema import Entity
from lambdarag.query.temporal import TimeScope, expand_years, time_scope
from lambdarag.text.patterns import WHERE_FRAME
from lambdarag.text.tokenizer import Tokenizer, normalize

_COURTESY = re.compile(
    r"^\s*(?:你好|您好|老师好|请问一下|请问下|请问|请教一下|请教|麻烦问一下|麻烦问下|麻烦|我想问一下|我想问|想问一下|想问|"
    r"我想知道|想知道|我想了解|想了解|请告诉我|告诉我)[\s，,：:、!！]*"
)
_YEAR = re.compile(r"\d{4}")
# the frame of an English "how long / how far / how often" question names no topic: "How long does reimbursement
# take?" is about reimbursement; its "long" and "take" would find "takes effect" and "long-term debt"
_EN_FRAME = re.compile(r"^\s*how\s+(long|far|often|soon)\b", re.IGNORECASE)
_TAKE = re.compile(r"\btakes?\b", re.IGNORECASE)
NO_ENTITY_EXPANSION = frozenset({"compare"})
_EXPANDED_KINDS = frozenset({"org", "role", "person", "regulation", "place"})  # phones/dates/amounts add nothing


@dataclass(frozen=True)
class Expansion:
    """The queries each channel searches with, and what went into them."""

    bm25_query: str
    dense_query: str
    graph_query: str
    wiki_query: str
    entities: list[Entity] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)  # the question's content words (for the gate)
    time_scope: TimeScope | None = None
    synonyms: dict[str, list[str]] = field(default_factory=dict)  # query term -> synonyms added

    def query_for(self, channel: str) -> str:
        """The query a channel searches with (unknown channels get the plain question)."""
        queries = {"bm25": self.bm25_query, "document": self.bm25_query, "graph": self.graph_query,
                   "wiki": self.wiki_query}
        return queries.get(channel, self.dense_query)

    def to_dict(self) -> dict[str, Any]:
        return {
            "bm25_query": self.bm25_query, "dense_query": self.dense_query,
            "graph_query": self.graph_query, "wiki_query": self.wiki_query,
            "entities": [{"name": e.name, "kind": e.kind} for e in self.entities],
            "keywords": list(self.keywords),
            "time_scope": self.time_scope.to_dict() if self.time_scope else None,
            "synonyms": {k: list(v) for k, v in self.synonyms.items()},
        }


def strip_courtesy(question: str) -> str:
    """The question without leading courtesy phrases ("您好，请问一下…")."""
    previous = None
    while previous != question:
        previous, question = question, _COURTESY.sub("", question, count=1)
    return question


def query_entities(question: str) -> list[Entity]:
    """Rule entities of a question, courtesy phrases cut first ("请问财务处" has no org "问财务处")."""
    core = strip_courtesy(question)
    shift = len(question) - len(core)
    return [dataclasses.replace(e, start=e.start + shift, end=e.end + shift) for e in extract_entities(core)]


def find_synonyms(question: str, keywords: Sequence[str], table: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Synonym groups the question touches, both ways: a term brings its synonyms, a synonym its term."""
    text = normalize(question)
    words = {normalize(k) for k in keywords}
    found: dict[str, list[str]] = {}
    for term, alternatives in table.items():
        group = [term, *alternatives]
        present = [w for w in group if normalize(w) in words or normalize(w) in text]
        if not present:
            continue
        extra = [w for w in group if normalize(w) not in text]
        if extra:
            found[present[0]] = extra
    return found


def entity_names(question: str, entities: Sequence[Entity], aliases: Mapping[str, Sequence[str]] | None) -> list[str]:
    """The names the question's entities go by in the documents and the question does not say itself.

    With the entity graph's alias index, an entity asked by an alias ("江大文学院") brings the name its
    graph node has ("文学院"); without it, each entity's own name (the earlier behaviour).
    """
    if aliases is None:
        return [e.name for e in entities]
    text = normalize(question)
    out: list[str] = []
    for entity in entities:
        for node in aliases.get(normalize(entity_key(entity.name)), ()):
            if normalize(node) not in text:
                out.append(node)
    return out


def expand_query(
    question: str,
    intent: str,
    config: Config,
    tokenizer: Tokenizer,
    today: date,
    entity_expansion: bool = True,
    aliases: Mapping[str, Sequence[str]] | None = None,
    topic: str | None = None,
) -> Expansion:
    """Per-channel queries for ``question`` under ``intent``, relative to ``today`` for temporal phrases; a
    session ``topic`` (query.condense.Condensed.topic) joins the BM25 query only (in the dense one: no gain)."""
    entities = query_entities(question)
    scope = time_scope(question, today)
    searched = without_frame(question)
    keywords = tokenizer.keywords(searched)
    if scope is not None and not _YEAR.search(scope.phrase):
        # "近五年" yields the keyword "五年", which no document says: the explicit years stand for it
        keywords = [k for k in keywords if k not in normalize(scope.phrase)] or keywords
    synonyms = find_synonyms(question, keywords, config.query.synonyms)
    extra: list[str] = []
    if entity_expansion and intent not in NO_ENTITY_EXPANSION:
        extra += entity_names(question, [e for e in entities if e.kind in _EXPANDED_KINDS], aliases)
    extra += [w for words in synonyms.values() for w in words]
    extra += [y for y in expand_years(scope) if y not in question]
    extra += [topic.strip("《》")] if topic and topic.strip("《》") not in question else []
    bm25_query = " ".join([searched, *dict.fromkeys(extra)])
    return Expansion(
        bm25_query=bm25_query,
        dense_query=question,
        graph_query=question,
        wiki_query=question,
        entities=entities,
        keywords=keywords,
        time_scope=scope,
        synonyms=synonyms,
    )


def without_frame(question: str) -> str:
    """The question without the words of its English "how long" frame ("How long does reimbursement take?" ->
    "How does reimbursement ?") or the noun of its "什么地方" ("马纳瓜在什么 "), which neither BM25 nor the keywords
    should match; other questions as they are."""
    question = WHERE_FRAME.sub(lambda m: m.group(0)[:-2] + " ", question)
    frame = _EN_FRAME.match(question)
    if frame is None:
        return question
    rest = question[:frame.start(1)] + question[frame.end(1):]
    return _TAKE.sub("", rest) if frame.group(1).lower() == "long" else rest
