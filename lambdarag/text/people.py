"""People's names in Chinese text, from the segmenter's part-of-speech tags (nr: a person's name); a foreign name
written with a middle dot ("苏珊·史密斯") whole, from the parts the tagger reads around the dot.

What a "谁 / who" question is answered by: a sentence naming someone. rjieba tags with the same dictionary and
HMM as jieba (about 0.3 ms a sentence); pure-Python jieba's posseg is the fallback where no wheel exists.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from lambdarag.text.tokenizer import has_cjk

PERSON_TAGS = ("nr",)  # nr, nrfg (a full name), nrt (a transliterated one)
MIN_NAME_CHARS = 2  # a one-character "name" is a surname or a mis-tag
DOTS = frozenset("·・•‧")  # what joins the parts of a foreign name as Chinese writes it ("苏珊·史密斯")
NAME_PART_TAGS = ("nr", "ns", "nz")  # the tags a part of such a name gets (a transliteration reads as a place too)
FRAGMENT_TAGS = frozenset({"a", "n", "ng"})  # and a single character of one ("波塔斯基": 波塔斯 / 基)

Tagger = Callable[[str], list[tuple[str, str]]]


@functools.cache
def _tagger() -> Tagger:
    try:
        import rjieba
    except ImportError:
        import jieba
        import jieba.posseg

        jieba.setLogLevel(logging.WARNING)
        return lambda text: [(p.word, p.flag) for p in jieba.posseg.cut(text)]
    return rjieba.tag


@functools.lru_cache(maxsize=8192)
def person_names(text: str) -> tuple[str, ...]:
    """The names of people ``text`` mentions, in order, each once: a foreign name written with a middle dot whole
    ("妻子苏珊·史密斯不幸…" -> 苏珊·史密斯, whose parts the tagger reads as words of their own), then the names the
    tagger reads."""
    tags = _tagger()(text)
    tagged = (word for word, tag in tags if tag.startswith(PERSON_TAGS) and len(word) >= MIN_NAME_CHARS)
    return tuple(dict.fromkeys([*_dotted_names(tags), *tagged]))


def _dotted_names(tags: list[tuple[str, str]]) -> list[str]:
    """The names whose parts a middle dot joins: the part before each dot and the parts after it."""
    names: list[str] = []
    i = 0
    while i < len(tags):
        if tags[i][0] not in DOTS or i == 0 or not _name_part(*tags[i - 1]):
            i += 1
            continue
        name, first = tags[i - 1][0], tags[i - 1][0]
        while i + 1 < len(tags) and tags[i][0] in DOTS and _name_part(*tags[i + 1], after_dot=True):
            name, i = name + tags[i][0] + tags[i + 1][0], i + 2  # the dot and the part it opens
            while i < len(tags) and _name_part(*tags[i]):
                name, i = name + tags[i][0], i + 1
        if name != first:
            names.append(name)
        else:
            i += 1  # a dot no part follows
    return names


def _name_part(word: str, tag: str, after_dot: bool = False) -> bool:
    """Whether a tagged word is part of a dotted name; right after a dot any noun is ("摩根·理查德": 理查德 n)."""
    named = tag.startswith("n") if after_dot else tag.startswith(NAME_PART_TAGS)
    return has_cjk(word) and (named or (len(word) == 1 and tag in FRAGMENT_TAGS))
