"""What a question asks for: materials, an amount, a date, a contact, a person, a place, steps, yes/no, a list…

The extractive answer leads with the part of the evidence that meets the need (answer/compose.py); the rest
follows within the length budget. Cues are general words of the question's language (answer/cues.py), never a
domain's vocabulary. A question's language decides the answer's labels (中文 or English).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from lambdarag.answer import cues
from lambdarag.answer.asked_values import DURATION_QUESTION
from lambdarag.answer.asking import asked_before, asked_part, asking_sentence
from lambdarag.answer.cues import cue_pattern
from lambdarag.answer.limits import in_asked_measure
from lambdarag.answer.opposites import says_opposite
from lambdarag.answer.roles import asked_role, named_people
from lambdarag.text.english import stem
from lambdarag.text.script import simplified
from lambdarag.text.tokenizer import has_cjk, stopwords

NEED_KINDS = ("yesno", "materials", "contact", "person", "duties", "authority", "place", "date", "amount", "conditions",
              "reason", "definition", "steps", "compare", "list", "general")
NEED_BONUS = 0.15  # score a sentence gains for carrying what the need asks for (a place, a reason, a phone…)
PLACE_STATED_BONUS = 0.1  # and a "where" answer more when it states where ("位于…", "生于…"), not just names a place
BARE = "是否"  # the modal of a yes/no question without one ("…收费吗"): answered 是 / 否
OTHER_FIELD = 0.6  # score kept by a field whose label names another aspect than the one asked
ROLE_BONUS = 0.3  # and a "who" answer more when it names someone next to the role asked about ("院长杨某")

_CUES: dict[str, re.Pattern[str]] = {
    "materials": cue_pattern(*cues.MATERIALS, *cues.MATERIALS_EN, flags=re.IGNORECASE),
    "contact": cue_pattern(*cues.CONTACT, *cues.CONTACT_EN, flags=re.IGNORECASE),
    "person": cue_pattern(*cues.PERSON, *cues.PERSON_EN, flags=re.IGNORECASE),
    "duties": cue_pattern(*cues.DUTIES, *cues.DUTIES_EN, flags=re.IGNORECASE),
    "authority": cue_pattern(*cues.AUTHORITY, flags=re.IGNORECASE),
    "place": cue_pattern(*cues.PLACE, *cues.PLACE_EN, flags=re.IGNORECASE),
    "date": cue_pattern(*cues.DATE, *cues.DEADLINE, *cues.DATE_EN, flags=re.IGNORECASE),
    "amount": cue_pattern(*cues.AMOUNT, *cues.AMOUNT_LIMITS, *cues.AMOUNT_EN, *cues.LEAD_TIME_EN, flags=re.IGNORECASE),
    "conditions": cue_pattern(*cues.CONDITIONS, *cues.CONDITIONS_EN, flags=re.IGNORECASE),
    "reason": cue_pattern(*cues.REASON, *cues.REASON_EN, flags=re.IGNORECASE),
    "definition": cue_pattern(*cues.DEFINITION, *cues.DEFINITION_EN, flags=re.IGNORECASE),
    "steps": cue_pattern(*cues.STEPS, *cues.STEPS_EN, flags=re.IGNORECASE),
    "compare": cue_pattern(*cues.COMPARE, *cues.COMPARE_EN, flags=re.IGNORECASE),
    "list": cue_pattern(*cues.LIST, *cues.LIST_EN, flags=re.IGNORECASE),
}
# the ways of reaching someone a contact question may name, each with what a sentence giving it carries
_CONTACT_WAYS = tuple((cue_pattern(*asked, flags=re.IGNORECASE), cue_pattern(*marks)) for asked, marks in (
    (cues.PHONE_ASKED, cues.PHONE_MARKS), (cues.EMAIL_ASKED, cues.EMAIL_MARKS), (cues.WEB_ASKED, cues.WEB_MARKS)))
# the kinds tried in this order: the most specific first ("需要带哪些材料" is materials, "哪些人可以申请" conditions,
# not a list; "材料交到哪里" asks where)
_ORDER = ("contact", "person", "duties", "authority", "place", "materials", "date", "amount", "reason", "definition",
          "steps", "compare", "conditions", "list")
# what a sentence meeting the need carries; dates and amounts are scored in answer/sentences.py already
_EVIDENCE: dict[str, re.Pattern[str]] = {
    "materials": cue_pattern(*cues.MATERIALS_MARKS, flags=re.IGNORECASE),
    "contact": cue_pattern(*cues.CONTACT_MARKS),
    "authority": cue_pattern(*cues.AUTHORITY_MARKS, flags=re.IGNORECASE),
    "place": cue_pattern(*cues.PLACE_MARKS),
    "conditions": cue_pattern(*cues.CONDITIONS_MARKS, flags=re.IGNORECASE),
    "reason": cue_pattern(*cues.REASON_MARKS, flags=re.IGNORECASE),
    "definition": cue_pattern(*cues.DEFINITION_MARKS, flags=re.IGNORECASE),
    "steps": cue_pattern(*cues.STEPS_MARKS, flags=re.IGNORECASE),
}
_ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_DENIED = "不|免|无需|无须|不予|不用|未"  # before a verb: the verb denied ("不收费", "免收费", "无需提交")
# a field's label, a few words before its colon ("办理时限：", "Processing time:"); a numbered line ("（三）…时间：") is
# an item, not a field
_FIELD = re.compile(r"^\s*([\u4e00-\u9fff]{2,8}|[A-Za-z][A-Za-z ]{1,23})[：:]")
# a passive's agent: who does what a "who" question asks, named by role or body ("approved by the head of department")
_AGENT_EN = re.compile(r"\b[a-z]{3,}ed\s+by\s+(?:the\s+|a\s+|an\s+|its\s+|their\s+)?(?!(?:end|time|date|deadline|"
                       r"law|reference)\b)[A-Za-z]")
_ELIGIBLE_WHO = cue_pattern(*cues.ELIGIBLE_WHO, flags=re.IGNORECASE)
_DURATION_FIELD = cue_pattern(*cues.DURATION_FIELDS, flags=re.IGNORECASE)
_SECTIONS = {kind: cue_pattern(*words, flags=re.IGNORECASE) for kind, words in cues.SECTION_NEEDS.items()}
_YES_NO = cue_pattern(*cues.YES_NO)
_AUXILIARY = re.compile(cues.YES_NO_AUXILIARY)
_SUBJECT_MODALS = frozenset({"有", "是", "算"})  # may belong to the subject ("有…的商户", "是…的人") rather than ask
_YES_NO_EN = re.compile(r"\s*(?:" + "|".join(cues.YES_NO_EN) + r")\b", re.IGNORECASE)
# where an English question's asking clause may start after what sets it up: a sentence before it ("I didn't use it
# all. Can I…"), a comma after a leading phrase ("If I can't go, can I…", "In the course, can I…"), or a dash after
# what the asker tells of themselves ("I'm 17 — am I allowed…", "She is 17 - could she…")
_CLAUSE_START_EN = re.compile(r"[.;:]\s+|,\s*|\s[-–—]\s*|[–—]\s*")
_PURPOSE_EN = cue_pattern(*cues.PURPOSE_EN, flags=re.IGNORECASE)
_REQUEST = cue_pattern(*cues.REQUEST)
_REQUEST_EN = cue_pattern(*cues.REQUEST_EN, flags=re.IGNORECASE)
_OPEN_WORD = cue_pattern(*cues.OPEN_QUESTION, flags=re.IGNORECASE)  # "哪些/什么…吗" is not a yes/no question
_OPEN_WORD_EN = re.compile(r"\b(?:what|which|who|whom|whose|where|when|why|how)\b(?!\s+about\b)", re.IGNORECASE)
_ASKING = cue_pattern(*cues.OPEN_QUESTION, *cues.REASON, "哪", "怎样", "多久", "多长", "多大",
                      f"{cues.ASKS_WHAT}[时地处种人]")
# "improved or declined?" chooses, it does not ask yes/no; an "or" inside a preposition's object ("a fee for
# warranty or support", "open on the Saturday or Sunday") names what the yes or no is asked of
_CHOICE_EN = re.compile(r"\bor\b", re.IGNORECASE)
# "…, or is it only for the bill?", "…, or can I just show up?": the other way round asked as a clause of its own,
# a yes or no to the first one still answers
_OR_CLAUSE_EN = re.compile(r"\bor\s+(?:" + "|".join(cues.YES_NO_EN) + r")\s+(?:i|we|you|he|she|it|they|there|this"
                           r"|that)\b", re.IGNORECASE)
_IN_OBJECT_EN = re.compile(r"\b(?:for|of|in|on|at|by|to|with|from|under|about)\s+(?:(?:a|an|the|any|my|our|your)\s+)?"
                           r"[\w'-]+\s+or\b", re.IGNORECASE)
_A_NOT_A = re.compile(r"^[^不没]+[不没](?=.)")  # "可不可以" -> "可以", "有没有" -> "有": the part after the negation
_ASK_WORDS = {"可否": "可以", "能否": "能", "行不行": "可以", "行": "可以"}
_CLOSING_ASK = re.compile(r"行不行|行吗")  # 可以 asked in other words, closing the question
_ASKED_BOTH_WAYS = re.compile(cues.ASKED_BOTH_WAYS)
_INDEFINITE = frozenset("什几哪谁")  # question words that say "some" or "any" inside a question asked both ways
_CJK = re.compile(r"[\u4e00-\u9fff]")
_PLACE_STATED = cue_pattern(*cues.PLACE_STATED, flags=re.IGNORECASE)
_ORIGIN = cue_pattern(*cues.ORIGIN)
_ORIGIN_MARK = re.compile(cues.ORIGIN_MARK)
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


@dataclass(frozen=True)
class Need:
    """The kind of answer a question wants, the modal word a yes/no answer repeats, and the language."""

    kind: str = "general"
    modal: str = ""  # 可以 / 需要 / 能 / 是 / 有 … (yes/no questions: the answer says it or its negation)
    english: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "modal": self.modal, "english": self.english}




def is_english(text: str) -> bool:
    """More Latin words than CJK characters / 2: the question's language, which the answer's labels follow."""
    return len(_LATIN_WORD.findall(text)) * 2 > len(_CJK.findall(text))


def question_need(question: str) -> Need:
    """The need of ``question`` (pure), read in Simplified characters ("…可以養寵物嗎" asks yes or no). Yes/no first:
    "需要哪些材料" asks for materials, "需要材料吗" for yes/no."""
    question = simplified(question)
    english = is_english(question)
    modal = yes_no_modal(question, english)
    if modal:
        return Need("yesno", modal, english)
    # the sentence that asks decides before what the asker tells first ("…left my contact info. How soon…?")
    for text in dict.fromkeys((asked_part(question), question)):
        if _ELIGIBLE_WHO.search(text):  # who may apply: the conditions say it
            return Need("conditions", "", english)
        for kind in _ORDER:
            if _CUES[kind].search(text):
                return Need(kind, "", english)
    return Need("general", "", english)


def asks_something(question: str) -> bool:
    """Whether the question asks in words of its own: a question word (什么, 哪些, 谁, 为什么… what, which, how…) or
    a yes/no modal. "那硕士生呢？", "What about 2021?" ask nothing of their own: they continue the turn before."""
    english = is_english(question)
    if english:
        return bool(_OPEN_WORD_EN.search(question) or yes_no_modal(question, True))
    return bool(_ASKING.search(question) or yes_no_modal(question))


def yes_no_modal(question: str, english: bool = False) -> str:
    """The modal a yes/no question asks about ("可以", "需要", "is"…), "" for an open question.

    A request ("能告诉我报账大厅的电话吗", "Can you tell me where…") asks for what follows its verb: that part
    decides ("能否告知是否需要发票" is still a yes/no question about 需要)."""
    first = asking_sentence(question)  # "Is X…? If not, explain why." asks the first part
    request = (_REQUEST_EN if english else _REQUEST).search(first)
    if request is not None:
        rest = first[request.end():]
        modal = yes_no_modal(rest, english) if rest.strip() else ""
        return "" if modal == BARE else modal  # "能告诉我…的电话吗" asks for the number, not yes or no
    if english:
        return _yes_no_modal_en(first)
    if (open_word := _OPEN_WORD.search(first)) is not None and not _indefinite(first, open_word):
        return ""
    asks = question.rstrip().endswith(("吗", "吗？", "吗?"))
    m = _YES_NO.search(first + "？") if asks else _YES_NO.search(first)
    if m is None:  # "首次申领身份证收费吗": no modal, still yes or no
        return BARE if asks and _CJK.search(first[-2:-1]) else ""
    modal = next((g for g in m.groups() if g), "") or "是"
    if modal in _SUBJECT_MODALS and (auxiliary := _AUXILIARY.search(m.group(0))):
        modal = auxiliary.group(1)
    return _ASK_WORDS.get(modal) or _A_NOT_A.sub("", modal)


def _indefinite(first: str, open_word: re.Match[str]) -> bool:
    """Whether the question word is "some" or "any" rather than asking: after a modal asked both ways a question can
    ask nothing else, so 什么, 几, 哪 and 谁 there leave it a yes or no ("要不要交什么手续费", "有没有什么要求",
    "能不能先休一半，过几个月再休", "有没有哪个部门能办", "是不是谁都能申请")."""
    return open_word.group()[0] in _INDEFINITE and _ASKED_BOTH_WAYS.search(first, 0, open_word.start()) is not None


def _yes_no_modal_en(first: str) -> str:
    """The auxiliary an English question asks yes or no with: at its start, or at the start of the clause after what
    sets it up ("If I can't go to the conference, can I hand the grant over?"); "" for an open question or a choice
    ("improved or declined?")."""
    m = _asking_auxiliary_en(first)
    if m is None or (m.start() > 0 and _OPEN_WORD_EN.search(first, m.start())):
        return ""
    clause = first[m.start():]
    chooses = len(_CHOICE_EN.findall(clause)) > len(_IN_OBJECT_EN.findall(clause)) + len(_OR_CLAUSE_EN.findall(clause))
    return "" if chooses else m.group(0).strip().lower()


def _asking_auxiliary_en(first: str) -> re.Match[str] | None:
    """The auxiliary opening the question's first clause, or the first clause after a comma or a sentence's end that
    one opens."""
    starts = [0, *(m.end() for m in _CLAUSE_START_EN.finditer(first))]
    return next((found for i in starts if (found := _YES_NO_EN.match(first, i))), None)


def yes_no_predicate(question: str, modal: str) -> str:
    """What a Chinese yes/no question asks of its subject: the words after its modal ("…补贴要收费吗" -> 收费,
    "退休了可以提取公积金吗" -> 提取公积金), the clause before a modal closing it ("…再拿这张票接着坐，行不行"), the
    last two before 吗 without one ("…身份证收费吗" -> 收费); "" when it has none or the question is English."""
    if not modal or is_english(question):
        return ""
    first = asking_sentence(question)
    if modal == BARE:
        return re.sub(r"吗\s*$", "", first.rstrip())[-2:]
    at = first.rfind(modal)
    stop = at + len(modal)
    if at < 0 and (closing := _CLOSING_ASK.search(first)) is not None:  # "…，行不行": 可以 asked in other words
        at, stop = closing.start(), closing.end()
    after = re.sub(r"吗\s*$", "", first[stop:]).strip() if at >= 0 else ""
    return after if after or at < 0 else asked_before(first, at)  # "…回家住，学校允许吗": the clause before


def asked_words(question: str) -> list[str]:
    """The stems of an English question's content words up to its question mark, in order, from the clause its
    auxiliary asks with ("Am I allowed to step out of the room…?" -> allow, step, room…; "My loan is almost up. Can I
    renew it for a week?" -> renew, week), up to a purpose told after them ("…give our lab its own private queue so
    our jobs never wait?" -> give, lab, private, queue); the whole question where that clause names one thing at most
    ("Is that allowed?"); empty for a Chinese question."""
    if not is_english(question):
        return []
    first = asking_sentence(question)
    asking = _asking_auxiliary_en(first)
    clause = first[asking.start():] if asking is not None else first
    purpose = _PURPOSE_EN.search(clause)
    asked = _content_stems(clause[:purpose.start()]) if purpose is not None else []
    words = asked if len(asked) > 1 else _content_stems(clause)  # "…private queue so our jobs never wait?"
    return words if len(words) > 1 else _content_stems(first)  # "…organise the offsite. Is that allowed?"


def _content_stems(text: str) -> list[str]:
    return [stem(w.lower()) for w in _ENGLISH_WORD.findall(text)  # "I'm", "don't": a pronoun's or verb's short form
            if len(w) > 2 and "'" not in w and w.lower() not in stopwords()
            and w.lower() not in cues.SENTENCE_ADVERBS_EN]


def asked_object(question: str) -> frozenset[str]:
    """The stems of what an English yes/no question asks of its subject: its last two content words, where English
    puts the object or the state asked ("Can guests use the power tools?" -> power, tool; "Is parking free on
    Sundays?" -> free, sunday); empty for a Chinese question."""
    return frozenset(asked_words(question)[-2:])


def denies(sentence: str, predicate: str) -> bool:
    """Whether ``sentence`` says the predicate asked negated: 不/免/无需/未… right before its first word ("收费"
    asked, "收费标准：不收费" says no without any word of refusal)."""
    word = predicate[:2]
    return len(word) == 2 and has_cjk(word) and re.search(rf"(?:{_DENIED})\s*{re.escape(word)}", sentence) is not None


def says_predicate(question: str, sentence: str, predicate: str) -> bool:
    """Whether the sentence says what a Chinese yes/no question asks of its subject: two characters of its predicate
    together ("替他申领居住证" ~ "代为申领居住证", 提交 ~ 无需提交), the one character of a one-character predicate,
    or the predicate's opposite (交费 ~ 不收费, 开放 ~ 闭馆); a figure in the measure of one the question names
    ("成立5年的企业能…吗", "可以是5年吗" against "不超过3年"), which the limits compare (answer/limits.py); any sentence
    where no predicate is read (an English question, one without a modal)."""
    if in_asked_measure(question, sentence):
        return True
    cjk = "".join(c for c in predicate if has_cjk(c))
    pieces = {cjk[i:i + 2] for i in range(len(cjk) - 1)} or {cjk}
    return not cjk or any(p in sentence for p in pieces) or says_opposite(question, sentence)


def evidence_bonus(need: Need, sentence: str, asked: str = "", heading: str = "") -> float:
    """NEED_BONUS when ``sentence`` carries what ``need`` asks for (a place, a reason, a phone number, someone the
    question ``asked`` does not name itself…), else 0. The ``heading`` of its text may say whose role it names."""
    if need.kind == "person":
        names = [name for name in named_people(sentence) if name not in asked]
        role = asked_role(asked)
        if not names and role.labels(sentence, heading):  # "Creator: R.A. Fisher", a name no rule knows
            return NEED_BONUS + ROLE_BONUS
        if not names:  # "approved by the head of department", "scored by a panel": who does it, unnamed
            return NEED_BONUS if need.english and _AGENT_EN.search(sentence) else 0.0
        return NEED_BONUS + (ROLE_BONUS if any(role.filled_by(sentence, n, heading) for n in names) else 0.0)
    headed = max(section_bonus(need, heading), field_bonus(need, sentence, asked))
    if need.kind == "place":
        return max(_place_bonus(sentence, asked), headed)
    if need.kind == "contact":
        return NEED_BONUS if any(marks.search(sentence) for marks in _contact_marks(asked)) else headed
    pattern = _EVIDENCE.get(need.kind)
    return NEED_BONUS if pattern is not None and pattern.search(sentence) else headed


@functools.lru_cache(maxsize=256)
def _contact_marks(question: str) -> tuple[re.Pattern[str], ...]:
    """What a sentence answering a contact question carries: the ways of reaching someone the question names (a
    phone asked is not answered by a web address), any of them when it names none."""
    named = tuple(marks for asked, marks in _CONTACT_WAYS if asked.search(question))
    return named or (_EVIDENCE["contact"],)


def section_bonus(need: Need, heading: str) -> float:
    """NEED_BONUS for a sentence whose own section is headed by what the need asks ("五、申报方式" for how to
    apply, "四、申报时间" for when); the document's title above it says the topic, not the aspect."""
    section = last_section(heading).split(" · ", 1)[0]  # the head line's locator after " · " is no heading
    pattern = _SECTIONS.get(need.kind)
    return NEED_BONUS if section and pattern is not None and pattern.search(section) else 0.0


def last_section(breadcrumb: str) -> str:
    """The last section of a breadcrumb ("title > 四、申报时间" -> 四、申报时间); "" for a title alone."""
    return breadcrumb.rsplit(">", 1)[-1].strip() if ">" in breadcrumb else ""


def field_label(sentence: str) -> str:
    """The label of a field ("办理时限：10个工作日" -> 办理时限), "" when the sentence is none."""
    m = _FIELD.match(sentence)
    return m.group(1).strip() if m else ""


def field_bonus(need: Need, sentence: str, asked: str = "") -> float:
    """NEED_BONUS for a field whose label says what the need asks: a label heads its value as a section heading
    does ("办理时限：10个工作日" asked how long, "受理地点：…" where). Asked how long, a duration's label only
    ("补贴标准：" is an amount, not the time it takes). Not for a date: a date field carries its date, which scores
    already, and its label says whose date it is ("更新时间" is the page's)."""
    label = field_label(sentence)
    if _other_measure(need, label, asked):
        return 0.0
    pattern = _DURATION_FIELD if need.kind == "amount" and DURATION_QUESTION.search(asked) else (
        _SECTIONS.get(need.kind) if need.kind != "date" else None)
    return NEED_BONUS if label and pattern is not None and pattern.search(label) else 0.0


def _other_measure(need: Need, label: str, question: str) -> bool:
    """Whether a duration's label ("报销时限：…") answers an amount asked that is no duration ("住宿费标准是多少"): the
    time a thing takes is not what it costs, as "补贴标准：" is not how long."""
    return need.kind == "amount" and bool(label) and _DURATION_FIELD.search(label) is not None \
        and DURATION_QUESTION.search(question) is None and label.lower() not in question.lower()


def field_factor(need: Need, sentence: str, question: str) -> float:
    """OTHER_FIELD for a field labelled with another aspect than the one asked ("申请条件：…" asked where to apply:
    the label says what its value answers, and it is not this), else 1. A label the question names is its
    subject ("评审流程：…" asked how many stages the 评审流程 has)."""
    label = field_label(sentence)
    if _other_measure(need, label, question):
        return OTHER_FIELD
    if not label or need.kind not in _SECTIONS or _SECTIONS[need.kind].search(label):
        return 1.0
    if label.lower() in question.lower():
        return 1.0
    other = any(pattern.search(label) for kind, pattern in _SECTIONS.items() if kind != need.kind)
    return OTHER_FIELD if other else 1.0


def gives_reason(sentence: str) -> bool:
    """Whether ``sentence`` states a reason (因为, 由于, 原因, because…)."""
    return bool(_EVIDENCE["reason"].search(sentence))


def _place_bonus(sentence: str, asked: str) -> float:
    """NEED_BONUS for a sentence naming a place, PLACE_STATED_BONUS more where it states where something is (位于,
    生于…) or, asked "哪里人", whose origin it names ("江城人")."""
    origin = bool(_ORIGIN.search(asked) and _ORIGIN_MARK.search(sentence))
    if origin or _PLACE_STATED.search(sentence):
        return NEED_BONUS + PLACE_STATED_BONUS
    return NEED_BONUS if _EVIDENCE["place"].search(sentence) else 0.0
