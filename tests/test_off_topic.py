"""The not-found line's dense reading: the background of everyday questions a build measures, and the check."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from test_channel_vector import DIM, char_bag

from lambdarag.channels.vector_background import (
    BACKGROUND_FILE,
    Background,
    background_questions,
    read_background,
    upper_fence,
    write_background,
)
from lambdarag.pipeline.trace import degraded_paths
from lambdarag.retrieval.off_topic import FAR, NEAR, NOT_NEEDED, UNAVAILABLE, topic_check


def test_the_fence_is_tukeys_and_a_few_near_background_questions_barely_move_it() -> None:
    scores = [0.80, 0.81, 0.82, 0.83, 0.84]
    assert abs(upper_fence(scores) - (0.83 + 1.5 * 0.02)) < 1e-9
    # among forty, one everyday question the domain happens to answer lifts the maximum, hardly the fence
    forty = [0.80 + 0.001 * i for i in range(40)]
    assert max([*forty, 0.95]) - max(forty) > 0.1 and upper_fence([*forty, 0.95]) - upper_fence(forty) < 0.002
    background = Background({"zh": (0.8, 0.82, 0.84), "en": ()})
    assert background.fence(english=False) is not None and background.fence(english=True) is None


def test_the_check_reads_the_dense_score_only_where_the_keywords_match_weakly() -> None:
    assert topic_check(0.6, 0.5, 0.70, 0.85).state == NOT_NEEDED  # most keywords found: they decide
    far = topic_check(0.3, 0.5, 0.84, 0.85)
    assert far.state == FAR and "0.840" in far.reason and far.to_dict()["fence"] == 0.85
    assert topic_check(0.3, 0.5, 0.86, 0.85).state == NEAR
    assert topic_check(0.3, 0.0, 0.10, 0.85).state == NOT_NEEDED  # dense_check_below 0: the keywords alone
    missing = topic_check(0.3, 0.5, None, 0.85, "the vector channel gave no score (timeout)")
    assert missing.state == UNAVAILABLE and "timeout" in missing.reason
    trace = {"topic": missing.to_dict()}
    assert degraded_paths(trace) == [{"stage": "topic", "error": missing.reason}]
    assert degraded_paths({"topic": far.to_dict()}) == []


def test_the_background_is_written_with_its_questions_digest_and_refused_from_another_list(tmp_path: Path) -> None:
    questions = background_questions()
    assert len(questions["zh"]) >= 30 and len(questions["en"]) >= 30
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(12, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    np.save(tmp_path / "vectors.npy", vectors)

    def embed(text: str) -> np.ndarray:
        row = np.random.default_rng(abs(hash(text)) % 2**32).normal(size=8).astype(np.float32)
        return row / np.linalg.norm(row)

    write_background(tmp_path, lambda texts: np.stack([embed(t) for t in texts]))
    background = read_background(tmp_path)
    assert background is not None
    zh = background.scores["zh"]
    assert len(zh) == len(questions["zh"]) and list(zh) == sorted(zh)
    best = max(float(np.max(vectors @ embed(q))) for q in questions["zh"])
    assert max(zh) <= 1.0 + 1e-6 and abs(max(zh) - best) < 1e-5
    stored = json.loads((tmp_path / BACKGROUND_FILE).read_text(encoding="utf-8"))
    stored["digest"] = "another-list"
    (tmp_path / BACKGROUND_FILE).write_text(json.dumps(stored), encoding="utf-8")
    assert read_background(tmp_path) is None  # computed from other questions: no background, the check is skipped
    (tmp_path / BACKGROUND_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError):  # damaged: the loaders refuse the index naming its rebuild (test_index_faults)
        read_background(tmp_path)
    np.save(tmp_path / "vectors.npy", np.zeros((0, 8), dtype=np.float32))
    write_background(tmp_path, lambda texts: np.stack([embed(t) for t in texts]))
    empty = read_background(tmp_path)
    assert empty is not None and empty.fence(english=False) is None  # no chunks: nothing to be near


DOCS = {
    "library.md": "# 图书馆规定\n\n图书馆周一至周日开放，开放时间为早上八点至晚上十点。本科生每人最多借阅十册图书。",
    "dorm.md": "# 宿舍管理\n\n宿舍楼晚上十一点关门，访客须在值班室登记身份证件。宿舍内禁止使用大功率电器。",
    "tuition.md": "# 收费标准\n\n本科生学费每学年五千元，住宿费每学年一千二百元，须在开学前缴清。",
}


def test_a_weak_keyword_match_no_nearer_the_domain_than_everyday_questions_is_not_found(tmp_path: Path) -> None:
    from fake_openai import FakeOpenAI

    from lambdarag.build.steps import build_domain
    from lambdarag.config.domain import init_domain, open_domain
    from lambdarag.evaluation.runner import not_found_far
    from lambdarag.options import PipelineOptions
    from lambdarag.pipeline.run import answer
    from lambdarag.retrieval.knowledge import KnowledgeBase

    with FakeOpenAI(embed=char_bag, dim=DIM) as fake:
        domain = init_domain("campus", tmp_path)
        domain.instance_file.write_text(
            "retrieval: {channels: {graph: {enabled: false}, wiki: {enabled: false}}}\n"
            f"embedding: {{backend: openai, base_url: '{fake.base_url}', model: bag, dim: {DIM}, batch_size: 16,"
            " query_prefix: '', passage_prefix: ''}\n", encoding="utf-8")
        domain = open_domain("campus", tmp_path)
        for name, text in DOCS.items():
            (domain.raw_dir / name).write_text(text, encoding="utf-8")
        assert all(o.ok for o in build_domain(domain, steps=("extract", "index", "vectors"), progress=False))
        kb = KnowledgeBase.load(domain)
        options = PipelineOptions(use_llm=False, log=False)
        asked = answer(kb, "宿舍晚上几点关门，访客要登记吗？", options=options)
        assert asked.found and asked.trace["topic"]["state"] == "not_needed"  # most keywords found: they decide
        assert asked.trace["topic"]["top"] > 0 and asked.trace["topic"]["fence"] > 0
        sports = "图书馆旁边的足球场今晚的比赛谁会赢？"  # one keyword of five in the domain: a weak match
        far = answer(kb, sports, options=options)
        assert far.trace["gate"]["overlap"] < 0.5, far.trace["gate"]
        assert not far.found and far.answer_method == "not_found" and far.trace["topic"]["state"] == "far"
        # the evaluation counts the not-found the dense reading decided apart from the keyword floor's
        assert not_found_far(far) == 1.0 and not_found_far(asked) == 0.0
        assert not_found_far(answer(kb, "明天会下雨吗？", options=options)) == 0.0  # no keyword at all: the floor's
        # read against the sentences of its evidence and the everyday questions' background among the sentences
        topic = far.trace["topic"]
        assert topic["reading"] == "sentences" and topic["top"] <= topic["fence"] and far.trace["degraded"] == []
        background = read_background(domain.index_dir / "sentences")
        assert background is not None and abs(topic["fence"] - background.fence(english=False)) < 1e-4
        assert background != read_background(domain.index_dir / "vector")  # a background of its own
        off = dict(kb.config.corrective.__dict__, dense_check_below=0.0)
        assert answer(dataclasses.replace(kb, config=dataclasses.replace(
            kb.config, corrective=type(kb.config.corrective)(**off))), sports, options=options).found
        # a sentence index built before its background: the chunks and their background are read instead
        unpublish(domain.index_dir / "sentences")
        chunks_read = answer(KnowledgeBase.load(domain), sports, options=options)
        assert chunks_read.trace["topic"]["reading"] == "chunks" and chunks_read.trace["degraded"] == []
        assert KnowledgeBase.load(domain).health()["off_topic_reading"] == "chunks"
        assert kb.health()["off_topic_check"] == "ready" and kb.health()["off_topic_reading"] == "sentences"
        # a vector index built before its background too: the check cannot run, the keywords decide, and the trace
        # and /readyz say so
        unpublish(domain.index_dir / "vector")
        old = KnowledgeBase.load(domain)
        unchecked = answer(old, sports, options=options)
        assert unchecked.found and unchecked.trace["topic"]["state"] == "unavailable"
        assert "no background" in unchecked.trace["topic"]["reason"] and "lambdarag" not in unchecked.answer
        assert [p["stage"] for p in unchecked.trace["degraded"]] == ["topic"]
        health = old.health()
        assert health["degraded"] and health["off_topic_check"].startswith("unavailable: the vector index has no")
        rebuilt = build_domain(domain, steps=("vectors",), progress=False)  # nothing embedded, the backgrounds back
        assert "0 embedded, 3 reused" in rebuilt[0].summary and "5 sentences, 0 embedded" in rebuilt[0].summary
        assert read_background(domain.index_dir / "vector") is not None
        assert read_background(domain.index_dir / "sentences") == background


def unpublish(folder: Path) -> None:
    """Remove the background from a published index, as the version before it published the index."""
    (folder / BACKGROUND_FILE).unlink()
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    del manifest["files"][BACKGROUND_FILE]
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_without_a_vector_channel_configured_the_check_is_off_not_degraded(tmp_path: Path) -> None:
    from server_fixtures import built_domain

    from lambdarag.options import PipelineOptions
    from lambdarag.pipeline.run import answer
    from lambdarag.retrieval.knowledge import KnowledgeBase

    kb = KnowledgeBase.load(built_domain(tmp_path))  # embedding.backend none
    health = kb.health()
    assert health["off_topic_check"] == "off" and health["degraded"] is False
    result = answer(kb, "出差住宿费标准是多少？", options=PipelineOptions(use_llm=False, log=False))
    assert result.found and result.trace["degraded"] == []
    assert result.trace["topic"]["state"] == "off"
