"""The extractive answer (no LLM): a table lookup, slot values or the best evidence sentences, each with its [n].

In order of precedence: when the question names a row of a table among the evidence and asks for a column or
a value, that row's cells with their headers lead (any intent); slot sentences answer person/process/data
questions; the best evidence sentences answer the rest and follow the lines above when they add a chunk.
Every sentence ends with the [n] of the chunk it was taken from, so the answer is checkable against its
citations like an LLM answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lambdarag.answer.asked_values import AskedValues
from lambdarag.answer.closest import by_meaning, closest_number, nearest_unsaid
from lambdarag.answer.compose import Focus, fit_budget
from lambdarag.answer.context import Packed
from lambdarag.answer.focus import focused
from lambdarag.answer.needs import Need, asks_something, is_english, question_need
from lambdarag.answer.parts import asking_clauses
from lambdarag.answer.sentences import (
    BROAD_INTENTS,
    MAX_SENTENCES,
    Scored,
    best_sentences,
    close,
    evidence_pieces,
    ranking_key,
    score_text,
    scored_sentences,
    split_piece,
)
from lambdarag.answer.slots import slot_sources
from lambdarag.answer.split_tables import most_extreme_first
from lambdarag.answer.table_lookup import Found, answering_tables
from lambdarag.answer.table_text import question_grams
from lambdarag.answer.yes_no import yes_no_lines
from lambdarag.query.condense import rule_condense
from lambdarag.records import Turn
from lambdarag.text.patterns import CITATION_MARK

_QUESTION_MARK = re.compile(r"[？?]")
# asked what happens on a condition: answered by the consequence a conditional sentence ends with ("…, then …")
_CONSEQUENCE_ASKED = re.compile(r"\bwhat (?:happens|will happen|would happen)\b|会怎样|会怎么样|什么后果|如何处理",
                                re.IGNORECASE)
_THEN = re.compile(r"\bthen\b|，则", re.IGNORECASE)
_TAIL = 12  # characters of a sentence's end a quoted part must end with to hold its consequence
SLOT_EXTRA_MIN = 0.5  # keyword share the top chunk's sentence needs to join a slot answer
# person/process slots already come from tables and lists; an overview quotes whole small tables instead
TABLE_FIRST_SKIP = frozenset({"person", "process", "synthesis"})
TABLE_PIECES = 16  # tables are looked up in this many top evidence chunks (the fused top-k and the added)
COMPARE_TABLES = 2  # a comparison shows the named row of this many tables (two versions, two years)
LEAD_INTENTS = frozenset({"process"})  # slot answers that a better matching sentence elsewhere may precede
EXTRA_AFTER_TABLE = 1  # sentences that may follow a table line (more for broad intents)
ANSWER_CHARS = 300  # default length budget (context.answer_chars): characters before citations


def extractive_answer(question: str, packed: Packed, intent: str, slots: dict[str, Any],
                      keywords: Sequence[str] = (), budget: int = ANSWER_CHARS, sentences: int = MAX_SENTENCES) -> str:
    """The lines that meet the question's need first, within ``budget`` (evidence sentences: at most ``sentences``
    for a question neither an overview nor a list); then the repeal notes of cited documents."""
    need = question_need(question)
    scored = scored_sentences(question, packed.pieces, keywords, intent, packed.as_of)  # once for every use below
    lines = _answer_lines(question, packed, intent, slots, scored, need, sentences, keywords)
    if need.kind == "yesno":
        asked = _first_question(question)  # "补贴要收费吗？咨询电话是多少？": the yes or no is read for its first part
        ranked = None
        if asked != question:
            own = [k for k in keywords if k.lower() in asked.lower()] or keywords
            ranked = scored_sentences(asked, packed.pieces, own, intent, packed.as_of)
        lines = yes_no_lines(asked, scored, need, lines, ranked, packed.nearness)
    focus = None if need.kind == "yesno" else _focus(question, intent, keywords)
    # a yes or no is said with its support: a long line after them would be quoted in part as padding
    text = "".join(fit_budget(lines, budget, focus, parts=need.kind != "yesno")).strip()
    return text + "".join(repeal_notes(text, packed, need.english))


def _focus(question: str, intent: str, keywords: Sequence[str]) -> Focus:
    """The part of an over-long first sentence to quote: the clauses holding the value the question's words ask
    for (a date, a duration, an amount), or, asked what happens on a condition, the consequence the sentence ends
    with ("If You initiate litigation…, then the rights… shall terminate"); matching its words best."""
    asked = AskedValues.of(question, intent)
    wanted = question_grams(question)
    consequence = bool(_CONSEQUENCE_ASKED.search(question))

    def carries_in(body: str) -> Callable[[str], bool]:
        def carries(text: str) -> bool:
            ends = consequence and text.rstrip().endswith(body.rstrip()[-_TAIL:]) and bool(_THEN.search(text))
            return ends or asked.carries(text, asked.value_bonus(text))
        return carries

    return lambda body, budget: focused(body, budget, carries_in(body),
                                        lambda text: score_text(text, keywords, wanted))


def _first_question(question: str) -> str:
    """The first of the questions asked together ("补贴要收费吗？咨询电话是多少？" -> "补贴要收费吗？"; "Can I get an
    interpreter, and would I have to pay for one?" -> "Can I get an interpreter?": the lead answers what is asked
    first, the sentence after it may answer the rest), else the question."""
    mark = _QUESTION_MARK.search(question)
    first = question[:mark.end()] if mark is not None and question[mark.end():].strip() else question
    body = first.rstrip()
    clauses = asking_clauses(body.rstrip("？?"))
    asked = next((c for c in clauses if question_need(c).kind == "yesno"), None) if len(clauses) > 1 else None
    end = body[-1] if body.endswith(("？", "?")) else ""  # asked without a question mark, none is added
    return f"{asked.rstrip()}{end}" if asked is not None else first


def repeal_notes(text: str, packed: Packed, english: bool = False) -> list[str]:
    """"注：《X》已于2024年7月1日废止[n]。" ("Note: X was repealed on 2024-07-01[n]." for an English reader) for each
    document the text cites whose repeal the context states."""
    numbers = {c.chunk_id: c.n for c in packed.citations}
    cited = {int(n) for n in CITATION_MARK.findall(text)}
    notes = []
    for citation in packed.citations:
        repealed = packed.repealed.get(citation.doc_id)
        if repealed is None or citation.n not in cited or repealed.chunk_id not in numbers:
            continue
        n = numbers[repealed.chunk_id]
        if english:
            when = f" on {repealed.since}" if repealed.since else ""
            note = f" Note: {repealed.title} was repealed{when}[{n}]."
        else:
            when = f"已于{_cn_date(repealed.since)}" if repealed.since else "已"
            note = f"注：《{repealed.title}》{when}废止[{n}]。"
        if note not in notes:
            notes.append(note)
    return notes


def _cn_date(iso: str) -> str:
    """"2024-07-01" -> "2024年7月1日" ("2024-07" -> "2024年7月")."""
    parts = [int(p) for p in iso.split("-") if p.isdigit()]
    return "".join(f"{v}{unit}" for v, unit in zip(parts, ("年", "月", "日"), strict=False))


def _answer_lines(question: str, packed: Packed, intent: str, slots: dict[str, Any], scored: Sequence[Scored],
                  need: Need, sentences: int = MAX_SENTENCES, keywords: Sequence[str] = ()) -> list[str]:
    """Table lines, else slot lines for person/process/data (the needed one first), then evidence sentences."""
    table = table_lines(question, packed, intent) if intent not in TABLE_FIRST_SKIP else []
    numbers = {c.chunk_id: c.n for c in packed.citations}
    closest = closest_number(packed.closest, numbers)  # the chunk the dense channel ranked first offers its best
    if table:
        broad = intent in BROAD_INTENTS
        extra = best_sentences(question, scored, intent, limit=None if broad else EXTRA_AFTER_TABLE)
        extra = by_meaning(extra, scored, packed.nearness, closest) if broad else extra
        return [*table, *(s.cited() for s in extra if f"[{s.n}]" not in "".join(table))]
    writer = SLOT_WRITERS.get(intent)
    written = writer(slots, _marker(slots, numbers), need) if writer and slots else []
    lines = ordered_slot_lines(written, need) if _answers(written, need) else []
    if not lines:
        leading = _clause_answers(question, packed, intent, keywords, scored)
        picked = best_sentences(question, scored, intent, sentences=sentences, leading=leading)
        return [s.cited() for s in by_meaning(picked, scored, packed.nearness, closest, need.english)]
    # another document's sentence leads only when the slots lack the aspect asked (the steps asked, the steps held)
    lead = _better_elsewhere(scored, slots, numbers) if intent in LEAD_INTENTS and not _holds_asked(written, need) \
        else []
    said = [*lead, *lines, *_top_chunk_sentence(scored, "".join([*lead, *lines]))]
    # a slot answer may hold the wrong part of the page: the sentence nearest in meaning follows when it is unsaid
    return [*said, *(s.cited() for s in nearest_unsaid(scored, packed.nearness, "".join(said)))]


def _clause_answers(question: str, packed: Packed, intent: str, keywords: Sequence[str],
                    scored: Sequence[Scored]) -> list[Scored]:
    """Asked two things or more in one sentence ("补贴标准是多少，什么时候发放？", "What is the limit and who approves
    it?"), each clause's best sentence as the clause alone ranks them, in the clauses' order. The clause is scored
    with the question's keywords but those another clause asks with ("多长时间"): the subject's words stay."""
    body = question.strip().rstrip("。？?！!")
    clauses = [] if _QUESTION_MARK.search(body) else asking_clauses(body)
    out: list[Scored] = []
    for i, clause in enumerate(clauses if len(clauses) >= 2 else []):
        # a later clause names its subject as a follow-up does ("…，需要多长时间" asks how long the first one takes)
        asked = rule_condense(clause, [Turn(clauses[0], "")])[0] if i else clause
        own = [k for k in keywords if k.lower() in asked.lower() or not asks_something(k)]
        taken = {(s.n, s.sentence) for s in out}
        ranked = [s for s in scored_sentences(asked, packed.pieces, own, intent, packed.as_of)
                  if (s.n, s.sentence) not in taken]
        # the sentence the clause asked alone would lead with, as the whole question scored it
        first = best_sentences(asked, ranked, intent, limit=1)
        out += [s for s in scored if first and (s.n, s.sentence) == (first[0].n, first[0].sentence)][:1]
    return out


def _answers(lines: Sequence[tuple[str, str]], need: Need) -> bool:
    """Slot lines answer when they hold the aspect the need asks for (or a table's value), else a core aspect
    (steps, materials, a contact) when the need names none; a place, conditions or a basis alone are by-products
    of a text that is not a procedure. A date or an amount asked is a data slot's value or a sentence's: a
    procedure's conditions hold many ("住满多长时间" is not answered by "…应当自受理之日起15日内…")."""
    if need.kind in SENTENCE_NEEDS:
        return False  # "为什么要…" is not answered by the procedure's steps, whatever they hold
    aspects = {aspect for aspect, _ in lines}
    if need.kind in VALUE_NEEDS:
        return "value" in aspects
    if need.kind in NEED_ASPECT:  # "交到哪里" without a place slot: a sentence saying where answers, not the materials
        return _holds_asked(lines, need) or "value" in aspects
    return bool(aspects & CORE_ASPECTS)


def _holds_asked(lines: Sequence[tuple[str, str]], need: Need) -> bool:
    """Whether the slot lines hold the aspect the need asks for ("需要哪些材料": the materials)."""
    return NEED_ASPECT.get(need.kind, "") in {aspect for aspect, _ in lines}


def ordered_slot_lines(lines: Sequence[tuple[str, str]], need: Need) -> list[str]:
    """Slot lines as (aspect, line): the aspect the question asks for first, the others in their order."""
    first = NEED_ASPECT.get(need.kind, "")
    return [line for aspect, line in lines if aspect == first] + [line for aspect, line in lines if aspect != first]


def _better_elsewhere(scored: Sequence[Scored], slots: dict[str, Any], numbers: Mapping[str, int]) -> list[str]:
    """The best evidence sentence when it comes from another chunk than the slots and beats all of theirs.

    A procedure answers "how do I…" in general; an FAQ answer, a rule elsewhere or another section of the same
    page that matches the question better ("发票丢了怎么办", "### 如何显示内存利用率？" above the steps of another
    problem) is the specific answer and leads.
    """
    sources = {numbers[cid] for cid in slot_sources(slots).values() if cid in numbers}
    if not scored or not sources:
        return []
    best = max(scored, key=ranking_key)
    theirs = max((s.score for s in scored if s.n in sources), default=0.0)
    return [best.cited()] if best.n not in sources and best.score > theirs else []


def table_lines(question: str, packed: Packed, intent: str) -> list[str]:
    """The answering table row(s) with their headers and [n]; two tables' rows for a comparison."""
    pieces = evidence_pieces(packed.pieces, TABLE_PIECES)
    crumbs = {c.chunk_id: c.breadcrumb or c.title for c in packed.citations}
    candidates = [(_where(crumbs.get(p.chunk_id or "", "")), split_piece(p)[1]) for p in pieces]
    texts = [body for _, body in candidates]
    found = answering_tables(question, candidates, texts)
    if not found:
        return []
    found = [found[i] for i in most_extreme_first(found, question)]  # a split table's extreme row over each part's
    chosen: list[Found] = [found[0]]
    if intent == "compare":
        # the same row in another table (another version or year) is the other side of the comparison
        chosen += [f for f in found[1:] if f.match.named == found[0].match.named][: COMPARE_TABLES - 1]
    marks = [f"[{p.n}]" for p in pieces]
    # the best table's named row may be empty under the asked columns: then no line, not another table's (a
    # question about one province must not be answered from the next province's table)
    english = is_english(question)
    stop = ". " if english else "。"
    return [f"{line}[{pieces[f.index].n}]{stop}" for f in chosen if (line := f.line(marks, english))]


def _where(breadcrumb: str) -> str:
    """A breadcrumb without repeated levels (a PDF title often repeats as its first heading)."""
    parts = [p.strip() for p in breadcrumb.split(">") if p.strip()]
    return " > ".join(p for i, p in enumerate(parts) if i == 0 or p != parts[i - 1])


def _top_chunk_sentence(scored: Sequence[Scored], text: str) -> list[str]:
    """The top evidence chunk's best sentence when the slot lines do not cite that chunk (it may hold the answer)."""
    top = [s for s in scored if s.rank == 0]
    if not top or f"[{top[0].n}]" in text:
        return []
    best: Scored = max(top, key=ranking_key)
    return [best.cited()] if best.score >= SLOT_EXTRA_MIN else []


def _marker(slots: dict[str, Any], numbers: Mapping[str, int]) -> Callable[[str], str]:
    sources = slot_sources(slots)

    def mark(key: str) -> str:
        cid = sources.get(key)
        return f"[{numbers[cid]}]" if cid is not None and cid in numbers else ""

    return mark


Writer = Callable[[dict[str, Any], Callable[[str], str], Need], list[tuple[str, str]]]
CORE_ASPECTS = frozenset({"steps", "materials", "contact", "value"})
VALUE_NEEDS = frozenset({"date", "amount"})  # answered by a value: a data slot's or a sentence's
SENTENCE_NEEDS = frozenset({"reason", "definition"})  # answered by the text's sentences, never by slot lines
# the slot aspect that answers a need ("需要哪些材料" -> the materials line first)
NEED_ASPECT = {"materials": "materials", "steps": "steps", "place": "where", "contact": "contact", "duties": "duties",
               "conditions": "conditions"}
_ZH = {"steps": "办理步骤：", "materials": "所需材料：", "conditions": "注意：", "where": "办理地点：",
       "basis": "依据：", "phone": "办公电话", "email": "电子邮箱", "office": "办公地点", "duties": "主要职责：",
       "who": "联系人",
       "list": "、", "items": "；", "facts": "，", "stop": "。"}
_EN = {"steps": "Steps: ", "materials": "Materials: ", "conditions": "Note: ", "where": "Where: ", "basis": "Basis: ",
       "phone": "phone ", "email": "email ", "office": "office ", "duties": "Duties: ", "who": "Contact",
       "list": ", ", "items": "; ", "facts": ", ", "stop": ". "}


def _words(need: Need) -> dict[str, str]:
    return _EN if need.english else _ZH


def _person(slots: dict[str, Any], mark: Callable[[str], str], need: Need) -> list[tuple[str, str]]:
    w = _words(need)
    name = slots.get("name", "")
    if not name and (need.kind == "person" or not (slots.get("phone") or slots.get("email"))):
        return []  # a "who" question is not answered by a phone number without its person
    who = f"{slots.get('department', '')}{slots.get('title', '')}{name}" or w["who"]
    if slots.get("mention") and not slots.get("department"):
        return [("contact", f"{close(slots['mention'])}{mark('mention')}{w['stop']}")]  # its own stop dropped
    facts = [f"{w[key]}{slots[key]}" for key in ("phone", "email", "office") if slots.get(key)]
    joined = w["facts"] + w["facts"].join(facts) if facts else ""
    lines = [("contact", f"{who}{joined}{mark('name') or mark('phone')}{w['stop']}")]
    if slots.get("duties"):
        lines.append(("duties", f"{w['duties']}{slots['duties']}{mark('duties')}{w['stop']}"))
    return lines


def _process(slots: dict[str, Any], mark: Callable[[str], str], need: Need) -> list[tuple[str, str]]:
    w = _words(need)
    lines: list[tuple[str, str]] = []
    if slots.get("steps"):
        steps = w["items"].join(f"{i}. {_item(s)}" for i, s in enumerate(slots["steps"], 1))
        colon = ": " if need.english else "："
        lead = f"{slots['lead'].rstrip('：:。')}{colon}" if slots.get("lead") else w["steps"]
        lines.append(("steps", f"{lead}{steps}{mark('steps')}{w['stop']}"))
    if slots.get("materials"):
        items = w["list"].join(m.rstrip("；;。.") for m in slots["materials"])
        lines.append(("materials", f"{w['materials']}{items}{mark('materials')}{w['stop']}"))
    if slots.get("conditions"):
        items = w["items"].join(c.rstrip("；;。.") for c in slots["conditions"])
        lines.append(("conditions", f"{w['conditions']}{items}{mark('conditions')}{w['stop']}"))
    if slots.get("where"):
        lines.append(("where", f"{w['where']}{slots['where']}{mark('where')}{w['stop']}"))
    if slots.get("basis"):
        lines.append(("basis", f"{w['basis']}{w['list'].join(slots['basis'])}{mark('basis')}{w['stop']}"))
    return lines


def _item(text: str) -> str:
    """A list item without its bullet and closing punctuation ("- 出差前：…；" -> "出差前：…")."""
    return text.strip().lstrip("-•·*").strip().rstrip("；;。.")


def _data(slots: dict[str, Any], mark: Callable[[str], str], need: Need) -> list[tuple[str, str]]:
    en = need.english
    where = (f"In {slots['table']}, " if en else f"{slots['table']}中，") if slots.get("table") else ""
    if slots.get("value") and slots.get("column"):
        if en:
            row = f" of {slots['row']}" if slots.get("row") else ""
            return [("value", f"{where}{slots['column']}{row}: {slots['value']}{mark('value')}. ")]
        row = f"{slots['row']}的" if slots.get("row") else ""
        return [("value", f"{where}{row}{slots['column']}为{slots['value']}{mark('value')}。")]
    values = slots.get("row_values")
    if isinstance(values, dict) and values:
        sep, colon = (", ", ": ") if en else ("，", "：")
        shown = sep.join(f"{k}{colon}{v}" for k, v in values.items() if v)
        return [("value", f"{where}{shown}{mark('row') or mark('table')}{'. ' if en else '。'}")]
    return []


SLOT_WRITERS: dict[str, Writer] = {
    "person": _person,
    "process": _process,
    "data": _data,
}
