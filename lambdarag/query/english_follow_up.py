"""English follow-ups resolved by rules: the subject of a turn, a pronoun standing for it, a parallel phrase swapped.

"What documents must be included in an expense claim?" is about "expense claim", the object of its last
preposition; a follow-up "And what is the deadline for it?" asks the deadline of that. "And for domestic travel?"
after "What is the daily meal allowance for international travel?" asks the previous question with the parallel
phrase swapped (the same number of words, the same last word or the same preposition first). Pure functions; the
Chinese rules and the session's antecedent are in query/condense.py, which calls these for a question in English.
"""

from __future__ import annotations

import re

from lambdarag.text.tokenizer import has_cjk, stopwords

MAX_SUBJECT_WORDS = 4  # a longer tail is a clause, not the noun phrase a question is about
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’&.,-]*(?<![.,])")
_WORD_SPAN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’&-]*")  # a word of the previous question, with where it stands
_LATIN = re.compile(r"[A-Za-z]")
# a time, not a subject: a year or a period with its digits (2022, FY2022, Q3), a month, a day of the week
_TIME = re.compile(r"^(?:[A-Za-z]{0,2}\d[\d-]*|(?:January|February|March|April|May|June|July|August|September|October"
                   r"|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
                   r"|year|years|quarter|month|week|day)s?)$", re.IGNORECASE)
_PREPOSITIONS = frozenset({"in", "for", "of", "on", "about", "to", "with", "from", "at", "under", "by", "into",
                           "during", "after", "before"})
_DETERMINERS = frozenset({"a", "an", "the", "my", "our", "your", "this", "that", "these", "those", "each", "every",
                          "any"})
# the words that open a question before its subject ("What is…", "Is…", "How much does…")
_OPENING = frozenset({"what", "which", "who", "whom", "whose", "where", "when", "why", "how", "much", "many", "long",
                      "often", "far", "soon", "old",
                      "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "will", "would",
                      "may", "must", "shall", "am", "has", "have", "had", "i", "we", "you"})
_PARTICIPLE = re.compile(r"^[a-z]+ed$")  # a passive's verb ("replaced", "approved") ends the question, not its subject
_COPULAS = frozenset({"is", "are", "was", "were"})
_PASSIVE = frozenset({"be", "been", "being"})  # a passive's auxiliary before its verb, no part of the subject
# "it" before "to…" or "that…" by a word at most is the dummy subject ("Is it possible to…", "How long does it take
# to…"), no reference
_THING = re.compile(r"\b(?:(?P<possessive>its|their)|it(?!\s+(?:\w+\s+)?(?:to|that)\b)|they|them)\b", re.IGNORECASE)
# "her" before a word is her possessive ("her email"), at the end her object ("contact her")
_PERSON = re.compile(r"\b(?:(?P<possessive>his|her(?=\s+[A-Za-z]))|he|she|him|her)\b", re.IGNORECASE)
_PLURAL = frozenset({"they", "them", "their"})
_WHO = re.compile(r"^\s*(?:and\s+)?who(?:m|se)?\b", re.IGNORECASE)
_LEAD = re.compile(r"^\s*(?:and|also|what about|how about)\b[\s,]*", re.IGNORECASE)
# a word of a name: capitalised ("Apache", "Boeing") or an acronym with digits ("3M", "GPL")
_NAME_WORD = re.compile(r"^(?:[A-Z][A-Za-z0-9&.-]*|\d+[A-Z][A-Za-z0-9]*)(?:['’]s)?$")


def is_english(text: str) -> bool:
    """A question in English: Latin letters and no CJK character."""
    return bool(_LATIN.search(text)) and not has_cjk(text)


def english_subject(question: str) -> str | None:
    """The noun phrase an English question is about, its determiner dropped; None for a pronoun or a clause.

    After a copula, what follows it ("What is the daily meal allowance for international travel?" -> daily meal
    allowance; "Is alcohol reimbursable?"), or the object of its "of" ("What is the capacity of the Board Room?" ->
    Board Room); otherwise the object of its last preposition that is no time ("What documents must be included in
    an expense claim?" -> expense claim; "How do I apply for a seed grant?"), else what follows its opening words
    ("Who approves international trips?" -> international trips).
    """
    words = _WORD.findall(question)
    start = next((i for i, w in enumerate(words) if w.lower() not in _OPENING), len(words))
    if start == 1 and words[0].lower() == "who":
        start += 1  # "Who approves X": the verb follows who
    cuts = [i for i in range(start, len(words) - 1) if words[i].lower() in _PREPOSITIONS]
    head = words[start:cuts[0]] if cuts else words[start:]
    objects = [o for o in (words[i + 1:j] for i, j in zip(cuts, [*cuts[1:], len(words)], strict=False))
               if o and not _timed(o)]
    if head and start and words[start - 1].lower() in _COPULAS:
        of = bool(cuts) and words[cuts[0]].lower() == "of" and not _timed(words[cuts[0] + 1:][:1])
        tail = words[cuts[0] + 1:cuts[1] if len(cuts) > 1 else len(words)] if of else head
    else:
        tail = objects[-1] if objects else head
    while tail and tail[0].lower() in _DETERMINERS:
        tail = tail[1:]
    while tail and tail[-1].lower() in _PREPOSITIONS:  # "Who does the policy apply to?"
        tail = tail[:-1]
    if len(tail) > 1 and _PARTICIPLE.match(tail[-1]):  # "How often is a staff laptop replaced?"
        tail = tail[:-1]
    while len(tail) > 1 and tail[-1].lower() in _PASSIVE:  # "When must expense claims be submitted?"
        tail = tail[:-1]
    if not tail or len(tail) > MAX_SUBJECT_WORDS or any(_THING.fullmatch(w) or _PERSON.fullmatch(w) for w in tail):
        return None
    return None if all(w.lower() in stopwords() for w in tail) else " ".join(tail)


def _timed(words: list[str]) -> bool:
    """A phrase naming a time (2022, FY2022, a full day), not a subject."""
    return any(_TIME.match(w) for w in words)


def pronoun(question: str, person: bool) -> re.Match[str] | None:
    """The first pronoun standing for the previous turn's subject (it, its, they…; he, his… with ``person``)."""
    return (_PERSON if person else _THING).search(question)


def person_pronoun(question: str) -> bool:
    """Whether the question's pronoun stands for a person (he, her…) and none for a thing (it, they…)."""
    return _PERSON.search(question) is not None and _THING.search(question) is None


def stands_for_who(pronoun: re.Match[str], previous: str) -> bool:
    """Whether "they", "them" or "their" stands for whoever the previous question asked who is ("Who do I
    contact?" then "What is their email?")."""
    return pronoun.group(0).lower() in _PLURAL and _WHO.match(previous) is not None


def replace_pronoun(question: str, match: re.Match[str], antecedent: str) -> str:
    """The question with the pronoun replaced by its antecedent ("its deadline" -> "expense claim's deadline"),
    its lead word ("And…") dropped."""
    name = f"{antecedent}'s" if match.group("possessive") else antecedent
    return drop_lead(question[:match.start()] + name + question[match.end():])


def drop_lead(question: str) -> str:
    """"And what is the deadline for X?" -> "What is the deadline for X?": the lead only linked it to its turn."""
    rest = _LEAD.sub("", question, count=1)
    return rest[:1].upper() + rest[1:] if rest else question


def contrast(question: str, previous: str) -> tuple[str, str] | None:
    """"And for domestic travel?" after "What is the daily meal allowance for international travel?": the previous
    question with its parallel phrase swapped, and the phrase; None when it has none."""
    lead = _LEAD.match(question)
    if lead is None:
        return None
    phrase = question[lead.end():].strip().rstrip("?？.!").strip()
    mine = phrase.split()
    if not mine or len(mine) > MAX_SUBJECT_WORDS + 1 or phrase.lower() in previous.lower():
        return None
    theirs = list(_WORD_SPAN.finditer(previous))
    best: tuple[int, int, int] | None = None  # (shared words, start, end)
    for i in range(len(theirs) - len(mine) + 1):
        span = [m.group(0) for m in theirs[i:i + len(mine)]]
        shared = _shared(span, mine)
        if shared and (best is None or shared >= best[0]):
            best = (shared, theirs[i].start(), theirs[i + len(mine) - 1].end())
    if best is None:
        return _name_swapped(phrase, previous)
    return previous[:best[1]] + phrase + previous[best[2]:], phrase


def _name_swapped(phrase: str, previous: str) -> tuple[str, str] | None:
    """"What about the GPL?" after "Can I charge a fee for support under the Apache License?": a name asked about
    stands for the last name of the previous question (its capitalised words and the numbers after them, no time,
    not its first word), whatever their lengths; a possessive stays ("Boeing" for "3M's" -> "Boeing's"). None when
    either names nothing."""
    words = phrase.split()
    if words and words[0].lower() in _DETERMINERS:
        words = words[1:]
    if not words or words[0].isdigit() or any(_TIME.match(w) for w in words if not w.isdigit()) \
            or not all(_NAME_WORD.match(w) or w.isdigit() for w in words):
        return None  # no name, or a time ("What about Mondays?")
    runs: list[list[re.Match[str]]] = []
    for m in list(_WORD_SPAN.finditer(previous))[1:]:
        word = m.group(0)
        named = _NAME_WORD.match(word) is not None and not _TIME.match(word) and word != "I"
        joined = bool(runs) and previous[runs[-1][-1].end():m.start()].strip() == ""
        if joined and (named or word.isdigit()):  # "Seminar Room 3": a number goes on with a name
            runs[-1].append(m)
        elif named:
            runs.append([m])
    if not runs:
        return None
    last = runs[-1]
    name = " ".join(words) + ("'s" if re.search(r"['’]s$", last[-1].group(0)) else "")
    return previous[:last[0].start()] + name + previous[last[-1].end():], " ".join(words)



def _shared(span: list[str], phrase: list[str]) -> int:
    """How parallel a span of the previous question is to the phrase: its shared last words, or 1 for the same
    preposition first ("in 2021" for "in 2022"); 0 when it is the phrase itself or not parallel."""
    low, new = [w.lower() for w in span], [w.lower() for w in phrase]
    if low == new:
        return 0
    suffix = 0
    while suffix < len(low) and low[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    if suffix:
        return suffix
    return 1 if low[0] == new[0] and low[0] in _PREPOSITIONS else 0
