"""Document text fenced as data for an LLM: between two markers no document (or question) can write.

Every prompt that carries document text — the answer's context, slot filling, wiki summaries, graph extraction
— puts it between FENCE_BEGIN and FENCE_END, with every run of three angle brackets inside it (ASCII, full-width
or look-alike, zero-width characters between them or not) cut to two, so a document that writes the end marker
cannot close the fence and speak as instructions; the system message carries the domain's prompts.data_rule.
"""

from __future__ import annotations

import re

FENCE_BEGIN = "<<<资料开始>>>"
FENCE_END = "<<<资料结束>>>"
_LT, _GT = "<＜﹤‹〈《«⟨", ">＞﹥›〉》»⟩"
_INVISIBLE = r"[\s\u00ad\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]*"
_MARKER_LIKE = re.compile(f"[{_LT}](?:{_INVISIBLE}[{_LT}]){{2,}}|[{_GT}](?:{_INVISIBLE}[{_GT}]){{2,}}")


def neutralise_markers(text: str) -> str:
    """``text`` with no way left to write a fence marker: each run of 3+ angle brackets becomes two."""
    return _MARKER_LIKE.sub(lambda m: "<<" if m.group()[0] in _LT else ">>", text)


def fence(text: str) -> str:
    """Document text as data for the LLM: inside the begin and end markers, which it cannot contain itself."""
    return f"{FENCE_BEGIN}\n{neutralise_markers(text)}\n{FENCE_END}"


def data_rule(template: str) -> str:
    """The domain's prompts.data_rule with the markers filled in (the system message of a fenced prompt)."""
    return template.format(begin=FENCE_BEGIN, end=FENCE_END)


def fenced_messages(rule_template: str, prompt: str) -> list[dict[str, str]]:
    """A one-turn chat whose system message is the data rule and whose user message holds fenced text."""
    return [{"role": "system", "content": data_rule(rule_template)}, {"role": "user", "content": prompt}]
