"""The entity-graph channel on a small finance-office corpus: build, walk, relation paths, manifests, LLM extras."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI

from lambdarag.channels import graph
from lambdarag.channels.base import load_channels
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.errors import IndexMismatchError
from lambdarag.graph import schema
from lambdarag.ingest.store import write_chunks
from lambdarag.records import Chunk

REBUILD = "python scripts/wiki_compile.py --domain finance"

CORPUS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "overview": ("江城大学财务处概况", [
        ("一、基本情况", "江城大学财务处是学校统一管理财务工作的职能部门，办公地点位于致远楼三楼。"),
        ("二、机构设置", "财务处下设综合办公室、预算科、会计核算科。预算科隶属财务处，负责编制学校年度预算和决算。"),
        ("三、报账大厅", "报账大厅隶属会计核算科，负责报账单据的受理和审核。"
                     "报账大厅负责人张敏，联系电话027-87654321。"),
        ("四、处领导", "处长李建华主持财务处全面工作。副处长王丽分管会计核算科。"),
    ]),
    "travel-2024": ("江城大学差旅费管理办法（2024修订版）", [
        ("第一章 总则", "第一条 为规范差旅费管理，依据《中央和国家机关差旅费管理办法》，结合学校实际，制定本办法。"),
        ("第三章 住宿费", "第六条 住宿费在限额标准内凭发票报销，一类城市每人每天900元，自2024年7月1日起执行。"),
        ("第六章 附则", "第十四条 本办法由财务处负责解释。"
                     "第十五条 本办法自2024年7月1日起施行，《江城大学差旅费管理规定》同时废止。"),
    ]),
    "travel-2019": ("江城大学差旅费管理规定", [
        ("全文", "第一条 本规定由财务处制定，2019年3月1日起施行。住宿费每人每天600元。"),
    ]),
    "hall": ("报账大厅服务指南", [
        ("服务时间", "报账大厅工作日上午8:30至11:30受理报销，下午不对外办公。"),
        ("窗口", "报账大厅位于致远楼一楼101室，差旅费报销在2号窗口办理，咨询邮箱zhangmin@jcu.edu.cn。"),
        ("表格", "学费缓交须填写《学费缓交申请表》，由学生本人签字。"),
    ]),
}


def make_chunks(corpus: dict[str, tuple[str, list[tuple[str, str]]]] = CORPUS) -> list[Chunk]:
    chunks = []
    for doc_id, (title, sections) in corpus.items():
        for n, (section, text) in enumerate(sections):
            chunks.append(Chunk(f"{doc_id}#{n:04d}", doc_id, title, f"{title} > {section}", text))
    return chunks


def make_domain(base: Path, instance: str = "") -> Domain:
    domain = open_domain("finance", base) if (base / "finance").exists() else init_domain("finance", base)
    domain.instance_file.write_text(instance, encoding="utf-8")
    return open_domain("finance", base)


@pytest.fixture()
def built(tmp_path: Path) -> tuple[Domain, list[Chunk]]:
    domain = make_domain(tmp_path)
    chunks = make_chunks()
    graph.build(domain, chunks, progress=False)
    return domain, chunks


def search(domain: Domain, chunks: list[Chunk], query: str, k: int = 10) -> dict[str, Any]:
    return {h.chunk_id: h for h in graph.load(domain, chunks).search(query, k)}


def test_two_hops_away_with_the_relation_path(built: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = built
    hits = search(domain, chunks, "报账大厅的上级部门是哪个？")
    # overview#0000 names only 财务处: reached through 报账大厅 → 会计核算科 → 财务处
    far = hits["overview#0000"]
    assert far.path == ("报账大厅", "belongs_to", "会计核算科", "belongs_to", "财务处")
    assert "财务处" in far.entities and far.channel == "graph"
    ranked = list(hits.values())
    assert [h.rank for h in ranked] == list(range(1, len(ranked) + 1))
    assert ranked[0].chunk_id in {"overview#0002", "hall#0000", "hall#0001"}
    assert all(a.score >= b.score for a, b in itertools.pairwise(ranked))


def test_max_hops_limits_the_walk(tmp_path: Path) -> None:
    domain = make_domain(tmp_path, "graph:\n  max_hops: 1\n")
    chunks = make_chunks()
    graph.build(domain, chunks, progress=False)
    hits = search(domain, chunks, "报账大厅的上级部门是哪个？")
    assert "overview#0000" not in hits
    assert hits["overview#0001"].path == ("报账大厅", "belongs_to", "会计核算科")


def test_relation_words_in_the_question_steer_the_walk(built: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = built
    hits = list(search(domain, chunks, "差旅费管理办法依据什么制定？").values())
    assert hits[0].chunk_id == "travel-2024#0000"
    assert hits[0].path == ("江城大学差旅费管理办法", "based_on", "中央和国家机关差旅费管理办法")


def test_alias_and_contact_lookups(built: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = built
    channel = graph.load(domain, chunks)
    assert channel.match("江城大学财务处在哪里") == {"财务处": 0.9, "江城大学": 0.6}  # alias; the parent inside it
    assert channel.match("差旅费管理办法什么时候施行")["江城大学差旅费管理办法"] == 0.9  # without the org prefix
    assert channel.match("财务处") == {"财务处": 1.0}
    hits = search(domain, chunks, "027-87654321是谁的电话")
    assert next(iter(hits)) == "overview#0002"
    assert {"张敏", "报账大厅"} <= set(hits["overview#0002"].entities)


def test_containment_matches_a_long_name_by_a_query_word(built: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = built
    channel = graph.load(domain, chunks)
    assert channel.match("缓交申请表在哪里下载") == {}  # no entity is named...
    matched, named = channel.matched("缓交申请表在哪里下载")  # ...but a query word covers a long name
    assert not named and set(matched) == {"学费缓交申请表"} and 0 < matched["学费缓交申请表"] < 0.5
    hits = search(domain, chunks, "缓交申请表在哪里下载")
    assert next(iter(hits)) == "hall#0002" and hits["hall#0002"].extra == {"match": "word"}
    assert channel.matched("财务处的电话") == ({"财务处": 1.0}, True)
    assert channel.search("今天天气怎么样", 5) == []


def test_graph_is_node_link_json_with_provenance(built: tuple[Domain, list[Chunk]]) -> None:
    domain, _ = built
    folder = domain.index_dir / "graph"
    data = json.loads((folder / "graph.json").read_text(encoding="utf-8"))
    nodes = {n["id"]: n for n in data["nodes"]}
    assert nodes["财务处"]["kind"] == "org" and "江城大学财务处" in nodes["财务处"]["aliases"]
    assert "overview#0000" in nodes["财务处"]["chunks"]
    assert nodes["张敏"]["kind"] == "person" and nodes["027-87654321"]["kind"] == "phone"
    edges = {(e["source"], e["target"]): e for e in data["edges"]}
    assert edges[("预算科", "财务处")]["relation"] == "belongs_to"
    assert edges[("预算科", "财务处")]["evidence"] == ["overview#0001"]
    assert edges[("江城大学差旅费管理办法", "江城大学差旅费管理规定")]["relation"] == "repeals"
    assert edges[("财务处", "江城大学")]["relation"] == "belongs_to"  # from the merged 江城大学财务处
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["nodes"] == len(nodes) and manifest["chunks_hash"]
    aliases = json.loads((folder / "aliases.json").read_text(encoding="utf-8"))
    assert aliases["江城大学财务处"] == ["财务处"]


def test_changed_chunks_are_refused_with_the_rebuild_command(built: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = built
    changed = [*chunks[:-1], Chunk("hall#0002", "hall", "报账大厅服务指南", "报账大厅服务指南 > 表格", "已删除。")]
    with pytest.raises(IndexMismatchError) as caught:
        graph.load(domain, changed)
    assert REBUILD in str(caught.value) and "older than the extracted chunks" in str(caught.value)


def test_format_and_settings_mismatch_are_refused(built: tuple[Domain, list[Chunk]], tmp_path: Path) -> None:
    domain, chunks = built
    manifest_file = domain.index_dir / "graph" / "manifest.json"
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    manifest_file.write_text(json.dumps({**manifest, "format_version": 0}), encoding="utf-8")
    with pytest.raises(IndexMismatchError, match="format 0") as caught:
        graph.load(domain, chunks)
    assert REBUILD in str(caught.value)
    manifest_file.write_text(json.dumps(manifest), encoding="utf-8")
    graph.load(domain, chunks)  # restored
    reweighted = make_domain(tmp_path, "graph:\n  cooccurrence_weight: 0.5\n")
    with pytest.raises(IndexMismatchError, match="cooccurrence_weight") as caught:
        graph.load(reweighted, chunks)
    assert REBUILD in str(caught.value)


def test_missing_index_and_registry_loading(tmp_path: Path) -> None:
    domain = make_domain(tmp_path)
    chunks = make_chunks()
    with pytest.raises(IndexMismatchError, match="missing"):
        graph.load(domain, chunks)
    write_chunks(domain.processed_dir, chunks)
    graph.build(domain, chunks, progress=False)
    loaded, errors = load_channels(domain, ["graph"])
    assert not errors and loaded["graph"].search("预算科隶属哪个部门", 3)[0].chunk_id == "overview#0001"


def test_every_path_relation_has_a_reading() -> None:
    assert set(schema.INVERSE) | set(schema.INVERSE.values()) <= set(schema.PATH_LABELS)


def llm_domain(base: Path, fake: FakeOpenAI) -> Domain:
    return make_domain(base, (
        f"llm:\n  enabled: true\n  base_url: {fake.base_url}\n  max_retries: 0\n  timeout_s: 5\n"
        "graph:\n  llm_extraction: true\n"
    ))


def extraction_reply(messages: list[dict[str, Any]]) -> str:
    """Every chunk about the hall also yields 档案室 as a place the LLM found, related to 报账大厅."""
    prompt = messages[-1]["content"]
    if "受理报销" not in prompt:
        return json.dumps({"entities": [], "relations": []})
    return json.dumps({
        "entities": [{"name": "上午8:30", "kind": "date"}, {"name": "报账大厅", "kind": "org"},
                     {"name": "不存在的机构", "kind": "org"}],  # not in the text: dropped
        "relations": [{"source": "报账大厅", "relation": "responsible_for", "target": "报销"},
                      {"source": "报账大厅", "relation": "contact", "target": "上午8:30"}],
    }, ensure_ascii=False)


def test_llm_extraction_adds_grounded_relations_and_is_cached(tmp_path: Path) -> None:
    chunks = make_chunks()
    with FakeOpenAI(chat=extraction_reply) as fake:
        domain = llm_domain(tmp_path, fake)
        result = graph.build(domain, chunks, progress=False)
        assert len(fake.requests_to("/v1/chat/completions")) == len(chunks)
        assert f"LLM: {len(chunks)} chunks, 0 cached, 0 failed" in result.detail
        channel = graph.load(domain, chunks)
        assert "不存在的机构" not in channel.graph
        assert channel.graph.edges["报账大厅", "上午8:30"]["relation"] == "contact"
        again = graph.build(domain, chunks, progress=False)
        assert len(fake.requests_to("/v1/chat/completions")) == len(chunks)  # all from the cache
        assert f"0 chunks, {len(chunks)} cached" in again.detail


def test_llm_failures_fall_back_to_rules_and_are_counted(tmp_path: Path) -> None:
    chunks = make_chunks()
    with FakeOpenAI(chat=lambda messages: "抱歉，我无法输出JSON。") as fake:
        domain = llm_domain(tmp_path, fake)
        fake.fail_next = [500, 500]
        result = graph.build(domain, chunks, progress=False)
    assert f"0 chunks, 0 cached, {len(chunks)} failed" in result.detail
    assert "HTTP 500" in result.detail
    hits = search(domain, chunks, "报账大厅的上级部门是哪个？")
    assert "overview#0000" in hits  # the rule graph is intact
