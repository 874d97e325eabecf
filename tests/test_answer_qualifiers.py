"""Sentences saying the same of different groups: the one said of the group the question names comes first; a
question naming neither leaves the order as it is."""

from __future__ import annotations

from dataclasses import dataclass

from test_answer_needs import answered

from lambdarag.answer.qualifiers import named_groups_first

VAT = ("Billing > VAT", "For managed hosting customers in the EU, VAT will be included in the price.\n"
       "For selfhosted customers in the EU, VAT is NOT included in the price.")
PERIOD = ("Billing > Billing period", "For managed hosting, we charge on a 30 day basis (postpaid). Any charges "
          "will be made on the last day of the period.\nFor selfhosted, we charge on a 30 day basis (prepaid). Any "
          "charges will be made on the first day of the period.")


@dataclass(frozen=True)
class Line:
    score: float
    n: int
    sentence: str


def test_the_group_the_question_names_better_stands() -> None:
    lines = [Line(0.7, 1, "对于本科生，每年可申请一次。"), Line(0.6, 1, "对于研究生，每学期可申请一次。")]
    assert [x.score for x in named_groups_first("研究生能申请吗？", lines)] == [0.7 * 0.8, 0.6]
    assert named_groups_first("奖学金能申请几次？", lines) == lines  # neither named
    # sentences saying different things of their groups are no pair
    apart = [Line(0.7, 1, "For students, the library opens at 8am."), Line(0.6, 1, "For staff, parking is free.")]
    assert named_groups_first("Can staff get into the library early?", apart) == apart


def test_the_answer_reads_the_rule_of_the_group_asked() -> None:
    assert answered("I self-host and live in France. Is VAT already included in the price?", *VAT).startswith("No")
    assert answered("We use managed hosting in France. Is VAT included in the price?", *VAT).startswith("Yes")
    answer = answered("On a self-hosted plan, on which day of the period am I charged?", *PERIOD)
    assert "first day" in answer
    assert "last day" not in answer or answer.index("first day") < answer.index("last day")
