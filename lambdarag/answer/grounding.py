"""Grounding check: does each answer sentence find support in the chunks it cites?

Support is lexical: the share of the sentence's content units (CJK character bigrams and Latin
words / numbers) that occur in the cited text. Cheap, deterministic and language-agnostic enough
for Chinese, where word segmentation of short answer sentences is unreliable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lambdarag.records import Chunk, Citation
from lambdarag.text.patterns import CITATION_MARK

SUPPORT_THRESHOLD = 0.5  # share of a sentence's units found in its cited text
FLAG_MARK = "（未在资料中核实）"
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)\s+|\n+")
_LEADING_MARKERS = re.compile(r"^(?:\s*\[\d{1,3}\])+")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[A-Za-z]{2,}|\d+(?:\.\d+)?")


@dataclass(frozen=True)
class SentenceSupport:
    """One answer sentence, the numbers it cites, its support score and verdict."""

    sentence: str
    cited: tuple[int, ...]
    score: float
    supported: bool

    def to_dict(self) -> dict[str, object]:
        return {"sentence": self.sentence, "cited": list(self.cited), "score": round(self.score, 3),
                "supported": self.supported}


def answer_sentences(answer: str) -> list[str]:
    """The answer cut after 。！？; and line breaks; [n] markers stay with the sentence they close, and a clause cut
    at ；/; without a marker of its own stays with the one after it ("…如下：（一）…；（二）…[1]。", a list the
    marker at its end cites whole)."""
    parts: list[str] = []
    open_clause = False  # the last part ended at ；/; without a marker: the next one completes it
    for raw in _SENTENCE_END.split(answer):
        piece = raw.strip()
        lead = _LEADING_MARKERS.match(piece)
        if lead and parts:  # "…。[1]": a marker after the full stop belongs to the sentence before
            parts[-1] += lead.group()
            piece = raw = piece[lead.end() :].strip()
            open_clause = False
        if not piece:
            continue
        if open_clause:  # as the answer writes it: the split after ；/; consumed nothing
            parts[-1] += raw.rstrip()
        else:
            parts.append(piece)
        open_clause = parts[-1].endswith(("；", ";")) and not CITATION_MARK.search(parts[-1])
    return parts


def units(text: str) -> set[str]:
    """Content units of a text: CJK character bigrams (single characters for 1-char runs) and words."""
    found: set[str] = set()
    for run in _CJK_RUN.findall(text):
        found.update([run] if len(run) == 1 else (run[i : i + 2] for i in range(len(run) - 1)))
    found.update(w.lower() for w in _WORD.findall(text))
    return found


def support_score(sentence: str, source: str) -> float:
    """Share of the sentence's content units that occur in the source text (1.0 for no units)."""
    wanted = units(CITATION_MARK.sub("", sentence))
    if not wanted:
        return 1.0
    return len(wanted & units(source)) / len(wanted)


def check_grounding(
    answer: str,
    citations: Sequence[Citation],
    chunks: Mapping[str, Chunk],
    threshold: float = SUPPORT_THRESHOLD,
) -> list[SentenceSupport]:
    """Score each answer sentence against the text of the chunks it cites; uncited ones are unsupported."""
    by_n = {c.n: c for c in citations}
    out: list[SentenceSupport] = []
    for sentence in answer_sentences(answer):
        cited = tuple(dict.fromkeys(int(m) for m in CITATION_MARK.findall(sentence)))
        sources = [_source_text(by_n[n], chunks) for n in cited if n in by_n]
        if not units(CITATION_MARK.sub("", sentence)):
            continue  # a bare connective or heading has nothing to check
        score = support_score(sentence, "\n".join(sources)) if sources else 0.0
        out.append(SentenceSupport(sentence, cited, score, bool(sources) and score >= threshold))
    return out


def _source_text(citation: Citation, chunks: Mapping[str, Chunk]) -> str:
    chunk = chunks.get(citation.chunk_id)
    return f"{chunk.index_text}\n{citation.excerpt}" if chunk else citation.excerpt


def apply_grounding(answer: str, supports: Sequence[SentenceSupport], mode: str) -> str:
    """The answer with unsupported sentences dropped ("drop") or marked ("flag"); never emptied."""
    out = answer
    for support in supports:
        if support.supported or support.sentence not in out:
            continue
        out = out.replace(support.sentence, _flag(support.sentence) if mode == "flag" else "", 1)
    return out.strip() if out.strip() else answer


def _flag(sentence: str) -> str:
    body = CITATION_MARK.sub("", sentence).rstrip()
    markers = "".join(f"[{m}]" for m in CITATION_MARK.findall(sentence))
    end = body[-1] if body and body[-1] in "。！？!?；;." else ""
    return f"{body[: len(body) - len(end)]}{FLAG_MARK}{markers}{end}"
