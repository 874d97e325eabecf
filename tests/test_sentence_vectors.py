"""Sentence vectors (channels/sentence_vectors.py): built with the chunk vectors, read by the extractive answer."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fake_openai import BAG_DIM, FakeOpenAI, char_bag

from lambdarag.answer.units import chunk_sentences
from lambdarag.build.steps import build_domain, build_sentences
from lambdarag.channels import sentence_vectors
from lambdarag.channels.vector_background import background_questions, read_background
from lambdarag.config.domain import Domain, init_domain, open_domain
from lambdarag.errors import IndexMismatchError
from lambdarag.options import PipelineOptions
from lambdarag.pipeline.run import answer
from lambdarag.records import Chunk
from lambdarag.retrieval.knowledge import KnowledgeBase

BACKGROUND = {q for questions in background_questions().values() for q in questions}

DIM = BAG_DIM
TEXTS = {
    "release": "发版频率为每月一次。新版本发布前一周冻结代码。",
    "install": "下载安装包后运行安装程序。安装完成后需要重新登录。",
    "table": "| 项目 | 金额 |\n|---|---|\n| 差旅 | 100 |\n| 住宿 | 200 |",
}



def unit(text: str) -> np.ndarray:
    vector = np.array(char_bag(text), dtype=np.float32)
    return vector / np.linalg.norm(vector)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(embed=char_bag, dim=DIM) as server:
        yield server


def configured(domain: Domain, base_url: str, sentences: bool = True) -> Domain:
    domain.instance_file.write_text(
        f"embedding:\n  backend: openai\n  base_url: '{base_url}'\n  model: fake-embed\n  dim: {DIM}\n"
        f"  batch_size: 4\n  max_retries: 0\n  timeout_s: 5\n  query_prefix: ''\n  passage_prefix: ''\n"
        f"  sentences: {str(sentences).lower()}\n", encoding="utf-8")
    return open_domain(domain.name, domain.root.parent)


def chunks(texts: dict[str, str] = TEXTS) -> list[Chunk]:
    return [Chunk(f"{name}#0000", name, name, name, body) for name, body in texts.items()]


def embedded(fake: FakeOpenAI) -> list[str]:
    """The passages embedded (not the everyday questions every build embeds as queries for its background)."""
    return [text for r in fake.requests_to("/v1/embeddings") for text in r.body["input"] if text not in BACKGROUND]


def test_every_text_sentence_is_embedded_once_and_read_back_by_chunk(tmp_path: Path, fake: FakeOpenAI) -> None:
    domain = configured(init_domain("campus", tmp_path), fake.base_url)
    listed = chunks({**TEXTS, "copy": "发版频率为每月一次。"})  # a sentence two chunks share
    result = build_sentences(domain, listed, progress=False)
    assert (result.channel, result.items, result.reused) == ("sentences", 5, 1)  # the copy embedded once
    assert sorted(embedded(fake)) == sorted(set(embedded(fake)))  # each sentence once, the table none
    assert len(embedded(fake)) == 4
    index = sentence_vectors.load(domain, listed)
    assert len(index) == 5 and isinstance(index.vectors, np.memmap) and index.vectors.dtype == np.float16
    question = unit("多久发一次新版本")
    near = index.nearness({cid: chunk_sentences(TEXTS[cid.split("#")[0]]) for cid in ("release#0000", "table#0000")}
                          | {"gone#0000": ["发版频率为每月一次。"]}, question)
    assert set(near) == set(chunk_sentences(TEXTS["release"]))
    for sentence, cosine in near.items():
        assert cosine == pytest.approx(float(unit(sentence) @ question), abs=2e-3)  # float16 vectors
    again = build_sentences(domain, listed, progress=False)
    assert again.reused == 5 and len(embedded(fake)) == 4  # nothing embedded twice
    # the best cosine each everyday question reaches among the sentences: the not-found line's background
    background = index.background
    assert background is not None and background == read_background(domain.index_dir / sentence_vectors.NAME)
    rows = np.stack([unit(s) for s in ("发版频率为每月一次。", *(t for c in listed for t in chunk_sentences(c.text)))])
    weather = background_questions()["zh"][0]
    assert min(abs(float(np.max(rows @ unit(weather))) - s) for s in background.scores["zh"]) < 2e-3
    assert index.best(["release#0000", "gone#0000"], question) == pytest.approx(max(near.values()), abs=1e-6)
    assert index.best(["gone#0000"], question) is None


def test_an_index_of_the_same_sentences_is_not_written_again(tmp_path: Path, fake: FakeOpenAI) -> None:
    """The vectors step runs with every build: the same chunks split into the same sentences publish nothing new;
    the same chunks split otherwise (a changed splitter) are written again."""
    domain = configured(init_domain("campus", tmp_path), fake.base_url)
    listed = chunks()
    split = [chunk_sentences(c.text) for c in listed]
    sentence_vectors.build(domain, listed, split, progress=False)
    manifest = domain.index_dir / sentence_vectors.NAME / "manifest.json"
    first = manifest.read_text(encoding="utf-8")
    again = sentence_vectors.build(domain, listed, split, progress=False)
    assert manifest.read_text(encoding="utf-8") == first and "index up to date" in again.detail
    resplit = [[s for t in texts for s in t.split("。") if s] for texts in split]
    sentence_vectors.build(domain, listed, resplit, progress=False)
    assert manifest.read_text(encoding="utf-8") != first
    assert len(sentence_vectors.load(domain, listed)) == sum(len(t) for t in resplit)


def test_a_changed_chunk_embeds_only_its_new_sentences(tmp_path: Path, fake: FakeOpenAI) -> None:
    domain = configured(init_domain("campus", tmp_path), fake.base_url)
    build_sentences(domain, chunks(), progress=False)
    before = len(embedded(fake))
    changed = chunks({**TEXTS, "install": "下载安装包后运行安装程序。首次启动时选择语言。"})
    build_sentences(domain, changed, progress=False)
    assert embedded(fake)[before:] == ["首次启动时选择语言。"]
    with pytest.raises(IndexMismatchError, match=r"build_vector_index\.py --domain campus"):
        sentence_vectors.load(domain, chunks())  # the index of other chunks is refused with its rebuild command


def test_another_model_is_refused_and_another_query_prefix_is_not(tmp_path: Path, fake: FakeOpenAI) -> None:
    domain = configured(init_domain("campus", tmp_path), fake.base_url)
    listed = chunks()
    build_sentences(domain, listed, progress=False)
    text = domain.instance_file.read_text(encoding="utf-8")
    domain.instance_file.write_text(text.replace("query_prefix: ''", "query_prefix: 'q: '"), encoding="utf-8")
    assert len(sentence_vectors.load(open_domain("campus", tmp_path), listed)) == 4
    domain.instance_file.write_text(text.replace("fake-embed", "other-embed"), encoding="utf-8")
    with pytest.raises(IndexMismatchError, match="other-embed"):
        sentence_vectors.load(open_domain("campus", tmp_path), listed)


def test_a_sentence_split_otherwise_than_at_build_time_is_never_misread(tmp_path: Path, fake: FakeOpenAI) -> None:
    domain = configured(init_domain("campus", tmp_path), fake.base_url)
    listed = chunks()
    build_sentences(domain, listed, progress=False)
    index = sentence_vectors.load(domain, listed)
    other = chunk_sentences("发版频率为每季度一次。新版本发布前一周冻结代码。")
    near = index.nearness({"release#0000": other}, unit("冻结"))
    assert list(near) == ["新版本发布前一周冻结代码。"]  # the sentence whose digest no longer matches is left out
    assert index.nearness({"release#0000": ["发版频率为每月一次。"]}, unit("冻结")) == {}  # fewer than built


def build_raw(tmp_path: Path, fake: FakeOpenAI, sentences: bool = True) -> Domain:
    domain = configured(init_domain("docs", tmp_path), fake.base_url, sentences)
    for name, body in TEXTS.items():
        (domain.raw_dir / f"{name}.md").write_text(f"# {name}\n\n{body}\n", encoding="utf-8")
    outcomes = build_domain(domain, progress=False)
    assert all(o.ok for o in outcomes), [o.summary for o in outcomes]
    return domain


def test_the_answer_reads_its_evidence_by_meaning_and_readyz_says_so(tmp_path: Path, fake: FakeOpenAI) -> None:
    domain = build_raw(tmp_path, fake)
    kb = KnowledgeBase.load(domain)
    assert kb.health()["sentence_vectors"].startswith("loaded (") and not kb.health()["degraded"]
    context = answer(kb, "新版本多久发布一次？").trace["context"]
    assert context["sentences_read_by_meaning"] >= 2
    assert context["nearest"]["sentence"] in chunk_sentences(TEXTS["release"])
    off = answer(kb, "新版本多久发布一次？", options=PipelineOptions(sentence_vectors=False)).trace["context"]
    assert off["sentences_read_by_meaning"] == 0 and off["nearest"] is None  # the eval's ablation


def test_missing_sentence_vectors_are_a_degraded_path_and_off_is_not(tmp_path: Path, fake: FakeOpenAI) -> None:
    domain = build_raw(tmp_path, fake)
    link = domain.index_dir / "sentences"  # a link to the published folder
    shutil.rmtree(link.resolve())  # a domain built before they existed, or a lost folder
    link.unlink()
    kb = KnowledgeBase.load(domain)
    health = kb.health()
    assert health["degraded"] and health["sentence_vectors"].startswith("unavailable: sentences index")
    assert "build_vector_index.py --domain docs" in health["sentence_vectors"]
    context = answer(kb, "新版本多久发布一次？").trace["context"]
    assert context["sentences_read_by_meaning"] == 0 and context["nearest"] is None
    off = build_raw(tmp_path / "off", fake, sentences=False)
    assert not (off.index_dir / "sentences").exists()
    assert KnowledgeBase.load(off).health()["sentence_vectors"] == "off"
