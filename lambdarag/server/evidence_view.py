"""The evidence-first view for agents (lookup_knowledge), built from an answer Result; no Flask here.

An agent gets evidence blocks to compose its own answer, a relevance level, a completeness hint
and a message. Within a session each chunk is handed out once: a repeat lookup says which chunks
were withheld and carries no consumable evidence, so an agent cannot mistake old evidence for new
support.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lambdarag.pipeline.result import Result
from lambdarag.records import Citation

TextOf = Callable[[str], str | None]

COMPLETENESS = {"PRECISE": "sufficient", "REFERENCE": "partial"}
MESSAGES = {
    "sufficient": "找到{n}条直接相关的资料，可据此作答并注明来源编号。",
    "partial": "找到{n}条相关资料，但可能不足以完整回答；请谨慎作答，说明信息可能不全。",
    "none": "知识库中未找到与该问题相关的资料；请如实告知未找到，不要编造。",
    "already_returned": "相关资料（{ids}）已在本会话中返回过，本次不再重复提供；请直接使用先前的资料。",
}


def evidence_block(citation: Citation, text_of: TextOf) -> dict[str, Any]:
    """One evidence block: where it comes from and its full text (the excerpt when the text is unknown)."""
    return {
        "n": citation.n,
        "chunk_id": citation.chunk_id,
        "doc_id": citation.doc_id,
        "title": citation.title,
        "breadcrumb": citation.breadcrumb,
        "locator": citation.locator,
        "text": text_of(citation.chunk_id) or citation.excerpt,
    }


def completeness(found: bool, relevance: str, fresh: int, withheld: int) -> str:
    """sufficient | partial | none | already_returned."""
    if not found:
        return "none"
    if fresh == 0 and withheld:
        return "already_returned"
    if fresh == 0:
        return "none"
    return COMPLETENESS.get(relevance, "partial")


def lookup_view(result: Result, fresh_ids: Sequence[str], withheld_ids: Sequence[str],
                text_of: TextOf) -> dict[str, Any]:
    """The lookup_knowledge response for ``result``, given which chunk ids are new to the session."""
    found = result.found
    fresh = set(fresh_ids)
    # evidence-first: a not-found result carries no evidence pretending to be support
    citations = [c for c in result.citations if found and c.chunk_id in fresh]
    blocks = [evidence_block(c, text_of) for c in citations]
    level = completeness(found, result.relevance, len(blocks), len(withheld_ids))
    return {
        "request_id": result.request_id,
        "session_id": result.session_id,
        "found": found,
        "evidence": blocks,
        "relevance": result.relevance if found else "none",
        "completeness": level,
        "already_returned": level == "already_returned",
        "withheld": list(withheld_ids),
        "message": MESSAGES[level].format(n=len(blocks), ids="、".join(withheld_ids)),
        "intent": result.intent,
        "condensed": result.condensed,
    }
