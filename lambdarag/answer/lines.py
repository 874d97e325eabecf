"""The lines of an extracted text as its author wrote them: sentences broken by the extractor joined again.

PDF and some HTML extraction break sentences at the page's line width, or around links and emphasis; a
sentence cut there is a fragment that no longer holds its own subject. The answer's sentences are cut from
these lines (answer/sentences.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lambdarag.answer import cues
from lambdarag.answer.captions import PAGE_NUMBER_LINE
from lambdarag.answer.cues import cue_pattern
from lambdarag.text.tokenizer import ITEM_ENDS, has_cjk

ASKED_END = re.compile(r"[？?]\s*$")  # a sentence that asks
QUESTION_LINE = re.compile(rf"^(?:问\s*\d*\s*[:：]|Q\s*\d*\s*[:：.])|{ASKED_END.pattern}", re.IGNORECASE)
ANSWER_LINE = re.compile(r"^\s*(?:答|A)\s*\d*\s*[:：]\s*", re.IGNORECASE)
WRAP_WIDTH_SHARE = 0.85  # a wrapped line fills the text's width; a shorter one ended where its author ended it
WRAPPED_MIN_CHARS = 30  # a shorter line without a full stop is a heading or a label, not wrapped text
WORD_ROOM = 16  # a line broken before a long word falls this much short of the width, whatever the width
CLOSED = ("。", "！", "？", "；", "：", ".", "!", "?", ";", ":", "”", "」", "』", "\"", "）", ")", "|")
RUN_ON_MIN_CHARS = 8  # a line inside an opened sentence runs on only when at least this long (not a list item)
_OPEN_END = ("，", "、", ",", "（", "(", "“", "《")  # a line ending in one stops mid-sentence
_NO_SPACE_AFTER = ("-", "(", "“", "《", "（")  # a wrapped line ending in one is glued to the next without a space
_PUNCTUATION_ONLY = re.compile(r"^[,，、:：;；.。!！?？]+$")
# a line this short after a label ending in ： is an item of its list ("本科专业：", "历史学", "考古学")
LIST_ITEM_MAX_CHARS = 24
_LIST_LABEL = re.compile(r"^[^。！？!?]{1,30}[：:]$")
_NOT_ITEM = re.compile(r"[。！？!?；;，,、]$")  # a clause, not a listed item
_LAST_WORD = re.compile(r"([A-Za-z]+)$")
# a line ending in a web address ends where its writer ended it: an address is never broken at the width, and what
# followed it on a wrapped line would open the next one in lower case (runs_on)
_ADDRESS_END = re.compile(r"(?:https?://|www\.)\S+$", re.IGNORECASE)
# words an English sentence never ends with: articles, prepositions, conjunctions
_NEVER_LAST = frozenset({"a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "with", "from", "into", "onto",
                         "via", "per", "and", "or", "nor", "but", "than", "as"})
_OPENING_MARKS = "*_`\"'“‘"  # emphasis, code and quotes a word may open with (not "(a)", a lettered item)
_ITEM_AT = re.compile(r"^(\s*)[-•·*+]\s+(.*)$")  # an item with its indentation (group 1) and its text
LABEL_MAX_CHARS = 30  # an item this long or longer says something; shorter, above one sub-item, it names a field
BULLET = re.compile(r"^[-•·*]\s")  # the mark of an item written without a full stop ("*10.33" is no item)
_ITEM_CLOSED = (".", ";", ",", ":", "!", "?")  # an English item ending in one needs no ";" after it
_LINK = re.compile(r"^(?:https?://|www\.)\S+$")
# a block after a sentence ending in a colon ("…can be submitted in person or mailed to:"): an address or a contact,
# one short line each ("Parking Citation Assistance Center", "250 Frank H. Ogawa Plaza, Suite 6300")
BLOCK_LEAD_MIN_CHARS = 30  # a shorter line ending in a colon is a label of a list ("本科专业："), read as a list is
BLOCK_LINE_MAX_CHARS = 80
BLOCK_LINES = 6
# a list of clauses: a lead-in ending in ： ("申请人应当具备下列条件：") and items marked or cut by ；, one a line
CLAUSE_LIST_MAX_CHARS = 200  # a longer list keeps its lines apart (the answer's budget could not quote it whole)
_CLAUSE_LEAD = re.compile(r"^[^。！？!?]{1,60}[：:]$")
_MARKED = re.compile(r"^(?:[-•·*]|\d{1,2}[.、)）](?!\d)|[（(](?:\d{1,2}|[一二三四五六七八九十]{1,3})[)）]"
                     r"|[一二三四五六七八九十]{1,3}[、.]|[①②③④⑤⑥⑦⑧⑨⑩])")
# a sentence that is a reply alone ("不需要。", "Yes."), said of the next one
_REPLY = re.compile(rf"^\s*(?:{'|'.join(cues.REPLY)})\s*[。.！!，,]?\s*$", re.IGNORECASE)
_REFUSAL = cue_pattern(*cues.NEGATION, *cues.NEGATION_EN, *cues.FORBIDDEN_KIND, flags=re.IGNORECASE)
# a line opening a list item or an article continues nothing; "2.1 of this License" (a section number a wrapped
# sentence carried to the next line) is no item
_ITEM = re.compile(r"^(?:[-•·*]|\d{1,2}[.、)）](?!\d)|[（(]\d{1,2}[)）]|[一二三四五六七八九十]+[、.]"
                   r"|第[一二三四五六七八九十\d]+[条章节])")


def unwrapped_lines(body: str) -> list[str]:
    """The body's lines with broken sentences joined again. A line continues on the next when it stops
    mid-sentence: cut at the text's width (long, no closing punctuation), ending in a mark no sentence ends with
    (，、 or an opening bracket), or inside a sentence such a mark opened and no closing punctuation has closed;
    a line of punctuation alone belongs to the line before it, and a line holding only a page's number inside a
    sentence the page break cut is left out. A list item, an answer line or the line after a question never
    continues anything.

    PDF and some HTML extraction break sentences at the page's line width, or around links and emphasis ("近日，\n
    某团队\n在…领域取得进展"); a sentence cut there is a fragment that no longer holds its own subject.
    """
    lines = labelled_items(body.splitlines())
    width = line_width(lines)
    out: list[str] = []
    last, inside = "", False  # the previous physical line (out[-1] may hold several); an opened sentence
    for i, raw in enumerate(lines):
        line = raw.strip()
        if not line:
            if out and out[-1]:
                out.append("")  # a blank line ends the paragraph
            last, inside = "", False
            continue
        broken = wrapped(last, width) or runs_on(last, line)
        if broken and PAGE_NUMBER_LINE.match(line) and "".join(lines[i + 1:i + 2]).strip():
            continue  # the page's number between the halves of a sentence its page break cut ("— 3 —")
        # inside an opened sentence a short bare line is more likely an item of a list written one a line
        opened = last.endswith(_OPEN_END) or (inside and len(last) >= RUN_ON_MIN_CHARS and not last.endswith(CLOSED))
        if last and _PUNCTUATION_ONLY.match(line):
            out[-1], inside = out[-1] + line, not line.endswith(CLOSED)
        elif last and (broken or opened) and not _opens_its_item(line) and not QUESTION_LINE.search(last) \
                and not ANSWER_LINE.match(line):
            glue = " " if spaced(last, line) else ""
            out[-1], inside = out[-1] + glue + line, opened
        else:
            out.append(line)
            inside = False
        last = line
    return [line for line in out if line]


def labelled_items(lines: Sequence[str]) -> list[str]:
    """A list item naming a field ("* 队伍规模", "- Team size") whose one sub-item, indented under it, is its value
    ("  * 每队4人") as one item "* 队伍规模：每队4人": the nesting said whose value it is, and the lines lose it when
    they are read without their indentation. A label with several sub-items leads a list, which is left as it is."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        label, value = _ITEM_AT.match(lines[i]), _ITEM_AT.match(lines[i + 1]) if i + 1 < len(lines) else None
        after = _ITEM_AT.match(lines[i + 2]) if i + 2 < len(lines) else None
        if label is None or value is None or len(value.group(1)) <= len(label.group(1)) \
                or (after is not None and len(after.group(1)) >= len(value.group(1))):
            out.append(lines[i])
            i += 1
            continue
        name = label.group(2).strip()
        if not name or len(name) > LABEL_MAX_CHARS or name.endswith(CLOSED):
            out.append(lines[i])
            i += 1
            continue
        colon = "：" if has_cjk(name[-1]) else ": "
        out.append(f"{lines[i][:label.end(1)]}{lines[i].lstrip()[0]} {name}{colon}{value.group(2).strip()}")
        i += 2
    return out


def spaced(last: str, line: str) -> bool:
    """Whether a wrapped line goes on after a space: between words, not inside a figure Chinese text broke at its
    width ("咨询电话：1233\n3"; English wraps between words only, and a Latin name in Chinese text keeps its space:
    "索因卡(Wole\nSoyinka)")."""
    if not (last[-1].isascii() and line[0].isascii()) or last.endswith(_NO_SPACE_AFTER):
        return False
    return not (last[-1].isdigit() and line[0].isdigit() and has_cjk(last))


def wrapped(line: str, width: int) -> bool:
    """Whether ``line`` was broken by the text's ``width``: it fills the width and no punctuation closes it. Text
    written in words (a line ending in a Latin letter or digit) breaks before a word that did not fit, which at a
    narrow width (a text file filled to 72 columns) is a large share of the line: a line ending where at most
    ``WORD_ROOM`` characters would not fit still fills it. One ending in a web address is not wrapped ("…learn more
    at https://example.com/" then the FAQ's next question)."""
    fills = width * WRAP_WIDTH_SHARE
    if line[-1:].isascii():
        fills = min(fills, width - WORD_ROOM)
    return len(line) >= max(WRAPPED_MIN_CHARS, fills) and not line.endswith(CLOSED) and not _ADDRESS_END.search(line)


def runs_on(last: str, line: str) -> bool:
    """Whether an English sentence its writer's editor wrapped runs on from ``last`` to ``line``: ``last`` ends in
    a word (or "=", or a web address) and ``line`` opens in lower case or with a figure, whatever the text's width
    (a few long lines in a chunk raise the width that ``wrapped`` reads: "…body mass index, average blood" /
    "pressure, and six…");
    or ``last`` ends in a word no sentence ends with ("…reports the vulnerability on" / "HackerOne. Issues…")."""
    ends_word = last[-1:].isalpha() or last.endswith("=") or _ADDRESS_END.search(last) is not None
    if len(last) < WRAPPED_MIN_CHARS or not last[-1:].isascii() or not ends_word:
        return False
    if _opens_its_item(line):
        return False
    word = _LAST_WORD.search(last)
    if word is not None and word.group(1).lower() in _NEVER_LAST:
        return True
    # a figure goes on the sentence as a lower-case word does ("…for each of n =" / "442 diabetes patients"), and so
    # does a word in emphasis or quotes ("…by e-mailing" / "*conduct@jupyter.org*")
    first = line.lstrip(_OPENING_MARKS)[:1]
    return first.isascii() and (first.islower() or first.isdigit())


def _opens_its_item(line: str) -> bool:
    """A line opening an item of its own ("2. Apply online", "* Apply online"); a bullet's mark needs its space:
    "*conduct@jupyter.org*" is a word in emphasis, "-5 °C" a figure."""
    return bool(BULLET.match(line) or (_ITEM.match(line) and line[:1] not in "-•·*"))


def line_width(lines: Sequence[str]) -> int:
    """The width a hard-wrapped text breaks at: its longest lines' length (slides and lists have no such width)."""
    sizes = sorted(len(line.strip()) for line in lines if line.strip())
    return sizes[int(len(sizes) * 0.9)] if len(sizes) >= 2 else 10**6


def listed_items(lines: Sequence[str]) -> list[tuple[str, str]]:
    """(line, the line before it) for each line, a list written one item a line joined after its label first:
    "本科专业：", "历史学", "考古学" -> "本科专业：历史学、考古学。". Each item alone is a word, no sentence, and
    the list is told apart from the next one by what precedes its label (the line before it, "历史学院由…组成"),
    which the answer matches too; other lines come with ""."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        label = _LIST_LABEL.match(lines[i]) and not ANSWER_LINE.match(lines[i]) and not QUESTION_LINE.search(lines[i])
        items = _items_after(lines, i) if label else []
        if len(items) >= 2:
            mark = "、" if any(map(has_cjk, items)) else ", "
            out.append((f"{lines[i]}{mark.join(items)}{'。' if mark == '、' else '.'}", lines[i - 1] if i else ""))
            i += 1 + len(items)
        else:
            out.append((lines[i], ""))
            i += 1
    return out


def _items_after(lines: Sequence[str], label: int) -> list[str]:
    items: list[str] = []
    for line in lines[label + 1:]:
        if _LINK.match(line):
            return items[:-1]  # the line above a link names the next block ("历史学院", "http://…"), not an item
        if len(line) > LIST_ITEM_MAX_CHARS or _NOT_ITEM.search(line) or _LIST_LABEL.match(line):
            break
        items.append(line)
    return items


def clause_lists(lines: Sequence[str], most: int = CLAUSE_LIST_MAX_CHARS) -> list[tuple[str, bool]]:
    """(line, whether it is a joined list) for each line, a list of clauses joined after its lead-in first:
    "申请人应当具备下列条件：", "（一）年满十八周岁；", "（二）无违法记录。" -> one line. Each item alone does not
    say what it is an item of, and items of two lists ("条件：…", "材料：…") read alike; the lead-in tells them
    apart. A list longer than ``most`` characters keeps its lines."""
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(lines):
        items = _clauses_after(lines, i) if leads_list(lines[i]) else []
        joined = joined_list(lines[i], items)
        if len(items) >= 2 and len(joined) <= most:
            out.append((joined, True))
            i += 1 + len(items)
        else:
            out.append((lines[i], False))
            i += 1
    return out


def refused_items(lines: Sequence[str]) -> set[str]:
    """The items of a list of clauses whose lead-in refuses or forbids ("有下列情形之一的，不予补助："): quoted
    apart from it, "（二）已享受其他补助的" reads as a case that qualifies."""
    items: set[str] = set()
    for i, line in enumerate(lines):
        if leads_list(line) and _REFUSAL.search(line):
            found = _clauses_after(lines, i)
            items.update(found if len(found) >= 2 else ())
    return items


def leads_list(line: str) -> bool:
    """A lead-in of a list of clauses ("…下列条件："); "答：" answers, it leads no list."""
    return bool(_CLAUSE_LEAD.match(line)) and not ANSWER_LINE.match(line)


def opens_item(line: str) -> bool:
    """Whether the line opens a list item by its mark ("- ", "1.", "（一）", "①")."""
    return bool(_MARKED.match(line))


def _clauses_after(lines: Sequence[str], lead: int) -> list[str]:
    items: list[str] = []
    for line in lines[lead + 1:]:
        cut = (items[-1] if items else line).endswith(ITEM_ENDS)  # an unmarked item follows a ；
        if not (_MARKED.match(line) or cut) or _CLAUSE_LEAD.match(line) or QUESTION_LINE.search(line):
            break
        items.append(line)
    return items


def joined_list(lead: str, items: Sequence[str]) -> str:
    """The lead-in and its items as one sentence: an item its author left unpunctuated closed by ；/ ";" (the
    last by 。, an English one by nothing: the answer closes its sentence); English ones spaced apart."""
    if not has_cjk(lead + "".join(items)):
        last = len(items) - 1
        return " ".join([lead, *(item if k == last or item.endswith(_ITEM_CLOSED) else f"{item};"
                                 for k, item in enumerate(items))])
    last = len(items) - 1
    return lead + "".join(item if item.endswith(CLOSED) else item + ("。" if k == last else "；")
                          for k, item in enumerate(items))


def blocks_joined(lines: Sequence[str]) -> list[str]:
    """The lines with a sentence ending in a colon joined to the short lines after it (2 to BLOCK_LINES, none
    closed by a full stop, none a label or an item): "…mailed to:", "Parking Citation Assistance Center",
    "250 Frank H. Ogawa Plaza, Suite 6300", "Oakland, CA 94612" -> one sentence. Alone, the lead-in says where
    without the address and the address lines say nothing of what they are the address of."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        block = _block_after(lines, i)
        if len(block) >= 2:
            cjk = has_cjk(lines[i])
            space, comma, stop = ("", "，", "。") if cjk else (" ", ", ", ".")
            out.append(f"{lines[i].rstrip()}{space}{comma.join(block)}{stop}")
            i += 1 + len(block)
        else:
            out.append(lines[i])
            i += 1
    return out


def _block_after(lines: Sequence[str], lead: int) -> list[str]:
    """The short lines after ``lines[lead]`` when it is a sentence ending in one colon (two, "…for 'CCAT'::", open a
    literal block of code, which is no address)."""
    line = lines[lead].rstrip()
    if len(line) < BLOCK_LEAD_MIN_CHARS or not line.endswith((":", "：")) or line.endswith("::"):
        return []
    block: list[str] = []
    for after in lines[lead + 1:lead + 1 + BLOCK_LINES]:
        if len(after) > BLOCK_LINE_MAX_CHARS or after.rstrip().endswith(CLOSED) or _MARKED.match(after):
            break
        block.append(after.strip())
    return block


def replies_apart(sentences: Sequence[str]) -> list[tuple[str, str]]:
    """Each sentence with the reply alone that opens it ("不需要。", "Yes."; "" for none): an FAQ's answer opening
    with one ("不需要。无论你何时入馆，都可以一直参观至闭馆时间。") says the reply of the sentence after it, which
    alone answers no question but its FAQ's own. A reply ending its line stays a sentence of its own."""
    out: list[tuple[str, str]] = []
    reply = ""
    for sentence in sentences:
        if reply:
            out.append((reply, sentence))
            reply = ""
        elif _REPLY.match(sentence):
            reply = sentence.strip()
        else:
            out.append(("", sentence))
    return [*out, ("", reply)] if reply else out


def asked_inline(shown: Sequence[tuple[str, str]], asked: str = "") -> list[tuple[str, str, str]]:
    """Each (reply, sentence) of a line with the question asked before it (``asked``: the line before's, when that
    line was a question): the sentences after a question inside a line ("…can I use the same license key? No, our
    license metric is not based on named users.") answer it, matched with it, as an FAQ's answer line is with its
    question line. The question stays a sentence (a statement may end with one: "争议点是…是不是受保护的？"); a
    yes/no reads no answer from it (answer/yes_no.py)."""
    out: list[tuple[str, str, str]] = []
    for reply, sentence in shown:
        out.append((asked, reply, sentence))
        if not reply and ASKED_END.search(sentence):
            asked = sentence
    return out
