"""Normalisation, sentences, tokens, keywords and overlap (lambdarag.text.tokenizer)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

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


def test_keyword_overlap() -> None:
    assert keyword_overlap([], "anything") == 0.0
    assert keyword_overlap(["报销", "发票"], "报销须附发票原件") == 1.0
    assert keyword_overlap(["报销", "税率"], "报销须附发票原件") == 0.5
    assert keyword_overlap(["va004"], "型号ＶＡ００４已停产") == 1.0


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
