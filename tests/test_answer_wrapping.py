"""Hard-wrapped plain text (a licence filled to 72 columns) read as its writer's sentences by the answer."""

from __future__ import annotations

from lambdarag.answer.context import pack
from lambdarag.answer.extractive import extractive_answer
from lambdarag.answer.lines import blocks_joined, unwrapped_lines
from lambdarag.records import Chunk

# a line ends before the word that would not fit: at 72 columns that is up to a fifth of the line
FILLED = (
    "Any litigation relating to this License may be brought only in the\n"
    "courts of a jurisdiction where the defendant maintains its principal\n"
    "place of business and such litigation shall be governed by laws of that\n"
    "jurisdiction, without reference to its conflict-of-law provisions.\n"
    "Nothing in this Section shall prevent a party's ability to bring\n"
    "cross-claims or counter-claims.  If any provision of this License is\n"
    "held to be unenforceable, such provision shall be reformed only to the\n"
    "extent necessary to make it enforceable, and no further, under Section\n"
    "2.1 of this License.\n"
)


def test_lines_of_a_text_filled_to_a_narrow_width_are_sentences_again() -> None:
    assert unwrapped_lines(FILLED) == [
        "Any litigation relating to this License may be brought only in the courts of a jurisdiction where the "
        "defendant maintains its principal place of business and such litigation shall be governed by laws of that "
        "jurisdiction, without reference to its conflict-of-law provisions.",
        # 64 of 71 columns: short of the width by the word carried over; "2.1 of" is a section number, no item
        "Nothing in this Section shall prevent a party's ability to bring cross-claims or counter-claims.  If any "
        "provision of this License is held to be unenforceable, such provision shall be reformed only to the extent "
        "necessary to make it enforceable, and no further, under Section 2.1 of this License."]
    # a numbered item after a wrapped line still starts its own line
    assert unwrapped_lines(FILLED.replace("2.1 of this License.", "2. Definitions"))[-1] == "2. Definitions"


def test_a_line_ending_in_a_web_address_ends_there() -> None:
    faq = ("How do I program my PCB?\n"
           "    Our PCBs are programmed using VIA, a desktop application that allows on-the-fly key-remapping without "
           "having to flash your PCB. You can download the latest release at https://example.com/\n"
           "How do I clean my board?\n"
           "    Use some warm water and a drop or two of soap.\n")
    lines = unwrapped_lines(faq)
    assert lines[1].endswith("https://example.com/") and lines[2] == "How do I clean my board?"
    # an address a wrapped sentence goes on after still opens its next line in lower case, and runs on
    assert unwrapped_lines(FILLED.replace("principal\n", "https://example.com/\n"))[0].endswith("provisions.")


def test_a_list_item_over_one_sub_item_names_its_field() -> None:
    from lambdarag.answer.lines import labelled_items

    rules = ["* 人数", "  * 目标人数210人", "* 队伍情况", "  * 每组3人", "* 参与流程", "* 组队报名参加比赛",
             "- Team size", "  - 3 members", "- Prizes", "  - First: $500", "  - Second: $200"]
    assert labelled_items(rules) == ["* 人数：目标人数210人", "* 队伍情况：每组3人", "* 参与流程", "* 组队报名参加比赛",
                                     "- Team size: 3 members", "- Prizes", "  - First: $500", "  - Second: $200"]
    assert unwrapped_lines("* 队伍情况\n  * 每组3人\n") == ["* 队伍情况：每组3人"]


def test_chinese_fills_its_lines_to_the_character_a_shorter_line_ended_there() -> None:
    text = ("在继续做好一年级学生暑期程序设计综合训练工作基础上加强实践和实验性课程的建设并\n"
            "完善实践教学体系，提高学生动手能力和创新能力，形成有特色的实践教学模式与评价\n"
            "在继续做好一年级学生暑期程序设计综合训练工作基础上加强\n"
            "双选认证制度")
    lines = unwrapped_lines(text)
    assert lines[-1] == "双选认证制度"  # a heading after a line 12 characters short of the width
    assert lines[0].startswith("在继续做好") and "建设并完善实践教学体系" in lines[0]


def test_an_answer_quotes_the_whole_sentence_of_a_wrapped_rule() -> None:
    chunk = Chunk("mpl#1", "mpl", "Mozilla Public License", "Mozilla Public License > 8. Litigation", FILLED)
    packed = pack({}, ["mpl#1"], [], {"mpl#1": chunk}, max_chars=3500)
    answer = extractive_answer("Where can litigation relating to the licence be brought?", packed, "fact", {},
                               ["litigation", "relating", "licence", "brought"])
    assert answer.startswith("Any litigation relating to this License may be brought only in the courts of a "
                             "jurisdiction where the defendant maintains its principal place of business")


def test_slots_read_a_text_the_page_width_broke_as_its_sentences() -> None:
    from lambdarag.answer.procedure_rules import process_slots
    from lambdarag.answer.slot_rules import person_slots

    rules = Chunk("fund#1", "fund", "住房公积金提取规定", "住房公积金提取规定 > 办理", (
        "第五条 职工提取住房公积金，应当持本人身份证和相关证明材料，到住房公积金\n"
        "管理中心服务网点办理，也可通过网上服务大厅申请。\n"
        "第六条 管理中心自受理申请之日起3个工作日内作出准予提取或者不准提取的决\n"
        "定。联系人：住房公积金管理中心王老师，咨询电话：010-6512\n"
        "3456。"))
    assert process_slots("提取公积金去哪里办理？", [rules])["where"] == "住房公积金管理中心服务网点"
    assert person_slots("提取公积金的联系人和电话是什么？", [rules]).get("phone") == "010-65123456"
    names = unwrapped_lines("学院曾聘请多位诺贝尔文学奖得主来访讲学，如1986年得主索因卡(Wole\n"
                            "Soyinka)、2010年得主略萨(Mario Vargas Llosa)等人，并与\n学生座谈交流，反响热烈。")
    assert names == ["学院曾聘请多位诺贝尔文学奖得主来访讲学，如1986年得主索因卡(Wole Soyinka)、2010年得主略萨(Mario "
                     "Vargas Llosa)等人，并与学生座谈交流，反响热烈。"]  # a Latin name keeps its space


def test_a_page_number_between_the_halves_of_a_sentence_is_left_out() -> None:
    chinese = ("第六条 申请人应当在签订劳动合同之日起6个月内，向就业所在地区人力社保局提\n— 3 —\n"
               "出申请，逾期不予受理。第七条 申请人提交材料后，区人力社保局应当在5个工作日\n内完成初审。")
    assert unwrapped_lines(chinese) == [
        "第六条 申请人应当在签订劳动合同之日起6个月内，向就业所在地区人力社保局提出申请，"
        "逾期不予受理。第七条 申请人提交材料后，区人力社保局应当在5个工作日内完成初审。"]
    english = ("The Company may terminate this agreement at any time by giving the employee\nPage 3 of 10\n"
               "written notice of not less than thirty days, as set out in clause 12.")
    assert unwrapped_lines(english) == ["The Company may terminate this agreement at any time by giving the employee "
                                        "written notice of not less than thirty days, as set out in clause 12."]
    # after a closed sentence, or before a blank line, a page number is a line of its own (and never an answer)
    assert unwrapped_lines("本办法自2024年1月1日起施行。\n— 3 —\n第八条 其他事项。") == [
        "本办法自2024年1月1日起施行。", "— 3 —", "第八条 其他事项。"]


def test_a_sentence_runs_on_to_a_line_opening_in_lower_case_whatever_the_chunks_longest_lines() -> None:
    # two long field lines raise the width the chunk's lines are measured against; the wrapped sentence still runs on
    text = ("Twelve volunteers, recruited from a local rowing club, kept a daily\n"
            "diary of their training load and sleep for the whole season of racing.\n"
            "Instrument: a wrist-worn accelerometer sampling at fifty readings per second on the non-dominant arm.\n"
            "Storage: every reading was kept on encrypted drives held by the department for a period of ten years.\n"
            "Outcome Measures\n"
            "- sleep duration\n"
            "- resting heart rate")
    lines = unwrapped_lines(text)
    assert lines[0] == ("Twelve volunteers, recruited from a local rowing club, kept a daily diary of their training "
                        "load and sleep for the whole season of racing.")
    assert lines[-2:] == ["- sleep duration", "- resting heart rate"]  # items open in lower case: never run on
    assert "Outcome Measures" in lines


def test_a_sentence_runs_on_to_a_line_opening_with_a_figure_but_not_to_a_numbered_item() -> None:
    text = ("Blood samples and a short questionnaire were collected at each visit for all n =\n"
            "120 volunteers who completed the study, over a period of\n"
            "18 months in the two clinics of the region.\n"
            "Steps taken by the nurse on each visit were the following two\n"
            "1. Weigh the volunteer.\n"
            "2. Take the sample.")
    lines = unwrapped_lines(text)
    assert lines[0] == ("Blood samples and a short questionnaire were collected at each visit for all n = 120 "
                        "volunteers who completed the study, over a period of 18 months in the two clinics of the "
                        "region.")
    assert lines[-2:] == ["1. Weigh the volunteer.", "2. Take the sample."]


def test_a_sentence_runs_on_after_a_word_no_sentence_ends_with_and_to_a_word_in_emphasis() -> None:
    text = ("- The person who finds a problem in the library reports it privately on\n"
            "  Tracker. Reports filed there reach the maintainers only.\n"
            "Anyone who acts alone must report what they did to the committee by e-mailing\n"
            "*committee@example.org*\n"
            "within a day.\n"
            "* Guests may not use the machines.")
    lines = unwrapped_lines(text)
    assert lines[0] == ("- The person who finds a problem in the library reports it privately on Tracker. Reports "
                        "filed there reach the maintainers only.")
    assert lines[1].startswith("Anyone who acts alone must report what they did to the committee by e-mailing "
                               "*committee@example.org*")
    assert lines[-1] == "* Guests may not use the machines."


def test_an_address_block_after_the_sentence_announcing_it_is_read_with_it() -> None:
    """"…mailed to:" then an address one short line each: one sentence, which answers where to send it; a label
    of a list, a literal block of code and lines closed by a full stop stay apart."""
    lines = ["Applications can be submitted in person or mailed to:", "Parking Assistance Center",
             "250 Main Plaza, Suite 6300", "Oakland, CA 94612", "Hours: Monday to Friday from 9 a.m. to 4:30 p.m."]
    assert blocks_joined(lines)[0] == ("Applications can be submitted in person or mailed to: Parking Assistance "
                                       "Center, 250 Main Plaza, Suite 6300, Oakland, CA 94612.")
    assert blocks_joined(lines)[1] == lines[-1]
    assert blocks_joined(["本科专业：", "历史学", "考古学"]) == ["本科专业：", "历史学", "考古学"]  # a list's label
    code = ["The corpus frequencies of the topics are listed below::", ">>> data.names[:3]", "['E11', 'ECAT']"]
    assert blocks_joined(code) == code
    told = ["Applications can be submitted in person or mailed to:", "The office is closed.", "Call us first."]
    assert blocks_joined(told) == told
    chunk = Chunk("rpp#1", "rpp", "Residential parking permits", "Residential parking permits",
                  "The cost of a permit varies by area.\n" + "\n".join(lines))
    p = pack({}, ["rpp#1"], [], {"rpp#1": chunk}, max_chars=3500)
    answer = extractive_answer("Where do I mail my residential parking permit application?", p, "fact", {},
                               ["mail", "residential", "parking", "permit", "application"])
    assert answer.startswith("Applications can be submitted") and "250 Main Plaza" in answer.split("[1]")[0]
