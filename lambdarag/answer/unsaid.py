"""What of a question a chunk's heading does not already say, and whether a sentence says it.

Every sentence of a page matches the question's subject through the page's heading; the sentence that answers also
says something of the question's own beyond it (its predicate: 用途 ~ 用于, "free" in "Is the permit free?"). The
score's echo counts the CJK characters (answer/sentences.py); a yes/no answer needs the sentence to say one of them,
or one of the English words (answer/extractive.py: "not stated" otherwise).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lambdarag.text.english import stem, word_stems
from lambdarag.text.segment import words
from lambdarag.text.tokenizer import has_cjk, stopwords

_LATIN_WORD = re.compile(r"[A-Za-z]+")
# a breadcrumb section that asks ("… > Can I choose a Mac?", "… > 居住证办理需要多长时间？"): an FAQ's question,
# which the sentences under it answer; its words are the question's, not the page's subject
_ASKING_SECTION = re.compile(r"[^>]*[?？]")
# single characters that place or ask rather than name what is asked ("外形上", "由谁", "哪些人")
_NOT_ASKED = frozenset("上中下里内外前后来去谁哪啥人")


@dataclass(frozen=True)
class Unsaid:
    """What of the question's keywords a chunk's heading does not already say: CJK characters, English words."""

    characters: frozenset[str]
    words: frozenset[str]  # stemmed

    @classmethod
    def of(cls, keywords: Sequence[str], head: str, known: frozenset[str] = frozenset()) -> Unsaid:
        """What of ``keywords`` the heading ``head`` does not say; Latin words in ``known`` (stems) are no part of
        what is asked (``reader``)."""
        subject = _ASKING_SECTION.sub(" ", head)
        words = {stem(part.lower()) for w in keywords if w.isascii() for part in _LATIN_WORD.findall(w)
                 if len(part) > 1}  # "part-time": part, time
        return cls(frozenset(c for word in keywords for c in word if has_cjk(c) and c not in subject),
                   frozenset(words - word_stems(subject) - known) if words else frozenset())

    @classmethod
    def reader(cls, question: str, keywords: Sequence[str], texts: Sequence[str]) -> Callable[[str], Unsaid]:
        """``of`` for each chunk's heading, with the words a sentence may echo: the keywords and the question's lone
        characters. A Latin word of a Chinese question that the evidence ``texts`` say somewhere names part of its
        subject ("能用 App 把订单转发给家人吗" of a service whose definitions name its App): the support need not repeat
        it. One the evidence never says is what is asked ("能装在 Mac 上吗" of a Windows tool) and stays."""
        echoed = [*keywords, *lone_characters(question, keywords)]
        chinese = any(has_cjk(word) for word in echoed)
        return functools.partial(cls.of, echoed, known=word_stems(" ".join(texts)) if chinese else frozenset())

    def echo(self, sentence: str) -> float:
        """The share of the unsaid characters the sentence holds (the score's echo; Chinese only)."""
        return sum(1 for c in self.characters if c in sentence) / len(self.characters) if self.characters else 0.0

    def said(self, sentence: str, echo: float) -> bool:
        """Whether the sentence says any of the question's words beyond the page's subject (a yes/no answer needs
        one: "Is the parking permit free?" is not answered by "Service: Annual staff parking permit")."""
        return (echo > 0 or not self.characters) and (not self.words or bool(self.words & word_stems(sentence)))

    def said_in(self, shown: str, own: str, echo: float) -> bool:
        """``said`` of a sentence read with what it answers (``own``: its matched text without the chunk's heading;
        an FAQ answer with its question: "Yes. Residents can buy visitor vouchers" says "zone" by "Can visitors
        park in the zone?")."""
        return self.said(own, self.echo(own)) if own != shown else self.said(shown, echo)


def lone_characters(question: str, keywords: Sequence[str]) -> list[str]:
    """The question's one-character words between its function words, which its keywords leave out when longer
    ones are left: what "以什么为食", "蛋有什么特征", "哪个系的" ask about (食, 蛋, 系). One next to another word
    is part of a name the dictionary does not know (司马 + 晏), which the keywords hold."""
    tokens = words(question)
    content = [t not in stopwords() and (has_cjk(t) or (t.isascii() and t.isalnum())) for t in tokens]
    return [t for i, t in enumerate(tokens) if len(t) == 1 and content[i] and t not in _NOT_ASKED
            and not (i > 0 and content[i - 1]) and not (i + 1 < len(tokens) and content[i + 1])
            and not any(t in k for k in keywords)]
