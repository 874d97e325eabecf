"""Which sentence of a question asks: the first, unless it only checks what the asker believes.

"308不是行政办公专用的会议室吗？晚上空着的话，我们能预约来用吗？" opens with a rhetorical check (不是…吗, 难道…吗,
"Isn't it…?") and asks in the sentence after it; "Is X…? If not, explain why." asks in its first. Pure.
"""

from __future__ import annotations

import re

_CLAUSE_MARK = re.compile(r"[，,；;：:]")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_SUBJECT_ONLY = 2  # CJK characters of a modal's clause that name only who decides ("学校允许吗"), not what is asked
_SENTENCES = re.compile(r"[^？?]*[？?]|[^？?]+$")
_TOLD = re.compile(r"(?<=[。！!])|(?<=[a-z0-9)][.!])\s+(?=[A-Z])")  # the end of a sentence telling, not asking
# a check of what the asker believes, not the question asked, when another question follows it
_CHECK = re.compile(r"(?:不是|难道)[^，,。；;]*吗\s*[？?]$|^\W*(?:isn't|aren't|wasn't|doesn't|don't|didn't)\b",
                    re.IGNORECASE)


def asking_sentence(question: str) -> str:
    """The sentence of ``question`` that asks, without its question mark."""
    sentences = [s for s in (m.group(0).strip() for m in _SENTENCES.finditer(question)) if s]
    if not sentences:
        return ""
    asks = next((s for s in sentences[1:] if s.endswith(("？", "?"))), None) if _CHECK.search(sentences[0]) else None
    return (asks or sentences[0]).rstrip("？?")


def asked_part(question: str) -> str:
    """The asking sentence without the sentences the asker tells before it ("I reported an incident and left my
    contact info. How soon should I hear back?" -> "How soon should I hear back")."""
    return _TOLD.split(asking_sentence(question))[-1]


def asked_before(sentence: str, end: int) -> str:
    """What a Chinese question closing on its modal asks of ("…，再拿这张票接着坐，行不行" -> 再拿这张票接着坐;
    "…想办走读每天回家住，学校允许吗" -> 想办走读每天回家住): the clause before ``end`` (where the modal stands),
    or the one before it when the modal's own clause names nothing but who decides ("学校") or nothing at all."""
    clauses = [c.strip() for c in _CLAUSE_MARK.split(sentence[:end])]
    if len(clauses) > 1 and len(_CJK.findall(clauses[-1])) <= _SUBJECT_ONLY:
        clauses.pop()
    return clauses[-1] if clauses else ""
