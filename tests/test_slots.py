"""Slot filling: rules for person / process / data on small chunks, the LLM JSON path and its fallbacks."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from fake_openai import FakeOpenAI
from llm_clients import client

from lambdarag.answer.slots import SlotResult, document_title, fill_slots, slot_evidence, validate_slots
from lambdarag.answer.table_text import parse_table
from lambdarag.config.load import load_config
from lambdarag.config.schema import Config
from lambdarag.models.llm import LLMClient
from lambdarag.records import Chunk
from lambdarag.text.patterns import CONTACT_PHONE

CONTACTS = Chunk(
    "contacts#0001", "contacts", "财务处通讯录", "财务处通讯录 > 处领导及科室负责人",
    "财务处处领导及科室负责人通讯录（2024年9月）\n"
    "| 姓名 | 职务 | 所属部门 | 联系方式 / 办公电话 | 联系方式 / 电子邮箱 | 办公室 | 主要职责 |\n"
    "| 赵磊 | 科长 | 预算科 | 027-87651020 | zhaolei@jcu.edu.cn | 致远楼306室 | 学校年度预算编制、决算报告编制 |\n"
    "| 吴涛 | 科长 | 科研经费管理科 | 027-87651050 | wutao@jcu.edu.cn | 致远楼312室 | 纵向、横向科研经费入账与核算 |\n",
    locator="工作表 处领导及科室负责人", is_table=True,
)
FAQ = Chunk(
    "faq#0003", "faq", "报账大厅常见问题", "报账大厅常见问题 > 咨询方式",
    "差旅费报销请咨询报账大厅2号窗口 马骏，电话027-87651102；报账大厅负责人 张敏，电话027-87651100。",
)
STEPS = Chunk(
    "travel#0002", "travel", "差旅费报销流程", "差旅费报销流程 > 二、办理流程",
    "1. 出差前在网上报销系统填写出差审批单，经单位负责人审批。\n"
    "2. 返回后30天内登录网上报销系统填写差旅费报销单。\n"
    "3. 将报销单及纸质票据投递至报账大厅2号窗口。\n"
    "4. 会计人员在5个工作日内完成审核。",
)
MATERIALS = Chunk(
    "travel#0003", "travel", "差旅费报销流程", "差旅费报销流程 > 三、所需材料",
    "表1 差旅费报销材料清单\n| 材料类别 | 材料名称 | 说明 |\n| 审批类 | 出差审批单 | 审批签字齐全 |\n"
    "| 票据类 | 住宿费发票 | 须附住宿明细清单 |",
    is_table=True,
)
BASIS = Chunk(
    "travel#0000", "travel", "差旅费报销流程", "差旅费报销流程",
    "依据：《江城大学国内差旅费管理办法》（2024修订版）。出差返回超过30天报销的，须由单位负责人书面说明原因。",
)
FEES = Chunk(
    "fees#0001", "fees", "学费收费标准", "学费收费标准 > 本科",
    "2024级本科学费标准\n| 专业类别 | 学费（元/年） | 住宿费（元/年） |\n| 文史类 | 4680 | 1200 |\n"
    "| 理工类 | 5200 | 1200 |\n| 艺术类 | 10000 | 1500 |",
    is_table=True,
)


@pytest.fixture(scope="module")
def config() -> Config:
    return load_config()


def test_table_parser_reads_pipe_rows_with_caption() -> None:
    table = parse_table(FEES.text)
    assert table is not None
    assert table.caption == "2024级本科学费标准"
    assert table.header == ("专业类别", "学费（元/年）", "住宿费（元/年）")
    assert table.rows[1] == ("理工类", "5200", "1200")
    # one column, each cell fenced by the separator on both sides, is a table too; a line with one bar is not
    single = parse_table("推荐中学名单\n| 中学名称 |\n| 第一中学 |")
    assert single is not None and single.header == ("中学名称",) and single.rows == (("第一中学",),)
    assert parse_table("甲 | \n乙") is None and parse_table("| |\n| |") is None
    # the rest of a table whose header was in the chunk before: every row numbered, the first one too, all data
    rest = parse_table("| 7 | 法学类 |\n| 8 | 外语类 |")
    assert rest is not None and rest.header == () and rest.rows == (("7", "法学类"), ("8", "外语类"))


def test_a_header_of_two_rows_is_read_as_one() -> None:
    from lambdarag.answer.table_lookup import lookup

    text = ("各学院经费（万元）\n| 学院 | 2023年 | 2024年 |\n| 预算 | 决算 | 预算 | 决算 |\n"
            "| 文学院 | 120 | 118 | 130 | 126 |\n| 理学院 | 210 | 205 | 220 | 219 |")
    table = parse_table(text)
    assert table is not None
    assert table.header == ("学院", "2023年 预算", "2023年 决算", "2024年 预算", "2024年 决算")
    assert table.rows == (("文学院", "120", "118", "130", "126"), ("理学院", "210", "205", "220", "219"))
    found = lookup(table, "理学院2024年的决算是多少？")
    assert found is not None and found.rows == (1,) and found.columns == (4,)
    # a second row of words over rows of words is data, and one as wide as the header is not a sub-header
    names = parse_table("| 姓名 | 职务 |\n| 张三 | 处长 |\n| 李四 | 科长 |")
    assert names is not None and names.header == ("姓名", "职务") and len(names.rows) == 2
    years = parse_table("| 项目 | 收入 | 支出 |\n| 2023年 | 2024年 | 2023年 | 2024年 |\n| 学费 | 10 | 12 | 3 | 4 |"
                        "\n| 住宿费 | 5 | 6 | 1 | 2 |")
    assert years is not None and years.header[1:3] == ("收入 2023年", "收入 2024年") and years.rows[0][4] == "4"
    same = parse_table("| 学院 | 2023年 | 2024年 |\n| 合计 | 小计 | 总计 |\n| 文学院 | 120 | 130 |")
    assert same is not None and same.header == ("学院", "2023年", "2024年") and len(same.rows) == 2


def test_a_code_names_its_row_and_an_amount_does_not() -> None:
    from lambdarag.answer.table_lookup import lookup

    table = parse_table("| 行业 | 公司代码 | 公司简称 | 营业收入 |\n| 农业 | 000998 | 甲种业 | 35210 |\n"
                        "| 农业 | 600108 | 乙集团 | 8800 |")
    assert table is not None
    found = lookup(table, "公司代码600108的公司简称是什么？")  # a code of five digits or more names its row
    assert found is not None and found.rows == (1,) and found.columns == (2,)
    assert lookup(table, "营业收入8800的是哪家？") is None  # a figure under five digits names none, as before
    # 代码 names the row's key column here, not the code column asked of: both 行业 columns answer
    sectors = parse_table("| 简称 | 公司代码 | 行业代码 | 行业名称 |\n| 甲种业 | 000998 | 01 | 农业 |\n"
                          "| 丙证券 | 600030 | 67 | 资本市场服务 |")
    assert sectors is not None
    found = lookup(sectors, "代码为600030的公司属于哪个行业？")
    assert found is not None and found.rows == (1,) and found.columns == (2, 3)


def test_person_rules_pick_the_matching_row_of_a_contact_table(config: Config) -> None:
    result = fill_slots("person", "管科研经费的科长是哪位老师？邮箱是什么？", [FAQ, CONTACTS], None, config)
    assert result.method == "rules" and result.error is None
    slots = result.slots
    assert (slots["name"], slots["title"], slots["department"]) == ("吴涛", "科长", "科研经费管理科")
    assert slots["email"] == "wutao@jcu.edu.cn" and slots["phone"] == "027-87651050"
    assert "入账" in slots["duties"] and slots["office"] == "致远楼312室"
    assert slots["sources"]["email"] == "contacts#0001"


def test_person_rules_fall_back_to_prose_with_a_phone(config: Config) -> None:
    slots = fill_slots("person", "差旅费报销找谁咨询？电话多少", [FAQ], None, config).slots
    assert slots["name"] == "马骏" and slots["phone"] == "027-87651102"


def test_a_local_number_after_a_phone_label_is_the_phone_of_its_page(config: Config) -> None:
    # a campus page writes its clinic's number without the area code, in two groups; an e-mail address on another
    # page must not answer for it
    clinic = Chunk("health#0001", "health", "校医院", "校医院 > 门诊部", "电话：8801 0120\n开放时间：周一至周五")
    other = Chunk("exchange#0003", "exchange", "交流须知", "交流须知 > 总结", "总结请发送至邮箱：xchg@example.edu")
    slots = fill_slots("person", "校医院门诊部的电话是多少？", [other, clinic], None, config).slots
    assert slots["phone"] == "8801 0120" and slots["sources"]["phone"] == "health#0001"
    assert CONTACT_PHONE.search("热线：8765-4321") and CONTACT_PHONE.search("Tel: 555 1234")
    assert not CONTACT_PHONE.search("金额：8801 0120元") and not CONTACT_PHONE.search("共计 88010120 人次")


def test_a_contact_list_one_cell_a_line_gives_the_phone_of_the_place_asked(config: Config) -> None:
    # a directory flattened from a page layout: place, person, phone, each on its own line; the page's
    # title says whose directory it is, so a phone line elsewhere sharing more question words loses
    directory = Chunk("desk#0001", "desk", "招生咨询联系方式", "招生咨询联系方式",
                      "华东\n李老师\n13800000001\n华南\n王老师\n陈老师\n13800000002\n13800000003\n西北\n周老师\n13800000004")
    other = Chunk("art#0000", "art", "艺术类报名", "艺术类报名", "艺术类招生咨询电话（全国） 13900000009")
    slots = fill_slots("person", "华南地区的招生咨询找谁？", [other, directory], None, config).slots
    assert slots["phone"] == "13800000002" and slots["sources"]["phone"] == "desk#0001"
    assert slots["mention"] == "华南 王老师 陈老师 13800000002"


def test_process_rules_collect_steps_materials_where_and_basis(config: Config) -> None:
    slots = fill_slots("process", "差旅费怎么报销？需要什么材料？", [STEPS, MATERIALS, BASIS], None, config).slots
    assert slots["steps"][0].startswith("出差前") and len(slots["steps"]) == 4
    assert slots["materials"] == ["出差审批单（审批签字齐全）", "住宿费发票（须附住宿明细清单）"]
    assert "2号窗口" in slots["where"]
    assert slots["basis"] == ["《江城大学国内差旅费管理办法》"]
    assert any("30天" in c for c in slots["conditions"])
    assert slots["sources"]["steps"] == "travel#0002" and slots["sources"]["materials"] == "travel#0003"


def test_data_rules_find_the_cell_with_row_and_column_headers(config: Config) -> None:
    slots = fill_slots("data", "理工类专业的学费是多少？", [STEPS, FEES], None, config).slots
    assert (slots["row"], slots["column"], slots["value"]) == ("理工类", "学费（元/年）", "5200")
    assert slots["source"] == "fees#0001" and slots["table"] == "2024级本科学费标准"


def test_other_intents_and_disabled_slots_are_skipped(config: Config) -> None:
    assert fill_slots("fact", "住宿费标准是多少", [FEES], None, config) == SlotResult()
    off = dataclasses.replace(config, slots=dataclasses.replace(config.slots, enabled=False))
    assert fill_slots("person", "预算科科长是谁", [CONTACTS], None, off).method == "skipped"


def test_validate_slots_keeps_schema_fields_and_rejects_non_objects() -> None:
    assert validate_slots("process", {"steps": "只有一步", "extra": 1, "where": ""}) == {"steps": ["只有一步"]}
    with pytest.raises(ValueError):
        validate_slots("person", ["赵磊"])
    with pytest.raises(ValueError):
        validate_slots("person", {"name": {"first": "磊"}})


def _llm_config(config: Config, base_url: str) -> tuple[Config, LLMClient]:
    cfg = dataclasses.replace(config, llm=dataclasses.replace(config.llm, enabled=True, base_url=base_url,
                                                               timeout_s=2.0, max_retries=0))
    return cfg, client(cfg)


def test_llm_slots_are_parsed_and_attributed_to_their_chunk(config: Config) -> None:
    reply = {"name": "赵磊", "title": "科长", "phone": "027-87651020"}
    with FakeOpenAI(chat=lambda messages: "```json\n" + json.dumps(reply, ensure_ascii=False) + "\n```") as fake:
        cfg, llm = _llm_config(config, fake.base_url)
        result = fill_slots("person", "预算科的科长是谁？", [FAQ, CONTACTS], llm, cfg)
        prompt = fake.requests_to("/v1/chat/completions")[0].body["messages"][-1]["content"]
    assert result.method == "llm" and result.error is None
    assert result.slots["name"] == "赵磊" and result.slots["sources"]["name"] == "contacts#0001"
    assert "预算科的科长是谁" in prompt and "027-87651020" in prompt


def test_malformed_llm_json_gets_one_repair_then_rules(config: Config) -> None:
    replies = ["这不是JSON", "还是不是"]

    def chat(messages: list[dict[str, Any]]) -> str:
        return replies.pop(0) if replies else "{}"

    with FakeOpenAI(chat=chat) as fake:
        cfg, llm = _llm_config(config, fake.base_url)
        result = fill_slots("person", "预算科的科长是谁？", [CONTACTS], llm, cfg)
        calls = fake.requests_to("/v1/chat/completions")
    assert len(calls) == 2 and calls[1].body["messages"][-1]["content"] == "只输出JSON"
    assert result.method == "rules" and result.error and "JSON" in result.error
    assert result.slots["name"] == "赵磊"


def test_llm_repair_that_succeeds_is_used(config: Config) -> None:
    replies = ["好的，我来抽取", '{"value": "5200", "row": "理工类", "column": "学费（元/年）"}']
    with FakeOpenAI(chat=lambda messages: replies.pop(0)) as fake:
        cfg, llm = _llm_config(config, fake.base_url)
        result = fill_slots("data", "理工类学费多少", [FEES], llm, cfg)
    assert result.method == "llm" and result.slots["value"] == "5200"


def test_llm_timeout_degrades_to_rules_with_the_error(config: Config) -> None:
    with FakeOpenAI(chat=lambda messages: "{}") as fake:
        fake.delay_s = 1.0
        cfg = dataclasses.replace(config, llm=dataclasses.replace(config.llm, enabled=True, base_url=fake.base_url,
                                                                   timeout_s=0.2, max_retries=0))
        result = fill_slots("data", "理工类学费多少", [FEES], client(cfg), cfg)
    assert result.method == "rules" and result.error and "timed out" in result.error
    assert result.slots["value"] == "5200"


STATS = Chunk(
    "stats#0001", "stats", "报账统计", "报账统计",
    "2023年度报账大厅月度业务量\n| 月份 | 受理单数（笔） | 退单率 |\n| 1月 | 2150 | 4.5% |\n| 12月 | 8,202 | 4.1% |\n"
    "| 3月 | 4620 | 4.5% |\n| 注：数据来源于网上报销系统，统计截至2023年12月31日。 |  |  |",
    is_table=True,
)
LIMITS = Chunk(
    "limits#0001", "limits", "住宿费限额", "住宿费限额",
    "| 城市 | A类人员 | B类人员 | C类人员 |\n| 北京 | 800元 | 600元 | 500元 |\n| 广州 | 750元 | 550元 | 450元 |",
    is_table=True,
)


def test_superlative_questions_take_the_extreme_row_and_footnotes_are_not_rows(config: Config) -> None:
    slots = fill_slots("data", "哪个月受理单数最多？有多少笔？", [STATS], None, config).slots
    assert (slots["row"], slots["value"]) == ("12月", "8,202")
    fewest = fill_slots("data", "哪个月受理单数最少？", [STATS], None, config).slots
    assert fewest["row"] == "1月"
    table = parse_table(STATS.text)
    assert table is not None and [r[0] for r in table.rows] == ["1月", "12月", "3月"]


def test_a_letter_before_a_cjk_word_tells_columns_apart(config: Config) -> None:
    slots = fill_slots("data", "C类人员去广州出差住宿限额多少？", [LIMITS], None, config).slots
    assert (slots["row"], slots["column"], slots["value"]) == ("广州", "C类人员", "450元")


def test_process_evidence_reads_the_whole_procedure_document() -> None:
    other = Chunk("policy#0003", "policy", "差旅费管理办法", "差旅费管理办法 > 第三章", "住宿费按限额报销。")
    chunks = {c.chunk_id: c for c in (BASIS, STEPS, MATERIALS, other)}
    evidence = slot_evidence("process", "差旅费报销流程是怎样的？", [other, MATERIALS], chunks)
    assert [c.chunk_id for c in evidence] == ["travel#0000", "travel#0002", "travel#0003", "policy#0003"]
    assert slot_evidence("fact", "差旅费报销流程？", [other], chunks) == [other]


def test_process_steps_keep_the_line_that_introduces_them(config: Config) -> None:
    budget = Chunk("budget#0003", "budget", "预算管理办法", "预算管理办法 > 第二章 预算编制",
                   "第六条 年度预算采取“二上二下”程序编制：\n1. 一上：10月31日前报送预算建议。\n"
                   "2. 一下：11月30日前下达控制数。\n3. 二上：12月15日前报送正式预算。")
    slots = fill_slots("process", "年度预算怎么编制？", [budget], None, config).slots
    assert slots["lead"] == "年度预算采取“二上二下”程序编制" and len(slots["steps"]) == 3


def test_a_line_opening_with_a_decimal_is_no_step(config: Config) -> None:
    notes = Chunk("notes#0002", "notes", "Annual report", "Annual report",
                  "Securities registered pursuant to Section 12(b) of the Act:\n"
                  "1.650% Notes Due May 2024 ABC24 New York Stock Exchange\n"
                  "2.250% Notes Due November 2028 ABC28 New York Stock Exchange\n"
                  "3.100% Notes Due May 2035 ABC35 New York Stock Exchange")
    slots = fill_slots("process", "How is the inventory turnover ratio calculated?", [notes], None, config).slots
    assert not slots.get("steps"), slots


def test_a_plain_text_procedure_is_titled_by_its_first_line() -> None:
    head = Chunk("loan#0000", "loan", "loan", "loan", "江城大学科研经费借款流程\n发布单位：财务处")
    steps = Chunk("loan#0004", "loan", "loan", "loan > 四、办理步骤", "1. 填写借款单；\n2. 交至4号窗口。")
    slides = Chunk("slides#0000", "slides", "科研经费管理要点", "科研经费管理要点", "科研经费管理科 吴涛")
    chunks = {c.chunk_id: c for c in (head, steps, slides)}
    assert document_title("loan", "loan", chunks) == "江城大学科研经费借款流程"
    evidence = slot_evidence("process", "科研经费借款怎么办理？", [slides, head], chunks)
    assert [c.chunk_id for c in evidence][:2] == ["loan#0000", "loan#0004"]


def test_a_person_row_named_by_its_cells_beats_one_sharing_more_words(config: Config) -> None:
    deputy = Chunk("leaders#0000", "leaders", "处领导", "处领导",
                   "| 姓名 | 职务 | 办公电话 | 主要职责 |\n| 陈志强 | 副处长 | 027-87651003 | 分管科研经费管理科 |\n"
                   "| 吴涛 | 科长 | 027-87651050 | 科研经费入账 |", is_table=True)
    slots = fill_slots("person", "管科研经费的科长是哪位老师？", [deputy], None, config).slots
    assert slots["name"] == "吴涛"


def test_the_organisation_a_directory_is_of_picks_none_of_its_rows(config: Config) -> None:
    # the question names the library whose directory this is; the row whose duties it asks about is meant, not
    # the row whose department cell repeats the library's name
    directory = Chunk("dir#0000", "dir", "某大学图书馆通讯录", "某大学图书馆通讯录",
                      "| 姓名 | 职务 | 部门 | 办公电话 | 主要职责 |\n"
                      "| 陈立 | 馆长 | 图书馆 | 027-1000 | 主持图书馆全面工作 |\n"
                      "| 王芳 | 主任 | 流通部 | 027-1002 | 图书借还、逾期罚款处理 |", is_table=True)
    slots = fill_slots("person", "逾期罚款的事情应该找图书馆哪位老师？", [directory], None, config).slots
    assert slots["name"] == "王芳"


def test_a_table_of_contents_is_not_a_procedure(config: Config) -> None:
    contents = Chunk("filing#0001", "filing", "Annual report", "Annual report", "Table of Contents\n"
                     "1. Business 1\n2. Properties 37\n3. Legal Proceedings 37\n4. Mine Safety Disclosures 38")
    assert "steps" not in fill_slots("process", "How has the tax rate changed?", [contents], None, config).slots
    chinese = dataclasses.replace(contents, text="1. 总则……1\n2. 报销范围……3\n3. 附则……9")
    assert "steps" not in fill_slots("process", "报销怎么办理？", [chinese], None, config).slots
    steps = dataclasses.replace(contents, text="1. 填写报销单\n2. 部门负责人签字 2\n3. 提交财务处审核")
    assert len(fill_slots("process", "报销怎么办理？", [steps], None, config).slots["steps"]) == 3


REGULATION = Chunk(
    "rule#0002", "rule", "某市补助实施办法", "某市补助实施办法 > 第三章 申请程序",
    "第六条 申请人应当在签订合同之日起6个月内，向所在区主管部门提出申请。\n第七条 申请时应当提交以下材料：\n"
    "（一）《补助申请表》；\n（二）身份证复印件。\n第八条 主管部门自受理之日起15个工作日内完成审核。\n"
    "第九条 申请人应当持本人身份证到区政务服务中心办理。依据《某市补助实施办法》执行。",
)


def test_a_regulations_articles_are_no_steps_and_a_form_is_no_basis(config: Config) -> None:
    # a chapter called 申请程序 holds articles, not the steps of a procedure; the answer reads them as sentences
    slots = fill_slots("process", "补助怎么申请？", [REGULATION], None, config).slots
    assert "steps" not in slots and "conditions" not in slots
    assert slots["basis"] == ["《某市补助实施办法》"]  # 《补助申请表》 is a form to fill in, not a basis
    assert slots["where"] == "区政务服务中心"


def test_procedure_slots_come_from_the_document_that_matches_the_question_only(config: Config) -> None:
    # the regulation matched best (slot_evidence put it first); another document's numbered steps answer another
    # question and are not borrowed
    slots = fill_slots("process", "补助怎么申请？", [REGULATION, STEPS], None, config).slots
    assert "steps" not in slots and set(slots["sources"].values()) == {"rule#0002"}


def test_numbered_section_headings_are_no_steps(config: Config) -> None:
    policy = Chunk("travel-policy#0000", "travel-policy", "Staff Travel Policy", "Staff Travel Policy",
                   "1. Scope\nThis policy applies to all employees.\n2. Approval\nTrips are approved by the line "
                   "manager.\n3. Claims\nClaims are submitted within 30 days.")
    assert "steps" not in fill_slots("process", "How do I claim expenses?", [policy], None, config).slots
    steps = Chunk("claims#0000", "claims", "Claiming expenses", "Claiming expenses",
                  "1. Fill in the claim form.\n2. Attach the receipts.\n3. Send it to the finance office.")
    assert fill_slots("process", "How do I claim expenses?", [steps], None, config).slots["steps"] == [
        "Fill in the claim form.", "Attach the receipts.", "Send it to the finance office."]


def test_the_kind_of_a_phone_is_no_name(config: Config) -> None:
    notice = Chunk("desk#0002", "desk", "招生咨询", "招生咨询", "咨询电话：010-62510000。值班电话 010-62510001。")
    slots = fill_slots("person", "招生咨询电话是多少？", [notice], None, config).slots
    assert slots["phone"] == "010-62510000" and "name" not in slots
    named = Chunk("desk#0003", "desk", "招生咨询", "招生咨询", "联系人王芳，电话010-62510002。")
    assert fill_slots("person", "招生咨询找谁？", [named], None, config).slots["name"] == "王芳"
