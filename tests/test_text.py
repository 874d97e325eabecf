"""Normalisation, sentences, tokens, keywords and overlap (lambdarag.text.tokenizer)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from lambdarag.text import english
from lambdarag.text import tokenizer as text
from lambdarag.text.tokenizer import Tokenizer, keyword_overlap, normalize, split_sentences, stopwords

EVALDATA = Path(__file__).resolve().parents[2] / "shared" / "evaldata"
DOMAINRAG = EVALDATA / "domainrag_ruc" / "corpus.jsonl"


def test_normalize_folds_width_and_case() -> None:
    assert normalize("ＧＢ／Ｔ　２２６１．１－２００３") == "gb/t 2261.1-2003"
    assert normalize("VA004 Ｈｅｌｌｏ，世界！") == "va004 hello,世界!"


def test_split_sentences_chinese_and_english_keeps_closing_quotes() -> None:
    got = split_sentences("他说：“报销要发票。”然后走了！真的吗？是的；好。Version 2.5 is out. Next line")
    assert got[:5] == ["他说：“报销要发票。”", "然后走了！", "真的吗？", "是的；", "好。"]
    assert got[5:] == ["Version 2.5 is out.", "Next line"]


def test_a_quotation_cut_at_its_own_stops_is_one_sentence_again() -> None:
    cut = split_sentences("他起草告示称「甲为先；乙为后」。随后离开。")
    assert cut[:2] == ["他起草告示称「甲为先；", "乙为后」。"]
    assert text.rejoin_quotations(cut) == ["他起草告示称「甲为先；乙为后」。", "随后离开。"]
    # a quotation that never closes, or closes beyond the limit, keeps its cuts
    unclosed = split_sentences("他说「甲为先；乙为后。随后离开。")
    assert text.rejoin_quotations(unclosed) == unclosed
    assert text.rejoin_quotations(cut, most=8) == cut


def test_a_list_a_colon_opens_and_semicolons_cut_is_one_sentence_again() -> None:
    cut = split_sentences("申请须具备三项条件：一是在职；二是满一年；三是无处分。其余从略。")
    assert text.rejoin_enumerations(cut) == ["申请须具备三项条件：一是在职；二是满一年；三是无处分。", "其余从略。"]
    # semicolons without a colon before them are clauses of their own; an unended list keeps its cuts
    plain = split_sentences("甲科负责预算；乙科负责决算。")
    assert text.rejoin_enumerations(plain) == plain
    open_ended = split_sentences("条件如下：一是在职；二是满一年；")
    assert text.rejoin_enumerations(open_ended) == open_ended
    assert text.rejoin_enumerations(cut, most=12) == cut


def test_split_sentences_newlines_and_empty() -> None:
    assert split_sentences("第一行\n\n第二行。\n") == ["第一行", "第二行。"]
    assert split_sentences("   ") == []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("VA004", ["va004", "va", "004"]),
        ("GB/T 2261.1-2003", ["gb/t", "gb", "t", "2261.1-2003", "2261.1", "2261", "1", "2003"]),
        ("2024年", ["2024年", "2024"]),
        ("ＶＡ００４", ["va004", "va", "004"]),
    ],
)
def test_identifiers_whole_and_split(raw: str, expected: list[str]) -> None:
    assert Tokenizer().tokens(raw) == expected


def test_tokens_drop_stopwords_and_punctuation() -> None:
    tokens = Tokenizer().tokens("请问差旅费的报销标准是多少？")
    assert tokens == ["差旅费", "报销", "标准"]
    assert Tokenizer().tokens("What is the VAT rate?") == ["vat", "rate"]


def test_identifier_inside_chinese_text() -> None:
    tokens = Tokenizer().tokens("依据GB/T 2261.1-2003标准，型号VA004于2024年停产")
    for expected in ("gb/t", "2261.1", "2003", "va004", "va", "004", "2024年", "2024", "标准", "停产"):
        assert expected in tokens


def test_dictionary_terms_kept_whole_and_in_parts() -> None:
    plain, domain = Tokenizer(), Tokenizer(["报账大厅", "于同申", "中法学院"])
    assert plain.tokens("报账大厅") == ["报账", "大厅"]
    tokens = domain.tokens("中法学院的于同申教授在报账大厅")
    assert tokens == ["中法学院", "中", "法学院", "于同申", "申", "教授", "报账大厅", "报账", "大厅"]
    assert domain.keywords("中法学院的于同申教授在报账大厅") == ["中法学院", "于同申", "教授", "报账大厅"]


def test_noisy_dictionary_word_still_matches_its_parts() -> None:
    noisy = Tokenizer(["经资产管理处"])  # an entity name with a verb glued on
    assert {"资产", "管理处"} <= set(noisy.tokens("需经资产管理处审批"))
    assert set(Tokenizer().tokens("资产管理处")) <= set(noisy.tokens("需经资产管理处审批"))


def test_tokenizers_with_different_terms_are_independent() -> None:
    before = Tokenizer().tokens("报账大厅")
    Tokenizer(["报账大厅"]).tokens("报账大厅")
    assert Tokenizer().tokens("报账大厅") == before == ["报账", "大厅"]
    assert Tokenizer(["报账大厅"]).terms == frozenset({"报账大厅"})


def test_same_terms_share_the_cached_dictionary() -> None:
    a, b = Tokenizer(["差旅费", "报账大厅"]), Tokenizer(["报账大厅", "差旅费", " 差旅费 "])
    assert a._segment is b._segment
    assert a.tokens("报账大厅差旅费") == b.tokens("报账大厅差旅费")


def test_mixed_terms_match_whole_and_in_parts() -> None:
    tok = Tokenizer(["C语言"])
    assert tok.tokens("学习C语言") == ["学习", "c语言", "c", "语言"]
    assert tok.tokens("abc语言") == ["abc", "语言"]  # no match inside a longer identifier


def test_tokens_are_deterministic() -> None:
    sample = "中国人民大学2018年高水平艺术团招生计划甲类的降分政策"
    assert len({tuple(Tokenizer().tokens(sample)) for _ in range(5)}) == 1


def test_keywords_content_words_deduplicated_in_order() -> None:
    tok = Tokenizer()
    assert tok.keywords("报销标准是多少？报销需要发票吗") == ["报销", "标准", "需要", "发票"]
    assert tok.keywords("GB/T 2261.1-2003 和 VA004") == ["gb/t", "2261.1-2003", "va004"]


def test_keywords_fall_back_to_single_characters() -> None:
    assert Tokenizer().keywords("税") == ["税"]
    assert Tokenizer().keywords("的吗？") == []


def test_keywords_join_runs_of_single_characters() -> None:
    # a name the dictionary does not know is cut into characters: kept whole, not dropped
    assert Tokenizer().keywords("赵鹏的职业是什么？") == ["赵鹏", "职业"]
    assert Tokenizer().keywords("鹏的职业") == ["职业"]  # a lone character still counts only when nothing else does


def test_keywords_cut_a_long_run_of_unknown_characters_and_no_run_crosses_a_name_s_dot() -> None:
    tok = Tokenizer()
    # an unknown name runs on into the verb after it; the HMM cuts them apart, so the name is found in a text
    assert tok.keywords("柯岚峰打什么位置？") == ["柯岚峰", "位置"]
    # a foreign name is written with a dot between its parts: each part is a keyword, as the text writes it
    assert tok.keywords("卡洛斯·佩雷拉是哪国人？")[:2] == ["卡洛斯", "佩雷拉"]
    assert tok.tokens("柯岚峰打什么位置？") == ["柯", "岚", "峰", "打", "位置"]  # index tokens: dictionary words only


def test_keywords_no_run_across_a_function_character_and_no_word_of_a_question_asked_both_ways() -> None:
    tok = Tokenizer()
    assert tok.keywords("网购无理由退货寄回去的运费") == ["网购", "理由", "退货", "回去", "运费"]  # not "网购无"
    assert tok.keywords("一个记分周期里最多能减多少分？") == ["记分", "周期", "最多"]  # not "里最多"
    assert tok.keywords("能不能分期付款？") == tok.keywords("可不可以分期付款？") == ["分期付款"]  # not "不能"
    assert tok.keywords("不能报销的有哪些？") == ["不能", "报销"]  # a negation said, not asked


def test_keyword_overlap() -> None:
    assert keyword_overlap([], "anything") == 0.0
    assert keyword_overlap(["报销", "发票"], "报销须附发票原件") == 1.0
    assert keyword_overlap(["报销", "税率"], "报销须附发票原件") == 0.5
    assert keyword_overlap(["va004"], "型号ＶＡ００４已停产") == 1.0
    assert keyword_overlap(["hotels", "policies"], "Hotel policy") == 0.0  # as written
    assert keyword_overlap(["hotels", "policies"], "Hotel policy", inflected=True) == 1.0  # any form of the word


def test_stopword_list() -> None:
    words = stopwords()
    for word in ("的", "了", "是", "在", "和", "与", "及", "或", "等", "吗", "呢", "多少", "什么", "请问", "the", "of"):
        assert word in words
    for content in ("报销", "发票", "标准", "税率"):
        assert content not in words
    assert all(w == normalize(w) for w in words)


def _domainrag_texts(limit: int) -> list[str]:
    if not DOMAINRAG.exists():
        pytest.skip(f"evaluation data not found at {DOMAINRAG}")
    with DOMAINRAG.open(encoding="utf-8") as fh:
        return [json.loads(line)["text"] for _, line in zip(range(limit), fh, strict=False)]


def test_rjieba_matches_jieba_with_the_same_dictionary() -> None:
    """The jieba-compatibility claim: same dictionary and add_word, same words with HMM off."""
    import jieba
    import rjieba

    jieba.setLogLevel(logging.WARNING)
    texts = _domainrag_texts(150)
    terms = ["中法学院", "高水平艺术团", "于同申"]
    fast, reference = rjieba.Jieba(), jieba.Tokenizer()
    for term in terms:
        fast.add_word(term, None, None)
        reference.add_word(term)
    for sample in texts:
        assert fast.cut(sample, False) == reference.lcut(sample, HMM=False)
    assert text.HMM is False


# --- English rules (lambdarag.text.english through the tokenizer)


def test_english_words_lowercased_stemmed_and_stopwords_dropped() -> None:
    tokens = Tokenizer().tokens("The Companies were Running their businesses generously")
    assert tokens == ["compani", "run", "busi", "generous"]
    assert english.stem("companies") == english.stem("company") == "compani"


def test_stemmer_is_snowball_english_and_named_in_the_tokenizer() -> None:
    assert english.STEMMER_NAME.startswith(("pystemmer-", "snowballstemmer-"))
    assert english.STEMMER_NAME in Tokenizer().name
    assert f"lambdarag-text-{text.TOKENIZER_VERSION}/" in Tokenizer().name


def test_english_stopwords_extended_but_direction_words_kept() -> None:
    words = stopwords()
    for word in ("themselves", "because", "however", "between", "s", "isn"):
        assert word in words
    for kept in ("up", "down", "more", "less", "before", "after", "first", "last"):
        assert kept not in words


def test_tickers_kept_as_written_even_where_they_spell_a_stopword() -> None:
    tokens = Tokenizer().tokens("AAPL and IT spending at CVS; it is ON track")
    assert tokens == ["aapl", "it", "spend", "cvs", "on", "track"]


def test_a_line_in_capitals_has_no_tickers() -> None:
    assert Tokenizer().tokens("ANNUAL REPORT OF THE COMPANY") == ["annual", "report", "compani"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("FY2022", ["fy2022", "fy", "2022"]),
        ("FY22", ["fy22", "fy", "22", "fy2022", "2022"]),
        ("Q3", ["q3", "q", "3"]),
        ("3Q22", ["3q22", "3", "q", "22", "q3", "2022"]),
        ("H1", ["h1", "h", "1"]),
        ("2024Q2", ["2024q2", "2024", "q", "2", "q2"]),  # year first, as file names and headers write it
        ("2024-Q2", ["2024-q2", "2024", "q", "2", "q2"]),  # a period among an identifier's parts
        ("acme_2022q4_earnings", ["acme_2022q4_earnings", "acm", "2022", "q", "4", "earn", "q4"]),
        ("covid-19", ["covid-19", "covid", "19"]),  # parts that are no period add nothing
        ("capital-intensive", ["capital-intensive", "capit", "intens"]),
    ],
)
def test_fiscal_periods_and_identifiers_whole_and_split(raw: str, expected: list[str]) -> None:
    assert Tokenizer().tokens(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("sales of $1.2 billion", ["sale", "$1.2billion", "1.2", "1", "2", "billion"]),
        ("$300k paid", ["$300k", "300", "k", "paid"]),
        ("up 12.5% in total", ["up", "12.5%", "12.5", "12", "5", "total"]),
        ("grew 5 percent", ["grew", "5%", "5", "percent"]),
        ("1,234,567 shares", ["1,234,567", "1234567", "1", "234", "567", "share"]),
        ("4.5 million units", ["4.5million", "4.5", "4", "5", "million", "unit"]),
    ],
)
def test_amounts_and_percentages_whole_and_split(raw: str, expected: list[str]) -> None:
    assert Tokenizer().tokens(raw) == expected


def test_english_keywords_are_words_as_written() -> None:
    got = Tokenizer().keywords("What drove the 12.5% rise in revenues to $1.2 billion in FY2022?")
    assert got == ["drove", "12.5%", "rise", "revenues", "$1.2 billion", "fy2022"]
    assert keyword_overlap(got, "Revenues rose 12.5% to $1.2 billion in FY2022; drove by rise") == 1.0


def test_mixed_chinese_and_english_keeps_both() -> None:
    tokens = Tokenizer().tokens("苹果公司(AAPL)2022财年营收增长12.5%。Revenues grew 12.5% in FY2022")
    for expected in ("苹果公司", "财年", "增长", "aapl", "revenu", "grew", "12.5%", "fy2022", "2022"):
        assert expected in tokens
    assert tokens.count("12.5%") == 1  # the Chinese 12.5% keeps the rules from before: only its parts
    assert tokens.count("12.5") == 2


# Tokens the tokenizer gave before the English rules (TOKENIZER_VERSION 3), for Chinese-only sentences with
# amounts, percentages and thousands separators: the English rules must not reach them.
CHINESE_BEFORE = [
    ("2023年本科录取率为12.5%，比上年提高0.8个百分点。",
     ["2023年", "2023", "本科", "录取率", "12.5", "12", "5", "上年", "提高", "0.8", "0", "8", "百分点"],
     ["2023年", "本科", "录取率", "12.5", "上年", "提高", "0.8", "百分点"]),
    ("学费每生每年5,000元，住宿费1,200元；奖学金最高¥10,000。",
     ["学费", "生", "每年", "5", "000", "元", "住宿费", "1", "200", "元", "奖学金", "最高", "10", "000"],
     ["学费", "每年", "000", "住宿费", "200", "奖学金", "最高", "10"]),
    ("请于3月15日前到报账大厅提交材料，咨询电话010-62511234。",
     ["3月", "3", "15日", "15", "前", "报账大厅", "报账", "大厅", "提交", "材料", "咨询电话", "010-62511234", "010",
      "62511234"],
     ["3月", "15日", "报账大厅", "提交", "材料", "咨询电话", "010-62511234"]),
    ("全校共有教职工3,456人，其中专任教师1,987人，占57.5%。",
     ["全校", "共有", "教职工", "3", "456", "人", "专任教师", "1", "987", "人", "占", "57.5", "57", "5"],
     ["全校", "共有", "教职工", "456", "专任教师", "987", "人占", "57.5"]),
    ("第一届毕业生共计1,024名，就业率达到98.6％。",
     ["第一届", "毕业生", "共计", "1", "024", "名", "就业率", "达到", "98.6", "98", "6"],
     ["第一届", "毕业生", "共计", "024", "就业率", "达到", "98.6"]),
]


@pytest.mark.parametrize(("sentence", "tokens", "keywords"), CHINESE_BEFORE)
def test_chinese_text_tokenises_as_before(sentence: str, tokens: list[str], keywords: list[str]) -> None:
    tokenizer = Tokenizer(["报账大厅"])
    assert tokenizer.tokens(sentence) == tokens
    assert tokenizer.keywords(sentence) == keywords


@pytest.mark.parametrize(("word", "name"), [
    ("山东省", ("山东",)), ("黑龙江省", ("黑龙江",)), ("北京市", ("北京",)), ("海淀区", ("海淀",)),
    ("广西壮族自治区", ("广西",)), ("西藏自治区", ("西藏",)), ("香港特别行政区", ("香港",)),
    ("城市", ()), ("社区", ()), ("省份", ()), ("中国人民大学", ()),
])
def test_a_place_with_its_division_is_also_the_place_named_without_it(word: str, name: tuple[str, ...]) -> None:
    from lambdarag.text.tokenizer import place_name

    assert place_name(word) == name


def test_a_question_naming_a_province_with_its_division_meets_a_title_naming_it_without() -> None:
    tokenizer = Tokenizer()
    question = tokenizer.tokens("山东省第一所推荐的中学是哪所？")
    assert "山东省" in question and "山东" in question
    assert "山东" in tokenizer.tokens("推荐中学名单（山东）")
    # keywords (overlap, matching by substring) keep the word as written: 山东 is inside 山东省 already
    assert "山东" not in tokenizer.keywords("山东省第一所推荐的中学是哪所？")


def test_traditional_characters_meet_their_simplified_forms() -> None:
    from lambdarag.answer.needs import question_need
    from lambdarag.text.script import simplified

    assert normalize("門禁卡") == normalize("门禁卡") and simplified("鎖匠，ABC") == "锁匠，ABC"
    rule = "住戶若需增購門禁卡片，須由區分所有權人本人親自至管理中心辦理，不得私自委請鎖匠製作。"
    keywords = Tokenizer().keywords("门禁卡不够用，能不能找锁匠多配一张？")
    assert {"门禁卡", "锁匠"} <= set(keywords) and keyword_overlap(["门禁卡", "锁匠"], rule) == 1.0
    assert Tokenizer().tokens("門禁卡") == Tokenizer().tokens("门禁卡")  # the index meets either form
    assert question_need("社區裡可以養寵物嗎？").kind == "yesno"
