"""`lambdarag sync` (issue 17, point 3): raw/ mirrors a source folder; new and changed files are extracted, removed
ones leave the index, and a file that fails keeps its previous version served and is reported with its reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from server_fixtures import CORPUS, NEW_DOC, bare_domain, write_corpus

from lambdarag.build.generation import GENERATION_FILE, read_generation
from lambdarag.build.sync import sync_domain, sync_source
from lambdarag.config.domain import Domain, open_domain
from lambdarag.errors import InputError
from lambdarag.ingest.store import load_chunks
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import answer
from lambdarag.retrieval.knowledge import KnowledgeBase

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = PipelineOptions(use_llm=False, log=False)
NOTICE = {"doc_id": "通知/停车", "title": "停车管理通知", "text": "校内停车每小时收费2元，教职工月卡每月100元。"}


def cites(domain: Domain, question: str) -> set[str]:
    result = answer(KnowledgeBase.load(domain), question, options=OFFLINE)
    return {c.doc_id for c in result.citations} if result.found else set()


def texts(domain: Domain) -> str:
    return "\n".join(c.text for c in load_chunks(domain.processed_dir))


@pytest.fixture
def domain(tmp_path: Path) -> Domain:
    return bare_domain(tmp_path / "knowledge")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "share"
    write_corpus(folder)
    (folder / "notices.jsonl").write_text(json.dumps(NOTICE, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / ".~lock.draft.md#").write_text("lock file", encoding="utf-8")  # left out, as the build does
    return folder


def test_sync_adds_changes_removes_and_reports_failures(domain: Domain, folder: Path) -> None:
    first = sync_domain(domain, folder)
    assert sorted(first.added) == sorted([*CORPUS, "notices.jsonl"]) and first.ok, first.summary()
    assert not first.changed and not first.removed and not first.failed
    assert sorted(p.name for p in domain.raw_dir.iterdir()) == sorted([*CORPUS, "notices.jsonl"])
    assert read_generation(domain.root / GENERATION_FILE) == 1  # a running server is told to reload
    assert "财务处联系方式" in cites(domain, "报账大厅的联系电话是多少？")

    (folder / "科研经费管理.md").write_text(CORPUS["科研经费管理.md"].replace("3000元", "4500元"), encoding="utf-8")
    (folder / "财务处联系方式.md").unlink()
    (folder / NEW_DOC[0]).write_text(NEW_DOC[1], encoding="utf-8")
    (folder / "notices.jsonl").write_text("not json\n{broken\n", encoding="utf-8")  # passes the checks, not extracted
    (folder / "差旅费报销办法.md").write_bytes(b"\x00\x01binary now\x00" * 10)  # refused before extraction
    (folder / "setup.exe").write_bytes(b"MZ\x90\x00")
    second = sync_domain(domain, folder)
    assert second.added == [NEW_DOC[0]] and second.changed == ["科研经费管理.md"], second.summary()
    assert second.removed == ["财务处联系方式.md"]
    assert set(second.failed) == {"notices.jsonl", "差旅费报销办法.md", "setup.exe"}
    assert "no valid lines" in second.failed["notices.jsonl"]
    assert "binary" in second.failed["差旅费报销办法.md"] and "unsupported" in second.failed["setup.exe"]
    assert not second.ok and not second.error

    chunks = load_chunks(domain.processed_dir)
    assert not any(c.doc_id == "财务处联系方式" for c in chunks)  # removed from the index
    assert "4500元" in texts(domain) and "3000元" not in texts(domain)  # changed: the new version served
    assert "每小时收费2元" in texts(domain)  # the JSONL that failed to extract: its previous version stays
    assert "500元" in texts(domain)  # the refused change: raw/ keeps the previous file, which stays served
    assert (domain.raw_dir / "差旅费报销办法.md").read_text(encoding="utf-8") == CORPUS["差旅费报销办法.md"]
    assert not (domain.raw_dir / "setup.exe").exists() and not (domain.raw_dir / "财务处联系方式.md").exists()
    assert "校园卡充值" in cites(domain, "校园卡单次充值上限是多少？")
    assert "财务处联系方式" not in cites(domain, "报账大厅的联系电话是多少？")

    third = sync_domain(domain, folder)  # nothing new: no build
    assert not (third.added or third.changed or third.removed) and third.steps == []
    assert third.unchanged == 3 and set(third.failed) == set(second.failed)


def test_sync_builds_again_after_an_upgrade_of_the_extractor(domain: Domain, folder: Path) -> None:
    assert sync_domain(domain, folder).steps
    state_file = domain.processed_dir / "state.json"
    state = json.loads(state_file.read_text(encoding="utf-8"))
    state["extractor"] -= 1  # the chunks as an earlier version made them
    state_file.write_text(json.dumps(state), encoding="utf-8")
    again = sync_domain(domain, folder)
    assert not (again.added or again.changed or again.removed) and again.steps and again.ok, again.summary()
    assert json.loads(state_file.read_text(encoding="utf-8"))["extractor"] == state["extractor"] + 1
    assert sync_domain(domain, folder).steps == []  # up to date: no build


def test_sync_source_comes_from_the_option_or_sync_from(domain: Domain, folder: Path) -> None:
    with pytest.raises(InputError, match="no folder to sync from"):
        sync_source(domain, None)
    with pytest.raises(InputError, match="overlaps the domain's raw/ folder"):
        sync_source(domain, str(domain.raw_dir))
    with pytest.raises(InputError, match="overlaps"):
        sync_source(domain, str(domain.root.parent))  # raw/ is inside it
    with domain.instance_file.open("a", encoding="utf-8") as out:
        out.write(f"sync: {{from: '{os.path.relpath(folder, domain.root)}'}}\n")
    assert sync_source(open_domain(domain.name, domain.root.parent), None) == folder.resolve()


def run_cli(domain: Domain, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "lambdarag", "sync", "--domain", domain.name, "--base-dir",
           str(domain.root.parent), "--no-progress", *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_the_sync_command_reports_and_exits_non_zero_on_a_failure(domain: Domain, folder: Path) -> None:
    done = run_cli(domain, "--from", str(folder))
    assert done.returncode == 0, done.stderr
    assert "4 added, 0 changed, 0 removed, 0 failed" in done.stdout
    (folder / "empty.md").write_bytes(b"")
    (folder / "科研经费管理.md").unlink()
    failed = run_cli(domain, "--from", str(folder), "--json")
    assert failed.returncode == 1, failed.stderr
    report = json.loads(failed.stdout)
    assert report["removed"] == ["科研经费管理.md"] and "file is empty" in report["failed"]["empty.md"]
    assert not any(c.doc_id == "科研经费管理" for c in load_chunks(domain.processed_dir))
    refused = run_cli(domain)
    assert refused.returncode == 2 and "no folder to sync from" in refused.stderr
