"""The corrective gate's pure parts: overlap of query keywords with the top chunks, and the core rewrite.

After corrective RAG (Yan et al., 2024): when the best chunks share too few of the question's
keywords, the question is cut to its core nouns and entities and searched once more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lambdarag.query.expand import Expansion
from lambdarag.text.tokenizer import Tokenizer, keyword_overlap, normalize

TOP_N = 3  # chunks whose text the gate compares with the query keywords
# question, request and filler words: they carry no topic, so the core rewrite drops them
QUESTION_WORDS = frozenset({
    "到底", "究竟", "具体", "什么", "怎么", "怎样", "如何", "多少", "哪些", "哪个", "哪里", "哪儿", "哪", "谁",
    "几", "是否", "是不是", "能否", "能不能", "可否", "可以", "能", "需要", "要", "请问", "请", "一下", "告诉", "知道",
    "想", "想要", "我", "我们", "你", "您", "吗", "呢", "吧", "啊", "有", "是", "在", "的", "了", "和", "与",
    "及", "或", "还是", "应该", "what", "which", "who", "how", "when", "where", "is", "are", "do", "does",
    "can", "the", "a", "an", "of", "to", "for",
})
_CORE_ENTITY_KINDS = frozenset({"org", "role", "person", "regulation", "place", "date", "amount"})


@dataclass(frozen=True)
class GateDecision:
    """What the corrective gate measured and did."""

    overlap: float  # overlap of the kept attempt's top chunks with the query keywords
    passed: bool  # the first attempt reached the threshold
    threshold: float
    rewritten: str | None = None  # the core rewrite searched on retry, if any
    retry_overlap: float | None = None
    kept: str = "first"  # "first" | "retry"
    reason: str = ""
    attempts: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "overlap": round(self.overlap, 4), "passed": self.passed, "threshold": self.threshold,
            "rewritten": self.rewritten,
            "retry_overlap": None if self.retry_overlap is None else round(self.retry_overlap, 4),
            "kept": self.kept, "reason": self.reason, "attempts": list(self.attempts),
        }


def overlap_score(keywords: Sequence[str], texts: Sequence[str]) -> float:
    """Fraction of the query keywords that occur in the top-3 texts together, an English word in any of its forms
    ("hotels" in "hotel rate"; 0.0 without keywords)."""
    return keyword_overlap(keywords, "\n".join(texts[:TOP_N]), inflected=True)


def core_terms(question: str, expansion: Expansion, tokenizer: Tokenizer) -> list[str]:
    """Entities first, then the question's content words without question and filler words."""
    entities = [e.name for e in expansion.entities if e.kind in _CORE_ENTITY_KINDS]
    words = [w for w in tokenizer.keywords(question) if w not in QUESTION_WORDS]
    covered = [normalize(e) for e in entities]
    # a word already inside an entity name adds nothing to the rewrite
    words = [w for w in words if not any(w in c for c in covered)]
    return list(dict.fromkeys([*entities, *words]))


def core_rewrite(question: str, expansion: Expansion, tokenizer: Tokenizer) -> str:
    """The question cut to its core nouns and entities, space separated ("" when nothing is left)."""
    return " ".join(core_terms(question, expansion, tokenizer))


def gate_reason(overlap: float, threshold: float, retry: float | None, rewritten: str | None) -> str:
    """A one-line account of the gate's decision for the trace."""
    if overlap >= threshold:
        return f"overlap {overlap:.2f} >= threshold {threshold:.2f}: first attempt kept"
    if rewritten is None:
        return f"overlap {overlap:.2f} < threshold {threshold:.2f}: no retry (no core rewrite differs from the query)"
    if retry is not None and retry > overlap:
        return f"overlap {overlap:.2f} < threshold {threshold:.2f}: core rewrite retried, better ({retry:.2f}), kept"
    shown = "n/a" if retry is None else f"{retry:.2f}"
    return f"overlap {overlap:.2f} < threshold {threshold:.2f}: core rewrite retried, not better ({shown}), first kept"
