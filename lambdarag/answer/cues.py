"""Question cues: the words that say what a question asks for (a date, an amount, a value, an extreme, a row).

Each cue is a regex fragment; consumers whose lists had drifted apart read a base set plus their named additions,
so every consumer keeps the set it had.
"""

from __future__ import annotations

import re


def cue_pattern(*cues: str, flags: int = 0) -> re.Pattern[str]:
    """One regex matching any of ``cues`` (regex fragments), tried in the order given."""
    return re.compile("|".join(cues), flags)


MOST = ("最多", "最高", "最大", "最长", "最贵", "最快")
LEAST = ("最少", "最低", "最小", "最短", "最便宜", "最慢")
RANKED_FIRST = ("第一",)  # the table lookup reads "排名第一" as the column's maximum too

DATE = ("什么时候", "何时", "哪天", "哪一天", "哪年", "哪一年", "几月", "几号", "日期", "截止")
IN_FORCE = ("起施行", "生效")  # sentence scoring: "何时起施行" is answered by a sentence with a date
DATE_EN = ("when",)

AMOUNT = ("多少", "几[个天年月次位名项]", "多久", "多长", "多大", "比例", "税率")
AMOUNT_TABLE = ("金额",)  # the table lookup's addition
# sentence scoring's additions: a limit or a deadline is answered by a sentence with an amount
AMOUNT_LIMITS = ("标准", "限额", "上限", "金额", "费用", "时限", "期限")
AMOUNT_EN = ("how (?:much|many|long)",)

# A question asking for a table cell rather than a row: amounts, dates and contact details.
VALUE = (
    "多少", "几[个天年月次号位名]", "多久", "多长", "多大", "多高", "标准", "限额", "上限", "金额", "费用",
    "比例", "税率", "分数", "价格", "数量", "人数", "时长", "时间", "日期", "哪天", "哪一天", "何时",
    "什么时候", "截止", "电话", "邮箱", "地址", "地点", "在哪",
)
WHICH = ("哪", "谁", "什么", "排名", "which", "who", "what")  # a question choosing among rows

# Words that ask something rather than name something: they must not pull a table row or column.
QUESTION_NOISE = frozenset(
    {"多少", "是谁", "哪个", "哪些", "什么", "怎么", "如何", "请问", "是多", "谁负", "找谁", "的是"}
)
