"""MediaWiki's language-conversion markup, which Chinese text taken from Wikipedia carries: "-{…}-".

Chinese Wikipedia writes one text for its script variants and marks what the converter must not touch:
"郭-{麐}-" (keep 麐 as written), "-{zh-hans:为;zh-hant:為;}-" (a word per variant), "足-{}-三两" (nothing: stop a
conversion across the boundary). A corpus exported from it keeps the marks, so the name a question asks about
("郭麐") is not in the text that says it. The text as a reader sees it has the kept words, the simplified
variant of a choice, and no empty marks.
"""

from __future__ import annotations

import re

_MARK = re.compile(r"-\{([^{}]*)\}-")
# a variant choice: "zh-hans:为;zh-hant:為;" (zh-cn, zh-sg… name simplified variants too)
_CHOICE = re.compile(r"(zh(?:-[a-z]+)?)\s*:\s*([^;]*)", re.IGNORECASE)
_SIMPLIFIED = ("zh-hans", "zh-cn", "zh-sg", "zh-my", "zh")
_RULE = re.compile(r"^[A-Za-z]\|")  # "-{H|…}-", "-{T|…}-": a conversion rule or title, not text


def without_conversion_marks(text: str) -> str:
    """``text`` as a reader of the page sees it (pure); text without "-{" is returned as it is."""
    return _MARK.sub(_shown, text) if "-{" in text else text


def _shown(m: re.Match[str]) -> str:
    inner = m.group(1)
    if _RULE.match(inner):
        return ""
    choices: dict[str, str] = {str(lang).lower(): str(word).strip() for lang, word in _CHOICE.findall(inner)}
    if not choices:
        return inner
    return next((choices[lang] for lang in _SIMPLIFIED if lang in choices), next(iter(choices.values())))
