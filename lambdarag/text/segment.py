"""Chinese word segmentation: rjieba (jieba-rs) with a domain's dictionary, jieba where the wheel is missing.

Index tokens are cut with the dictionary alone (HMM off): a word is cut the same way wherever it stands, so a query
meets the index. Keywords may cut a run of characters the dictionary does not know with jieba's HMM
(text/tokenizer.py), which finds the unknown word's ends from the characters around it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

HMM = False  # dictionary-only segmentation: deterministic per word, identical in rjieba and jieba
Segmenter = Callable[[str], list[str]]


@functools.cache
def backend_name() -> str:
    """Segmenter library in use with its version, e.g. 'rjieba-0.2.2' (same choice as segmenter)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        import rjieba  # noqa: F401
    except ImportError:
        name = "jieba"
    else:
        name = "rjieba"
    try:
        return f"{name}-{version(name)}"
    except PackageNotFoundError:
        return name


@functools.lru_cache(maxsize=16)
def segmenter(terms: frozenset[str], hmm: bool = HMM) -> Segmenter:
    """A jieba-compatible segmenter with ``terms`` added (``hmm``: unknown words found by jieba's HMM, which may cut
    the same text otherwise in another context); the two share one dictionary, loaded once (~0.2 s)."""
    seg, native = _dictionary(terms)
    return functools.partial(seg.cut, hmm=hmm) if native else functools.partial(seg.lcut, HMM=hmm)


@functools.lru_cache(maxsize=16)
def _dictionary(terms: frozenset[str]) -> tuple[Any, bool]:
    """The rjieba segmenter with ``terms`` added and True, else jieba's and False."""
    try:
        import rjieba
    except ImportError:  # no wheel for this platform: pure-Python jieba has the same dictionary
        return _jieba_dictionary(terms), False
    seg = rjieba.Jieba()
    for term in sorted(terms):  # sorted: add_word frequencies may depend on earlier additions
        seg.add_word(term, None, None)
    return seg, True


def words(text: str) -> list[str]:
    """The text cut into words with the default dictionary, as written (no normalisation, nothing dropped)."""
    return list(segmenter(frozenset())(text))


def _jieba_dictionary(terms: frozenset[str]) -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    seg = jieba.Tokenizer()
    for term in sorted(terms):
        seg.add_word(term)
    return seg
