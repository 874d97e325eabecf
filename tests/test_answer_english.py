"""English extractive answers over a staff handbook: short rules, FAQ headings, hyphenated words and measures."""

from __future__ import annotations

from typing import Any

import pytest

from lambdarag.answer.context import pack
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.limits import figure_outside
from lambdarag.answer.needs import question_need
from lambdarag.records import Chunk
from lambdarag.text.tokenizer import Tokenizer


def handbook(breadcrumb: str, text: str) -> Any:
    """The packed context of one chunk of a handbook under ``breadcrumb``."""
    title = breadcrumb.split(" > ")[0]
    return pack({}, ["handbook#1"], [], {"handbook#1": Chunk("handbook#1", "handbook", title, breadcrumb, text)},
                max_chars=3500)


def test_a_short_english_rule_closed_by_its_full_stop_answers_and_is_no_caption() -> None:
    p = handbook("Travel Policy > Meals", "The meal allowance is reduced by half on the days of departure and return. "
                 "Alcohol is not reimbursable.")
    answer = extractive_answer("Is alcohol reimbursable?", p, "fact", {}, ["alcohol", "reimbursable"])
    assert answer.startswith(("No[", "No.")) and "Alcohol is not reimbursable" in answer


def test_an_faq_headings_question_is_not_the_pages_subject() -> None:
    # the heading asks "Can I choose a Mac…?": "Mac" is what the sentence under it answers, not the page's subject
    p = handbook("Laptop Scheme FAQ > Can I choose a Mac instead of a Windows laptop?",
                 "Staff may choose either a standard Windows model or a standard Mac model from the catalogue.")
    assert extractive_answer("Can I get a Mac?", p, "fact", {}, ["get", "mac"]).startswith("Yes")


def test_a_hyphenated_word_of_the_question_is_said_by_its_parts() -> None:
    p = handbook("Parental Leave Rules > Return to work",
                 "An employee returning from parental leave may request part-time work for up to 12 months.")
    keywords = ["work", "part-time", "after", "parental", "leave"]
    assert extractive_answer("Can I work part-time after parental leave?", p, "fact", {}, keywords).startswith("Yes")


@pytest.mark.parametrize(("question", "outside"), [
    ("Can I fly business class on a 5-hour flight?", True),
    ("Can I fly business class on a 10-hour flight?", False),
    ("Can I fly business class on a flight of 5 hours?", True),
])
def test_a_figure_joined_to_its_measure_by_a_hyphen_is_compared_with_the_limit(question: str, outside: bool) -> None:
    sentence = "Business class may be booked for flights with a scheduled duration of more than 8 hours."
    assert figure_outside(question, sentence) is outside


@pytest.mark.parametrize(("question", "kind"), [
    ("Am I eligible for a staff laptop as an intern?", "yesno"),
    ("Shall I keep the receipts?", "yesno"),
    ("Who is eligible to apply for a seed grant?", "conditions"),  # who may: the conditions say it
    ("Who can apply for a seed grant?", "conditions"),
    ("谁可以申请创业补贴？", "conditions"),
    ("Who assesses the applications?", "person"),
    ("What is the cheapest fishing licence?", "amount"),  # a price asked: a figure with its currency answers
    ("What does a parking permit cost?", "amount"),
])
def test_the_need_of_an_english_question(question: str, kind: str) -> None:
    assert question_need(question).kind == kind


def test_who_is_eligible_is_answered_by_the_eligibility_section_not_by_a_name() -> None:
    chunks = {
        "call#1": Chunk("call#1", "call", "Seed Grants", "Seed Grants > Eligibility",
                        "Applicants must hold an academic post at the university."),
        "call#2": Chunk("call#2", "call", "Seed Grants", "Seed Grants > Contact",
                        "For questions please contact Dr Maria Okonkwo, Research Funding Manager."),
    }
    p = pack({}, ["call#2", "call#1"], [], chunks, max_chars=3500)
    answer = extractive_answer("Who is eligible to apply for a seed grant?", p, "person", {},
                               ["eligible", "apply", "seed", "grant"])
    assert answer.startswith("Applicants must hold an academic post")


def _two_chunks(first: tuple[str, str], second: tuple[str, str]) -> Any:
    chunks = {f"{doc}#1": Chunk(f"{doc}#1", doc, doc, doc, text) for doc, text in (first, second)}
    return pack({}, list(chunks), [], chunks, max_chars=3500)


@pytest.mark.parametrize(("question", "keywords", "top", "valued"), [
    ("研讨会何时举行？", ["研讨会", "举行"], "研讨会在学校举行，对学科建设具有重大意义。",
     "研讨会于10月15日在学校举行。"),
    ("How many members does the council have?", ["members", "council"],
     "The council members meet in the town hall every month.", "The council has 12 members elected for four years."),
])
def test_a_sentence_carrying_the_value_asked_leads_over_the_top_chunks_sentence(
        question: str, keywords: list[str], top: str, valued: str) -> None:
    p = _two_chunks(("notice", top), ("report", valued))
    assert extractive_answer(question, p, "fact", {}, keywords).startswith(valued.rstrip("。."))


def test_asked_when_an_english_year_after_its_preposition_is_a_date_for_the_lead() -> None:
    p = _two_chunks(("history", "The company was incorporated in 1929 in Delaware."),
                    ("exhibits", "The plan was incorporated by reference on August 12, 2013."))
    assert extractive_answer("When was the company incorporated?", p, "temporal", {},
                             ["company", "incorporated"]).startswith("The company was incorporated in 1929")


def test_a_who_question_is_answered_by_a_passives_agent_before_a_named_contact() -> None:
    chunks = {
        "call#1": Chunk("call#1", "call", "Seed Grants", "Seed Grants > Contact",
                        "For questions please contact Dr Maria Okonkwo, Research Funding Manager."),
        "call#2": Chunk("call#2", "call", "Seed Grants", "Seed Grants > Assessment",
                        "Applications are scored by a panel of five senior researchers."),
    }
    p = pack({}, ["call#1", "call#2"], [], chunks, max_chars=3500)
    answer = extractive_answer("Who assesses the seed grant applications?", p, "person", {},
                               ["assesses", "seed", "grant", "applications"])
    assert answer.startswith("Applications are scored by a panel of five senior researchers")


def test_every_row_the_question_names_whole_is_looked_up_not_only_the_longest_name() -> None:
    from lambdarag.answer.table_lookup import lookup
    from lambdarag.answer.table_text import parse_table

    rooms = parse_table("Room hire charges\n| Room | Capacity | Full day (USD) |\n| Lecture Hall A | 250 | 1000 |"
                        "\n| Seminar Room 3 | 40 | 250 |\n| Board Room | 16 | 200 |")
    assert rooms is not None
    found = lookup(rooms, "Which is cheaper to hire for a full day, the Board Room or Seminar Room 3?")
    assert found is not None and set(found.rows) == {1, 2}
    fees = parse_table("住宿费标准\n| 校区 | 房型 | 住宿费 |\n| 东湖校区 | 四人间 | 1200 |\n| 东湖校区 | 六人间 | 800 |"
                       "\n| 南山校区 | 四人间 | 1000 |")
    assert fees is not None
    one = lookup(fees, "东湖校区四人间的住宿费是多少？")  # not every 四人间 row, nor every 东湖校区 row
    assert one is not None and one.rows == (0,)


def test_asked_for_the_cheapest_a_sentence_with_a_price_answers() -> None:
    p = _two_chunks(("rules", "You must carry your fishing licence when you fish."),
                    ("prices", "A 1-day fishing licence costs £6.60. A 12-month fishing licence costs £35.80."))
    keywords = ["cheapest", "fishing", "licence"]
    answer = extractive_answer("What is the cheapest fishing licence?", p, "fact", {}, keywords)
    assert answer.startswith("A 1-day fishing licence costs £6.60")


@pytest.mark.parametrize("rule", ["Smoking is prohibited in all university buildings.",
                                  "Smoking is forbidden in all university buildings.",
                                  "Smoking is banned in all university buildings."])
def test_a_rule_that_prohibits_answers_no(rule: str) -> None:
    p = handbook("Campus rules > Smoking", rule)
    assert extractive_answer("Can I smoke in university buildings?", p, "fact", {},
                             ["smoke", "university", "buildings"]).startswith(("No[", "No."))


@pytest.mark.parametrize(("question", "sentence", "lead"), [
    # outside a rule's limit the rule's answer turns round: receipts are needed above $25
    ("Do I need a receipt for a taxi fare of $40?", "Receipts are not needed for taxi fares under $25.", "Yes"),
    ("Do I need a receipt for a taxi fare of $15?", "Receipts are not needed for taxi fares under $25.", "No"),
    ("Can I buy equipment costing $8,000?", "Funds may be spent on equipment under $5,000.", "No"),
    ("Can I buy equipment costing $3,000?", "Funds may be spent on equipment under $5,000.", "Yes"),
    # the bound's own "no" negates nothing
    ("Can I claim a hotel for 5 nights?", "A hotel may be claimed for no more than 3 nights.", "No"),
    ("20岁可以申请吗？", "未满18周岁的不得申请。", "可以"),
    ("补贴期限可以是5年吗？", "补贴期限不得超过3年。", "不可以"),
    # a bound said with a negation says no no ("no later than", "no more than")
    ("Do applications have to arrive by 30 June?", "Applications must be received no later than 30 June.", "Yes"),
    ("Can I claim a taxi?", "Taxi fares may be claimed, with no more than two journeys a day.", "Yes"),
    ("Can I claim a taxi?", "Taxi fares may not be claimed.", "No"),
])
def test_a_figure_outside_a_rules_limit_turns_the_rules_answer_round(question: str, sentence: str, lead: str) -> None:
    p = handbook("Rules > Limits", sentence)
    words = ("receipt", "taxi", "equipment", "hotel", "claim", "applications", "arrive", "申请", "补贴期限")
    keywords = [w for w in words if w in question]
    assert extractive_answer(question, p, "fact", {}, keywords).startswith(lead)


@pytest.mark.parametrize(("question", "money", "span"), [
    ("How long is the MSc Data Science?", "The MSc Data Science offers ten scholarships of £5,000 each.",
     "The MSc Data Science lasts one year full-time."),  # a duration in words
    ("How long is the Red Fox River?", "The Red Fox River festival awards a prize of £5,000.",
     "The Red Fox River flows south for 214 kilometres."),  # a length
])
def test_how_long_a_thing_is_is_answered_by_a_duration_or_a_length_not_money(question: str, money: str,
                                                                              span: str) -> None:
    p = _two_chunks(("awards", money), ("facts", span))
    keywords = ["msc", "data", "science"] if "MSc" in question else ["red", "fox", "river"]
    assert extractive_answer(question, p, "fact", {}, keywords).startswith(span.rstrip("."))


@pytest.mark.parametrize(("question", "sentence", "outside"), [
    # an age said without its measure is a figure in years, as a limit of age is
    ("I'm 17 — am I allowed to join?", "Any person of the age of 18 or over can join the club.", True),
    ("I am 19, can I join?", "Any person of the age of 18 or over can join the club.", False),
    ("My son is 12 - does he need a background check?", "A check is needed for anyone over the age of 14.", True),
    ("My 16-year-old son lives with us. Does he need a check?", "A check is needed for anyone over the age of 14.",
     False),
    ("I'm 60 and often late. Am I exempt from fines?", "Patrons 65 and older are exempt from fines.", True),
    ("Can my daughter, aged 13, take part?", "Children 12 or younger must be accompanied.", True),
    ("The fee is 17 and I have 20. Can I pay?", "Any person of the age of 18 or over can join the club.", False),
    ("My budget is 5 - can I stay?", "Guests of the age of 18 or over can stay.", False),  # a budget states no age
])
def test_an_english_age_is_compared_with_a_limit_of_age(question: str, sentence: str, outside: bool) -> None:
    assert figure_outside(question, sentence) is outside


@pytest.mark.parametrize(("question", "outside"), [
    ("Can my household have three permits?", True),  # numbers in words are figures
    ("Can my household have 3 permits?", True),
    ("Can my household have two permits?", False),  # "no more than two" admits two: no "more than" inside it
    ("Can my household have 1 permit?", False),
])
def test_a_limit_written_in_words_bounds_from_above(question: str, outside: bool) -> None:
    assert figure_outside(question, "A household can have no more than two permits.") is outside


@pytest.mark.parametrize(("question", "row"), [
    ("Which room has the largest capacity?", 3),  # an English superlative over the column asked
    ("Which room is the cheapest to hire for a full day?", 2),
    ("哪种证件的工本费最便宜？", None),  # in the fee table below
])
def test_a_superlative_picks_the_extreme_row_of_the_column_compared(question: str, row: int | None) -> None:
    from lambdarag.answer.table_lookup import lookup
    from lambdarag.answer.table_text import parse_table

    rooms = parse_table("Room hire charges\n| Room | Capacity | Full day (USD) |\n| Lecture Hall A | 250 | 1000 |"
                        "\n| Seminar Room 3 | 40 | 250 |\n| Board Room | 16 | 200 |\n| Sports Hall | 300 | 700 |")
    fees = parse_table("证照工本费\n| 序号 | 项目 | 计费单位 | 收费标准（元） |\n| 1 | 身份证工本费 | 证 | 20 |"
                       "\n| 2 | 户口簿工本费 | 本 | 8 |\n| 3 | 驾驶证工本费 | 证 | 10 |")
    table = fees if row is None else rooms
    assert table is not None
    found = lookup(table, question)
    # the price column is compared when the question names no column: 户口簿's 8 yuan
    assert found is not None and found.rows == ((1,) if row is None else (row,))


def test_a_table_row_quoted_as_a_sentence_keeps_its_tables_punctuation() -> None:
    from lambdarag.answer.table_text import grams, parse_table
    from lambdarag.answer.units import table_rows

    rooms = parse_table("Room hire charges\n| Room | Capacity | Full day (USD) |\n| Lecture Hall A | 250 | 1000 |"
                        "\n| Seminar Room 3 | 40 | 250 |")
    fees = parse_table("住宿费标准\n| 校区 | 房型 | 住宿费 |\n| 东湖校区 | 四人间 | 1200 |")
    assert rooms is not None and fees is not None
    assert table_rows(rooms, grams("Seminar Room 3")) == ["Room: Seminar Room 3, Capacity: 40, Full day (USD): 250"]
    assert table_rows(fees, grams("四人间")) == ["校区：东湖校区，房型：四人间，住宿费：1200"]


@pytest.mark.parametrize(("question", "column"), [
    ("How many private sale long gun checks were there in Ohio?", "Private Sale / Long Gun"),
    ("How many pre-pawn handgun checks were there in Ohio?", "Pre-Pawn / Handgun"),
    ("How many handgun checks were there in Ohio?", "Handgun"),
])
def test_a_group_column_said_whole_is_asked_not_its_level_alone(question: str, column: str) -> None:
    from lambdarag.answer.table_lookup import lookup
    from lambdarag.answer.table_text import parse_table

    # a column holding the said one and more ("Return to Seller - …") is not asked either
    checks = parse_table("Checks\n| State | Handgun | Long Gun | Pre-Pawn / Handgun | Private Sale / Long Gun "
                         "| Return to Seller - Private Sale / Long Gun |\n"
                         "| Ohio | 34,878 | 31,817 | 24 | 22 | 1 |\n| Texas | 56,941 | 51,670 | 29 | 36 | 5 |")
    assert checks is not None
    found = lookup(checks, question)
    assert found is not None and found.rows == (0,) and [checks.header[i] for i in found.columns] == [column]


def test_a_lead_in_picked_whatever_the_question_answers_with_the_items_it_announces() -> None:
    text = ("Library Loans\n"
            "Members may borrow the following:\n"
            "- up to ten books for three weeks;\n"
            "- two films for one week;\n"
            "- one laptop for a day.\n"
            "Late returns are charged 20p a day.")
    packed = handbook("Library Loans", text)
    answer = extractive_answer("What can members borrow from the library?", packed, "fact", {},
                               ["members", "borrow", "library"])
    # one line, as the text reads, not the lead-in alone with its items left out or scattered
    assert ("Members may borrow the following: - up to ten books for three weeks; - two films for one week; "
            "- one laptop for a day[1].") in answer, answer


@pytest.mark.parametrize(("question", "text", "lead"), [
    ("Can visitors park in the staff car park?",
     "Visitors may park in the staff car park only if they display a day permit.", "Yes, with conditions[1]. "),
    ("Can staff park in the staff car park?", "Staff may park in the staff car park at any time.", "Yes[1]. "),
    # the condition asked about is no condition of the answer
    ("Can visitors park there only if they have a permit?",
     "Visitors may park there only if they have a permit.", "Yes[1]. "),
    ("外来车辆可以进入校园停放吗？", "外来车辆仅限持有临时通行证的方可进入校园停放。", "可以，但有条件[1]。"),
    ("校园里有食堂吗？", "校园里只有三个食堂。", "有[1]。"),  # 只有 without its 才 counts, it sets no condition
    ("灵活就业人员可以申请补贴吗？", "灵活就业人员不得申请补贴。", "不可以[1]。"),
])
def test_a_yes_given_only_on_a_condition_says_so(question: str, text: str, lead: str) -> None:
    packed = handbook("Rules", f"Rules\n{text}")
    answer = extractive_answer(question, packed, "fact", {}, Tokenizer().keywords(question))
    assert answer.startswith(lead), answer


def test_a_field_with_a_figure_is_no_heading_and_a_bold_lead_in_no_answer() -> None:
    from lambdarag.answer.captions import caption_line, furniture

    assert caption_line("Fiscal Year Opened Closed Fiscal Year")  # a column header
    assert not caption_line("Opening Hours: Monday To Friday 9am - 5pm")  # a field: a label and its value
    assert not caption_line("Seat Allocation: 120 Standard, 40 Premium")
    assert not caption_line("State Of Incorporation: Delaware")  # a field whatever its value
    assert furniture("*******************************", "") and furniture("======= ==== =====", "")
    assert not furniture("Seat Allocation: 120", "")
    text = ("Harbour Museum\n"
            "**Visitor Information:**\n"
            "Seat Allocation: 120 Standard, 40 Premium\n"
            "The museum was opened by the harbour board in 1931 and moved to the old customs house later.")
    packed = handbook("Harbour Museum", text)
    answer = extractive_answer("What is the seat allocation of the museum?", packed, "fact", {},
                               ["seat", "allocation", "museum"])
    assert answer.startswith("Seat Allocation: 120 Standard, 40 Premium[1]"), answer
    assert "**" not in answer, answer


def test_who_did_it_is_answered_by_the_field_its_verb_labels() -> None:
    from lambdarag.answer.roles import asked_role

    role = asked_role("Who founded the Harbour Museum?")
    assert role.name == "found" and role.labels("Founder: Ada Pennick", "Harbour Museum")
    assert role.labels("The museum was founded by the harbour board in 1931.", "Harbour Museum")
    assert not role.labels("Founder: Ada Pennick", "Railway Museum")  # a field of another museum's page
    text = ("Harbour Museum\n"
            "Opened: 1931\n"
            "Founder: A. B. Pennick\n"
            "Curator: the harbour board's archivist")
    answer = extractive_answer("Who founded the Harbour Museum?", handbook("Harbour Museum", text), "person", {},
                               ["founded", "harbour", "museum"])
    assert answer.startswith("Founder: A. B. Pennick[1]"), answer


def test_a_lead_in_holding_the_count_asked_answers_with_its_items() -> None:
    from lambdarag.answer.asked_values import AskedValues

    assert AskedValues.of("How many men took part?", "fact").value_bonus("It followed thirty retired men.") > 0
    text = ("Walking Study\n"
            "The study ran for a year and its results were published in the club's newsletter.\n"
            "Readings came from thirty retired men:\n"
            "- resting pulse\n"
            "- weight")
    answer = extractive_answer("How many men took part in the walking study?", handbook("Walking Study", text),
                               "fact", {}, ["men", "walking", "study"])
    assert answer.startswith("Readings came from thirty retired men: - resting pulse; - weight[1]"), answer


def test_an_english_yes_no_reads_the_close_sentence_saying_what_the_question_ends_with() -> None:
    rules = ("* Members who bring a guest along to the Riverside Workshop must stay with them at all times.\n"
             "* Guests are not allowed to use any power tools or tools that require an induction.")
    p = handbook("Rules > Guests", rules)
    answer = extractive_answer("Can the guest I bring to the Riverside Workshop use the power tools?", p, "fact", {},
                               ["guest", "bring", "riverside", "workshop", "use", "power", "tools"])
    assert answer.startswith(("No[", "No.")), answer


def test_a_keyword_few_pieces_hold_weighs_more_than_one_every_piece_holds() -> None:
    from lambdarag.answer.rarity import rarity_weights

    texts = ["the graduate program in statistics", "graduate program fees", "the toefl minimum for the program"]
    common, rare, absent = rarity_weights(["program", "toefl", "ielts"], texts)
    assert rare > common == 1.0 and absent == 1.0
    chunks = {
        "faq#1": Chunk("faq#1", "faq", "Graduate FAQ", "Graduate FAQ > Admission",
                       "Coursework needed for the graduate program includes a year of statistics. "
                       "The TOEFL minimum score is 80 on the internet-based test."),
        "faq#2": Chunk("faq#2", "faq", "Graduate FAQ", "Graduate FAQ > Funding",
                       "Students in the graduate program need no fees: they are funded as teaching assistants."),
        "faq#3": Chunk("faq#3", "faq", "Graduate FAQ", "Graduate FAQ > Deadlines",
                       "Applications to the graduate program are due in December."),
    }
    p = pack({}, list(chunks), [], chunks, max_chars=3500)
    answer = extractive_answer("What TOEFL score do I need for the graduate program?", p, "fact", {},
                               ["toefl", "score", "need", "graduate", "program"])
    assert answer.startswith("The TOEFL minimum score is 80"), answer


@pytest.mark.parametrize(("question", "intent", "answering", "other"), [
    ("How far ahead do I have to put in a leave request?", "process",  # a lead time, not any amount
     "Leave requests are submitted at least three business days in advance.", "The fee is $20."),
    ("How often does the project ship a new feature release?", "fact",  # a period
     "Feature releases will happen roughly every eight months.", "These releases will contain new features."),
    ("How often are the teams supposed to meet up in person?", "fact",  # a frequency, not the budget's amount
     "We encourage teams to get together twice each year.", "The budget for these trips is up to $1,000 per person."),
    ("年度体检多久一次？", "fact", "教职工体检每两年一次。", "体检费用标准为每人500元。"),
])
def test_asked_how_far_ahead_or_how_often_a_value_of_that_kind_answers(question: str, intent: str, answering: str,
                                                                       other: str) -> None:
    from lambdarag.answer.asked_values import AskedValues

    assert question_need(question).kind == "amount"
    asked = AskedValues.of(question, intent)
    assert asked.value_bonus(answering) > 0
    assert asked.value_bonus(other) == 0


@pytest.mark.parametrize("question", [
    "If I can't go to the conference, can I hand my grant over to a colleague?",
    "In the web course, can I resubmit an assignment on the same day?",
    "I didn't use my whole budget when I joined. Can I still spend the rest later?",
])
def test_a_yes_no_asked_after_what_sets_it_up_is_a_yes_no(question: str) -> None:
    assert question_need(question).kind == "yesno"


@pytest.mark.parametrize("question", ["If my laptop breaks, what do I do?", "Where do I go, and can I bring a friend?"])
def test_an_open_question_after_a_leading_phrase_stays_open(question: str) -> None:
    assert question_need(question).kind != "yesno"


def test_a_negation_in_the_condition_a_rule_opens_with_is_no_no() -> None:
    p = handbook("Equipment > Desk setup", "If you don't spend all of your budget when you first join, it's ok to "
                 "spend it later providing you remain inside the total budget.")
    answer = extractive_answer("I didn't use my whole desk budget when I joined. Can I still spend the rest later?",
                               p, "fact", {}, ["desk", "budget", "joined", "spend", "rest", "later"])
    assert answer.startswith("Yes"), answer
    p = handbook("Travel > Lodging", "Travelers may stay at the conference hotel even if it is not the most "
                 "economical option available.")
    answer = extractive_answer("On a paid trip, can I stay at the conference hotel even if it isn't the cheapest?",
                               p, "fact", {}, ["paid", "trip", "stay", "conference", "hotel", "cheapest"])
    assert answer.startswith("Yes"), answer  # the concession's negation is no no
    p = handbook("Grants > Transfers", "If you cannot attend, your grant cannot be transferred to other people.")
    answer = extractive_answer("If I can't attend, can my grant be transferred to a colleague?", p, "fact", {},
                               ["attend", "grant", "transferred", "colleague"])
    assert answer.startswith(("No[", "No.")), answer


def test_a_sentence_quoting_a_question_goes_on_after_it() -> None:
    from lambdarag.text.english import rejoin_abbreviations
    from lambdarag.text.tokenizer import split_sentences

    text = 'So the answer to "should I upgrade to the latest patch?" will always be yes. Why? Because.'
    assert rejoin_abbreviations(split_sentences(text)) == [
        'So the answer to "should I upgrade to the latest patch?" will always be yes.', "Why?", "Because."]
    p = handbook("Release process > Patch releases", "Patch releases fix bugs only.\n" + text)
    answer = extractive_answer("Should I upgrade to the latest patch release of the version I'm on?", p, "fact", {},
                               ["upgrade", "latest", "patch", "release", "version"])
    assert answer.startswith('Yes[1]. So the answer to "should I upgrade'), answer


def test_a_contact_sentence_ending_in_a_colon_still_answers_who_to_write_to() -> None:
    text = ("If you want to speak to one of the programme coordinators, send an email to team@example.gov:\n"
            "- Make sure you include the programme in the subject line\n"
            "- To unsubscribe from the list, write to list-unsubscribe@example.gov.")
    p = handbook("Training programme > More information", text)
    answer = extractive_answer("Which email address do I use to reach the programme coordinators?", p, "fact", {},
                               ["email", "address", "reach", "programme", "coordinators"])
    assert answer.startswith("If you want to speak to one of the programme coordinators"), answer


def test_a_yes_no_support_saying_a_third_of_the_question_in_the_top_chunk_answers() -> None:
    rule = "You are not allowed to leave the room during a test."
    question = "Am I allowed to step out of the room in the middle of a Riverside College test?"
    keywords = ["allowed", "step", "out", "room", "middle", "riverside", "college", "test"]
    answer = extractive_answer(question, handbook("Test procedures", rule), "fact", {}, keywords)
    assert answer.startswith("No[1]. You are not allowed"), answer
    # the same sentence below another document's top chunk says nothing of this college's tests
    p = _two_chunks(("catalogue", "Riverside College offers evening classes in the main building."),
                    ("other-school", rule))
    answer = extractive_answer(question, p, "fact", {}, keywords)
    assert answer.startswith("Not stated"), answer


def test_a_yes_no_told_after_its_scene_is_weighed_by_the_words_it_asks_with() -> None:
    from lambdarag.answer.needs import asked_words

    assert asked_words("My loan is almost up and my paper is not finished. Can I renew it for a week?") == [
        "renew", "week"]
    assert "offsit" in asked_words("I'd like to organise our next offsite. Is that allowed?")  # "that" points back
    p = handbook("Equipment loans > Laptops", "Laptops are loaned for seven days. No renewals are permitted. "
                 "Upon returning, allow a minimum of 30 minutes for inspection by the desk staff.")
    answer = extractive_answer("My laptop loan is almost up but I still have a paper to finish. Can I just renew it "
                               "for another week?", p, "fact", {},
                               ["laptop", "loan", "almost", "up", "still", "paper", "finish", "renew", "week"])
    assert answer.startswith("No[1]. No renewals are permitted"), answer


def test_a_hyphenated_word_of_the_evidence_says_the_question_word_written_whole() -> None:
    from lambdarag.answer.rarity import holds
    from lambdarag.text.english import word_stems

    assert holds("send an e-mail to the desk", "email") and not holds("send a mail", "email")
    # and the other way round: the question hyphenates what the evidence writes in two words or one
    assert holds("no make up exams are given", "make-up") and holds("a makeup exam", "make-up")
    assert not holds("make the exam up", "make-up")
    assert {"email", "cowork"} <= word_stems("an e-mail to co-workers")
    chunks = {f"hotel#{i}": Chunk(f"hotel#{i}", "hotel", "Hotel", "Hotel > Booking", text) for i, text in enumerate((
        "Please book the hotel only via the link below. At the end of your booking, a confirmation of your booking "
        "will be shown.", "However, you will not receive an e-mail confirmation from the hotel."), start=1)}
    p = pack({}, list(chunks), [], chunks, max_chars=3500)
    answer = extractive_answer("I just booked my room through the hotel link. Should I be expecting a confirmation "
                               "email from the hotel?", p, "fact", {},
                               ["booked", "room", "hotel", "link", "expecting", "confirmation", "email"])
    assert answer.startswith("No[2]. However, you will not receive an e-mail"), answer


def test_a_phrasal_verb_is_the_noun_written_as_one_word() -> None:
    from lambdarag.answer.rarity import holds
    from lambdarag.text.english import phrasal_forms, word_stems

    # the question's verb finds the evidence's compound noun, and the question's noun its phrasal verb
    evidence = "after a second lockout you will need to call the desk"
    assert holds(evidence, "locked", lambda: word_stems(evidence)) and not holds(evidence, "locked")
    assert {"lockout", "signup"} <= phrasal_forms("If you lock yourself out, sign-up for a slot")
    assert "cut" in phrasal_forms("The cutoff is noon") and "setup" in phrasal_forms("we set up the room")
    # "in" ends too many words that are no compound; a head of two letters is none either (about)
    assert phrasal_forms("begin in the cabin") == frozenset() and phrasal_forms("about") == frozenset()
    chunks = {f"dorm#{i}": Chunk(f"dorm#{i}", "dorm", "Dorm", "Dorm > Policies", text) for i, text in enumerate((
        "Please do not leave your room key in the lounge. Quiet hours start at 10 pm in your room.",
        "For each lockout after the second, call the housing desk to open your door."), start=1)}
    p = pack({}, list(chunks), [], chunks, max_chars=3500)
    answer = extractive_answer("I locked myself out of my room. Who do I call?", p, "fact", {},
                               ["locked", "out", "room", "call"])
    assert answer.startswith("For each lockout after the second, call the housing desk"), answer


def test_a_step_naming_what_is_asked_states_no_rule_for_a_yes_or_no() -> None:
    p = handbook("Journal changes > Title changes", "Send us the old title and the date of the change. Log into your "
                 "account and go to your publisher dashboard. The review takes about two weeks.")
    question = ("Our journal changed its name and got a new ISSN last month. Can I just change both with the Update "
                "button on the publisher dashboard?")
    keywords = ["journal", "changed", "name", "got", "new", "issn", "last", "month", "change", "both", "update",
                "button", "publisher", "dashboard"]
    answer = extractive_answer(question, p, "fact", {}, keywords)
    assert answer.startswith("Not stated"), answer


def test_the_occasion_told_after_what_a_yes_no_asks_is_not_what_it_asks() -> None:
    from lambdarag.answer.needs import asked_object, asked_words

    question = "Can I leave my library card as the deposit when I take out a kayak?"
    assert asked_words(question) == ["leav", "librari", "card", "deposit"]
    assert asked_object(question) == {"card", "deposit"}
    assert asked_words("Can I renew it when the library is closed?") == ["renew", "librari", "close"]  # one word left
    p = handbook("Kayaks > Loans", "Library cards are not accepted. Every kayak must be returned by six in the evening "
                 "to the boat house, where the staff check the hull and the paddles of each kayak you take out.")
    answer = extractive_answer(question, p, "fact", {}, ["leave", "library", "card", "deposit", "take", "out", "kayak"])
    assert answer.startswith("No[1]. Library cards are not accepted"), answer


def test_a_purpose_told_after_what_a_yes_no_asks_is_not_what_it_asks() -> None:
    from lambdarag.answer.needs import asked_object, asked_words

    question = ("We plan to fund two storage servers for the cluster. Would that give our group its own dedicated "
                "partition so our backups never queue?")
    assert asked_words(question) == ["give", "group", "dedic", "partit"]
    assert asked_object(question) == {"dedic", "partit"}
    assert asked_words("Can I bring my dog so that it can play?") == ["bring", "dog"]
    assert asked_words("Is it so expensive?") == ["expens"]  # "so" with no clause after it is no purpose
    p = handbook("Storage > Purchases", "Funding servers for the cluster does not give you a dedicated partition. "
                 "Backups of every group run in one shared window each night, which is scheduled by the operators "
                 "of the cluster.")
    answer = extractive_answer(question, p, "fact", {},
                               ["plan", "fund", "storage", "servers", "cluster", "give", "group", "dedicated",
                                "partition", "backups", "queue"])
    assert answer.startswith("No[1]. Funding servers for the cluster does not give you a dedicated partition"), answer


def test_asked_whether_a_thing_is_free_a_sentence_saying_no_charge_answers_yes() -> None:
    p = handbook("Parking > Weekends", "There is no charge for parking in the visitor lot on Sundays.")
    answer = extractive_answer("Is parking in the visitor lot free on Sundays?", p, "fact", {},
                               ["parking", "visitor", "lot", "free", "sundays"])
    assert answer.startswith("Yes[1]. There is no charge"), answer
    p = handbook("Servers > Addresses", "Servers in the east region are assigned public addresses at no additional "
                 "charge.")
    answer = extractive_answer("Do my east region servers get public addresses without me paying extra?", p, "fact",
                               {}, ["east", "region", "servers", "public", "addresses", "paying", "extra"])
    assert answer.startswith("Yes[1]."), answer
    answer = extractive_answer("Do I have to pay for parking on Sundays?", handbook(
        "Parking > Weekends", "There is no charge for parking in the visitor lot on Sundays."), "fact", {},
        ["pay", "parking", "sundays"])
    assert answer.startswith("No[1]."), answer  # asked whether one pays, the same sentence says no


def test_an_english_keyword_is_held_in_another_form_of_its_word() -> None:
    from lambdarag.answer.rarity import rarity_weights, weighted_score

    rule = "other logic families (including cd4000) are acceptable subject to the other rules."
    assert weighted_score(rule, ["accepted", "families"], set(), [1.0, 1.0]) == 0.5  # both words, half the blend
    assert weighted_score(rule, ["accepted", "chips"], set(), [1.0, 1.0]) == 0.25
    # and a piece holding it in another form counts for its rarity
    assert rarity_weights(["hotels"], ["the hotel rate", "the hotel address", "parking"]) == \
        rarity_weights(["hotel"], ["the hotel rate", "the hotel address", "parking"])
