"""Answer generation: the LLM with the domain's prompts and [n] citations, else the extractive answer.

An LLM failure (time-out, connection, empty reply) falls back to the extractive answer and keeps
the error for the trace. A stream cut midway cannot take back what it sent: the extractive answer
follows it after a blank line, and it alone is the answer (what the final result, logs and session keep).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

from lambdarag.answer.context import Packed
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.needs import is_english
from lambdarag.config.schema import Config
from lambdarag.errors import ServiceError
from lambdarag.text.fence import data_rule, fence, neutralise_markers

if TYPE_CHECKING:
    from lambdarag.models.llm import LLMClient

_PIECES = re.compile(r"[^。！？\n]*[。！？\n]*")  # sentence-sized stream pieces that join back exactly
CUT_SEPARATOR = "\n\n"  # between the part of an LLM stream sent before it broke and the extractive answer


@dataclass
class Generation:
    """An answer text and how it was produced."""

    text: str
    method: str  # llm | extractive | not_found
    error: str | None = None


def not_found_answer(question: str, config: Config) -> Generation:
    """The configured "not found" answer in the question's language (no evidence is offered as support)."""
    return Generation(config.prompts.reader(is_english(question)).not_found.format(question=question), "not_found")


def llm_messages(question: str, packed: Packed, config: Config, domain: str) -> list[dict[str, Any]]:
    """The domain's rules (system prompt, then the data rule), then the answer prompt with the context fenced as data.

    The question is the user's, outside the fence; it cannot write a marker either, so the prompt holds
    exactly one begin and one end marker.
    """
    prompts = config.prompts.reader(is_english(question))  # the answer's language follows the question's
    system = prompts.system.format(domain=domain) + "\n" + data_rule(prompts.data_rule)
    user = prompts.answer.format(context=fence(packed.text), question=neutralise_markers(question))
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


@overload
def generate(question: str, packed: Packed, intent: str, slots: dict[str, Any], llm: LLMClient | None,
             config: Config, stream: Literal[False] = ..., *, keywords: Sequence[str] = (),
             domain: str = "") -> Generation: ...


@overload
def generate(question: str, packed: Packed, intent: str, slots: dict[str, Any], llm: LLMClient | None,
             config: Config, stream: Literal[True], *, keywords: Sequence[str] = (),
             domain: str = "") -> AnswerStream: ...


def generate(question: str, packed: Packed, intent: str, slots: dict[str, Any], llm: LLMClient | None,
             config: Config, stream: bool = False, *, keywords: Sequence[str] = (),
             domain: str = "") -> Generation | AnswerStream:
    """The answer to ``question`` from the packed context; with stream=True an iterator of text deltas."""
    answer_stream = AnswerStream(question, packed, intent, slots, llm, config, keywords, domain, stream)
    if stream:
        return answer_stream
    for _ in answer_stream:
        pass
    return answer_stream.generation()


class AnswerStream:
    """Iterate for text deltas; afterwards ``text``, ``method`` and ``error`` describe the whole answer."""

    def __init__(self, question: str, packed: Packed, intent: str, slots: dict[str, Any], llm: LLMClient | None,
                 config: Config, keywords: Sequence[str], domain: str, stream: bool = True) -> None:
        self.question, self.packed, self.intent, self.slots = question, packed, intent, slots
        self.llm, self.config, self.keywords, self.domain = llm, config, keywords, domain
        self.stream = stream
        self.text = ""
        self.method = "extractive"
        self.error: str | None = None

    def generation(self) -> Generation:
        return Generation(self.text, self.method, self.error)

    def __iter__(self) -> Iterator[str]:
        if self.llm is not None:
            yield from self._llm()
            if self.text.strip() and self.error is None:
                return
            if self.error is not None and self.text:  # cut midway
                self.error = f"{self.error} (after {len(self.text)} characters; the extractive answer follows)"
                yield CUT_SEPARATOR
            self.error = self.error or "LLM returned an empty answer"
            self.text = ""
        self.method = "extractive"
        yield from self._extractive()

    def _llm(self) -> Iterator[str]:
        assert self.llm is not None
        self.method = "llm"
        messages = llm_messages(self.question, self.packed, self.config, self.domain)
        tokens, temperature = self.config.llm.max_tokens, self.config.llm.temperature
        deltas: Iterator[str]
        try:
            if self.stream:
                deltas = self.llm.stream(messages, max_tokens=tokens, temperature=temperature)
            else:
                deltas = iter([self.llm.chat(messages, max_tokens=tokens, temperature=temperature)])
            for delta in deltas:
                self.text += delta
                yield delta
        except ServiceError as exc:  # before the first delta or midway: the extractive answer follows (__iter__)
            self.error = str(exc)

    def _extractive(self) -> Iterator[str]:
        text = extractive_answer(self.question, self.packed, self.intent, self.slots, self.keywords,
                                 self.config.context.answer_chars, self.config.context.answer_sentences)
        for piece in [p for p in _PIECES.findall(text) if p] or [text]:
            self.text += piece
            yield piece
