"""Contact and citation patterns: phone numbers, e-mail addresses and 《titles》, one definition each.

The graph's mention patterns are the base; slot filling and version detection read variants derived here,
each with the reason it differs, so the differences stand in one place instead of in two copies.
"""

from __future__ import annotations

import re

# --- Amounts ----------------------------------------------------------------------------------------------

# a currency sign before a figure ("$1.2 billion", "¥300", "￥125000": Chinese text writes the full-width ￥)
CURRENCY = "[$€£¥￥]"

# --- Phone numbers --------------------------------------------------------------------------------

MOBILE = r"1[3-9]\d{9}"  # a mainland mobile: 1, a network digit 3-9, nine more
AREA_CODE = r"0\d{2,3}"
SUBSCRIBER = r"\d{7,8}"
_HOTLINE = r"400[-－]?\d{3}[-－]?\d{4}"
_LOCAL = r"[2-8]\d{6,7}"  # a number without its area code, as a campus directory writes it
_EXTENSION = r"(?:\s?(?:转|分机|ext\.?)\s?\d{1,5})?"
# A phone number mentioned anywhere: (027) 8765 4321, 027-87654321, 400 hotlines, mobiles, bare local numbers and an
# extension; it must not run on into an amount, a percentage or a date (2024年, 3000元), so those are excluded after.
PHONE = re.compile(
    rf"(?<![\d-])(?:\({AREA_CODE}\)\s?{SUBSCRIBER}|{AREA_CODE}[-－]{SUBSCRIBER}|{_HOTLINE}|{MOBILE}|{_LOCAL})"
    rf"{_EXTENSION}(?![\d.%元万年月日号])"
)
# A public service hotline of five digits (12333, 12345, 95588), dialled alone or after an area code (0571-12333).
SERVICE_LINE = r"(?:12\d{3}|9[56]\d{3})"
# Slot filling takes a contact segment's number as group 1: area-code numbers, mobiles and service hotlines, with the
# hyphen optional (02787654321) and no amount guard but for a hotline's five digits (a segment is already one with a
# contact in it). The graph's PHONE leaves hotlines out: a bare five-digit number is a count as often.
_CONTACT_HOTLINE = rf"(?:{AREA_CODE}-?)?{SERVICE_LINE}(?![\d.%元万年月日号人名个])"
# a local number without its area code, whole or in two groups ("电话：8801 0120"), only right after a phone's label
_AFTER_LABEL = r"(?:(?<=[话机线][：:])|(?<=[话机线][：:]\s)|(?<=[Tt]el[:.]\s)|(?<=[Pp]hone:\s))"
_LABELLED_LOCAL = rf"{_AFTER_LABEL}[2-8]\d{{2,3}}[ \-－]?\d{{4}}(?![\d.%元万年月日号])"
CONTACT_PHONE = re.compile(rf"(?<!\d)({AREA_CODE}-?{SUBSCRIBER}|{MOBILE}|{_CONTACT_HOTLINE}|{_LABELLED_LOCAL})(?!\d)")

# --- Citation markers ----------------------------------------------------------------------------

# An answer's "[n]": the number of the context piece (one chunk, one Citation) a sentence rests on, as group 1.
CITATION_MARK = re.compile(r"\[(\d{1,3})\]")

# --- E-mail addresses -----------------------------------------------------------------------------

# An ASCII address with a top-level domain of letters, not preceded by another address character.
EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# Slot filling's looser form, kept as it was: ``\w`` also takes CJK letters and digit-only domains, so
# "邮箱zhang@jc.edu.cn" yields the whole run (a difference to EMAIL, reported rather than changed here).
CONTACT_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")

# --- 《Titles》 -----------------------------------------------------------------------------------


def bracketed_title(min_chars: int, max_chars: int, *, one_line: bool = False) -> str:
    """The regex of a 《title》 whose body (group 1) has no other 《 or 》 and min_chars to max_chars characters."""
    body = r"[^《》\n]" if one_line else "[^《》]"
    return f"《({body}{{{min_chars},{max_chars}}})》"


# An article's number opening its text ("第二条 …", "第十五条：…"): a rule's label, not a lead-in to items.
ARTICLE = re.compile(r"^第[一二三四五六七八九十百零〇\d]+条\s*")

# A cited regulation, notice or book as a graph entity: on one line, up to 80 characters.
TITLE = re.compile(bracketed_title(1, 80, one_line=True))
# A cited policy basis or a repealed name: two to sixty characters, a line break allowed (an extracted PDF line may
# wrap inside the brackets); slot filling and version detection read it so.
CITED_TITLE = re.compile(bracketed_title(2, 60))

# --- Question frames ------------------------------------------------------------------------------

# A Chinese question asking where in words whose noun names nothing of its topic: "马纳瓜在什么地方" asks where, and
# its 地方 is no keyword to search or match by (elsewhere 地方 is content: 地方政府, 地方标准).
WHERE_FRAME = re.compile(r"(?:什么|哪个|哪一个|哪些|何种)地方")

# 比较 as the verb "compare": opening its clause ("比较A和B的…"), before 一下, 起来 or a demonstrative ("比较这两种"),
# or closing a comparison that 和/与/跟/同 opened ("A和B比较，…"). Elsewhere it is the degree adverb "rather" ("周末
# 去比较方便", "这种茶比较苦"), which compares nothing.
COMPARE_VERB = (r"(?:^|(?<=[，,。？?；;：:\s]))比较|比较(?=一下|起来|这|那|两|各|其|$|[，,。？?])"
                r"|(?<=[和与跟同])[^，,。？?]{1,20}比较")
_COMPARE_VERB_RE = re.compile(COMPARE_VERB)


def compares(text: str, at: int) -> bool:
    """Whether the 比较 at ``at`` in ``text`` is the verb "compare" (``COMPARE_VERB``), not the adverb."""
    return any(m.end() == at + len("比较") for m in _COMPARE_VERB_RE.finditer(text))
