"""Evidence sentences for the extractive answer: cut, scored against the question, the best picked with their [n].

A sentence scores by the question keywords and character bigrams it shares (its chunk's overlap counts a
little too), a small bonus for the top fused chunk, and — when the question asks for a value (多少, 什么时候…) —
a bonus for carrying one (an amount, a date). FAQ pairs are read as one unit: the question line matches,
its answer line is shown. Headings and page furniture are never answer sentences.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from lambdarag.answer.as_of import scores_as_of
from lambdarag.answer.asked_page import ON_PAGE, asked_pages
from lambdarag.answer.asked_values import AskedValues, asked_measure
from lambdarag.answer.captions import caption_line
from lambdarag.answer.context import Piece
from lambdarag.answer.follow_on import points_back, with_next
from lambdarag.answer.limits import tiers_asked
from lambdarag.answer.lines import BULLET
from lambdarag.answer.needs import NEED_BONUS, Need, evidence_bonus, field_factor, question_need, section_bonus
from lambdarag.answer.parts import question_parts
from lambdarag.answer.qualifiers import named_groups_first
from lambdarag.answer.rarity import rarity_weights, weighted_score
from lambdarag.answer.table_text import grams, question_grams
from lambdarag.answer.units import Unit, candidate_units
from lambdarag.answer.unsaid import Unsaid
from lambdarag.answer.window_ends import cut_by_window, opens_document, whole_over_cut
from lambdarag.text.tokenizer import normalize

MAX_SENTENCES = 4  # default context.answer_sentences: sentences of an answer (not an overview or list), per chunk too
# needs a list one item a line answers whole; asked yes or no, an item is read with its lead-in ("不予…：")
WHOLE_LISTS = frozenset({"list", "materials", "conditions", "steps", "yesno"})
LISTED_ITEMS = 3  # a line without punctuation naming this many items ("甲、乙、丙") is a list, not a heading
FLOOR = 0.6  # a sentence must score this share of the best one to be added
TOP_CHUNK_FLOOR = 0.7  # the top chunk's best sentence leads when it scores this share of the best
BROAD_INTENTS = frozenset({"synthesis", "compare"})
BROAD_LIMITS = (5, 1)  # sentences, sentences per chunk: an overview draws on several chunks
BROAD_FLOOR = 0.4
CARRIER_FLOOR = 0.4  # share of the best score the carrier of what is asked needs to come second (_with_carrier)
LIST_LIMITS = (5, 5)  # a list question's items sit in several sentences of one chunk: read up to five of them
CHUNK_WEIGHT = 0.3  # share of a sentence's score that comes from its whole chunk's keyword overlap
EVIDENCE_PIECES = 16  # sentences are taken from this many top evidence chunks (the fused top-k and the added)
RANK_BONUS = 0.08  # a sentence from the top chunk beats an equally matching one further down
# score per share of the question's keyword characters (those the chunk's heading does not hold) the sentence holds:
# every sentence of a page matches the question's subject through its heading, the answer also echoes its predicate
# (食物 ~ 猎食, 病因 ~ 起因于)
ECHO_WEIGHT = 0.1
LABEL_FACTOR = 0.6  # score kept by a lead-in ending in ：, which announces a list rather than answering
WHOLE_TABLE_ROWS = 8  # an overview may quote a table this small whole
LIST_TABLE_ROWS = 30  # a list question may quote a table this long whole (in order, cut by the answer budget)
PART_MATCH = 0.5  # share of a part's words its sentence must hold
CUT_FACTOR = 0.8  # score kept by a sentence the chunk's window cut (its other part is in the neighbouring chunk)
REPEATED = 0.8  # share of a sentence's words already said that, with all its numbers, makes it a repetition

ORDINAL = re.compile(r"第[一二三四五六七八九十\d]+(?:所|个|名|位|家|项)?|排[在名]第"
                     r"|前[一二三四五六七八九十\d]+(?:所|个|名|位)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class Scored:
    """One candidate sentence, its score, its chunk's citation number and evidence rank."""

    score: float
    n: int
    rank: int  # position of the chunk among the evidence pieces (0 = top fused chunk)
    sentence: str
    doc_id: str = ""
    context: str = field(default="", compare=False)  # breadcrumb and matched text, for the question's parts
    also: tuple[int, ...] = field(default=(), compare=False)  # other chunks saying the same
    # the share of the question's keyword characters that the chunk's heading does not hold and the sentence itself
    # does (用途 ~ 用于, 发源 ~ 起源, 排第几 ~ 排行第三): counts in the score (ECHO_WEIGHT) and breaks exact ties
    echo: float = field(default=0.0, compare=False)
    # whether it says any of the question's words its heading does not (false: it only shares the page's subject)
    says_asked: bool = field(default=True, compare=False)
    item: bool = field(default=False, compare=False)  # an item of a refusal's list without its lead-in (Unit.item)
    in_section: bool = field(default=False, compare=False)  # stands in a section headed by what is asked ("申报时间")
    # carries the value the question's words ask: a date asked when, an amount asked how much or how long
    valued: bool = field(default=False, compare=False)
    reply: str = field(default="", compare=False)  # Unit.reply

    def cited(self) -> str:
        """The sentence closed with its [n] (and the [n] of the other chunks saying the same)."""
        marks = "".join(f"[{n}]" for n in (self.n, *self.also))
        return f"{close(self.sentence)}{marks}{end(self.sentence)}"


def ranking_key(item: Scored) -> tuple[float, float]:
    """How candidate sentences rank: by score, an exact tie by how much of the question's own words the sentence
    echoes (a tie is common where every sentence of a page matches the question through the page's heading)."""
    return item.score, item.echo


def doc_of(chunk_id: str | None) -> str:
    """The document id of a chunk id ("<doc_id>#<nnnn>")."""
    return (chunk_id or "").rpartition("#")[0] or (chunk_id or "")


def evidence_pieces(pieces: Sequence[Piece], limit: int = EVIDENCE_PIECES) -> list[Piece]:
    """The top evidence pieces that carry a citation number."""
    return [p for p in pieces if p.kind == "evidence" and p.n is not None][:limit]


def split_piece(piece: Piece) -> tuple[str, str]:
    """(head line: breadcrumb and locator, body) of an evidence piece."""
    text = piece.text.split("] ", 1)[1] if piece.text.startswith("[") and "] " in piece.text else piece.text
    head, _, body = text.partition("\n")
    return (head, body) if body else ("", text)


def best_sentences(question: str, scored: Sequence[Scored], intent: str = "fact", limit: int | None = None,
                   sentences: int = MAX_SENTENCES, leading: Sequence[Scored] = ()) -> list[Scored]:
    """The evidence sentences that answer best, in answer order, from the question's ``scored_sentences``; the
    ``leading`` ones (each clause's answer, answer/extractive.py) first.

    The top fused chunk's best sentence comes first (``_top``); a comparison's first sentence per side. Broad intents
    take more sentences from more chunks, a list question more sentences of one chunk.
    """
    if not scored:
        return []
    first = max(scored, key=ranking_key)  # the best sentence; its score is the best score
    # a page's sentences may make the whole answer (its floor limits them); an overview draws on several chunks
    most, per_chunk = BROAD_LIMITS if intent in BROAD_INTENTS else (sentences, sentences)
    need = question_need(question).kind
    if need == "list":  # "有哪些…", "which…": the items, however many of one chunk
        most, per_chunk = max(most, LIST_LIMITS[0]), max(per_chunk, LIST_LIMITS[1])
    most = most if limit is None else limit
    floor = first.score * (BROAD_FLOOR if intent in BROAD_INTENTS else FLOOR)
    top = _sides(scored) if intent == "compare" else _top(scored, first)
    parts = _per_part(question_parts(question), scored) if limit is None else []
    picked: list[Scored] = list(dict.fromkeys([*leading, *parts]))  # each part of the question gets its sentence first
    most = max(most, len(picked))
    for item in [*top, *sorted(scored, key=ranking_key, reverse=True)]:
        same_chunk = sum(1 for p in picked if p.n == item.n)
        if item.score < floor or len(picked) >= most or same_chunk >= per_chunk or item in picked:
            continue
        if item.item and picked:  # "（二）已享受其他补贴的" after another sentence reads as said of that one
            continue
        said, mutual = _repeated_by(item.sentence, picked)
        if said >= 0:  # the same fact from another chunk (a slide repeating the rule) makes the answer longer only
            if mutual and item.n != picked[said].n and item.n not in picked[said].also:
                picked[said] = dataclasses.replace(picked[said], also=(*picked[said].also, item.n))  # both sources
            continue
        picked.append(item)
    # a lead-in's items, a statement's reason follow it; what the first sentence points back at leads it
    picked = _with_carrier(picked, scored, first) if _carried_apart(question, need) else picked
    return with_next(picked, scored, need, points_back(question, need))


def _carried_apart(question: str, need: str) -> bool:
    """Whether the question asks what one sentence gives whatever its words: how to reach someone, or a count in
    the measure it names ("几个人", "how many members"). Measured worse: any amount (another figure is carried as
    often) and a date asked when (the first sentence's own date is often one no rule reads — "崇宁五年", "春节时期" —
    and a publication date or another year's sentence came second)."""
    return need == "contact" or (need == "amount" and bool(asked_measure(question)))


def _with_carrier(picked: list[Scored], scored: Sequence[Scored], first: Scored) -> list[Scored]:
    """``picked`` with the best sentence carrying what is asked (the phone, e-mail or web address asked, a count in
    the measure asked: ``Scored.valued``) second, when the first does not carry it and it scores CARRIER_FLOOR of
    the best in the first one's document: a sentence that gives it in words of its own ("赞助事宜请致电…" asked which
    number to call, "* 队伍规模：每队4人" asked how many a team has) is what the asker came for, and fourth the budget
    may cut it. Another document's count is another subject's."""
    if not picked or picked[0].valued:
        return picked
    floor, doc = first.score * CARRIER_FLOOR, picked[0].doc_id
    carriers = [s for s in scored if s.valued and s.doc_id == doc and s.score >= floor]
    carrier = max(carriers, key=ranking_key, default=None)
    return picked if carrier is None else [picked[0], carrier, *(p for p in picked[1:] if p != carrier)]


def _top(scored: Sequence[Scored], first: Scored) -> list[Scored]:
    """The top fused chunk's best sentence when it matches reasonably (fusion is the consensus of every channel, one
    sentence's keyword count is not), unless the best sentence stands in the section headed by what is asked
    ("四、申报时间") or carries the value asked ("within 10 working days" asked how long; a phone, an e-mail or a web
    address asked how to reach someone) and it does not."""
    top = max((s for s in scored if s.rank == 0 and s.score >= first.score * TOP_CHUNK_FLOOR), key=ranking_key,
              default=None)
    if top is None or (first.in_section and not top.in_section) or (first.valued and not top.valued):
        return []
    return [top]


def _repeated_by(sentence: str, picked: Sequence[Scored]) -> tuple[int, bool]:
    """(index of the picked sentence that already says this, whether its chunk backs that one too) or (-1, False).

    Saying it already: all the sentence's numbers and most of its words. Its chunk backs the picked sentence
    when it states the same figures, or when the picked one is as much covered by it (the same both ways).
    """
    mine = grams(sentence)
    numbers = set(_NUMBER.findall(sentence))
    for i, p in enumerate(picked):
        theirs = grams(p.sentence)
        # without figures only a sentence wholly inside another repeats it: "甲类…" and "乙类…" differ by one word
        needed = REPEATED if numbers else 1.0
        if mine and theirs and numbers <= set(_NUMBER.findall(p.sentence)) and _share(mine, theirs) >= needed:
            # it corroborates the picked sentence's figures, or says the very same both ways
            same = bool(numbers) or _share(theirs, mine) >= REPEATED
            return i, same
    return -1, False


def _share(part: set[str], whole: set[str]) -> float:
    return len(part & whole) / len(part)


def _per_part(parts: Sequence[str], scored: Sequence[Scored]) -> list[Scored]:
    """For each part, the sentence holding most of its words (ties by score); parts nothing matches are skipped."""
    out: list[Scored] = []
    for part in parts:
        wanted = question_grams(part)
        if not wanted:
            continue
        free = [s for s in scored if s not in out]  # a part not answered by another part's sentence
        if not free:
            break
        best = max(free, key=lambda s: (len(wanted & grams(s.context)) / len(wanted), s.score))
        if len(wanted & grams(best.context)) / len(wanted) >= PART_MATCH:
            out.append(best)
    return out


def _sides(scored: Sequence[Scored]) -> list[Scored]:
    """The best sentence of each of the two documents with the best sentences (a comparison's two sides)."""
    best: dict[str, Scored] = {}
    for item in sorted(scored, key=ranking_key, reverse=True):
        best.setdefault(item.doc_id, item)
    return list(best.values())[:2]


def scored_sentences(question: str, pieces: Sequence[Piece], keywords: Sequence[str], intent: str,
                     as_of: date | None = None) -> list[Scored]:
    """Every candidate sentence of the top evidence pieces with its score (read as of ``as_of``, when given)."""
    wanted = question_grams(question)
    evidence = evidence_pieces(pieces)
    unsaid_under = Unsaid.reader(question, keywords, [piece.text for piece in evidence])  # per chunk heading
    asked, need = AskedValues.of(question, intent), question_need(question)
    out: list[Scored] = []
    seen: set[str] = set()
    split = [split_piece(piece) for piece in evidence]  # (head line, body) of each piece
    weights = rarity_weights(keywords, [normalize(piece.text) for piece in evidence])  # a rare keyword tells more
    on_page = asked_pages(question, ((doc_of(p.chunk_id), head) for p, (head, _) in zip(evidence, split, strict=True)))
    for rank, (piece, (head, body)) in enumerate(zip(evidence, split, strict=True)):
        chunk_score = CHUNK_WEIGHT * score_text(piece.text, keywords, wanted)  # its heading's words count too
        page = ON_PAGE if doc_of(piece.chunk_id) in on_page else 0.0  # the page the question names
        unsaid = unsaid_under(head)
        in_section = section_bonus(need, head) > 0  # the chunk's section is headed by what is asked
        for unit in candidate_units(body, wanted, head, _whole_rows(question, intent, need.kind),
                                    need.kind in WHOLE_LISTS):
            if unit.shown in seen:
                continue
            seen.add(unit.shown)
            score = (1 - CHUNK_WEIGHT) * weighted_score(unit.matched, keywords, wanted, weights) + chunk_score
            echo = unsaid.echo(unit.shown)  # the question's own words in the sentence, beyond the page's heading
            bonus = evidence_bonus(need, unit.shown, question, head)
            value = asked.value_bonus(unit.shown)  # the date or amount asked
            if not value and _names_topic_only(unit, bonus, need):
                continue
            score += RANK_BONUS * (len(evidence) - rank) / len(evidence) + bonus + page + ECHO_WEIGHT * echo + value
            score += asked.event_bonus(unit.shown)
            score *= field_factor(need, unit.shown, question)
            score *= _label_factor(unit.shown, need, value, bonus)
            if cut_by_window(unit.shown, body, opens_document(piece.chunk_id)):
                score *= CUT_FACTOR
            own = unit.matched.removeprefix(head).strip()  # a reply ("不需要。") says it of its heading's question
            said = unsaid.said_in(unit.shown, f"{head} {own}" if unit.reply else own, echo)
            out.append(Scored(score, int(piece.n or 0), rank, unit.shown, doc_of(piece.chunk_id), unit.matched,
                              echo=echo, says_asked=said, item=unit.item, in_section=in_section,
                              valued=_carries(asked, need, unit.shown, value, bonus), reply=unit.reply))
    return _read_as_of(_as_asked(question, whole_over_cut(out), bool(asked.amount) and need.kind != "yesno"), as_of)


def _carries(asked: AskedValues, need: Need, sentence: str, value: float, bonus: float) -> bool:
    """Whether the sentence holds what the question's own words ask: the date or amount it scored ``value`` for, or,
    asked how to reach someone, the phone, e-mail or web address it scored the need's ``bonus`` for."""
    return asked.carries(sentence, value) or (need.kind == "contact" and bonus > 0)


def _as_asked(question: str, scored: list[Scored], how_much: bool) -> list[Scored]:
    """The sentences said of the group the question names first (answer/qualifiers.py); asked ``how_much``, those
    of the tier its figure is in (answer/limits.py)."""
    scored = named_groups_first(question, scored)
    return tiers_asked(question, scored) if how_much else scored


def _label_factor(sentence: str, need: Need, value: float, bonus: float) -> float:
    """LABEL_FACTOR for a line ending in a colon ("…如下：", "**Details:**"): it announces a list, the list answers;
    1 when it holds the value asked or the contact asked ("send an email to team@…:")."""
    if value or (need.kind == "contact" and bonus) or not sentence.rstrip(" *_").endswith(("：", ":")):
        return 1.0
    return LABEL_FACTOR


def _names_topic_only(unit: Unit, bonus: float, need: Need) -> bool:
    """A caption, signature or heading line names a topic and never answers, unless it names who fills the role
    asked ("X的开拓者——某某", ``bonus``), states where, or, asked for a list, lists items ("甲、乙、丙")."""
    if unit.table or BULLET.match(unit.shown) or not caption_line(unit.shown):
        return False  # a bulleted item ("- bmi  body mass index") is an item of its list, not a caption
    return bonus <= NEED_BONUS and not (need.kind == "list" and unit.shown.count("、") >= LISTED_ITEMS - 1)


def _read_as_of(scored: list[Scored], as_of: date | None) -> list[Scored]:
    if as_of is None:
        return scored
    adjusted = scores_as_of([s.sentence for s in scored], [s.n for s in scored], [s.score for s in scored], as_of)
    return [dataclasses.replace(s, score=score) for s, score in zip(scored, adjusted, strict=True)]


def _whole_rows(question: str, intent: str, need: str) -> int:
    """How many rows a table may have to be offered whole: an overview's small tables, a list's or a position's
    ("哪些学校", "第二所") longer ones (the answer's budget cuts them); 0: its best row only."""
    if need == "list" or ORDINAL.search(question):
        return LIST_TABLE_ROWS
    return WHOLE_TABLE_ROWS if intent in BROAD_INTENTS else 0


def score_text(text: str, keywords: Sequence[str], wanted: set[str]) -> float:
    """Keyword overlap blended with character-bigram overlap (which still matches 隶属于 against 隶属): the rarity
    weighted score (answer/rarity.py) with every keyword weighing the same."""
    return weighted_score(text, keywords, wanted, [1.0] * len(keywords))


def close(sentence: str) -> str:
    """The sentence without its final punctuation, nor a comma or space the text left before it ("板甲， 。")."""
    return sentence.rstrip("。；;！!？?.，,、 \t\n")


def end(sentence: str) -> str:
    """The sentence's own full stop, question or exclamation mark, else 。 (". " after an English sentence: one with
    more words in Latin letters than Chinese characters, whatever its last words are)."""
    tail = sentence.rstrip()[-1:] if sentence.strip() else ""
    if tail and tail in "。！？":
        return tail
    return "。" if len(_CJK.findall(sentence)) > len(_LATIN_WORD.findall(sentence)) else ". "
