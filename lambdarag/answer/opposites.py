"""Whether a yes/no question is answered no by a clause stating the opposite of what it asks.

"Do I have to pay for parking on Sundays?" asked of "Restrictions apply Monday to Saturday. Parking is free on
Sundays and bank holidays.", "首次申领身份证要交费吗" of "首次申领免费", "Is the museum open on Mondays?" of "The
museum is closed on Mondays": no word of the sentence refuses, yet the answer is no. Each pair is what a question
asks and its opposite (pay / free, open / closed, and the other way round); a question saying the opposite itself
("Is parking free?") is read as any yes/no question, and so is a clause saying both ("free software (and charge
for them if you wish)"). A clause naming days says it of those days only ("free on Sundays" answers nothing of
Mondays), a clause naming whom it holds for says it of them only. Pure functions; the yes/no lead reads them
(answer/extractive.py).
"""

from __future__ import annotations

import re

from lambdarag.answer import cues
from lambdarag.answer.asking import asking_sentence
from lambdarag.answer.cues import cue_pattern
from lambdarag.answer.terms import NAMING, content_stems
from lambdarag.answer.weekdays import asked_days, stated_days, without_days
from lambdarag.text.tokenizer import EITHER_WAY

# (what a question asks, the opposite a clause states)
_PAIRS = tuple((cue_pattern(*asked, flags=re.IGNORECASE), cue_pattern(*opposite, flags=re.IGNORECASE))
               for asked, opposite in cues.OPPOSITES)
# a sentence's clauses: what "but" or 但 sets against the rest is a clause of its own ("open on Friday until 10pm but
# closed on the weekend")
_CLAUSE_END = re.compile(r"[.;。；！!？?]|\bbut\b|\bwhereas\b|但是?", re.IGNORECASE)
_FREE = cue_pattern(*cues.FREE_OF_CHARGE, flags=re.IGNORECASE)
_CONTRAST = re.compile(r"[，,；;]\s*(?:但是?|却|然而)")
_NEGATED = re.compile(r"^\s*(?:[\u4e00-\u9fff]{0,4}?)(?:不|未|没有|无)(?!超过|断|仅|但|同|少|久|论|管|限)")
_PAY = cue_pattern(*cues.PAY_ASKED, flags=re.IGNORECASE)
_AGAIN = cue_pattern(*cues.AGAIN_ASKED, flags=re.IGNORECASE)
_ONCE_ONLY = cue_pattern(*cues.ONCE_ONLY, flags=re.IGNORECASE)
_FOR = re.compile(r"\s+(?:for|to)\s+(?:the\s+|all\s+|any\s+)?([A-Za-z]+)", re.IGNORECASE)
_CJK = re.compile(r"[\u4e00-\u9fff]")
# a field's name ("收费标准（元）：") says what the field is about, not its value
_LABEL = re.compile(r"[^：:，,]*[：:]")
_SCOPE_WORDS = r"((?:\s+[A-Za-z-]+){1,4})"  # the words a negation negates: the next few
_NOMINAL_NEGATION = re.compile(rf"\b(?:no|without){_SCOPE_WORDS}", re.IGNORECASE)
_NEGATION_SCOPE = re.compile(rf"(?:\bnot|\bno|\bnever|n't|\bwithout){_SCOPE_WORDS}", re.IGNORECASE)


def says_opposite(question: str, sentence: str) -> bool:
    """Whether the question asks a thing (paying, open) and a clause of the sentence states its opposite (free,
    closed), on the days the question names when the clause names days, for whom it asks when the clause names whom."""
    days = asked_days(question)
    for asked, opposite in _PAIRS:
        if not asked.search(question) or opposite.search(question):
            continue
        for clause in filter(str.strip, _CLAUSE_END.split(sentence)):
            said = opposite.search(clause)
            # a clause saying the thing asked as well ("free software (and charge for them if you wish)") does not
            # merely state its opposite
            if said is None or asked.search(_LABEL.sub("", opposite.sub(" ", clause))) \
                    or not _for_the_asked(clause, said, question):
                continue
            stated, _ = stated_days(clause)
            if not days or not stated or days & stated:
                return True
    return False


def as_asked_free(question: str, sentence: str) -> str:
    """The sentence with its free-of-charge phrases read as the yes they are when the sentence of the question that
    asks, asks whether a thing is free ("…addresses without me paying extra?" of "…assigned at no additional charge",
    "是不是无需付费" of "无需付费"), or asks nothing of paying ("Can I get an interpreter?" of "we will provide an
    interpreter (at no charge)": the price refuses nothing asked): their "no" then refuses nothing. Unchanged for a
    question asking whether one pays ("…要交费吗", "收不收工本费" asked both ways), which the phrase answers no."""
    asked = EITHER_WAY.sub("", asking_sentence(question))
    return _FREE.sub("free", sentence) if _FREE.search(asked) or not _PAY.search(asked) else sentence


def as_asked_negated(question: str, sentence: str) -> str:
    """The sentence without the negations the question asks with itself ("…backwards compatible, with no database
    schema changes?" of "…compatible, thus they do not include database schema changes"): a "not" whose next words
    name what the question's own "no" or "without" does agrees with it, saying yes. A question negating its verb
    ("Isn't it free?") is read as any other."""
    asked = {w for m in _NOMINAL_NEGATION.finditer(question) for w in content_stems(m.group(1), NAMING)}
    if not asked:
        return sentence
    return _NEGATION_SCOPE.sub(lambda m: m.group(1) if asked & content_stems(m.group(1), NAMING) else m.group(0),
                               sentence)


def _for_the_asked(clause: str, said: re.Match[str], question: str) -> bool:
    """Whether what a clause says holds for what the question asks: unqualified, or qualified by words the question
    says too ("free for children" asked of children; "首次申领免费" asked of 首次申领, not of 补领)."""
    after = _FOR.match(clause, said.end())
    if after is not None and after.group(1).lower() not in question.lower():
        return False
    before = without_days(re.split(r"[：:，,、]", clause[:said.start()])[-1])  # "周末闭馆": when, not for whom
    cjk = "".join(_CJK.findall(before))
    if len(cjk) < 2:
        return True
    pairs = {cjk[i:i + 2] for i in range(len(cjk) - 1)}
    return sum(1 for pair in pairs if pair in question) * 2 > len(pairs)  # most of them


def contrast_refuses(sentence: str, predicate: str) -> bool:
    """Whether what a Chinese sentence sets against its first part with 但 says the predicate asked, negated: "百度内部
    员工可正常参赛获得名次与荣誉，但不参与现金奖励的分配" asked "…能领现金奖吗" (现金 in the part after 但, and
    不 there)."""
    parts = _CONTRAST.split(sentence, maxsplit=1)
    said = _predicate_said(parts, predicate)
    return said is not None and said[1] > said[0] and _NEGATED.search(parts[1]) is not None


def contrast_restricts(sentence: str, predicate: str) -> str | None:
    """The first part of a Chinese sentence when it says the predicate asked and what 但 sets against it says less
    of it: a restriction on the yes or no the first part gives ("用户可将…订单…自由分享给他人，但不得用于商业用途"
    asked "…能把订单发给朋友吗": yes, on its terms); None otherwise."""
    parts = _CONTRAST.split(sentence, maxsplit=1)
    said = _predicate_said(parts, predicate)
    return parts[0] if said is not None and said[0] > said[1] else None


def _predicate_said(parts: list[str], predicate: str) -> tuple[int, int] | None:
    """How many of the predicate's character pairs the part before 但 and the part after it hold (None without a
    contrast or a predicate of two characters)."""
    if len(parts) < 2 or len(predicate) < 2:
        return None
    pairs = {predicate[i:i + 2] for i in range(len(predicate) - 1)}
    first, then = (sum(p in part for p in pairs) for part in parts)
    return first, then


def once_only_again(question: str, sentence: str) -> bool:
    """Whether the question asks to do a thing again ("已经参加过一次…，大四还想再申请一个同类项目，可以吗") and the
    sentence allows it once only ("本科四年内只限参加一次", "You may apply only once"): a no without a word of
    refusal."""
    return _AGAIN.search(asking_sentence(question)) is not None and _ONCE_ONLY.search(sentence) is not None
