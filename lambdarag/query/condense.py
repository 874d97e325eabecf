"""Multi-turn condensation: a follow-up question becomes self-contained before anything else.

With an LLM the configured condense prompt rewrites it; otherwise (or when the LLM fails) rules
resolve pronouns (它/其/该/这个/那个/上述/他/她/此), a generic head standing for the previous entity
("学院的院长是谁" after 国学院), contrastive follow-ups ("那人工智能专业呢？" swaps the parallel phrase
of the previous question) and elliptical follow-ups ("那需要哪些材料？", "有哪些专业") to the main
entity or topic of the previous turns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lambdarag.errors import ServiceError
from lambdarag.graph.entities import extract_entities
from lambdarag.graph.schema import Entity
from lambdarag.models.llm import LLMClient
from lambdarag.query import english_follow_up
from lambdarag.query.expand import strip_courtesy
from lambdarag.records import Turn
from lambdarag.text.segment import words

DEFAULT_PROMPT = (
    "以下是对话历史：\n{history}\n\n请把最后的追问改写成一个不依赖上下文、完整独立的问题，只输出改写后的问题。\n"
    "追问：{question}"
)
HISTORY_TURNS = 3  # turns shown to the LLM
RULE_TURNS = 8  # turns the rules resolve, oldest first, so a chain of follow-ups keeps the session's topic
ANSWER_CHARS = 200  # an earlier answer is cut to this length in the LLM prompt
GENERIC_HEAD_CHARS = 2
ELLIPSIS_MAX_CHARS = 12  # longer questions without a lead word are taken as self-contained

# words that contain a pronoun character without being a reference to the previous turn
_NOT_PRONOUN = re.compile(r"其他|其它|其中|其余|其实|尤其|极其|与其|应该|活该|此外|因此|从此|如此|彼此|他人|吉他|"
                          r"这个月|那个月")
_PERSON_PRONOUN = re.compile(r"他们|她们|他|她")
_THING_PRONOUN = re.compile(r"它们|它|其|该|这个|那个|上述|此")
_DETERMINERS = frozenset({"该", "这个", "那个", "此", "上述"})
_ELLIPSIS_LEAD = re.compile(r"^(?:那么|那|还有|另外|and\s+|what about\s+|how about\s+)", re.IGNORECASE)
_PREDICATE_LEAD = re.compile(r"^(?:有|是|在|能|可以|可否|需要|要|怎么|如何|多少|几|什么|哪|何时|什么时候|成立|位于)")
_CONTRAST = re.compile(r"^(?:那么|那|还有|另外)?\s*(?P<x>[^，,？?。]{1,16}?)的?呢[？?！!。\s]*$")
_PUNCT = re.compile(r"[，,。？?！!；;、：:\s《》“”\"]")
_TITLE = re.compile(r"《[^》]{1,40}》")
_TRAILING = re.compile(r"[？?。！!，,\s]+$")
_SUBJECT_PATTERNS = (
    re.compile(r"^(?:什么是|何为|何谓|啥是)(.{2,20})$"),
    # "A的B是什么" asks B of the topic A: a follow-up ("那咨询电话呢") asks another aspect of A, not of "A的B"
    re.compile(r"^(.{2,16}?)的"),
    re.compile(r"^(.{2,20}?)(?:是什么|指什么|是指什么|是啥)"),
    re.compile(r"^(.{2,16}?)(?:是|有|在|由)"),
    re.compile(r"^(.{2,12}?)(?:怎么|如何|怎样|需要|需|要|能否|可否|可以|是否)"),
)
_SALIENT_KINDS = ("regulation", "org", "person", "place", "role")  # most salient first
_BAD_SUBJECT = re.compile(r"[？?什么哪谁怎如何吗呢它他她其该此]|这个|那个")


@dataclass(frozen=True)
class Condensed:
    """The question as asked and as searched (self-contained), how it was rewritten and with which entity."""

    original: str
    question: str
    method: str = "none"  # "none" | "rules" | "llm"
    entity: str | None = None
    error: str | None = None
    # a follow-up the rules left as it is that names no entity of its own ("保研率是多少"): the session's main
    # entity, searched beside it (BM25 and the document channel) without being put into the question
    topic: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {"original": self.original, "question": self.question, "method": self.method,
                "entity": self.entity, "error": self.error, "topic": self.topic}


def condense(
    question: str, history: Sequence[Turn], llm: LLMClient | None, prompt: str | None = None
) -> Condensed:
    """The self-contained form of ``question`` given the session ``history`` (oldest turn first)."""
    if not history:
        return Condensed(question, question)
    error = None
    if llm is not None:
        try:
            return Condensed(question, _llm_condense(question, history, llm, prompt or DEFAULT_PROMPT), "llm")
        except ServiceError as exc:
            error = f"llm failed, rules used: {exc}"
    resolved = _resolved_history(history)
    rewritten, entity = _rule_condense(question, resolved)
    if rewritten != question:
        return Condensed(question, rewritten, "rules", entity, error)
    return Condensed(question, question, "none", None, error, session_topic(question, resolved))


def session_topic(question: str, resolved: Sequence[Turn]) -> str | None:
    """The main entity of the session (its resolved turns) for a question that names none (no title, no
    organisation, person, place, regulation or role); None when it names one or the session has none."""
    if _has_subject(question):
        return None
    entity = _antecedent(resolved, person=False)
    return entity if entity is not None and entity.strip("《》") not in question else None


def _llm_condense(question: str, history: Sequence[Turn], llm: LLMClient, prompt: str) -> str:
    lines = []
    for turn in history[-HISTORY_TURNS:]:
        lines += [f"用户：{turn.question}", f"助手：{turn.answer[:ANSWER_CHARS]}"]
    reply = llm.chat([{"role": "user", "content": prompt.format(history="\n".join(lines), question=question)}],
                     max_tokens=200, temperature=0.0)
    text = reply.strip().splitlines()[0].strip() if reply.strip() else ""
    text = re.sub(r"^(?:改写后的问题|改写|问题)[：:]\s*", "", text).strip("\"'“”「」 ")
    # a rewrite that is empty or balloons is not a rewrite of this question
    if not text or len(text) > 3 * len(question) + 100:
        raise ServiceError(f"LLM condensation returned an unusable rewrite: {reply[:120]!r}", "rules used instead")
    return text


def rule_condense(question: str, history: Sequence[Turn]) -> tuple[str, str | None]:
    """Rule rewrite of a follow-up and the entity substituted (question unchanged, None when not a follow-up)."""
    return _rule_condense(question, _resolved_history(history))


def _rule_condense(question: str, resolved: Sequence[Turn]) -> tuple[str, str | None]:
    if english_follow_up.is_english(question):
        return _english_condense(question, resolved)
    head = _generic_head(question, resolved)
    if head is not None:
        return head
    pronoun = _find_pronoun(question)
    if pronoun is not None:
        entity = _antecedent(resolved, person=bool(_PERSON_PRONOUN.fullmatch(pronoun.group(0))))
        if entity is None or entity in question:
            return question, None
        end = pronoun.end() + _absorbed(question[pronoun.end() :], entity, pronoun.group(0))
        return _drop_lead(question[: pronoun.start()] + entity + question[end:]), entity
    contrast = _contrast(question, resolved)
    if contrast is not None:
        return contrast
    if _is_elliptical(_strip(question), resolved[-1].question if resolved else ""):
        entity = _antecedent(resolved, person=False)
        if entity is None or entity in question:
            return question, None
        return _prepend(question, entity), entity
    return question, None


def _english_condense(question: str, resolved: Sequence[Turn]) -> tuple[str, str | None]:
    """An English follow-up: a pronoun replaced by the previous turns' subject ("…the deadline for it?"), or the
    previous question with its parallel phrase swapped ("And for domestic travel?")."""
    person = english_follow_up.person_pronoun(question)
    pronoun = english_follow_up.pronoun(question, person)
    if pronoun is not None:
        # he/she, or they after "Who…?", stand for someone a turn named; nobody named: left as it is
        someone = person or (bool(resolved) and english_follow_up.stands_for_who(pronoun, resolved[-1].question))
        entity = _someone(resolved) if someone else _antecedent(resolved, person=False)
        if entity is None or entity.lower() in question.lower():
            return question, None
        return english_follow_up.replace_pronoun(question, pronoun, entity), entity
    swapped = english_follow_up.contrast(question, resolved[-1].question) if resolved else None
    return swapped if swapped is not None else (question, None)


def _someone(turns: Sequence[Turn]) -> str | None:
    """The person the latest turn that names one names, in its answer first."""
    return next((name for turn in reversed(turns) if (name := _person_named(turn.answer, turn.question))), None)


def _person_named(*texts: str) -> str | None:
    """The first person the first of ``texts`` that names one names."""
    for text in texts:
        people = [e.name for e in extract_entities(text) if e.kind == "person"]
        if people:
            return people[0]
    return None


def _contrast(question: str, resolved: Sequence[Turn]) -> tuple[str, str] | None:
    """"那人工智能专业呢？" after "软件工程专业每学年学费是多少？": the previous question with the parallel swapped."""
    match = _CONTRAST.match(strip_courtesy(question).strip())
    if match is None or not resolved:
        return None
    new = match.group("x").strip()
    if _PREDICATE_LEAD.match(new) or _BAD_SUBJECT.search(new):
        return None
    previous = resolved[-1].question
    span = parallel_span(previous, new)
    if span is None:
        return None
    return previous[: span[0]] + new + previous[span[1] :], new


def parallel_span(text: str, phrase: str) -> tuple[int, int] | None:
    """Where ``text`` holds a phrase of the same length and longest shared ending (软件工程专业 for 人工智能专业)."""
    if len(phrase) < 2 or phrase in text:
        return None
    for size in range(len(phrase) - 1, 0, -1):
        suffix = phrase[-size:]
        end = text.find(suffix)
        while end >= 0:
            start, stop = end + size - len(phrase), end + size
            if start >= 0 and not _PUNCT.search(text[start:stop]):
                return start, stop
            end = text.find(suffix, end + 1)
    return None


def _generic_head(question: str, resolved: Sequence[Turn]) -> tuple[str, str] | None:
    """A question opening with the generic head of the previous entity: "学院的院长是谁" after 国学院 — the head a
    word of its own there ("大学生…" after 江城大学 opens with another word)."""
    entity = _antecedent(resolved, person=False)
    body = strip_courtesy(question)
    if entity is None or entity in body:
        return None
    # two characters: a generic head (学院, 部门); a longer one (哲学院) is already a name of its own
    head = body[:GENERIC_HEAD_CHARS]
    name = entity.strip("《》")
    if len(name) > GENERIC_HEAD_CHARS and name.endswith(head) and words(body)[:1] == [head]:
        start = len(question) - len(body)
        return question[:start] + entity + body[GENERIC_HEAD_CHARS:], entity
    return None


def _resolved_history(history: Sequence[Turn]) -> list[Turn]:
    """Earlier turns with their own follow-ups resolved, so a chain of follow-ups keeps its entity."""
    resolved: list[Turn] = []
    for turn in history[-RULE_TURNS:]:
        resolved.append(Turn(_rule_condense(turn.question, resolved)[0], turn.answer))
    return resolved


def _strip(question: str) -> str:
    return _TRAILING.sub("", strip_courtesy(question.strip()))


def _find_pronoun(text: str) -> re.Match[str] | None:
    masked = _NOT_PRONOUN.sub(lambda m: "＿" * len(m.group(0)), text)
    person = _PERSON_PRONOUN.search(masked)
    thing = _THING_PRONOUN.search(masked)
    found = [m for m in (person, thing) if m is not None]
    return min(found, key=lambda m: m.start()) if found else None


def _is_elliptical(body: str, previous: str) -> bool:
    """A short follow-up with no topic of its own: "那需要哪些材料", "有哪些专业", "申请截止到什么时候"."""
    rest = _ELLIPSIS_LEAD.sub("", body)
    if not rest or _has_subject(rest) or subject_phrase(rest):
        return False
    if rest != body:
        return True
    if len(body) > ELLIPSIS_MAX_CHARS:
        return False
    # it opens with a predicate, or continues the previous question's own verb ("怎么申请" -> "申请截止…")
    return bool(_PREDICATE_LEAD.match(body)) or body[:2] in _strip(previous)


def _has_subject(text: str) -> bool:
    return bool(_TITLE.search(text)) or any(e.kind in _SALIENT_KINDS for e in extract_entities(text))


def _antecedent(turns: Sequence[Turn], person: bool) -> str | None:
    """The main entity of the latest turn that has one (他/她 look for a person first, in the answer too)."""
    for turn in reversed(turns):
        entity = main_entity(turn, person)
        if entity is not None:
            return entity
    return None


def main_entity(turn: Turn, person: bool = False) -> str | None:
    """The most salient entity of a turn's question, else of its answer, else the question's subject."""
    question = _strip(turn.question)
    if person:
        if named := _person_named(turn.answer, question):
            return named
        if 0 < len(turn.answer.strip()) <= 6 and not _BAD_SUBJECT.search(turn.answer):
            return _strip(turn.answer)  # a bare name as the whole answer ("张敏")
    title = _TITLE.search(question)
    if title:
        return title.group(0)
    for text in (question, turn.answer[:ANSWER_CHARS]):
        best = _most_salient(extract_entities(text))
        if best is not None:
            return best.name
        if text is question and (subject := subject_phrase(question)):
            return subject
    return None


def _most_salient(entities: Sequence[Entity]) -> Entity | None:
    ranked = [e for e in entities if e.kind in _SALIENT_KINDS and len(e.name) >= 2]
    ranked.sort(key=lambda e: (_SALIENT_KINDS.index(e.kind), e.start))
    return ranked[0] if ranked else None


def subject_phrase(question: str) -> str | None:
    """The noun phrase a question is about: X in "什么是X", "X是什么", "X的…", "X是…"; in English the object of its
    last preposition or what follows its opening words (query/english_follow_up.py)."""
    if english_follow_up.is_english(question):
        return english_follow_up.english_subject(question)
    text = _strip(question)
    for pattern in _SUBJECT_PATTERNS:
        match = pattern.search(text)
        if match and not _BAD_SUBJECT.search(match.group(1)) and not _PREDICATE_LEAD.match(match.group(1)):
            return match.group(1)
    return None


def _absorbed(after: str, entity: str, pronoun: str) -> int:
    """Characters after a determiner that the entity already ends with: "该办法" + 《…管理办法》 -> 2."""
    if pronoun not in _DETERMINERS:
        return 0
    bare = entity.strip("《》")
    for n in range(min(4, len(after)), 0, -1):
        if bare.endswith(after[:n]):
            return n
    return 0


def _drop_lead(question: str) -> str:
    """"那张敏的联系电话呢" -> "张敏的联系电话呢": the lead word only linked to the previous turn."""
    return _ELLIPSIS_LEAD.sub("", question.lstrip(), count=1)


def _prepend(question: str, entity: str) -> str:
    """"那报销期限呢？" -> "差旅费的报销期限呢？"; "有哪些专业" -> "文学院有哪些专业"."""
    head = question[: len(question) - len(strip_courtesy(question))]
    rest = _ELLIPSIS_LEAD.sub("", question[len(head):])
    joiner = "" if rest.startswith("的") or _PREDICATE_LEAD.match(rest) else "的"
    return f"{head}{entity}{joiner}{rest}"
