"""The yes or no of a yes/no question, read from the sentence that supports it, which follows it.

可以 / 不可以 (Yes / No) and the other leads (answer/compose.py) are read from the best matching sentence: no where it
refuses, denies the verb asked, states the opposite, a day or a figure outside what is asked, or is an item of a
forbidden kind; "not stated" where no sentence says what is asked of the subject. Pure functions over the scored
sentences (answer/sentences.py); the extractive answer puts the lead first (answer/extractive.py).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence

from lambdarag.answer import cues
from lambdarag.answer.closest import nearest
from lambdarag.answer.compose import lead_line, negates, on_condition
from lambdarag.answer.cues import cue_pattern
from lambdarag.answer.exceptions import excepted
from lambdarag.answer.limits import figure_outside
from lambdarag.answer.lines import ASKED_END
from lambdarag.answer.needs import Need, asked_object, asked_words, denies, says_predicate, yes_no_predicate
from lambdarag.answer.opposites import (
    as_asked_free,
    as_asked_negated,
    contrast_refuses,
    contrast_restricts,
    once_only_again,
    says_opposite,
)
from lambdarag.answer.sentences import Scored, ranking_key
from lambdarag.answer.table_text import grams, question_grams
from lambdarag.answer.weekdays import day_outside
from lambdarag.text.english import word_stems
from lambdarag.text.patterns import ARTICLE, CITATION_MARK
from lambdarag.text.tokenizer import has_cjk, stopwords

_RULE = cue_pattern(*cues.RULE)
_RULE_EN = cue_pattern(*cues.RULE_EN, flags=re.IGNORECASE)
_REFUSAL = cue_pattern(*cues.REFUSAL)
_REFUSAL_EN = cue_pattern(*cues.REFUSAL_EN, flags=re.IGNORECASE)
_OWN_ANSWER = re.compile(r"^\s*(?:yes|no)\b\s*[.,!;]", re.IGNORECASE)
_OBLIGATION = cue_pattern(*cues.OBLIGATION, flags=re.IGNORECASE)
_EXISTENCE = re.compile(r"^\W*(?:(?:is|are|was|were)\s+there\b|(?:请问)?(?:有没有|是否有))", re.IGNORECASE)
YES_NO_SUPPORT = 0.5  # keyword share the best sentence needs for a yes/no answer to say yes or no
PREDICATE_SAID = 1 / 3  # share of the predicate's character pairs a support says to need half the score
REFUSAL_SHARE = 0.75  # share of the best score a rule refusing what is asked in its own words needs to say no
PERMISSION = frozenset({"可以", "能", "能够", "允许", "can", "could", "may"})  # modals asking whether one may
YES_NO_CLOSE = 0.9  # share of the best score a sentence saying the verb asked needs to support the answer instead
_CLAUSES = re.compile(r"[，,]")  # the clauses of a Chinese sentence
_LEAD_IN = re.compile(r"[：:；;]")  # a lead-in and the items it lists
# where a support of several sentences or list items parts ("…；* 特殊情况者可以申请远程工作。* 事假…",
# "...budget. You may…"); a "；" alone parts no rule from its exception ("…180天内报销；超过180天的，须…方可受理")
_PARTS = re.compile(r"(?<=[。！!？?])\s*(?:[*\-•·]\s+)?|(?<=[；;])\s*[*\-•·]\s+|(?<=[.!?])\s+(?=[A-Z*\-•])|\n+")


def yes_no_lines(question: str, scored: Sequence[Scored], need: Need, lines: list[str],
                 ranked: Sequence[Scored] | None = None, nearness: Mapping[str, float] | None = None) -> list[str]:
    """可以 / 不可以 (Yes / No) read from the best matching sentence, which follows; where none says what is asked in
    the question's words, from the sentence nearest in meaning (``nearness``: the sentence vectors') when it scores
    nearly as well as the best; "not stated" without either. Asked
    with other questions, the sentence is chosen as ``ranked`` for the yes/no part alone, and must score as
    ``scored`` for the whole question says."""
    predicate = yes_no_predicate(question, need.modal)
    statements = [s for s in scored if not ASKED_END.search(s.sentence)]  # a question the document asks says none
    stating = statements if ranked is None else [s for s in ranked if not ASKED_END.search(s.sentence)]
    best = _support(stating, question, predicate, asked_object(question))
    if ranked is not None and best is not None:
        best = next((s for s in scored if s.n == best.n and s.sentence == best.sentence), None)
    # a sentence sharing only the page's subject ("基层就业补贴…" asked "…可以分期领取吗"), or saying nothing of what is
    # asked of it ("申请仲裁需要交费吗" against "…可以向人民法院申请执行"), says neither yes nor no
    top_doc = next((s.doc_id for s in scored if s.rank == 0), None)
    if best is None or best.score < _floor(best, predicate, question, top_doc) or not best.says_asked \
            or not says_predicate(question, best.sentence, predicate):
        refusal = _refusal(statements, question, need, predicate, top_doc)
        near = nearest(stating, nearness or {}) if refusal is None else None
        # the sentence nearest in meaning, scoring nearly as well as the best, says it in other words
        if near is not None and near.says_asked and best is not None and near.score >= best.score * REFUSAL_SHARE:
            return [_read_lead(question, near, scored, need, predicate) + near.cited(), *_not_said(lines, near.cited())]
        if refusal is None:
            return [lead_line(need, "", False), *lines]
        support = refusal.cited()
        if refusal.reply:
            return [_replied(need, refusal) + support, *_not_said(lines, support)]
        exception = _excepted(question, refusal.sentence, need)  # "…严禁饲养宠物（导盲犬除外）" asked of a guide dog
        lead = lead_line(need, support, True, refuted=not exception, outside=exception, conditional=exception)
        return [lead + support, *_not_said(lines, support)]
    support = best.cited()
    # one line, so the budget cuts a long supporting sentence rather than leaving the yes or no unsupported
    rest = _not_said(lines, support)
    if _OWN_ANSWER.match(best.sentence):  # an FAQ's answer that opens with its own "Yes." or "No."
        return [support, *rest]
    if best.reply:  # its FAQ's reply opening it ("不需要。"): the yes or no it says
        return [_replied(need, best) + support, *rest]
    return [_read_lead(question, best, scored, need, predicate) + support, *rest]


def _read_lead(question: str, support: Scored, scored: Sequence[Scored], need: Need, predicate: str) -> str:
    """The yes or no the support says, read from its part saying what is asked (answer/yes_no._asked_part); the
    conditions the whole support states still hold."""
    conditional = on_condition(question, support.sentence)
    part = _asked_part(support, question, predicate)
    restricted = contrast_restricts(part.sentence, predicate)
    if restricted is not None:  # what 但 sets against it restricts the answer it gives, on its terms
        part, conditional = dataclasses.replace(part, sentence=restricted), True
    # "40岁…吗" against "年龄在18至35周岁之间"; a service dog against "No dogs… with the exception of service animals"
    exception = _excepted(question, part.sentence, need)  # a yes on the exception's terms
    outside = figure_outside(question, part.sentence) or exception
    refuted = _refuted(question, part, scored, predicate) or _left_out(question, part.sentence, need)
    # a rule's own yes or no is the clause's saying what is asked; an exception or a limit turns the whole one round
    read = as_asked_free(question, (part if outside else _asked_clause(part, predicate)).cited())
    read = as_asked_negated(question, read) if need.english else read
    return lead_line(need, read, True, refuted, outside, conditional or exception)


def _asked_part(support: Scored, question: str, predicate: str) -> Scored:
    """Of a support made of several sentences or list items (a lead-in with its items: "建议如下：* 暑假…（建议不连续
    长时间脱产…）；* 特殊情况者可以申请远程工作。"), the part that says what is asked, saying most of the question's
    words: its yes or no is the answer's, not a negation another item holds. A support of one part is itself."""
    parts = [p.strip() for p in _PARTS.split(support.sentence) if p and p.strip()]
    if len(parts) < 2:
        return support
    wanted = question_grams(question)
    part = max(parts, key=lambda p: (says_predicate(question, p, predicate), len(wanted & grams(p))))
    return dataclasses.replace(support, sentence=part)


def _asked_clause(part: Scored, predicate: str) -> Scored:
    """A Chinese sentence without the clauses holding no character of the predicate asked ("VIP账号您可以长期使用，
    活动结束后账号不会回收" asked "…还能接着用吗": the 不会 of 回收 says nothing of 用): the yes or no is read from the
    rest. A sentence listing items after a lead-in is whole: the lead-in's word ("违章电器包括：…") says it of every
    item; an article's number before a colon is its label, no lead-in ("第二条：理事如因故不能出席，必须提前请假")."""
    asked = _predicate_characters(predicate)
    text = ARTICLE.sub("", part.sentence).lstrip("：: ")
    clauses = [c for c in _CLAUSES.split(text) if c.strip()]
    if len(clauses) < 2 or not asked or _LEAD_IN.search(text):
        return part
    kept = [c for c in clauses if any(ch in c for ch in asked)]
    return dataclasses.replace(part, sentence="，".join(kept)) if kept and len(kept) < len(clauses) else part


def _predicate_characters(predicate: str) -> frozenset[str]:
    """The characters of a Chinese predicate that say what is asked: no stopword, no Latin letter."""
    return frozenset(c for c in predicate if has_cjk(c) and c not in stopwords())


def _refuted(question: str, best: Scored, scored: Sequence[Scored], predicate: str) -> bool:
    """Whether the support says no without a word of refusal: the verb asked denied ("…要收费吗" against "不收费"),
    the opposite of what is asked (free asked whether one pays, closed asked whether open), or a day outside the
    days stated by a sentence of its chunk ("周六…吗" against "办公时间：周一至周五"), an item of a list its lead-in
    refuses or forbids ("违章电器包括：… （三）电饭锅…"), once only allowed when asked to do it again, or what its 但
    sets against the rest denied ("…可正常参赛…，但不参与现金奖励的分配" asked of the cash prize)."""
    if best.item or denies(best.sentence, predicate) or says_opposite(question, best.sentence) \
            or once_only_again(question, best.sentence) or contrast_refuses(best.sentence, predicate):
        return True
    return any(day_outside(question, s.sentence) for s in scored if s.n == best.n and s.says_asked)


def _left_out(question: str, sentence: str, need: Need) -> bool:
    """Whether the sentence grants or provides a thing but for an exception the question names ("班车免费接送师生，
    节假日除外" asked "节假日能坐班车吗"; "Members may use the pool except on Mondays" asked of a Monday): what is
    excepted is not given, so no. An obligation's exception ("应合住一间（A类人员除外）") says only that it does not
    bind the excepted, not what they may do: left as read."""
    return not negates(need, sentence) and _OBLIGATION.search(sentence) is None and excepted(question, sentence)


def _replied(need: Need, support: Scored) -> str:
    """The lead read from the reply that opens the support in its FAQ ("不需要。" -> 不需要, "No." -> No), cited as the
    support is."""
    return lead_line(need, dataclasses.replace(support, sentence=support.reply).cited(), True)


def _excepted(question: str, sentence: str, need: Need) -> bool:
    """Whether the sentence refuses what is asked but for an exception the question names (answer/exceptions.py);
    a rule saying yes but for an exception ("应合住一间（A类人员除外）") is left as read: what the excepted may do
    instead is not what the question asks."""
    return negates(need, sentence) and excepted(question, sentence)


def _floor(best: Scored, predicate: str, question: str, top_doc: str | None) -> float:
    """The score the support needs: half when it says much of the predicate asked in the question's own words (a
    third of its character pairs: "无理由退卡" in "不适用无理由退卡", not the 门店 of "带朋友进门店"; its one
    character in a rule of the top chunk's document: "骑" in "禁止骑行电动车"; in English a third of the
    question's words, one of them what it asks last: "Am I allowed to step out of the room in the middle of a
    test?" against "You are not allowed to leave the room during a test." in the top chunk's document)."""
    pairs = [predicate[i:i + 2] for i in range(len(predicate) - 1)]
    if pairs:
        said = sum(p in best.sentence for p in pairs) >= len(pairs) * PREDICATE_SAID
    elif predicate:  # one character ("…能骑吗"): said by a rule of the top chunk's document ("禁止骑行…")
        said = best.doc_id == top_doc and predicate in best.sentence and _RULE.search(best.sentence) is not None
    else:  # English: a rule (may, must, not…) of the top chunk's document; a filing's "operating margins" answer no
        # other company's, a step ("Go to your dashboard") says nothing of what one may do there
        asked, stems = asked_words(question), word_stems(best.sentence)
        said = best.doc_id == top_doc and _RULE_EN.search(best.sentence) is not None \
            and bool(asked_object(question) & stems) \
            and sum(w in stems for w in asked) >= len(asked) * PREDICATE_SAID
    return YES_NO_SUPPORT * (0.5 if said else 1.0)


def _refusal(scored: Sequence[Scored], question: str, need: Need, predicate: str, top_doc: str | None) -> Scored | None:
    """Asked whether one may, when no sentence says what is asked in the question's words: a rule of the top chunk's
    document refusing it in its own words ("想办走读每天回家住，学校允许吗" against "大一新生严禁在外住宿"; "Can I just
    change both with the Update button?" against "You cannot update the title or ISSN this way"), scoring nearly as
    well as the best sentence and sharing a word of what is asked (a character of the predicate that is no stopword),
    even one its heading holds too ("Grants cannot be transferred" under "Financial aid grants")."""
    best = max(scored, key=ranking_key, default=None)
    if best is None or need.modal not in PERMISSION:
        return None
    asked = frozenset(asked_words(question)) if need.english else _predicate_characters(predicate)
    refusing = _REFUSAL_EN if need.english else _REFUSAL
    floor = max(best.score * REFUSAL_SHARE, YES_NO_SUPPORT / 2)
    # its FAQ's reply refuses too ("不可以。一个账号只能…"); a refusal in what 但 sets against a part saying more of
    # what is asked only restricts that part
    rules = [s for s in scored if s.doc_id == top_doc and s.score >= floor
             and refusing.search(f"{s.reply}{contrast_restricts(s.sentence, predicate) or s.sentence}") is not None
             and _holds_asked(s.sentence, asked, need.english)]
    return max(rules, key=ranking_key, default=None)


def _holds_asked(sentence: str, asked: frozenset[str], english: bool) -> bool:
    """Whether the sentence holds one of the ``asked`` stems (English) or characters (Chinese)."""
    return bool(asked & word_stems(sentence)) if english else any(c in sentence for c in asked)


def _not_said(lines: Sequence[str], support: str) -> list[str]:
    """The answer's other lines but those the support already says (the same sentence cited by more chunks, or a
    piece of it a chunk's window cut)."""
    said = _plain(support)
    return [line for line in lines if _plain(line) not in said]


def _plain(line: str) -> str:
    return CITATION_MARK.sub("", line).strip().rstrip("。.；;")


def _support(scored: Sequence[Scored], question: str, predicate: str,
             asked: frozenset[str] = frozenset()) -> Scored | None:
    """The sentence a yes or no is read from: the best one, or among those scoring nearly as well one saying the
    ``predicate`` asked ("…要收费吗": "收费标准：不收费" over "申请条件：…" of the same guide), stating a rule rather
    than telling a worked example ("预留合约不支持优惠券购买" over "用户A购买…时未使用优惠券"), then one saying the
    predicate's first word (the words after it name the subject, which a title line holds as well); in English one
    saying the words ``asked`` last, then stating a rule."""
    verb = predicate[:2]
    best = max(scored, key=ranking_key, default=None)
    if best is None or (len(verb) < 2 and not asked):
        return best
    close = [s for s in scored if s.score >= best.score * YES_NO_CLOSE]
    # asked whether a thing exists ("Is there leftover material…?", "有没有…"), a sentence telling of it answers as
    # well as a rule does ("We also have a collection of community scraps…" over "We don't charge for…")
    rules = _RULE_EN if asked else _RULE
    existence = _EXISTENCE.match(question) is not None

    def ruled(s: Scored) -> bool:
        return not existence and rules.search(s.sentence) is not None

    if asked:  # English: the words the question ends with ("…use the power tools?")
        return max(close, key=lambda s: (bool(asked & word_stems(s.sentence)), ruled(s), *ranking_key(s)))
    return max(close, key=lambda s: (says_predicate(question, s.sentence, predicate), ruled(s), verb in s.sentence,
                                     *ranking_key(s)))
