"""What the request path returns: Result, SearchResult and the streaming event type."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, NamedTuple

from lambdarag.answer.context import Packed
from lambdarag.records import Citation, json_safe


@dataclass
class Result:
    """The answer to one question with its evidence, intent, slots and per-request trace."""

    request_id: str
    session_id: str | None
    question: str
    condensed: str
    found: bool
    answer: str
    citations: list[Citation]
    intent: str
    intent_scores: dict[str, float]
    slots: dict[str, Any]
    relevance: str  # PRECISE | REFERENCE | none
    context: str
    timings: dict[str, float] = field(default_factory=dict)  # stage -> ms
    trace: dict[str, Any] = field(default_factory=dict)
    answer_method: str = "extractive"  # llm | extractive | not_found
    grounding: list[dict[str, Any]] = field(default_factory=list)  # per answer sentence
    packed: Packed | None = field(default=None, repr=False, compare=False)  # the context's pieces (evaluation)

    def to_dict(self, include_trace: bool = True) -> dict[str, Any]:
        """JSON-safe form; the HTTP API returns this."""
        data: dict[str, Any] = {
            "request_id": self.request_id,
            "session_id": self.session_id,
            "question": self.question,
            "condensed": self.condensed,
            "found": self.found,
            "answer": self.answer,
            "answer_method": self.answer_method,
            "citations": [c.to_dict() for c in self.citations],
            "intent": self.intent,
            "intent_scores": dict(self.intent_scores),
            "slots": json_safe(self.slots),
            "relevance": self.relevance,
            "grounding": json_safe(self.grounding),
            "timings": {k: round(v, 2) for k, v in self.timings.items()},
        }
        if include_trace:
            data["context"] = self.context
            data["trace"] = json_safe(self.trace)
        return data


@dataclass
class SearchResult:
    """Retrieval only: the fused evidence with each channel's rank and score, no answer."""

    request_id: str
    question: str
    condensed: str
    intent: str
    intent_scores: dict[str, float]
    hits: list[dict[str, Any]]
    gate: dict[str, Any]
    timings: dict[str, float] = field(default_factory=dict)
    trace: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, include_trace: bool = True) -> dict[str, Any]:
        """The JSON form; without the trace when not wanted (the API body: copying a trace only to drop it was a
        fifth of /api/search's CPU at 10k chunks)."""
        if include_trace:
            data: dict[str, Any] = json_safe(asdict(self))
            return data
        data = json_safe(asdict(replace(self, trace={})))
        del data["trace"]
        return data


class StreamEvent(NamedTuple):
    """One event of answer_stream: ("meta", dict), ("delta", str) or ("result", Result)."""

    kind: str
    data: dict[str, Any] | str | Result


