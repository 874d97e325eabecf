"""Grounding check: sentence support against cited chunks; flag and drop modes."""

from __future__ import annotations

from lambdarag.answer.grounding import FLAG_MARK, answer_sentences, apply_grounding, check_grounding, support_score
from lambdarag.records import Chunk, Citation

CHUNKS = {
    "a#1": Chunk("a#1", "a", "差旅办法", "差旅办法 > 住宿", "副处长级出差北京的住宿费标准为每人每天500元。"),
    "b#1": Chunk("b#1", "b", "通讯录", "通讯录", "预算科科长赵磊，办公电话027-87651020。"),
}
CITES = [Citation(1, "a#1", "a", "差旅办法", "差旅办法 > 住宿", "", ""),
         Citation(2, "b#1", "b", "通讯录", "通讯录", "", "")]


def test_sentences_keep_their_markers_even_after_the_full_stop() -> None:
    assert answer_sentences("住宿费标准为500元[1]。科长是赵磊。[2]另外\n第三句") == [
        "住宿费标准为500元[1]。", "科长是赵磊。[2]", "另外", "第三句"]


def test_a_list_cut_by_semicolons_is_one_sentence_its_final_marker_cites() -> None:
    assert answer_sentences("条件如下：（一）年满18周岁；（二）无违法记录[1]。另起一句[2]。") == [
        "条件如下：（一）年满18周岁；（二）无违法记录[1]。", "另起一句[2]。"]
    assert answer_sentences("Staff may claim: - fares; - hotels up to $180[1]. Late claims are refused[2].") == [
        "Staff may claim: - fares; - hotels up to $180[1].", "Late claims are refused[2]."]
    # a clause with its own marker stays a sentence of its own
    assert answer_sentences("住宿费500元[1]；餐费100元[2]。") == ["住宿费500元[1]；", "餐费100元[2]。"]


def test_supported_unsupported_and_uncited_sentences() -> None:
    answer = ("副处长出差北京住宿标准为每人每天500元[1]。预算科科长是赵磊，电话027-87651020[2]。"
              "报销一律当天到账[1]。无依据的话。")
    result = check_grounding(answer, CITES, CHUNKS)
    assert [s.supported for s in result] == [True, True, False, False]
    assert result[0].cited == (1,) and result[0].score > 0.8
    assert result[3].cited == () and result[3].score == 0.0


def test_citing_the_wrong_chunk_is_unsupported() -> None:
    (only,) = check_grounding("预算科科长是赵磊[1]。", CITES, CHUNKS)
    assert not only.supported


def test_support_score_is_a_share_of_bigrams() -> None:
    assert support_score("每人每天500元", "标准为每人每天500元") == 1.0
    assert support_score("[1]", "anything") == 1.0
    assert 0 < support_score("每人每天800元", "每人每天500元") < 1


def test_flag_marks_and_drop_removes_unsupported_sentences() -> None:
    answer = "住宿标准为每人每天500元[1]。报销一律当天到账[1]。"
    supports = check_grounding(answer, CITES, CHUNKS)
    flagged = apply_grounding(answer, supports, "flag")
    assert flagged == f"住宿标准为每人每天500元[1]。报销一律当天到账{FLAG_MARK}[1]。"
    assert apply_grounding(answer, supports, "drop") == "住宿标准为每人每天500元[1]。"


def test_drop_never_empties_the_answer() -> None:
    answer = "完全无关的内容[1]。"
    assert apply_grounding(answer, check_grounding(answer, CITES, CHUNKS), "drop") == answer
