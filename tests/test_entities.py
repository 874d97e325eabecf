"""Rule entity extraction and relation patterns on tricky sentences from a university finance office."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from lambdarag.graph.entities import entity_key, extract_entities
from lambdarag.graph.relations import extract_relations
from lambdarag.graph.schema import Entity, Relation

EVALDATA = Path(__file__).resolve().parents[2] / "shared" / "evaldata"


def names(text: str, kind: str) -> list[str]:
    return [e.name for e in extract_entities(text) if e.kind == kind]


def pattern_relations(sentence: str, subject: str | None = None) -> set[tuple[str, str, str]]:
    found = extract_relations(sentence, extract_entities(sentence), subject=subject)
    return {(r.source, r.relation, r.target) for r in found if r.relation != "co_occurs"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("预算科隶属财务处。", ["预算科", "财务处"]),
        ("报销单据由财务处审核。", ["财务处"]),  # leading particle trimmed
        ("学校财务处负责全校会计核算。", ["学校财务处"]),  # a qualifying word stays
        ("江城大学财务处办公地点在致远楼。", ["江城大学财务处"]),  # parent and unit are one name
        ("财务处下设综合办公室、预算科和会计核算科。", ["财务处", "综合办公室", "预算科", "会计核算科"]),
        ("税务与票据科负责发票开具。", ["税务与票据科"]),  # 与 inside a name is kept
        ("经科研院审核后报送校长办公会。", ["科研院", "校长办公会"]),
        ("学校财经工作领导小组是预算管理的决策机构。", ["学校财经工作领导小组"]),
        ("国家发展和改革委员会印发通知。", ["国家发展和改革委员会"]),
        ("经济与管理学院、外国语学院的学生。", ["经济与管理学院", "外国语学院"]),
        ("中国人民大学应用经济学院是哪一年组建的", ["中国人民大学应用经济学院"]),  # 应用 is not the verb 用
        ("请使用财务处的系统，先了解财务处的规定。", ["财务处", "财务处"]),
    ],
)
def test_organisations(text: str, expected: list[str]) -> None:
    assert names(text, "org") == expected


@pytest.mark.parametrize(
    "text",
    [
        "报账处理完毕后通知本人。",  # 处理 is a verb
        "全部单据统一办理，部分内容需补充。",  # 全部, 部分
        "这样做的好处是减少往返。",  # 好处
        "请按会计科目填写，科研项目另行处理。",  # 会计, 科研
        "各学院、该中心、到处、此处均不是机构名称。",  # particles before a bare suffix
        "城市间交通费按规定报销，不会影响社会保险。",  # 城市, 不会, 社会
        "依据江大财〔2022〕9号文件执行。",  # a document number
        "学生本科阶段所有费用均在学期初缴纳。",  # 本科, 所有
        "怎么办理报销？具体怎么办？",
        "与哪些国家的大学签订了院际学生交换协议",  # 大学签订了院 is a clause
    ],
)
def test_no_false_organisations(text: str) -> None:
    assert names(text, "org") == []


@pytest.mark.parametrize(
    ("text", "person", "role"),
    [
        ("处长张敏主持全面工作。", "张敏", "处长"),
        ("张敏处长分管预算科。", "张敏", "处长"),
        ("报账大厅负责人：李强，请工作日联系。", "李强", "负责人"),
        ("联系人 王芳，电话027-87651010。", "王芳", "联系人"),
        ("综合办公室刘芳（主任）负责文秘工作。", "刘芳", "主任"),
        ("副处长李建华分管会计核算科。", "李建华", "副处长"),
        ("欧阳明主任已审批。", "欧阳明", "主任"),
    ],
)
def test_people_next_to_roles(text: str, person: str, role: str) -> None:
    assert names(text, "person") == [person]
    assert role in names(text, "role")


@pytest.mark.parametrize(
    "text",
    [
        "项目负责人对经费使用负责。",  # 项目 is no name: 负责人 is written before a name
        "单位负责人签字后报销。",
        "经办人签字，部门负责人审批。",
        "主管部门负责解释。",  # 主管部门 is no role
    ],
)
def test_no_false_people(text: str) -> None:
    assert names(text, "person") == []


def test_regulations_phones_emails() -> None:
    text = ("依据《中央和国家机关差旅费管理办法》制定。咨询电话027-87654321，分机87651010转123，"
            "手机13812345678，邮箱zhangmin@jcu.edu.cn，日期20240701不是电话。")
    assert names(text, "regulation") == ["中央和国家机关差旅费管理办法"]
    assert names(text, "phone") == ["027-87654321", "87651010转123", "13812345678"]
    assert names(text, "email") == ["zhangmin@jcu.edu.cn"]


def test_dates_are_normalised() -> None:
    text = "本办法自2024年7月1日起施行，2023年3月起执行新标准，2022-09-01发布，二〇二一年修订。"
    assert names(text, "date") == ["2024-07-01", "2023-03", "2022-09-01", "2021"]


def test_amounts() -> None:
    text = "住宿费上限1,200元，伙食补助每人每天100元，单笔3.5万元以下，税率6%，租车500元/天。"
    assert names(text, "amount") == ["1,200元", "100元", "3.5万元", "6%", "500元/天"]


def test_places() -> None:
    text = "报账大厅位于致远楼一楼101室，财务处在致远楼三楼，另在湖北省武汉市设有办事处。东湖校区305室。"
    assert names(text, "place") == ["致远楼一楼101室", "致远楼三楼", "湖北省武汉市", "东湖校区", "305室"]


def test_spans_point_at_the_surface_text() -> None:
    text = "由财务处依据《差旅费管理办法》审核，联系电话027-87654321。"
    for entity in extract_entities(text):
        surface = text[entity.start:entity.end]
        assert entity.name == surface or entity.kind == "date"
    assert all(a.end <= b.start for a, b in itertools.pairwise(extract_entities(text)))


def test_entity_key_normalises_width_and_brackets() -> None:
    assert entity_key("《差旅费管理办法》") == "差旅费管理办法"
    assert entity_key("０２７－８７６５４３２１") == "027-87654321"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("预算科隶属财务处。", {("预算科", "belongs_to", "财务处")}),
        ("财务处下设综合办公室、预算科。",
         {("综合办公室", "belongs_to", "财务处"), ("预算科", "belongs_to", "财务处")}),
        ("《差旅费管理办法》依据《中央和国家机关差旅费管理办法》制定。",
         {("差旅费管理办法", "based_on", "中央和国家机关差旅费管理办法")}),
        ("会计核算科负责财务报表编制，主管报账大厅。", {("会计核算科", "responsible_for", "报账大厅")}),
        ("财务处制定《江城大学借款管理办法》。", {("江城大学借款管理办法", "issued_by", "财务处")}),
        ("报账大厅负责人张敏，联系电话027-87654321。",
         {("张敏", "responsible_for", "报账大厅"), ("张敏", "contact", "027-87654321"),
          ("报账大厅", "contact", "027-87654321")}),
        ("《江城大学差旅费管理办法》修订了《江城大学差旅费管理规定》。",
         {("江城大学差旅费管理办法", "revises", "江城大学差旅费管理规定")}),
    ],
)
def test_relation_patterns(sentence: str, expected: set[tuple[str, str, str]]) -> None:
    assert pattern_relations(sentence) == expected


def test_table_rows_name_people_and_their_units() -> None:
    row = "| 赵磊 | 科长 | 预算科 | 027-87651020 | 致远楼306室 | 负责年度预算编制，分管综合办公室、收费管理科 |"
    assert names(row, "person") == ["赵磊"]
    assert pattern_relations(row) >= {
        ("赵磊", "responsible_for", "预算科"), ("赵磊", "responsible_for", "综合办公室"),
        ("赵磊", "responsible_for", "收费管理科"),
    }
    assert names("| 科室 | 负责人 | 办公地点 |", "person") == []  # a header row


def test_self_reference_uses_the_document_subject() -> None:
    sentence = "本办法自2024年7月1日起施行，《江城大学差旅费管理规定》同时废止。"
    assert pattern_relations(sentence, subject="江城大学差旅费管理办法") == {
        ("江城大学差旅费管理办法", "repeals", "江城大学差旅费管理规定")
    }
    assert pattern_relations("本办法由财务处负责解释。", subject="江城大学预算管理办法") == {
        ("财务处", "responsible_for", "江城大学预算管理办法")
    }


def test_relations_stay_within_their_clause() -> None:
    sentence = "处长张敏负责全面工作，李建华处长分管预算科，刘芳（主任）电话87651010。"
    assert pattern_relations(sentence) == {("李建华", "responsible_for", "预算科"), ("刘芳", "contact", "87651010")}


def test_cooccurrence_edges_are_weak_and_skip_stated_pairs() -> None:
    sentence = "预算科隶属财务处，与科研院共同审核《预算管理办法》。"
    relations = extract_relations(sentence, extract_entities(sentence), cooccurrence_weight=0.25)
    weak = [r for r in relations if r.relation == "co_occurs"]
    assert weak and all(r.weight == 0.25 for r in weak)
    pairs = {frozenset((r.source, r.target)) for r in weak}
    assert frozenset(("预算科", "财务处")) not in pairs
    assert frozenset(("预算科", "科研院")) in pairs
    assert Relation("预算科", "belongs_to", "财务处", 1.0) in relations


def test_entities_are_frozen_records() -> None:
    entity = extract_entities("财务处")[0]
    assert entity == Entity("财务处", "org", 0, 3)
    with pytest.raises(AttributeError):
        entity.name = "x"  # type: ignore[misc]


@pytest.mark.eval
def test_extraction_on_real_admissions_text() -> None:
    """On DomainRAG passages: well-known organisations are found, and organisation names stay short."""
    corpus = EVALDATA / "domainrag_ruc" / "corpus.jsonl"
    if not corpus.exists():
        pytest.skip("evaluation data not present")
    orgs: dict[str, int] = {}
    with corpus.open(encoding="utf-8") as handle:
        for _, line in zip(range(600), handle, strict=False):
            for entity in extract_entities(json.loads(line)["text"]):
                if entity.kind == "org":
                    orgs[entity.name] = orgs.get(entity.name, 0) + 1
    assert {"中国人民大学", "教育部"} <= set(orgs)
    assert sum(len(name) <= 16 for name in orgs) / len(orgs) > 0.95


@pytest.mark.parametrize("sentence, person", [
    ("某公司副总经理王强负责此事。", "王强"),  # no person 司副: 副 belongs to the role
    ("市卫生健康委主任李明出席。", "李明"),  # no person 康委: 委 ends no name
    ("华中科技大学校长李明讲话。", "李明"),  # the university is an organisation, not a name after a role
    ("滨海石油大学处长刘洋签字。", "刘洋"),
])
def test_general_rules_keep_word_fragments_out_of_person_names(sentence: str, person: str) -> None:
    people = [e.name for e in extract_entities(sentence) if e.kind == "person"]
    assert people == [person]
