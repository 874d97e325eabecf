"""The typed shape of agent-config.yml: one frozen dataclass per section.

Field metadata carries value ranges (``rng``) and allowed choices (``choice``); prompt templates
list the placeholders they must contain in ``PROMPT_PLACEHOLDERS``. Loading and validation live
in config.py; this module is only the schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CHANNEL_NAMES = ("bm25", "vector", "graph", "wiki", "document")
INTENT_NAMES = ("person", "process", "data", "fact", "compare", "relation", "synthesis", "temporal")


def rng(lo: float | None = None, hi: float | None = None) -> dict[str, Any]:
    """Field metadata: inclusive numeric range."""
    return {"range": (lo, hi)}


def choice(*values: str) -> dict[str, Any]:
    """Field metadata: the value must be one of these strings."""
    return {"choices": values}


@dataclass(frozen=True)
class AuthConfig:
    """API keys for the question routes (off by default); admin routes keep their own token."""

    enabled: bool
    api_keys_env: str  # env var: "KEY DOMAINS" entries separated by ";" or newlines
    api_keys_file: str  # lines "sha256:<hex> DOMAINS"; relative to the domain folder


@dataclass(frozen=True)
class RateLimitConfig:
    """Per-client token bucket, per worker process."""

    requests_per_minute: int = field(metadata=rng(0, 1_000_000))  # 0 = off
    burst: int = field(metadata=rng(1, 100_000))


@dataclass(frozen=True)
class ServerConfig:
    host: str
    port: int = field(metadata=rng(1, 65535))
    workers: int = field(metadata=rng(1, 64))
    threads: int = field(metadata=rng(1, 256))
    timeout_s: int = field(metadata=rng(1, 3600))
    max_body_bytes: int = field(metadata=rng(1024, 100_000_000))
    max_question_chars: int = field(metadata=rng(1, 100_000))
    max_history_turns: int = field(metadata=rng(0, 100))
    max_top_k: int = field(metadata=rng(1, 200))
    admin_token_env: str
    session_ttl_s: int = field(metadata=rng(1, None))
    auth: AuthConfig
    cors_origins: tuple[str, ...]
    rate_limit: RateLimitConfig


@dataclass(frozen=True)
class LLMConfig:
    enabled: bool
    base_url: str
    model: str
    api_key_env: str
    timeout_s: float = field(metadata=rng(0.1, 3600))
    max_retries: int = field(metadata=rng(0, 10))
    max_tokens: int = field(metadata=rng(1, 100_000))
    temperature: float = field(metadata=rng(0, 2))
    ungrounded: str = field(metadata=choice("flag", "drop"))
    cooldown_s: float = field(metadata=rng(0.1, 3600))


@dataclass(frozen=True)
class EmbeddingConfig:
    backend: str = field(metadata=choice("local", "openai", "none"))
    model: str
    dim: int = field(metadata=rng(1, 65536))
    base_url: str
    api_key_env: str
    batch_size: int = field(metadata=rng(1, 4096))
    timeout_s: float = field(metadata=rng(0.1, 3600))
    max_retries: int = field(metadata=rng(0, 10))
    query_prefix: str
    passage_prefix: str
    sentences: bool  # embed every candidate sentence too (channels/sentence_vectors.py), for the extractive answer


@dataclass(frozen=True)
class KnowledgeConfig:
    base_dir: str


@dataclass(frozen=True)
class IngestConfig:
    chunk_size: int = field(metadata=rng(50, 20_000))
    chunk_overlap: int = field(metadata=rng(0, 5_000))
    table_rows_per_chunk: int = field(metadata=rng(1, 10_000))
    max_file_mb: float = field(metadata=rng(0.001, 10_000))
    max_unzipped_mb: float = field(metadata=rng(0.001, 100_000))
    timeout_s: float = field(metadata=rng(1, 86_400))
    max_memory_mb: float = field(metadata=rng(64, 1_000_000))
    follow_symlinks: bool
    metadata_fields: tuple[str, ...]


@dataclass(frozen=True)
class ChannelConfig:
    enabled: bool
    top_k: int = field(metadata=rng(1, 1000))
    timeout_s: float = field(metadata=rng(0.01, 600))


@dataclass(frozen=True)
class MilvusConfig:
    """Where the Milvus backend keeps a domain's collection (retrieval.backend: milvus), and how it indexes it."""

    uri: str  # "" = a milvus-lite file index/milvus.db in the domain; a path ending .db; or http(s)://host:port
    token_env: str  # env var holding "user:password" or an API key (unset = no token)
    db_name: str  # database ("" = the server's default)
    collection_prefix: str  # collection alias = prefix + domain name
    timeout_s: float = field(metadata=rng(0.1, 3600))  # connection and build calls; searches use the channel budget
    analyzer: str = field(metadata=choice("lambdarag", "jieba"))
    incremental: str = field(metadata=choice("auto", "always", "never"))  # auto: upserts except on milvus-lite
    dense_index: str = field(metadata=choice("FLAT", "HNSW", "IVF_FLAT", "AUTOINDEX"))
    dense_params: Mapping[str, int] = field(metadata=rng(1, 1_000_000))
    search_params: Mapping[str, int] = field(metadata=rng(1, 1_000_000))
    bm25_k1: float = field(metadata=rng(0.01, 10))
    bm25_b: float = field(metadata=rng(0, 1))
    batch_size: int = field(metadata=rng(1, 100_000))


@dataclass(frozen=True)
class RetrievalConfig:
    backend: str = field(metadata=choice("local", "milvus"))  # where the bm25 and vector channels live
    milvus: MilvusConfig
    rrf_k: int = field(metadata=rng(0, 10_000))
    final_top_k: int = field(metadata=rng(1, 200))
    table_boost: float = field(metadata=rng(0, 10))
    recency_boost: float = field(metadata=rng(0, 10))
    proximity_boost: float = field(metadata=rng(0, 10))
    subject_boost: float = field(metadata=rng(0, 10))
    side_reach: int = field(metadata=rng(0, 50))  # each side a question names has a chunk within this many places
    superseded_penalty: float = field(metadata=rng(0, 1))
    learned: bool  # the learned ranking stage, when a model is installed
    channels: Mapping[str, ChannelConfig] = field(metadata={"keys": CHANNEL_NAMES, "all_keys": True})


@dataclass(frozen=True)
class RerankConfig:
    enabled: bool
    api: str = field(metadata=choice("jina", "tei"))
    base_url: str
    path: str
    model: str
    api_key_env: str
    top_n: int = field(metadata=rng(2, 1000))
    max_chars: int = field(metadata=rng(20, 100_000))
    timeout_s: float = field(metadata=rng(0.01, 600))


@dataclass(frozen=True)
class IntentClass:
    weights: Mapping[str, float] = field(metadata={"keys": CHANNEL_NAMES, "all_keys": True, **rng(0, 100)})
    keywords: Mapping[str, float] = field(metadata=rng(0, 100))


@dataclass(frozen=True)
class IntentsConfig:
    default: str = field(metadata=choice(*INTENT_NAMES))
    llm_margin: float = field(metadata=rng(0, 100))
    classes: Mapping[str, IntentClass] = field(metadata={"keys": INTENT_NAMES, "all_keys": True})


@dataclass(frozen=True)
class QueryConfig:
    synonyms: Mapping[str, tuple[str, ...]]
    terms: tuple[str, ...]
    entity_expansion: bool


@dataclass(frozen=True)
class CorrectiveConfig:
    threshold: float = field(metadata=rng(0, 1))
    max_retries: int = field(metadata=rng(0, 5))
    not_found_below: float = field(metadata=rng(0, 1))
    dense_check_below: float = field(metadata=rng(0, 1))


@dataclass(frozen=True)
class SlotsConfig:
    enabled: bool
    intents: tuple[str, ...] = field(metadata=choice(*INTENT_NAMES))


@dataclass(frozen=True)
class ContextConfig:
    max_chars: int = field(metadata=rng(200, 200_000))
    max_wiki_chars: int = field(metadata=rng(0, 200_000))
    excerpt_chars: int = field(metadata=rng(20, 5_000))
    answer_chars: int = field(metadata=rng(40, 5_000))  # the extractive answer's budget, citations excluded
    answer_sentences: int = field(metadata=rng(1, 20))  # evidence sentences of an extractive answer, at most


@dataclass(frozen=True)
class ReaderPrompts:
    """The prompts whose words reach the reader (the answer, the "not found" reply, the condensed question)."""

    system: str
    data_rule: str  # follows the system prompt (a domain's own system prompt keeps it): the fenced context is data
    answer: str
    condense: str
    not_found: str


@dataclass(frozen=True)
class PromptsConfig(ReaderPrompts):
    """The reader's prompts (for a question in Chinese), the ones for English, and the JSON-producing prompts."""

    intent: str
    slots: str
    english: ReaderPrompts  # the reader's prompts for a question in English

    def reader(self, english: bool) -> ReaderPrompts:
        """The reader's prompts in the question's language (``english``)."""
        return self.english if english else self


PROMPT_PLACEHOLDERS: dict[str, frozenset[str]] = {
    "system": frozenset({"domain"}),
    "data_rule": frozenset({"begin", "end"}),
    "answer": frozenset({"context", "question"}),
    "condense": frozenset({"history", "question"}),
    "intent": frozenset({"labels", "question"}),
    "slots": frozenset({"intent", "schema", "context", "question"}),
    "not_found": frozenset({"question"}),
}


@dataclass(frozen=True)
class FeedbackConfig:
    dir: str
    rotate_mb: float = field(metadata=rng(0.001, 100_000))
    keep_rotated: int = field(metadata=rng(0, 1000))
    query_text: str = field(metadata=choice("keep", "hash", "drop"))


@dataclass(frozen=True)
class GraphConfig:
    max_hops: int = field(metadata=rng(0, 6))
    cooccurrence_weight: float = field(metadata=rng(0, 1))
    llm_extraction: bool
    term_match_intents: tuple[str, ...] = field(metadata=choice(*INTENT_NAMES))


@dataclass(frozen=True)
class WikiConfig:
    min_mentions: int = field(metadata=rng(1, 1000))
    summary_sentences: int = field(metadata=rng(1, 50))
    llm_summaries: bool
    body_match_intents: tuple[str, ...] = field(metadata=choice(*INTENT_NAMES))


@dataclass(frozen=True)
class DocumentsConfig:
    """The documents API (POST/GET/DELETE /api/documents)."""

    max_files: int = field(metadata=rng(1, 10_000))  # files one upload may carry


@dataclass(frozen=True)
class SyncConfig:
    """`lambdarag sync`: the folder raw/ mirrors when --from is not given ("" = none)."""

    source: str = field(metadata={"key": "from"})  # written `from:` in YAML (a Python keyword)


@dataclass(frozen=True)
class TagsConfig:
    """Document tags for the ``tags`` filter: rules on the raw path and the title, and sidecar files."""

    sources: Mapping[str, tuple[str, ...]]  # tag -> fnmatch globs on the raw path relative to raw/
    titles: Mapping[str, tuple[str, ...]]  # tag -> words the title contains (case folded)
    sidecar: bool  # also read raw/<file>.tags


@dataclass(frozen=True)
class FaqConfig:
    """Curated answers (lambdarag/faq/): a question close enough to one is answered from it."""

    enabled: bool
    file: str  # relative to the domain folder
    threshold: float = field(metadata=rng(0, 1))


@dataclass(frozen=True)
class Config:
    server: ServerConfig
    llm: LLMConfig
    embedding: EmbeddingConfig
    knowledge: KnowledgeConfig
    ingest: IngestConfig
    retrieval: RetrievalConfig
    rerank: RerankConfig
    intents: IntentsConfig
    query: QueryConfig
    corrective: CorrectiveConfig
    slots: SlotsConfig
    context: ContextConfig
    prompts: PromptsConfig
    feedback: FeedbackConfig
    graph: GraphConfig
    wiki: WikiConfig
    documents: DocumentsConfig
    sync: SyncConfig
    tags: TagsConfig
    faq: FaqConfig
