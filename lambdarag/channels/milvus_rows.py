"""What the Milvus collection holds per chunk: its schema, index parameters, rows and their content hashes.

Fields: chunk_id (primary key), doc_id, text (Chunk.index_text: the contextual header and the body), the BM25
input, sparse (made by Milvus's BM25 function), dense (the embedder's vector, from the vector channel's cache)
and the metadata a filter expression can use: title, date (the document's date), source (the raw file),
type (its suffix), tags (the document header's values, ingest.metadata_fields), dates (the chunk's own dates),
is_table; hash is the digest of every other field but the vector, what incremental builds compare.

The BM25 input: with retrieval.milvus.analyzer ``lambdarag`` a field ``tokens`` holds our tokenizer's tokens
(the local backend's, domain dictionary and English rules included) made word-safe and joined by spaces, read
by a whitespace-splitting analyzer, and queries are tokenised the same way; with ``jieba`` Milvus's jieba
analyzer (with the domain dictionary and our stopwords) reads ``text`` and queries are sent as written.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

from lambdarag.ingest.chunk import HEADER_SEPARATOR
from lambdarag.records import Chunk
from lambdarag.scope import Scope
from lambdarag.text.tokenizer import Tokenizer, stopwords

MAX_VARCHAR = 65_535  # bytes (UTF-8): Milvus's VARCHAR limit
MAX_ID = 4_096
MAX_TAGS, MAX_TAG = 64, 512
SPARSE, DENSE, TOKENS, TEXT = "sparse", "dense", "tokens", "text"
_NON_WORD = re.compile(r"\W", re.UNICODE)
_PUNCTUATION = tuple("，。、；：？！“”‘’（）《》【】「」『』…—·,.;:?!\"'()[]{}<>-/\\|~`@#$%^&*+=_")


def clip(text: str, limit: int = MAX_VARCHAR) -> str:
    """``text`` cut to ``limit`` UTF-8 bytes (on a character boundary)."""
    raw = text.encode("utf-8")
    return text if len(raw) <= limit else raw[:limit].decode("utf-8", errors="ignore")


def token_text(tokenizer: Tokenizer, text: str) -> str:
    """Our tokens of ``text`` as one string a whitespace (or ``\\w+``) analyzer splits back into exactly them."""
    return " ".join(_NON_WORD.sub("_", token) for token in tokenizer.tokens(text))


def analyzer_params(analyzer: str, terms: Sequence[str], lite: bool) -> dict[str, Any]:
    """The BM25 field's analyzer: a whitespace split of our tokens (milvus-lite has no whitespace tokenizer; its
    standard one splits on \\W+, which token_text leaves out), or jieba with the dictionary and our stopwords."""
    if analyzer == "lambdarag":
        return {"tokenizer": "standard" if lite else "whitespace"}
    return {"tokenizer": {"type": "jieba", "dict": ["_default_", *sorted(terms)], "mode": "exact", "hmm": False},
            "filter": [{"type": "stop", "stop_words": sorted(stopwords() | set(_PUNCTUATION))}]}


def bm25_field(analyzer: str) -> str:
    """The field the BM25 function reads."""
    return TOKENS if analyzer == "lambdarag" else TEXT


def schema(pymilvus: Any, analyzer: str, params: Mapping[str, Any], dim: int) -> Any:
    """The collection schema: the fields above, the BM25 function from the analyzed field into ``sparse``."""
    data_type = pymilvus.DataType
    out = pymilvus.MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    out.add_field("chunk_id", data_type.VARCHAR, is_primary=True, max_length=MAX_ID)
    out.add_field("doc_id", data_type.VARCHAR, max_length=MAX_ID)
    analyzed = {"enable_analyzer": True, "analyzer_params": dict(params)}
    out.add_field(TEXT, data_type.VARCHAR, max_length=MAX_VARCHAR, **(analyzed if analyzer == "jieba" else {}))
    if analyzer == "lambdarag":
        out.add_field(TOKENS, data_type.VARCHAR, max_length=MAX_VARCHAR, **analyzed)
    out.add_field(SPARSE, data_type.SPARSE_FLOAT_VECTOR)
    if dim:
        out.add_field(DENSE, data_type.FLOAT_VECTOR, dim=dim)
    for name, length in (("title", MAX_ID), ("date", 32), ("source", MAX_ID), ("type", 32), ("hash", 64)):
        out.add_field(name, data_type.VARCHAR, max_length=length)
    for name, length in (("tags", MAX_TAG), ("dates", 32)):
        out.add_field(name, data_type.ARRAY, element_type=data_type.VARCHAR, max_capacity=MAX_TAGS,
                      max_length=length)
    out.add_field("is_table", data_type.BOOL)
    out.add_function(pymilvus.Function(name="bm25", function_type=pymilvus.FunctionType.BM25,
                                       input_field_names=[bm25_field(analyzer)], output_field_names=[SPARSE]))
    return out


def index_params(client: Any, dim: int, dense_index: str, dense_params: Mapping[str, int],
                 bm25: Sequence[float]) -> Any:
    """BM25 sparse index, the configured dense index (inner product: the vectors are unit length), and inverted
    indexes on the scalar fields a filter expression will use."""
    out = client.prepare_index_params()
    out.add_index(field_name=SPARSE, index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                  params={"bm25_k1": bm25[0], "bm25_b": bm25[1]})
    if dim:
        out.add_index(field_name=DENSE, index_type=dense_index, metric_type="IP", params=dict(dense_params))
    for name in ("doc_id", "date", "source", "type"):
        out.add_index(field_name=name, index_type="INVERTED")
    return out


def scalar_row(chunk: Chunk, tokens: str | None) -> dict[str, Any]:
    """Every field of a chunk's row but the vector, ``hash`` included."""
    tags = [t.strip() for t in chunk.context.split(HEADER_SEPARATOR) if t.strip()]
    row: dict[str, Any] = {
        "chunk_id": chunk.chunk_id,
        "doc_id": clip(chunk.doc_id, MAX_ID),
        TEXT: clip(chunk.index_text),
        "title": clip(chunk.title, MAX_ID),
        "date": chunk.doc_date[:32],
        "source": clip(chunk.source, MAX_ID),
        "type": PurePosixPath(chunk.source).suffix.lstrip(".").lower()[:32],
        "tags": [clip(t, MAX_TAG) for t in tags[:MAX_TAGS]],
        "dates": [d[:32] for d in chunk.dates[:MAX_TAGS]],
        "is_table": chunk.is_table,
    }
    if tokens is not None:
        row[TOKENS] = clip(tokens)
    row["hash"] = hashlib.sha256(json.dumps(row, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
    return row


def filter_expression(scope: Scope | None, expr: str | None = None) -> str | None:
    """The Milvus filter for a request's scope (its documents: filters select whole documents) and an extra
    expression; None when neither restricts."""
    parts = [f"({expr})"] if expr else []
    if scope is not None:
        parts.append(f"doc_id in {json.dumps(sorted(clip(d, MAX_ID) for d in scope.doc_ids), ensure_ascii=False)}")
    return " and ".join(parts) or None
