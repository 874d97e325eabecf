"""An over-long sentence quoted by the part holding the value asked, not cut from its start."""

from __future__ import annotations

from typing import Any

from lambdarag.answer.context import pack
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.focus import clauses, focused
from lambdarag.records import Chunk

RULE = ("Moreover, your licence from a particular copyright holder is reinstated permanently if the copyright "
        "holder notifies you of the violation by some reasonable means, this is the first time you have received "
        "notice of violation of this Licence (for any work) from that copyright holder, and you cure the violation "
        "within 30 days after your receipt of the notice.")
RULE_ZH = ("申请人提交的材料不齐全或者不符合法定形式的，受理机关应当当场或者在五日内一次告知申请人需要补正的全部内容，"
           "逾期不告知的，自收到申请材料之日起即为受理，申请人在收到补正通知后，应当在规定期限内补正，补正时无需重新填写申请表，"
           "应当按照通知的要求，对照材料清单逐项准备并核对原件与复印件，复印件应当使用统一规格的纸张并由申请人逐页签字确认，"
           "委托他人办理的还应当提交经公证的授权委托书和受托人的有效身份证件，"
           "由本人或者委托代理人携带有效身份证件，到原受理窗口或者通过网上办事大厅提交，"
           "经审查材料齐全、符合法定形式的，受理机关应当自收到补正材料之日起15个工作日内作出书面决定。")


def one_chunk(text: str) -> Any:
    chunk = Chunk("rules#1", "rules", "Rules", "Rules", text)
    return pack({}, ["rules#1"], [], {"rules#1": chunk}, max_chars=3500)


def test_clauses_cut_after_commas_and_semicolons_not_inside_numbers() -> None:
    assert clauses("Fees are $1,000, payable in advance; refunds apply.") == [
        "Fees are $1,000, ", "payable in advance; ", "refunds apply."]
    assert "".join(clauses(RULE_ZH)) == RULE_ZH


def test_the_clauses_holding_the_value_asked_are_quoted_when_the_start_does_not_hold_it() -> None:
    answer = extractive_answer("How many days do I have to cure a violation after receiving notice?", one_chunk(RULE),
                               "fact", {}, ["days", "cure", "violation", "receiving", "notice"])
    assert "within 30 days after your receipt of the notice" in answer
    assert answer.startswith("…") and len(answer) <= 300 + len("[1].")
    answer = extractive_answer("补正材料后多长时间内作出决定？", one_chunk(RULE_ZH), "fact", {},
                               ["补正", "材料", "作出", "决定"], budget=200)
    assert "15个工作日内作出书面决定" in answer and answer.startswith("…")


def test_the_start_is_kept_when_it_holds_the_value_or_nothing_does() -> None:
    def says_days(text: str) -> bool:
        return "days" in text

    assert focused(RULE, 120, says_days, len) is not None
    assert focused(RULE, 120, lambda text: "Moreover" in text, len) is None  # the start holds it
    assert focused(RULE, 120, lambda text: False, len) is None  # nothing holds it
    # asked for no value, the answer reads from the sentence's start as before
    answer = extractive_answer("Is my licence reinstated if I cure the violation?", one_chunk(RULE), "fact", {},
                               ["licence", "reinstated", "cure", "violation"])
    assert answer.startswith("Yes") and "Moreover, your licence" in answer


def test_asked_what_happens_on_a_condition_a_long_rule_is_quoted_by_its_consequence() -> None:
    rule = ("If You initiate litigation against any entity by asserting a patent infringement claim (excluding "
            "declaratory judgment actions, counter-claims, and cross-claims) alleging that a Contributor Version "
            "directly or indirectly infringes any patent, then the rights granted to You by any and all Contributors "
            "for the Covered Software under Section 2.1 of this License shall terminate.")
    question = "What happens to my rights if I start a patent infringement lawsuit?"
    answer = extractive_answer(question, one_chunk(rule), "fact", {}, ["happens", "rights", "patent", "lawsuit"])
    assert "shall terminate" in answer and answer.startswith("…"), answer
    # asked something else, the rule is cut from its start as before
    answer = extractive_answer("Who may initiate patent litigation?", one_chunk(rule), "fact", {},
                               ["initiate", "patent", "litigation"])
    assert answer.startswith("If You initiate litigation"), answer
