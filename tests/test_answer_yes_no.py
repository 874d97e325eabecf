"""Yes/no read where the question and the rule use different words: the predicate of a question closing on its
modal, a rule refusing what is asked in its own words (and not one refusing something else), and a yes or no said
with its support alone, unpadded."""

from __future__ import annotations

import pytest
from test_answer_needs import answered

from lambdarag.answer.compose import yes_no_lead
from lambdarag.answer.needs import Need, question_need, yes_no_predicate
from lambdarag.answer.sentences import Scored
from lambdarag.answer.yes_no import yes_no_lines

DORMS = ("新生住宿须知", "宿舍实行统一管理，按时熄灯。\n大一新生严禁在外住宿，任何人未经允许严禁擅自在外住宿。\n"
         "宿舍电费按月结算。")
TRANSFER = ("Journal records", "Log into your account and go to the dashboard to edit your journal's record. "
            "You cannot update the title or ISSN of your journal this way. Contact us with the old and new title.")


@pytest.mark.parametrize(("question", "predicate"), [
    ("买了直达票，想中途下车玩一天，第二天再拿这张票接着坐，行不行？", "第二天再拿这张票接着坐"),
    ("我家就在市区，想办走读每天回家住，学校允许吗？", "想办走读每天回家住"),  # the modal's clause names who decides
    ("大四还想再申请一个同类项目，可以吗？", "大四还想再申请一个同类项目"),
    ("退休了可以提取公积金吗？", "提取公积金"),  # the words after the modal, as before
    ("我是研究生，可以申请吗？", "申请"),
    ("想离职的话也得提前一个月打招呼吗？", "提前一个月打招呼"),  # 得 (děi): must
    ("我觉得这样可以吗？", "我觉得这样"),  # 觉得 is no modal
])
def test_a_question_closing_on_its_modal_asks_of_the_clause_before(question: str, predicate: str) -> None:
    assert yes_no_predicate(question, question_need(question).modal) == predicate


def says_no(answer: str) -> bool:
    """An English answer led by No (its citation follows), not "Not stated in the documents."."""
    return answer.startswith(("No[", "No."))


def test_a_rule_refusing_what_is_asked_in_its_own_words_says_no() -> None:
    answer = answered("我是大一新生，想办走读每天回家住，学校允许吗？", *DORMS)
    assert answer.startswith("不可以") and "严禁在外住宿" in answer.split("。")[1]  # 允许 asked: permission's words
    answer = answered("Our journal changed its name. Can I just change both with the Update button?", *TRANSFER)
    assert says_no(answer) and "You cannot update the title" in answer
    answer = answered("Can I plug a USB stick into the microscope PC to take my images home?", "Microscope data",
                      "USB ports are disabled, preventing users from plugging in storage devices to copy data.")
    assert says_no(answer)
    # what a rule makes void is no longer usable; what takes effect is no refusal
    tickets = ("车票使用须知", "直达票当日当次有效，中途下车失效。\n车票改签须在开车前办理。")
    assert answered("买了直达票，想中途下车玩一天，第二天再拿这张票接着坐，行不行？", *tickets).startswith("不可以")
    rules = ("车票使用须知", "新的车票规定自下月起生效，车票改签须在开车前办理。")
    assert not answered("买了直达票，第二天再拿这张票接着坐，行不行？", *rules).startswith("不")
    # the rule refuses under a heading that names the subject asked as well
    answer = answered("If I can't go, can I hand my grant over to a colleague?", "Financial aid grants",
                      "We use online forms for the processing.\n- Grants cannot be transferred to other individuals.")
    assert says_no(answer)


def test_a_refusal_of_something_else_or_a_question_of_need_stays_not_stated() -> None:
    # the refusal shares no word of what is asked
    assert answered("我是大一新生，宿舍可以养猫吗？", *DORMS).startswith("资料中未明确说明")
    # asked whether one must, not whether one may: a refusal of something else answers nothing
    assert answered("我是大一新生，想办走读每天回家住，需要交押金吗？", *DORMS).startswith("资料中未明确说明")


def test_a_yes_or_no_is_not_padded_with_part_of_a_long_sentence() -> None:
    """The budget quotes part of a long line that does not fit, except after a yes or no, which its support says."""
    step = "步须登录学费系统填写信用卡交费申请表并上传手续费凭证"
    long = "刷信用卡交学费的，" + "，".join(f"第{i}{step}" for i in range(1, 12)) + "。"
    guide = ("学费缴纳指南", f"直接刷信用卡交学费要额外付手续费，这种方式不推荐。\n{long}")
    answer = answered("直接刷信用卡交学费的话，要额外付手续费吗？", *guide)
    assert answer.startswith("需要") and "第1步" not in answer
    assert "第1步" in answered("直接刷信用卡交学费的话，手续费是多少？", *guide)  # quoted in part otherwise


def test_a_rule_allowing_it_once_answers_no_to_doing_it_again() -> None:
    exchange = ("交流项目须知",
                "对于免外方学费的长期交流项目，注册学生本科四年内只限参加一次。\n交流结束后须提交交流总结。")
    question = "我已经参加过一次免外方学费的长期交流，大四还想再申请一个同类项目，可以吗？"
    assert answered(question, *exchange).startswith("不可以")


def test_an_faq_reply_alone_is_read_with_the_sentence_after_it() -> None:
    visit = ("参观须知 > 我需要在特定时间离开博物馆吗？", "不需要。无论你何时入馆，都可以一直参观至闭馆时间。\n"
             "博物馆每周一闭馆。")
    # asked something else, the reply is not shown as if it answered it
    answer = answered("博物馆哪天闭馆？", *visit)
    assert "不需要" not in answer and "闭馆" in answer
    # asked what the FAQ asks, the reply leads, with the sentence that says it
    answer = answered("我需要在特定时间离开博物馆吗？", *visit)
    assert answer.startswith("不需要") and "无论你何时入馆" in answer.split("。")[1]
    plans = ("订阅制套餐 > 常见问题 > 可以同时使用多个套餐吗?", "不可以。一个账号只能同时激活一个订阅套餐。")
    assert answered("一个账号能同时用两个套餐吗？", *plans).startswith("不能")
    hosting = ("Hosting FAQ > Can I use my own domain?", "Yes. Add it under Settings, then point its DNS here.")
    answer = answered("Can I use my own domain?", *hosting)
    assert answer.startswith("Yes") and "Add it under Settings" in answer


def test_a_question_of_must_in_words_of_de_is_answered_in_words_of_need() -> None:
    rules = ("离职规定", "试用期员工离职无需提前通知，正式员工提前30天书面通知公司。")
    assert answered("我还在试用期，离职也得提前通知吗？", *rules).startswith("不需要")


def test_asked_whether_a_thing_exists_a_sentence_telling_of_it_answers() -> None:
    scraps = "We also have a collection of community scraps left by other members, available for any projects."
    charge = "We don't charge for small quantities of supplies, but for a big project bring your own supplies."
    scored = [Scored(0.67, 1, 0, scraps, "faq"), Scored(0.64, 1, 0, charge, "faq")]  # nearly as good: a rule
    question = "Is there leftover material from other members that I'm allowed to use for my project?"
    lead = yes_no_lines(question, scored, question_need(question), [])[0]
    assert lead.startswith("Yes") and "community scraps" in lead
    # asked whether one may, the rule nearly as good is read first, as before
    question = "Can I use leftover material from other members for my project for free?"
    assert "charge" in yes_no_lines(question, scored, question_need(question), [])[0]


def test_a_chinese_rule_opening_with_its_condition_is_read_by_its_last_clause() -> None:
    rules = ("社区准则", "禁止发布色情内容。\n如果发布的信息包含裸露内容，但其主要目的为艺术用途，"
             "且没有不必要的暴力内容，社区可能会允许发布该内容。")
    answer = answered("我是美术专业的，想发几张人体写生作品（有裸露），这种内容允许发吗？", *rules)
    assert answer.startswith("可以") and "可能会允许发布" in answer


@pytest.mark.parametrize(("modal", "negative", "lead"), [
    ("要", False, "需要"), ("要", True, "不需要"), ("得", False, "需要"), ("得", True, "不需要"),
    ("允许", False, "可以"), ("允许", True, "不可以"), ("可以", True, "不可以"), ("能", False, "能"),
])
def test_the_lead_is_said_in_the_words_of_need_and_permission(modal: str, negative: bool, lead: str) -> None:
    """要 / 得 are answered 需要 / 不需要, 允许 可以 / 不可以, as 可以 and 需要 themselves are."""
    assert yes_no_lead(Need("yesno", modal), "本项目收取费用[1]。", True, refuted=negative) == lead


def test_a_support_of_several_items_answers_with_the_item_that_says_what_is_asked() -> None:
    # the lead-in's list holds a refusal of something else ("Do not leave…"); the item asked of says yes
    handbook = ("Lab handbook", "Working hours are flexible:\n- Do not leave experiments running overnight "
                "unattended;\n- Remote work may be requested in special circumstances.\n"
                "- Holidays follow the university calendar.")
    answer = answered("My family has an emergency. Can I request to work remotely?", *handbook)
    assert answer.startswith("Yes") and "Remote work may be requested" in answer
    # the item asked of refuses: no, whatever the other items allow
    rules = ("Lab handbook", "Working hours are flexible:\n- You may bring guests during office hours;\n"
             "- Remote work is not permitted for first-year students.\n- Holidays follow the university calendar.")
    assert says_no(answered("I'm a first-year student. Can I request to work remotely?", *rules))


def test_a_word_hyphenated_in_the_question_and_spaced_in_the_rule_is_the_same_word() -> None:
    # "make-up" asked, "make up" written; "instead" asks nothing of its own
    exams = ("Exams", "We will have two in-class exams. The midterm takes place during the normal class time.\n"
             "No make up exams are given, except for medical reasons. For other issues please contact the instructor.")
    answer = answered("I have a family trip that clashes with the midterm. Can I sit a make-up exam instead?", *exams)
    assert says_no(answer) and "No make up exams are given" in answer


def test_an_article_number_before_a_colon_labels_the_rule_and_leads_in_nothing() -> None:
    """The clause holding what is asked is read, not the condition before it ("不能参加" says nothing of 请假)."""
    rules = ("理事会议事规则", "第一条：理事会每季度召开一次全体会议。\n"
             "第二条：理事如因故不能出席会议，必须提前向秘书处书面请假。")
    assert answered("下个月的理事会我出差去不了，需要提前请假吗？", *rules).startswith("需要")


def test_a_latin_word_the_evidence_names_elsewhere_is_part_of_the_subject() -> None:
    """"App" names the service (its definitions say so): the sentence saying the rest of what is asked supports
    the answer without repeating it. A Latin word no evidence says is what is asked: not stated."""
    service = ("小蜜蜂跑腿用户协议", "本协议所称平台，包括小蜜蜂App、微信小程序和官方网站。\n"
               "用户可以通过平台的转发入口将自己的订单详情转发给亲友查看。\n用户应妥善保管账户密码。")
    assert answered("我能用 App 把自己的订单详情转发给家人看吗？", *service).startswith("能")
    tool = ("打印助手使用说明", "打印助手支持 Windows 10 及以上版本，双击安装包即可安装。\n安装后首次运行需要登录。")
    assert answered("这个打印助手能装在 Mac 上用吗？", *tool).startswith("资料中未明确说明")
