"""The shared text vocabularies (numerals, contact patterns, question cues, sentence ends) and what each
consumer reads from them: the expected values were recorded before the copies were merged."""

from __future__ import annotations

from datetime import date

import pytest

from lambdarag.answer.procedure_rules import process_slots
from lambdarag.answer.slot_rules import person_slots
from lambdarag.graph.entities import extract_entities
from lambdarag.query.temporal import cn_number, time_scope
from lambdarag.records import Chunk
from lambdarag.text import numerals, patterns
from lambdarag.text.dates import find_dates

# --- Chinese numerals -----------------------------------------------------------------------------


def test_numeral_tables_derive_each_callers_old_table() -> None:
    assert numerals.DATE_DIGITS == {"〇": 0, "零": 0, "○": 0, "Ｏ": 0, "一": 1, "二": 2, "三": 3, "四": 4,
                                    "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
    assert numerals.COUNT_DIGITS == {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
                                     "八": 8, "九": 9, "十": 10}
    assert "".join(numerals.DATE_DIGITS) == "〇零○Ｏ一二三四五六七八九"  # the date regex's character class


@pytest.mark.parametrize(("text", "dates", "graph_dates"), [
    ("二〇二三年三月一日", ("2023-03-01",), ["2023-03-01"]),
    ("二Ｏ二四年十二月", ("2024-12",), []),  # the graph's date mention takes no Ｏ in a year
    ("二○二二年", ("2022",), ["2022"]),
    ("二零二一年十月三十一日", ("2021-10-31",), ["2021-10-31"]),
    ("两〇二三年", (), []),  # 两 is never a digit of a written date
    ("二〇二三年十三月", (), []),
    ("二〇二三年二月三十日", (), []),
    ("二〇二三年〇三月〇五日", ("2023-03-05",), ["2023-03-05"]),
    ("2023年3月1日及二〇二四年", ("2023-03-01", "2024"), ["2023-03-01", "2024"]),
])
def test_chinese_numeral_dates_unchanged(text: str, dates: tuple[str, ...], graph_dates: list[str]) -> None:
    assert find_dates(text) == dates
    assert [e.name for e in extract_entities(text) if e.kind == "date"] == graph_dates


@pytest.mark.parametrize(("text", "value"), [
    ("五", 5), ("十", 10), ("十二", 12), ("二十", 20), ("两", 2), ("二十三", 23), ("九十九", 99), ("12", 12),
    ("〇", None), ("零", None), ("二三", None),  # a count has no zero and no digit-by-digit spelling
    ("十十", 20), ("两十", 20), ("十两", 12), ("x十", 0),  # lenient around 十: an unknown part counts as 0
])
def test_cn_number_unchanged(text: str, value: int | None) -> None:
    assert cn_number(text) == value


@pytest.mark.parametrize(("question", "years"), [
    ("近五年的招生人数", (2021, 2025)), ("近两年", (2024, 2025)), ("过去十年", (2016, 2025)),
    ("最近十二年", (2014, 2025)), ("前三年", (2023, 2025)), ("近二十个年度", (2006, 2025)), ("近3年", (2023, 2025)),
])
def test_counted_year_phrases_unchanged(question: str, years: tuple[int, int]) -> None:
    scope = time_scope(question, date(2025, 6, 1))
    assert scope is not None and (scope.start_year, scope.end_year) == years
    assert time_scope("近〇年", date(2025, 6, 1)) is None


def test_numeral_readings() -> None:
    assert numerals.spelled_digits("二〇二三") == "2023"
    assert numerals.tens_value("三十一", numerals.DATE_DIGITS, unknown=None) == 31
    assert numerals.tens_value("两十", numerals.DATE_DIGITS, unknown=None) is None
    with pytest.raises(KeyError):
        numerals.spelled_digits("两", numerals.DATE_DIGITS)


# --- Contact and title patterns -------------------------------------------------------------------

PROSE = Chunk("c#1", "c", "通讯录", "通讯录 > 联系方式",
              "如有疑问请联系负责人：王芳，电话02787654321，联系邮箱wangfang@example.edu.cn。")
BASIS = Chunk("p#1", "p", "办法", "办法 > 第一章 总则",
              "根据《某某单位经费管理\n办法》和《天》制定本细则，参照《某某单位采购规定》执行。")


def _graph(text: str, kinds: tuple[str, ...] = ("phone", "email", "regulation")) -> list[tuple[str, str]]:
    return [(e.name, e.kind) for e in extract_entities(text) if e.kind in kinds]


def test_contact_variants_differ_where_they_always_did() -> None:
    assert patterns.CONTACT_PHONE.findall("电话02787654321，付13912345678元") == ["02787654321", "13912345678"]
    assert patterns.PHONE.findall("电话02787654321，付13912345678元") == []  # no hyphen; an amount
    assert patterns.CONTACT_EMAIL.findall("联系邮箱wangfang@example.edu.cn") == ["联系邮箱wangfang@example.edu.cn"]
    assert patterns.EMAIL.findall("联系邮箱wangfang@example.edu.cn") == ["wangfang@example.edu.cn"]
    assert patterns.CITED_TITLE.findall("《天》《甲\n乙》") == ["甲\n乙"]
    assert patterns.TITLE.findall("《天》《甲\n乙》") == ["天"]


def test_a_service_hotline_is_a_contact_number_but_not_a_count() -> None:
    assert patterns.CONTACT_PHONE.findall("咨询电话：0571-12333；政务服务热线12345；客服95588。") == [
        "0571-12333", "12345", "95588"]
    assert patterns.CONTACT_PHONE.findall("共补贴12000元，惠及12345人，2012345") == []
    assert patterns.PHONE.findall("政务服务热线12345") == []  # the graph's phones leave a bare five digits out


def test_slot_filling_reads_contacts_and_basis_as_before() -> None:
    person = person_slots("王芳的电话和邮箱是多少", [PROSE])
    assert (person["name"], person["phone"], person["email"]) == (
        "王芳", "02787654321", "联系邮箱wangfang@example.edu.cn")  # the loose e-mail takes the word before it
    assert process_slots("依据是什么", [BASIS])["basis"] == ["《某某单位经费管理\n办法》", "《某某单位采购规定》"]


def test_graph_reads_contacts_and_titles_as_before() -> None:
    assert _graph("请致电(027) 87654321或400-123-4567，分机87651010转123") == [
        ("(027)87654321", "phone"), ("400-123-4567", "phone"), ("87651010转123", "phone")]
    assert _graph("付13912345678元；电话02787654321") == []
    assert _graph(PROSE.text, ("email",)) == [("wangfang@example.edu.cn", "email")]
    assert _graph(BASIS.text) == [("天", "regulation"), ("某某单位采购规定", "regulation")]


# --- Question cues --------------------------------------------------------------------------------


def test_each_consumer_keeps_its_cue_set() -> None:
    from lambdarag.answer import asked_values, table_lookup, table_text
    from lambdarag.text.english import ASKING_WHEN

    he = "(?<![任论])何"  # 何 asks, except as "any" (任何, 无论何)
    dates = (f"什么时候|{he}时|哪天|哪一天|哪年|哪一年|{he}[年日]|几时|几月|几号|日期|截止|年份"
             "|(?<![哪这那前好十])几点(?![要意建注说内原变好])")
    # "when" where it asks (text/english.py)
    english = rf"{ASKING_WHEN}|\bdeadline|\bdue (?:date|by)\b|\bwhat time\b(?! zones?\b)|\bby what date\b"
    assert table_lookup.DATE_WORDS.pattern == f"{dates}|{english}"
    assert asked_values.DATE_QUESTION.pattern == f"{dates}|起施行|生效|{english}"
    price = r"\b(?:fees?|costs?|prices?|charges?|cheap(?:er|est)|(?:more|most) expensive)\b"
    price += r"|\bwhat (?:\w+ )?rates?\b"  # a rate asked, as 税率 (a7b6fc8)
    price += r"|\bwhat (?:proportion|percent(?:age)?|share|fraction|portion)\b"  # a share asked (d8011b6)
    # a measure asked, as 多大 asks; the most or least asked
    price += (r"|\b(?:what|which) (?:size|age|height|length|width|depth|weight|diameter|temperature|speed|distance)\b"
              r"|\bhow (?:big|large|old|tall|high|wide|deep|heavy|fast)\b"
              r"|\bwhat(?:'s| is| are) the (?:most|least|max(?:imum)?|min(?:imum)?)\b")
    computed = "(?:怎么|如何|怎样)(?:计算|算)"  # how a figure is computed asks the figure (bb53f68)
    assert table_lookup.AMOUNT_WORDS.pattern == (
        f"多少|(?<![这那前好十])几[个天年月次位名项]|多久|多长|多大|比例|税率|{computed}|金额"
        f"|how (?:much|many|long|often|soon)|{price}")
    lead_time = r"\bhow (?:far|long|many days|much time) (?:ahead|in advance|beforehand)\b"  # a lead time (b9dfecb)
    assert asked_values.AMOUNT_QUESTION.pattern == (
        f"多少|(?<![这那前好十])几[个天年月次位名项]|多久|多长|多大|比例|税率|{computed}|标准|限额|上限|金额|费用|时限|期限"
        f"|how (?:much|many|long|often|soon)"  # a period asked; how soon (bc1140f)
        f"|{price}|{lead_time}")
    most_en = r"\b(?:highest|largest|biggest|greatest|longest|most)\b"
    least_en = r"\b(?:lowest|smallest|shortest|cheapest|least|fewest)\b"
    assert table_lookup._MOST.pattern == f"最多|最高|最大|最长|最贵|最快|第一|{most_en}"
    assert table_text._MOST.pattern == f"最多|最高|最大|最长|最贵|最快|{most_en}"
    assert table_lookup._LEAST.pattern == table_text._LEAST.pattern == f"最少|最低|最小|最短|最便宜|最慢|{least_en}"


@pytest.mark.parametrize(("question", "date", "amount", "value"), [
    ("新规定何时起施行", True, False, True), ("新规定从哪天生效", True, False, True),
    ("住宿费的限额是多少", False, True, True), ("报销时限", False, False, False),
    ("When is it due", True, False, False),
    ("排名第一的是哪个学院", False, False, False), ("几号窗口", True, False, True),
    ("任何时候都可以办理吗", False, False, False), ("无论何时申请都受理吗", False, False, False),
    ("What was the total number of checks in Florida", False, False, True),  # the figure named asks for a cell
    ("How many handgun checks were there", False, True, True), ("Which team won", False, False, False),
])
def test_cue_sets_answer_as_before(question: str, date: bool, amount: bool, value: bool) -> None:
    from lambdarag.answer import asked_values, table_lookup

    assert bool(table_lookup.DATE_WORDS.search(question)) == date
    assert bool(table_lookup.AMOUNT_WORDS.search(question)) == amount
    assert bool(table_lookup.VALUE_QUESTION.search(question)) == value
    assert bool(asked_values.AMOUNT_QUESTION.search("报销时限")) and not table_lookup.AMOUNT_WORDS.search("报销时限")


# --- Specificity ----------------------------------------------------------------------------------


def test_graph_and_wiki_specificity_formulas() -> None:
    import math

    from lambdarag.channels.graph import mention_idf
    from lambdarag.channels.wiki import IndexedPage, page_specificity

    assert mention_idf(4, 100) == math.log(1 + 100 / 4) and mention_idf(0, 100) == 0.0
    page = IndexedPage("s", "t", (), ("a", "b", "c", "d"), "", "", False)
    assert page_specificity(page, 100) == math.log(1 + 100 / 4) / math.log(1 + 100)
    assert page_specificity(page, 1) == 1.0
    assert page_specificity(IndexedPage("s", "t", (), (), "", "", False), 100) == 1.0
