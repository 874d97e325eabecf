"""A question asking several things in one sentence gets each answered, in the order asked (answer/parts.py)."""

from __future__ import annotations

from typing import Any

import pytest

from lambdarag.answer.compose import first_sentence
from lambdarag.answer.context import pack
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.parts import asking_clauses
from lambdarag.records import Chunk
from lambdarag.text.patterns import CITATION_MARK

GRANT = ("第二条 补助对象为毕业两年内在本区首次创业的高校毕业生。第三条 申请人须在营业执照签发之日起一年内提出申请。"
         "第四条 补助标准为每人3000元，每人限领一次。"
         "第五条 区就业服务中心审核通过后，在10个工作日内将补助发放至申请人账户。"
         "第六条 申请人须提交身份证、毕业证和营业执照复印件。第七条 申请地点为区政务服务中心二楼就业窗口。")
TRAVEL = ("All trips must be approved in advance by the line manager. Employees may claim economy airfare, hotel costs "
          "and meals. Hotel costs are reimbursed up to $180 per night. International trips also require approval from "
          "the finance director. Claims must be submitted within 30 days of returning.")


def _one(title: str, text: str) -> Any:
    return pack({}, ["doc#1"], [], {"doc#1": Chunk("doc#1", "doc", title, title, text)}, max_chars=3500)


def _sentences(answer: str) -> list[str]:
    """The answer's sentences in order, without citations."""
    text = CITATION_MARK.sub("", answer)
    out = []
    while text.strip():
        first = first_sentence(text)
        out.append(first)
        text = text.strip()[len(first):]
    return out


@pytest.mark.parametrize(("question", "clauses"), [
    ("补贴标准是多少，什么时候发放", ["补贴标准是多少", "什么时候发放"]),
    ("出差回来报差旅费，2号窗口的经办人是谁，电话多少", ["出差回来报差旅费，2号窗口的经办人是谁", "电话多少"]),
    ("标准是多少，什么时候发放，如果是研究生", ["标准是多少", "什么时候发放，如果是研究生"]),
    ("What is the limit and who approves it", ["What is the limit", "who approves it"]),
    ("When must claims be submitted, and how soon are they paid", ["When must claims be submitted",
                                                                    "how soon are they paid"]),
    ("我是研究生，可以申请吗", ["我是研究生，可以申请吗"]),  # one question: its context clause asks nothing
    ("Can I claim meals and hotel costs", ["Can I claim meals and hotel costs"]),  # "and" before no question word
    ("X采用了什么样的射击，使得此枪不需要任何人手调整", ["X采用了什么样的射击，使得此枪不需要任何人手调整"]),
])
def test_asking_clauses(question: str, clauses: list[str]) -> None:
    assert asking_clauses(question) == clauses


@pytest.mark.parametrize(("question", "keywords", "first", "second"), [
    ("创业补助标准是多少，什么时候发放？", ["创业", "补助", "标准", "发放"], "3000元", "10个工作日内"),
    ("创业补助需要什么材料，在哪里申请？", ["创业", "补助", "材料", "申请"], "身份证", "二楼就业窗口"),
    ("创业补助在哪里申请，需要提交什么材料？", ["创业", "补助", "申请", "提交", "材料"], "二楼就业窗口", "身份证"),
])
def test_each_clause_answered_in_order(question: str, keywords: list[str], first: str, second: str) -> None:
    sentences = _sentences(extractive_answer(question, _one("某区创业补助办法", GRANT), "fact", {}, keywords))
    assert first in sentences[0] and second in sentences[1]


@pytest.mark.parametrize(("question", "keywords", "first", "second"), [
    ("What is the hotel limit per night and who approves international trips?",
     ["hotel", "limit", "night", "approves", "international", "trips"], "$180", "finance director"),
    ("Who approves international trips, and when must claims be submitted?",
     ["approves", "international", "trips", "claims", "submitted"], "finance director", "30 days"),
])
def test_each_english_clause_answered_in_order(question: str, keywords: list[str], first: str, second: str) -> None:
    sentences = _sentences(extractive_answer(question, _one("Travel policy", TRAVEL), "fact", {}, keywords))
    assert first in sentences[0] and second in sentences[1]


def test_a_later_clause_asks_of_the_first_clauses_subject() -> None:
    """"…在哪里办理，需要多长时间？" asks how long the subject named first takes, not what another page's FAQ says
    "需要多长时间" of its own subject."""
    chunks = {
        "guide#1": Chunk("guide#1", "guide", "创业补助办事指南", "创业补助办事指南",
                         "事项名称：创业补助申领\n受理地点：区政务服务中心二楼就业窗口\n办理时限：受理之日起10个工作日"),
        "card#1": Chunk("card#1", "card", "居住证常见问题", "居住证常见问题",
                        "问：办理居住证需要多长时间？\n答：材料齐全的，自受理之日起15日内制证发放。"),
    }
    packed = pack({}, ["guide#1", "card#1"], [], chunks, max_chars=3500)
    answer = extractive_answer("创业补助在哪里办理，需要多长时间？", packed, "fact", {},
                               ["创业", "补助", "办理", "需要", "多长时间"])
    sentences = _sentences(answer)
    assert "二楼就业窗口" in sentences[0] and "10个工作日" in sentences[1]
