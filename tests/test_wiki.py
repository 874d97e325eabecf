"""Wiki compilation and the wiki channel on the finance-office corpus: pages, hand edits, LLM cache, search."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from fake_openai import FakeOpenAI
from test_channel_graph import CORPUS, REBUILD, make_chunks, make_domain

from lambdarag.channels import graph, wiki
from lambdarag.cli import main
from lambdarag.config.domain import Domain
from lambdarag.errors import IndexMismatchError
from lambdarag.graph.build import build_graph
from lambdarag.ingest.store import load_chunks, write_chunks
from lambdarag.records import Chunk
from lambdarag.wiki import page_format
from lambdarag.wiki.compile import compile_wiki, key_facts, normalise_dates, slugify, summary_llm
from lambdarag.wiki.page_format import read_page
from lambdarag.wiki.pages import ORPHANED_DIR

ROOT = Path(__file__).resolve().parents[1]


def compile_pages(domain: Domain, chunks: list[Chunk]) -> Any:
    cfg = domain.config
    return compile_wiki(domain.wiki_dir, build_graph(chunks, cfg)[0], chunks, cfg, summary_llm(cfg))


def page(domain: Domain, slug: str) -> tuple[dict[str, Any], str]:
    return read_page(domain.wiki_dir / f"{slug}.md")


def section(body: str, name: str) -> str:
    match = re.search(rf"^## {name}\n(.*?)(?=^## |\Z)", body, flags=re.MULTILINE | re.DOTALL)
    assert match, f"no section {name}"
    return match.group(1).strip()


@pytest.fixture()
def compiled(tmp_path: Path) -> tuple[Domain, list[Chunk]]:
    domain = make_domain(tmp_path)
    chunks = make_chunks()
    compile_pages(domain, chunks)
    return domain, chunks


def test_dates_in_facts_are_normalised() -> None:
    assert normalise_dates("新标准2023年3月起执行") == "新标准2023-03起执行"
    assert normalise_dates("自2024年7月1日起施行，二〇二一年修订") == "自2024-07-01起施行，二〇二一年修订"
    assert key_facts(["财务处负责解释。", "每人每天900元。", "每人每天900元。"]) == ["每人每天900元。"]
    assert slugify("《江城大学差旅费管理办法》（2024修订版）") == "江城大学差旅费管理办法-2024修订版"


def test_pages_for_salient_entities_and_topics(compiled: tuple[Domain, list[Chunk]]) -> None:
    domain, _ = compiled
    slugs = {p.stem for p in domain.wiki_dir.glob("*.md")}
    # mentioned in >= 2 chunks (wiki.min_mentions): org / regulation; documents with >= 2 chunks: topics
    assert {"财务处", "报账大厅", "会计核算科", "江城大学差旅费管理办法", "江城大学差旅费管理规定"} <= slugs
    assert {"江城大学财务处概况", "报账大厅服务指南"} <= slugs
    assert "预算科" not in slugs and "张敏" not in slugs  # one chunk each
    front, _ = page(domain, "报账大厅服务指南")
    assert front["kind"] == "topic" and front["sources"] == ["hall#0000", "hall#0001", "hall#0002"]


def test_page_content(compiled: tuple[Domain, list[Chunk]]) -> None:
    domain, _ = compiled
    front, body = page(domain, "江城大学差旅费管理办法")
    assert front["title"] == "江城大学差旅费管理办法" and front["kind"] == "regulation"
    assert front["latest_revision"] == "2024-07-01"
    assert front["generated_hash"] == hashlib.sha256(body.encode("utf-8")).hexdigest()
    assert set(front["sources"]) == {"travel-2024#0000", "travel-2024#0001", "travel-2024#0002"}
    assert "差旅费管理办法" in front["aliases"]  # asked for without the university's name
    assert body.startswith("# 江城大学差旅费管理办法\n")
    assert len(re.findall(r"第.+?条", section(body, "摘要"))) == 3  # wiki.summary_sentences
    facts = section(body, "关键事实")
    assert "自2024-07-01起施行" in facts and "900元" in facts
    relations = section(body, "关系")
    assert "- 废止：[[江城大学差旅费管理规定]]" in relations
    assert "- 依据：中央和国家机关差旅费管理办法" in relations  # no page of its own: plain text
    assert section(body, "来源").splitlines()[0].startswith("- travel-2024#")
    front, body = page(domain, "财务处")
    assert front["aliases"] == ["江城大学财务处"] and front["sources"][:2] == ["overview#0000", "overview#0001"]
    assert "- 下设：[[会计核算科]]" in section(body, "关系")


def test_recompile_leaves_unchanged_pages_alone(compiled: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = compiled
    before = {p.name: p.stat().st_mtime_ns for p in domain.wiki_dir.glob("*.md")}
    report = compile_pages(domain, chunks)
    assert report.written == [] and report.edited == [] and len(report.unchanged) == len(before)
    assert {p.name: p.stat().st_mtime_ns for p in domain.wiki_dir.glob("*.md")} == before


def test_hand_edit_is_kept_and_the_new_version_written_beside_it(compiled: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = compiled
    path = domain.wiki_dir / "财务处.md"
    edited = path.read_text(encoding="utf-8").replace("## 摘要\n", "## 摘要\n\n财务处周六上午安排值班。\n")
    path.write_text(edited, encoding="utf-8")
    changed = [*chunks, Chunk("overview#0004", "overview", "江城大学财务处概况", "江城大学财务处概况 > 五",
                              "财务处网站为cwc.jcu.edu.cn。")]
    report = compile_pages(domain, changed)
    assert report.edited == ["财务处"] and "财务处.generated.md" in report.summary()
    assert path.read_text(encoding="utf-8") == edited  # never silently overwritten
    new_front, _ = read_page(domain.wiki_dir / "财务处.generated.md")
    assert "overview#0004" in new_front["sources"]
    # the person folds the update in by hand: the page is theirs, still no overwrite
    report = compile_pages(domain, changed)
    assert report.edited == ["财务处"] and path.read_text(encoding="utf-8") == edited


def test_stale_generated_pages_go_hand_edited_ones_stay(compiled: tuple[Domain, list[Chunk]]) -> None:
    domain, _ = compiled
    hall_topic = domain.wiki_dir / "报账大厅服务指南.md"
    assert hall_topic.exists()
    office = domain.wiki_dir / "江城大学财务处概况.md"
    fewer = make_chunks({k: v for k, v in CORPUS.items() if k not in ("hall", "overview")})
    kept_ids = {c.chunk_id for c in fewer}
    still = next(p for p in sorted(domain.wiki_dir.glob("*.md"))  # a page with sources left after the removal
                 if set(read_page(p)[0]["sources"]) & kept_ids and p != office)
    for edited in (office, still):
        edited.write_text(edited.read_text(encoding="utf-8") + "\n人工补充：办公电话见通讯录。\n", encoding="utf-8")
    report = compile_pages(domain, fewer)
    assert not hall_topic.exists() and "报账大厅服务指南" in report.removed
    assert still.exists() and "人工补充" in still.read_text(encoding="utf-8")  # edited, sources left: kept
    # edited, but built only from the removed documents: out of the wiki, the person's text kept beside it
    assert not office.exists() and report.orphaned == ["江城大学财务处概况"]
    assert "人工补充" in (domain.wiki_dir / ORPHANED_DIR / office.name).read_text(encoding="utf-8")
    assert "江城大学财务处概况" not in {p.title for p in wiki.read_pages(domain.wiki_dir)}


def summary_reply(messages: list[dict[str, Any]]) -> str:
    title = re.search(r"概括“(.+?)”", messages[-1]["content"])
    return f"这是关于{title.group(1) if title else '?'}的LLM摘要。"


def test_llm_summaries_are_cached_by_content(tmp_path: Path) -> None:
    chunks = make_chunks()
    with FakeOpenAI(chat=summary_reply) as fake:
        domain = make_domain(tmp_path, (
            f"llm:\n  enabled: true\n  base_url: {fake.base_url}\n  max_retries: 0\n"
            "wiki:\n  llm_summaries: true\n"
        ))
        first = compile_pages(domain, chunks)
        calls = len(fake.requests_to("/v1/chat/completions"))
        pages = len(first.written)
        assert calls == pages == first.llm_calls and first.llm_cached == 0
        _, body = page(domain, "财务处")
        assert section(body, "摘要") == "这是关于财务处的LLM摘要。"
        second = compile_pages(domain, chunks)
        assert len(fake.requests_to("/v1/chat/completions")) == calls  # a rerun costs nothing
        assert second.llm_cached == pages and second.written == []
        fake.fail_next = [500] * 50
        changed = [c if c.chunk_id != "hall#0000" else Chunk(c.chunk_id, c.doc_id, c.title, c.breadcrumb,
                                                             "报账大厅全天受理报销。") for c in chunks]
        third = compile_pages(domain, changed)
    assert third.llm_failures >= 1 and third.llm_calls == 0  # failures fall back to the rule summary
    _, body = page(domain, "报账大厅服务指南")
    assert "报账大厅全天受理报销。" in section(body, "摘要")
    assert (domain.wiki_dir / ".cache" / "summaries.json").exists()


@pytest.fixture()
def indexed(tmp_path: Path) -> tuple[Domain, list[Chunk]]:
    domain = make_domain(tmp_path)
    chunks = make_chunks()
    graph.build(domain, chunks, progress=False)
    wiki.build(domain, chunks, progress=False)
    return domain, chunks


def test_wiki_search_maps_pages_to_source_chunks(indexed: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = indexed
    channel = wiki.load(domain, chunks)
    hits = channel.search("报账大厅在哪里？", 5)
    assert hits[0].page_id == "报账大厅" and hits[0].channel == "wiki"
    front, _ = page(domain, "报账大厅")
    assert [h.chunk_id for h in hits[:3]] == front["sources"][:3]  # the page's sources, best first
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert "致远楼一楼101室" in hits[0].side_text and len(hits[0].side_text) <= 600
    assert "## " not in hits[0].side_text
    named = channel.search("差旅费管理办法什么时候施行", 3)
    assert named[0].page_id == "江城大学差旅费管理办法" and named[0].score > 1.0  # title/alias boost
    assert channel.search("今天天气怎么样", 3) == []


def test_wiki_hits_say_whether_the_question_names_the_page(indexed: tuple[Domain, list[Chunk]]) -> None:
    channel = wiki.load(*indexed)
    named = channel.search("报账大厅在哪里？", 5)
    assert named[0].extra == {"match": "named"}
    body = channel.search("周五下午几点停止办理", 10)  # names no page: only page texts match
    assert body and {h.extra["match"] for h in body} == {"body"}


def test_hand_edits_reach_search_after_recompile(indexed: tuple[Domain, list[Chunk]]) -> None:
    domain, chunks = indexed
    path = domain.wiki_dir / "会计核算科.md"
    text = path.read_text(encoding="utf-8").replace("## 摘要\n\n", "## 摘要\n\n会计核算科周六上午安排值班。")
    path.write_text(text, encoding="utf-8")
    assert wiki.load(domain, chunks).search("周六值班", 3) == []  # the index is a snapshot
    result = wiki.build(domain, chunks, progress=False)
    assert "1 edited by hand and kept" in result.detail
    hits = wiki.load(domain, chunks).search("周六值班", 3)
    assert hits and hits[0].page_id == "会计核算科" and "周六上午安排值班" in hits[0].side_text
    manifest = json.loads((domain.index_dir / "wiki" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["edited_pages"] == 1


def test_wiki_index_mismatches_name_the_command(indexed: tuple[Domain, list[Chunk]], tmp_path: Path) -> None:
    domain, chunks = indexed
    with pytest.raises(IndexMismatchError, match="older than the extracted chunks") as caught:
        wiki.load(domain, chunks[:-1])
    assert REBUILD in str(caught.value)
    manifest_file = domain.index_dir / "wiki" / "manifest.json"
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    manifest_file.write_text(json.dumps({**manifest, "format_version": 99}), encoding="utf-8")
    with pytest.raises(IndexMismatchError, match="format 99") as caught:
        wiki.load(domain, chunks)
    assert REBUILD in str(caught.value)
    manifest_file.write_text(json.dumps(manifest), encoding="utf-8")
    stricter = make_domain(tmp_path, "wiki:\n  min_mentions: 3\n")
    with pytest.raises(IndexMismatchError, match="min_mentions") as caught:
        wiki.load(stricter, chunks)
    assert REBUILD in str(caught.value)


def test_wiki_command_builds_graph_then_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    domain = make_domain(tmp_path)
    chunks = make_chunks()
    assert main(["wiki", "--domain", "finance", "--base-dir", str(tmp_path)]) == 2  # no chunks yet
    assert "extract" in capsys.readouterr().err
    write_chunks(domain.processed_dir, chunks)
    assert main(["wiki", "--domain", "finance", "--base-dir", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "graph of finance:" in out and "wiki of finance:" in out and "written" in out
    graph.load(domain)  # chunks read from processed/
    assert wiki.load(domain).search("预算科", 1)


def test_wiki_compile_script(tmp_path: Path) -> None:
    domain = make_domain(tmp_path)
    write_chunks(domain.processed_dir, make_chunks())
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "wiki_compile.py"), "--domain", "finance", "--base-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (domain.wiki_dir / "财务处.md").exists()
    front = yaml.safe_load((domain.wiki_dir / "财务处.md").read_text(encoding="utf-8").split("---\n")[1])
    assert front["title"] == "财务处"


def doc_recall(channel: Any, questions: list[dict[str, Any]], k: int = 10) -> float:
    """Share of questions with a gold document among the channel's top k chunks."""
    found = 0
    for q in questions:
        hits = channel.search(q["question"], k)
        found += any(h.chunk_id.split("#")[0] in set(q["gold_doc_ids"]) for h in hits)
    return found / len(questions)


@pytest.mark.eval
def test_demo_domain_questions(tmp_path: Path) -> None:
    """The bundled demo (18 real PDF/DOCX/PPTX/XLSX/MD files): each channel finds the documents it should."""
    from lambdarag.build.steps import run_extract
    from lambdarag.demo.generate import QUESTIONS_FILE, generate

    domain = make_domain(tmp_path)
    generate(domain.raw_dir)
    run_extract(domain, progress=False)
    graph.build(domain, load_chunks(domain.processed_dir), progress=False)
    wiki.build(domain, load_chunks(domain.processed_dir), progress=False)
    questions = [json.loads(line) for line in QUESTIONS_FILE.read_text(encoding="utf-8").splitlines() if line]
    questions = [q for q in questions if q.get("gold_doc_ids") and not q.get("history")]
    entity_questions = [q for q in questions if q["type"] in ("relation", "person")]
    assert doc_recall(graph.load(domain), entity_questions) >= 0.7  # measured 0.83
    assert doc_recall(wiki.load(domain), questions) >= 0.85  # measured 0.95


@pytest.mark.eval
def test_domainrag_corpus(tmp_path: Path) -> None:
    """DomainRAG (2,624 admissions passages, 376 questions): both channels build and find gold passages."""
    data = Path(__file__).resolve().parents[2] / "shared" / "evaldata" / "domainrag_ruc"
    if not (data / "corpus.jsonl").exists():
        pytest.skip("evaluation data not present")
    rows = [json.loads(line) for line in (data / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line]
    chunks = [Chunk(f"{r['doc_id']}#0000", r["doc_id"], r.get("title", ""), r.get("title", ""), r["text"])
              for r in rows]
    domain = make_domain(tmp_path)
    graph.build(domain, chunks, progress=False)
    wiki.build(domain, chunks, progress=False)
    questions = [json.loads(line) for line in (data / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    questions = [q for q in questions if q.get("gold_doc_ids")]
    assert doc_recall(wiki.load(domain, chunks), questions) >= 0.4  # measured 0.45
    assert doc_recall(graph.load(domain, chunks), questions) >= 0.08  # measured 0.11: an entity channel


def test_the_page_format_reads_back_what_it_writes() -> None:
    body = page_format.render_body("预算科", ("预算管理科",), "预算科负责编制预算。", ["2023-03起执行"],
                                   [("隶属", "[[财务处]]")], ("a#0001",))
    front = {"title": "预算科", "aliases": ["预算管理科"], "generated_hash": page_format.body_hash(body)}
    parsed_front, parsed_body = page_format.parse_file(page_format.render_file(front, body))
    assert parsed_front == front and parsed_body == body
    found = page_format.sections(parsed_body)
    assert found[page_format.SUMMARY] == "预算科负责编制预算。"
    assert found[page_format.RELATIONS] == "- 隶属：[[财务处]]"
    assert page_format.excerpt(parsed_body, 600) == "预算科负责编制预算。\n- 2023-03起执行"


def test_a_page_excerpt_is_its_summary_and_facts_or_nothing_when_a_generated_page_has_neither() -> None:
    empty = page_format.render_body("Contoso plc", ("contoso",), "", [], [("related", "[[Contoso Limited]]")],
                                    ("CONTOSO_2023_10K#0000", "CONTOSO_2023_10K#0849"))
    assert page_format.excerpt(empty, 600) == ""  # no aliases, （无） placeholders or source ids in the context
    by_hand = "# 报销须知\n\n差旅费报销须在出差结束后30天内提交。\n"  # a hand-written page without sections
    assert page_format.excerpt(by_hand, 600) == "差旅费报销须在出差结束后30天内提交。"
