"""Scored intent: weighted keyword rules for all eight classes, the LLM when the rules are unsure.

Keywords (agent-config.yml intents.classes.*.keywords plus the domain's additions) are matched on
the normalised question; a keyword found only inside a longer matched keyword does not count
(联系电话 counts, the 电话 inside it does not), so one phrase is scored once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lambdarag.config.schema import INTENT_NAMES, IntentsConfig
from lambdarag.errors import ServiceError
from lambdarag.models.llm import LLMClient
from lambdarag.text.english import asks_when
from lambdarag.text.patterns import compares
from lambdarag.text.tokenizer import normalize

LABELS = {
    "person": "找人/联系方式/负责人",
    "process": "办事流程/手续/材料",
    "data": "表格数据/统计/排名",
    "fact": "事实/标准/数额",
    "compare": "比较异同",
    "relation": "隶属/依据/制定关系",
    "synthesis": "总结/概述/梳理",
    "temporal": "时间/最新/修订/生效",
}
DEFAULT_PROMPT = "把问题归入以下类别之一：{labels}。只输出JSON，如{{\"intent\": \"fact\"}}。\n问题：{question}"
_ASCII_WORD = re.compile(r"^[0-9a-z][0-9a-z ._-]*$")


@dataclass(frozen=True)
class IntentResult:
    """The chosen intent with every class's rule score, the keywords matched and how it was decided."""

    intent: str
    scores: dict[str, float]
    matched: dict[str, list[str]] = field(default_factory=dict)
    method: str = "rules"  # "rules" | "llm" | "default"
    margin: float = 0.0  # top rule score minus the runner-up
    error: str | None = None  # why the LLM path was not used, when it was attempted

    def to_dict(self) -> dict[str, Any]:
        return {"intent": self.intent, "scores": dict(self.scores), "matched": dict(self.matched),
                "method": self.method, "margin": round(self.margin, 4), "error": self.error}


@dataclass(frozen=True)
class Match:
    """One keyword occurrence in the normalised question."""

    keyword: str
    start: int
    end: int


def find_matches(text: str, keywords: Sequence[str]) -> list[Match]:
    """Occurrences of ``keywords`` in ``text``, without those lying inside a longer occurrence."""
    found: list[Match] = []
    for keyword in set(keywords):
        if not keyword:
            continue
        if _ASCII_WORD.match(keyword):
            # Latin keywords match whole words only: "how" is not in "show"
            pattern = re.compile(rf"(?<![0-9a-z]){re.escape(keyword)}(?![0-9a-z])")
            found += [Match(keyword, m.start(), m.end()) for m in pattern.finditer(text)]
        else:
            start = text.find(keyword)
            while start >= 0:
                found.append(Match(keyword, start, start + len(keyword)))
                start = text.find(keyword, start + 1)
    found.sort(key=lambda m: (-(m.end - m.start), m.start, m.keyword))
    kept: list[Match] = []
    for m in found:
        if not any(k.start <= m.start and m.end <= k.end for k in kept):
            kept.append(m)
    return sorted(kept, key=lambda m: (m.start, m.keyword))


def keyword_table(intents: IntentsConfig) -> dict[str, dict[str, float]]:
    """Normalised keyword -> {intent: weight} over all classes (a keyword may serve several)."""
    table: dict[str, dict[str, float]] = {}
    for name, cls in intents.classes.items():
        for keyword, weight in cls.keywords.items():
            table.setdefault(normalize(keyword).strip(), {})[name] = float(weight)
    return table


def score_intents(question: str, intents: IntentsConfig) -> tuple[dict[str, float], dict[str, list[str]]]:
    """Every class's score (sum of the weights of its distinct matched keywords) and those keywords."""
    table = keyword_table(intents)
    scores = {name: 0.0 for name in INTENT_NAMES}
    matched: dict[str, list[str]] = {name: [] for name in INTENT_NAMES}
    text = normalize(question)
    for m in find_matches(text, list(table)):
        if m.keyword == "when" and not asks_when(text, m.start):
            continue  # "What happens when…": a condition, not a time asked
        if m.keyword == "比较" and not compares(text, m.start):
            continue  # "哪天去比较方便": the adverb "rather", not a comparison asked
        for name, weight in table[m.keyword].items():
            if m.keyword not in matched[name]:
                matched[name].append(m.keyword)
                scores[name] += weight
    return scores, {k: v for k, v in matched.items() if v}


def rank_intents(scores: Mapping[str, float]) -> list[str]:
    """Intents by score, ties in the fixed class order (person, process, data, …)."""
    return sorted(INTENT_NAMES, key=lambda n: (-scores.get(n, 0.0), INTENT_NAMES.index(n)))


def classify(
    question: str, intents: IntentsConfig, llm: LLMClient | None, prompt: str | None = None
) -> IntentResult:
    """Highest rule score wins; below intents.llm_margin (or no match) the LLM decides when configured."""
    scores, matched = score_intents(question, intents)
    ranked = rank_intents(scores)
    top, second = scores[ranked[0]], scores[ranked[1]]
    margin = top - second
    rules = IntentResult(ranked[0], scores, matched, "rules", margin) if top > 0 else None
    if llm is None or (rules is not None and margin >= intents.llm_margin):
        return rules or IntentResult(intents.default, scores, matched, "default", margin)
    try:
        label = llm.chat_json(_messages(question, prompt or DEFAULT_PROMPT), _validate_intent)
    except ServiceError as exc:
        fallback = rules or IntentResult(intents.default, scores, matched, "default", margin)
        return IntentResult(fallback.intent, scores, matched, fallback.method, margin, f"llm failed: {exc}")
    return IntentResult(label, scores, matched, "llm", margin)


def _messages(question: str, prompt: str) -> list[dict[str, str]]:
    labels = "，".join(f"{name}（{desc}）" for name, desc in LABELS.items())
    return [{"role": "user", "content": prompt.format(labels=labels, question=question)}]


def _validate_intent(data: Any) -> str:
    """The intent of an LLM reply {"intent": "..."}; anything else is a ValueError."""
    if not isinstance(data, dict) or not isinstance(data.get("intent"), str):
        raise ValueError(f'expected {{"intent": "<label>"}}, got {data!r}')
    label: str = data["intent"].strip().lower()
    if label not in INTENT_NAMES:
        raise ValueError(f"unknown intent {label!r}; expected one of {', '.join(INTENT_NAMES)}")
    return label
