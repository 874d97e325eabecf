"""English follow-ups condensed by rules: a turn's subject, a pronoun standing for it, a parallel phrase swapped."""

from __future__ import annotations

import pytest

from lambdarag.query.condense import condense
from lambdarag.query.english_follow_up import english_subject
from lambdarag.records import Turn


@pytest.mark.parametrize(("question", "subject"), [
    ("What documents must be included in an expense claim?", "expense claim"),  # the object of its preposition
    ("How do I apply for a seed grant?", "seed grant"),
    ("What is the daily meal allowance for international travel?", "daily meal allowance"),  # after the copula
    ("What is the capacity of the Board Room?", "Board Room"),  # an attribute of the Board Room
    ("What was the company's revenue in FY2022?", "company's revenue"),  # a time is no subject
    ("Who approves international trips?", "international trips"),  # the verb after who
    ("How often is a staff laptop replaced?", "staff laptop"),  # the passive's verb ends the question
    ("When must expense claims be submitted?", "expense claims"),  # and its auxiliary is no part of the subject
    ("When will the library be closed?", "library"),
    ("Who does the travel policy apply to?", "travel policy apply"),
    ("What is it?", None),
])
def test_the_subject_of_an_english_question(question: str, subject: str | None) -> None:
    assert english_subject(question) == subject


def ask(question: str, *history: str) -> str:
    return condense(question, [Turn(q, "") for q in history], None).question


def test_a_pronoun_stands_for_the_previous_questions_subject() -> None:
    previous = "What documents must be included in an expense claim?"
    assert ask("And what is the deadline for it?", previous) == "What is the deadline for expense claim?"
    assert ask("What is its deadline?", previous) == "What is expense claim's deadline?"
    assert ask("Can I work part-time after it?", "How long is parental leave for the birth parent?") == (
        "Can I work part-time after parental leave?")


def test_a_dummy_it_is_no_reference() -> None:
    previous = "What documents must be included in an expense claim?"
    for question in ("Is it possible to claim a taxi fare?", "How long does it take to get reimbursed?"):
        assert ask(question, previous) == question


def test_a_follow_up_swaps_the_parallel_phrase_of_the_previous_question() -> None:
    previous = "What is the daily meal allowance for international travel?"
    assert ask("And for domestic travel?", previous) == "What is the daily meal allowance for domestic travel?"
    assert ask("What about in 2022?", "What was the revenue in 2021?") == "What was the revenue in 2022?"
    assert ask("And of the Sports Hall?", "What is the capacity of the Board Room?") == (
        "What is the capacity of the Sports Hall?")
    assert ask("What about hotels?", previous) == "What about hotels?"  # nothing parallel: searched as it is
    # a name asked about stands for the previous question's last name, whatever their lengths
    assert ask("What about the GPL?", "Can I charge a fee for support under the Apache License?") == (
        "Can I charge a fee for support under the GPL?")
    assert ask("And Boeing?", "What was 3M's total revenue in FY2022?") == "What was Boeing's total revenue in FY2022?"
    assert ask("And Seminar Room 3?", "What is the capacity of the Board Room on Friday?") == (
        "What is the capacity of the Seminar Room 3 on Friday?")  # a day of the week is a time, no name
    assert ask("What about Mondays?", "Is the Museum of Art open on Sundays?") == "What about Mondays?"


def test_a_person_pronoun_stands_for_the_person_the_previous_answer_named() -> None:
    history = [Turn("Who manages the seed grants?",
                    "For questions please contact Dr Maria Okonkwo, Research Funding Manager[1].")]
    condensed = condense("What is her email?", history, None)
    assert condensed.question == "What is Dr Maria Okonkwo's email?" and condensed.method == "rules"
    assert condense("How do I contact her?", history, None).question == "How do I contact Dr Maria Okonkwo?"


def test_a_follow_up_naming_no_subject_searches_the_sessions_beside_it() -> None:
    condensed = condense("What is the deadline?", [Turn("How do I apply for a seed grant?", "")], None)
    assert condensed.question == "What is the deadline?" and condensed.topic == "seed grant"


def test_a_self_contained_english_question_is_left_as_it_is() -> None:
    condensed = condense("What is the maximum hotel rate in London?", [Turn("Is alcohol reimbursable?", "")], None)
    assert condensed.question == "What is the maximum hotel rate in London?" and condensed.method == "none"


def test_they_after_a_who_question_stand_for_someone_named_or_are_left_as_they_are() -> None:
    named = [Turn("Who manages the seed grants?", "Please contact Dr Maria Okonkwo, Research Funding Manager[1].")]
    assert condense("What is their email?", named, None).question == "What is Dr Maria Okonkwo's email?"
    unnamed = [Turn("When is the deadline for international applicants?", "30 June[1]."),
               Turn("Who do I contact about it?", "Contact the Postgraduate Admissions Office[1].")]
    assert condense("What is their email?", unnamed, None).question == "What is their email?"  # not the deadline's
    assert condense("What is her email?", unnamed[:1], None).question == "What is her email?"  # nobody named
