"""Whether a question its keywords match weakly is about the domain at all: the not-found line's second reading.

The keyword overlap alone cannot tell a question asked in other words than the documents' from one about
something the domain does not hold: a few everyday words ("apply", "email", "申请", a city) match any domain, and
most questions about another organisation's rules shared a third of their words with the top chunks. The dense
channel can: below ``corrective.dense_check_below`` a question whose best cosine stays within the background of
everyday questions (channels/vector_background.py) is no nearer the domain than the weather, and is answered "not
found". At or above it the keywords decide, and so they do where no dense channel is configured ("off"); one
configured without a background or a score is "unavailable", a degraded path (pipeline/trace.py). Pure: the
pipeline hands in the scores (pipeline/run.py).

Where the sentence vectors are built, the reading is a sentence's: the question's best cosine with a sentence of its
evidence (the fused chunks) against the everyday questions' best among all sentences. A question's answer is a
sentence, which it comes nearer than the chunk around it does, and an everyday question comes no nearer a sentence
than a chunk: on the development probes 639 → 558 of 5,355 other domains' questions "found", 1,006 → 1,010 of 1,022
answerable ones (docs/EVALUATION.md, thirty-fourth session).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

NEAR, FAR, NOT_NEEDED, OFF, UNAVAILABLE = "near", "far", "not_needed", "off", "unavailable"
SENTENCES, CHUNKS = "sentences", "chunks"  # what the dense score was read against


@dataclass(frozen=True)
class TopicCheck:
    """What the check read and decided; ``state`` FAR answers "not found"."""

    state: str
    reason: str
    top: float | None = None  # the dense channel's best cosine for the question
    fence: float | None = None  # the top of the background of the question's language
    reading: str = CHUNKS  # SENTENCES: the evidence's sentences and their background; CHUNKS: the chunks and theirs

    def to_dict(self) -> dict[str, Any]:
        rounded = {k: None if v is None else round(v, 4) for k, v in (("top", self.top), ("fence", self.fence))}
        return {"state": self.state, "reason": self.reason, **rounded, "reading": self.reading}


def topic_check(overlap: float, threshold: float, top: float | None, fence: float | None,
                missing: str = "", reading: str = CHUNKS) -> TopicCheck:
    """The check for a question with keyword ``overlap`` (checked below ``threshold``: corrective.dense_check_below),
    dense best cosine ``top`` and background ``fence``, both read against ``reading``; ``missing`` says why there is
    no fence or no score."""
    if overlap >= threshold:
        return TopicCheck(NOT_NEEDED, f"keyword overlap {overlap:.2f} >= {threshold:.2f}: the keywords decide", top,
                          fence, reading)
    if top is None or fence is None:
        return TopicCheck(UNAVAILABLE, missing or "no dense score or background", top, fence, reading)
    best = f"best cosine with {'a sentence of the evidence' if reading == SENTENCES else 'a chunk'} {top:.3f}"
    if top <= fence:
        return TopicCheck(FAR, f"{best} within the background of everyday questions (<= {fence:.3f}),"
                               f" keyword overlap {overlap:.2f} < {threshold:.2f}", top, fence, reading)
    return TopicCheck(NEAR, f"{best} above the background (> {fence:.3f})", top, fence, reading)
