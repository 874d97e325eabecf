"""Builds killed and builds at once (issue 14, point 3): the real `lambdarag build` CLI as a subprocess, SIGKILLed at
each point of the build path (LAMBDARAG_BUILD_PAUSE_AT stops it there; mid-embedding by watching the embedding
server), leaves the previous index serving and the next build completes; a second build refuses or waits."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI
from index_fixtures import CHANNELS, NEW_QUESTION, OLD_QUESTION, full_domain, full_instance
from server_fixtures import NEW_DOC, copy_domain
from test_channel_vector import DIM, char_bag

from lambdarag.build.steps import build_domain
from lambdarag.config.domain import Domain, open_domain
from lambdarag.errors import REBUILD_COMMANDS
from lambdarag.ingest.store import STAGED_FILE
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import answer
from lambdarag.retrieval.knowledge import KnowledgeBase

ROOT = Path(__file__).resolve().parents[1]
KILL_POINTS = ("index", "publish:bm25", "publish:document", "vectors", "publish:vector", "wiki", "publish:graph",
               "publish:wiki", "commit")
OFFLINE = PipelineOptions(use_llm=False, log=False)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(embed=char_bag, dim=DIM) as server:
        yield server


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAI) -> Domain:
    return full_domain(tmp_path_factory.mktemp("kill-source"), fake.base_url)


@pytest.fixture
def domain(source: Domain, tmp_path: Path) -> Domain:
    """A built copy with a new document in raw/ that only the next build will serve."""
    copy = copy_domain(source, tmp_path / "knowledge")
    (copy.raw_dir / NEW_DOC[0]).write_text(NEW_DOC[1], encoding="utf-8")
    return copy


class Build:
    """`lambdarag build` in a subprocess, its stderr and stdout in a log file."""

    def __init__(self, domain: Domain, log: Path, pause: str = "", pause_s: float = 600, *extra: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), LAMBDARAG_BUILD_PAUSE_AT=pause,
                   LAMBDARAG_BUILD_PAUSE_S=str(pause_s))
        env.pop("LAMBDARAG_BUILD_WAIT_S", None)
        self.log = log
        self._out = log.open("wb")
        cmd = [sys.executable, "-m", "lambdarag", *(extra or ("build",)), "--domain", domain.name,
               "--base-dir", str(domain.root.parent)]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=self._out, stderr=subprocess.STDOUT)

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait_for(self, fragment: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while fragment not in self.text():
            assert self.proc.poll() is None, f"exited ({self.proc.returncode}) before {fragment!r}:\n{self.text()}"
            assert time.monotonic() < deadline, f"no {fragment!r} after {timeout} s:\n{self.text()}"
            time.sleep(0.05)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        assert self.proc.wait(30) == -signal.SIGKILL
        self._out.close()

    def finish(self, timeout: float = 180) -> int:
        code = self.proc.wait(timeout)
        self._out.close()
        return code


def served(domain: Domain) -> tuple[dict[str, str], bool, bool]:
    """What a server starting now would serve: channel errors, and whether the old and the new question are found."""
    kb = KnowledgeBase.load(open_domain(domain.name, domain.root.parent))
    return kb.channel_errors, answer(kb, OLD_QUESTION, options=OFFLINE).found, answer(kb, NEW_QUESTION,
                                                                                      options=OFFLINE).found


def leftovers(domain: Domain) -> list[str]:
    """Index entries beyond each channel's link and the folder it points at (and the embedding cache)."""
    published = {*CHANNELS, "sentences"}  # the sentence vectors are published beside the channels
    linked = {(domain.index_dir / c).resolve().name for c in published}
    names = {p.name for p in domain.index_dir.iterdir()} - published - linked - {".vector-cache"}
    return sorted(names) + ([STAGED_FILE] if (domain.processed_dir / STAGED_FILE).exists() else [])


def rebuild_completes(domain: Domain) -> dict[str, int]:
    """The next build succeeds and serves the new document, leaving nothing behind; vectors reused by channel."""
    outcomes = build_domain(open_domain(domain.name, domain.root.parent), progress=False)
    assert all(o.ok for o in outcomes), outcomes
    assert served(domain) == ({}, True, True)
    assert leftovers(domain) == []
    return {r.channel: r.reused for o in outcomes for r in o.results}


@pytest.mark.parametrize("point", KILL_POINTS)
def test_a_build_killed_at_each_point_leaves_the_previous_index_serving(domain: Domain, tmp_path: Path,
                                                                         point: str) -> None:
    build = Build(domain, tmp_path / "build.log", pause=point)
    build.wait_for(f"paused at {point}")
    build.kill()
    assert served(domain) == ({}, True, False)  # every channel loads, consistent with the previous chunk list
    rebuild_completes(domain)


def test_a_build_killed_while_embedding_resumes_from_the_cache(domain: Domain, tmp_path: Path,
                                                               fake: FakeOpenAI) -> None:
    domain.instance_file.write_text(full_instance(fake.base_url, batch_size=1), encoding="utf-8")
    for n in range(4):
        text = f"# 补充通知{n}\n\n第{n}号补充通知：报销材料须在{n + 2}日内提交。"
        (domain.raw_dir / f"补充通知{n}.md").write_text(text, encoding="utf-8")
    old = len(KnowledgeBase.load(domain).chunks)
    before = len(fake.requests_to("/v1/embeddings"))
    fake.delay_s = 0.3
    try:
        build = Build(domain, tmp_path / "build.log")
        deadline = time.monotonic() + 120
        # two batches in flight after the first: the 4th request is sent once the first two batches are cached
        while len(fake.requests_to("/v1/embeddings")) < before + 4:
            assert build.proc.poll() is None and time.monotonic() < deadline, build.text()
            time.sleep(0.02)
        build.kill()
    finally:
        fake.delay_s = 0.0
    assert served(domain) == ({}, True, False)
    assert rebuild_completes(domain)["vector"] >= old + 2  # the batches embedded before the kill were kept


def test_a_build_killed_between_the_chunk_list_and_the_links_is_refused_never_mixed(domain: Domain,
                                                                                   tmp_path: Path) -> None:
    build = Build(domain, tmp_path / "build.log", pause="commit:links")
    build.wait_for("paused at commit:links")
    build.kill()
    errors, _, _ = served(domain)
    assert set(errors) == set(CHANNELS)  # the one window of a few renames: detected and named, never served mixed
    for channel, message in errors.items():
        assert "older than the extracted chunks" in message and REBUILD_COMMANDS[channel].format(domain="kb") in message
    rebuild_completes(domain)


def test_a_second_build_refuses_or_waits_and_the_index_is_never_mixed(domain: Domain, tmp_path: Path) -> None:
    first = Build(domain, tmp_path / "first.log", "vectors", 4)
    first.wait_for("paused at vectors")
    refused = Build(domain, tmp_path / "refused.log")
    single = Build(domain, tmp_path / "single.log", "", 600, "index")
    waiting = Build(domain, tmp_path / "waiting.log", "", 600, "build", "--wait", "120")
    assert refused.finish() == 2 and single.finish() == 2
    for late in (refused, single):
        assert f"another build of domain 'kb' is running (pid {first.proc.pid}, " in late.text(), late.text()
        assert "wait for it to finish, or pass --wait SECONDS (or set LAMBDARAG_BUILD_WAIT_S)" in late.text()
    assert first.finish() == 0 and waiting.finish() == 0, (first.text(), waiting.text())
    assert "files: 0 extracted, 4 unchanged" in waiting.text()  # it ran after the first build had committed
    assert served(domain) == ({}, True, True)
    assert leftovers(domain) == []
