"""The terms a rule compares a question with a sentence by: English content words by their stems, Chinese
characters in pairs. Pure functions (answer/opposites.py, answer/exceptions.py, answer/qualifiers.py).
"""

from __future__ import annotations

import re

from lambdarag.text.english import word_stems
from lambdarag.text.tokenizer import stopwords

_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
NAMING = 3  # English stems shorter than this ("a", "of", "to", "us") name nothing a rule is about


def content_stems(text: str, shortest: int = 1) -> frozenset[str]:
    """The stems of the text's English words that are no stopword and at least ``shortest`` letters long (a
    hyphenated word also written whole: "self-host" -> self, host, selfhost)."""
    stop = stopwords()
    return frozenset(w for w in word_stems(text) if len(w) >= shortest and w not in stop)


def cjk_pairs(text: str) -> frozenset[str]:
    """The text's Chinese characters two by two, within each run of them ("导盲犬除外" -> 导盲, 盲犬, 犬除, 除外)."""
    return frozenset(run[i:i + 2] for run in _CJK_RUN.findall(text) for i in range(len(run) - 1))
