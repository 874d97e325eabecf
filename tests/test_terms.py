"""The mixed-term lookup (lambdarag.text.terms) against the regex the tokenizer compiled before it."""

from __future__ import annotations

import re
from collections.abc import Iterable

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lambdarag.text import tokenizer as tk
from lambdarag.text.terms import ALNUM, TermIndex
from lambdarag.text.tokenizer import Tokenizer


def reference_pattern(terms: Iterable[str]) -> str:
    """An alternation of every term, longest first, no [a-z0-9] before a term starting with one or after a term
    ending with one: what the tokenizer's compiled trie regex matched (its docstring's definition)."""
    alternatives = [(r"(?<![a-z0-9])" if t[0] in ALNUM else "") + re.escape(t) + (r"(?![a-z0-9])" if t[-1] in ALNUM
                                                                                   else "")
                    for t in sorted(set(terms), key=lambda t: (-len(t), t))]
    return "|".join(alternatives)


class RegexTokenizer(Tokenizer):
    """The tokenizer as it was: one regex of the mixed terms and the rules, searched from each position."""

    def __init__(self, terms: Iterable[str]) -> None:
        super().__init__(terms)
        head = [f"(?P<term>{reference_pattern(self._mixed.terms)})"] if self._mixed.terms else []
        rules = [tk._LATIN.pattern, tk._PLAIN.pattern]
        self._latin_re, self._plain_re = (re.compile("|".join([*head, rule])) for rule in rules)

    def _scan(self, text: str, emit: tk._Emit) -> list[str]:
        out: list[str] = []
        latin = tk._latin_runs(text)
        pattern = self._latin_re if latin else self._plain_re
        pos = 0
        while (match := pattern.search(text, pos)) is not None:
            if match.lastgroup in tk._NUMERIC and not tk._inside(latin, match.start()):
                match = self._plain_re.search(text, pos)
                if match is None:
                    break
            self._words(text[pos : match.start()], out, emit)
            self._match(tk._Found(match.start(), match.end(), match.group(), match.lastgroup or ""), out, emit)
            pos = match.end()
        self._words(text[pos:], out, emit)
        return out


ALPHABET = "ab1 2.-_/:%$,年中文处Ａ１Bé"
MIXED = st.text("ab12.-年中处", min_size=1, max_size=6).filter(lambda t: any(c in ALNUM for c in t))


@settings(max_examples=400, deadline=None)
@given(st.lists(MIXED, max_size=12), st.text(ALPHABET, max_size=40))
def test_tokens_and_keywords_are_those_of_the_regex(terms: list[str], text: str) -> None:
    new, old = Tokenizer(terms), RegexTokenizer(terms)
    assert new.tokens(text) == old.tokens(text)
    assert new.keywords(text) == old.keywords(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text("ab1-年", min_size=1, max_size=4), min_size=1, max_size=12), st.text("ab1-年 ", max_size=30))
@example(["ab", "abb"], "ab")  # a longer term with the same head than the text has left
def test_matches_are_the_regex_matches_at_each_position(terms: list[str], text: str) -> None:
    index, pattern = TermIndex(terms), re.compile(reference_pattern(terms))
    expected = [(i, m.end()) for i in range(len(text)) if (m := pattern.match(text, i))]
    assert list(index.matches(text)) == expected


def test_longest_term_whose_boundaries_hold() -> None:
    index = TermIndex(["gb/t", "gb/t 2261", "va0", "va004", "2024年度", "x"])
    assert list(index.matches("依据gb/t 2261.1标准")) == [(2, 11)]
    assert list(index.matches("va0042")) == []  # va004 and va0 both end inside the identifier va0042
    assert list(index.matches("va004型")) == [(0, 5)]
    assert list(index.matches("2024年度预算")) == [(0, 6)]
    assert list(index.matches("ax x")) == [(3, 4)]  # the first x starts inside "ax"
    assert list(TermIndex(["va", "va0"]).matches("va")) == [(0, 2)]  # va0 is longer than what is left


def test_no_terms_match_nothing() -> None:
    assert not TermIndex([])
    assert list(TermIndex([]).matches("va004")) == []


def test_domain_terms_stay_whole_in_tokens() -> None:
    tokens = Tokenizer(["c语言", "gb/t 2261"]).tokens("学习C语言与GB/T 2261.1")
    assert tokens == ["学习", "c语言", "c", "语言", "gb/t 2261", "gb/t", "gb", "t", "2261", "1"]  # as before
