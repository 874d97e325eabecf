"""Weight tuning from feedback logs: the search finds the channel that holds the liked chunks, thin data is
refused with a message, proposals are written and applied only with --apply (keeping a backup)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lambdarag.cli import main
from lambdarag.config.domain import Domain, init_domain
from lambdarag.config.load import load_config
from lambdarag.feedback.log import read_log_family
from lambdarag.tuning.samples import samples_from_logs
from lambdarag.tuning.search import coordinate_search, make_sample, mean_mrr, split, tune

FACT = {"bm25": 1.0, "vector": 0.5, "graph": 0.1, "wiki": 0.1}


def log_record(i: int, intent: str = "fact", liked_in: str = "vector") -> dict[str, Any]:
    """A query_log line: BM25 ranks ten wrong chunks; the chunk the user liked is first in ``liked_in``."""
    liked = f"doc{i}#0001"
    channels = {"bm25": [f"noise{i}-{r}#0001" for r in range(10)], "vector": [f"other{i}#0001"],
                "graph": [f"g{i}#0001"], "wiki": []}
    channels[liked_in] = [liked, *channels[liked_in]]
    return {"request_id": f"r{i:03d}", "intent": intent, "channels": channels, "citations": [liked],
            "fused": channels["bm25"][:8], "found": True}


def write_logs(domain: Domain, records: list[dict[str, Any]], ratings: dict[str, str]) -> None:
    folder = domain.feedback_dir
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "query_log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (folder / "ratings.jsonl").write_text(
        "".join(json.dumps({"request_id": k, "rating": v}) + "\n" for k, v in ratings.items()), encoding="utf-8")


def favour_bm25(domain: Domain) -> None:
    """Fact weights favouring BM25 (the logged requests were served with them): the tuner has something to fix."""
    domain.instance_file.write_text("intents:\n  classes:\n    fact:\n      weights: {bm25: 1.0, vector: 0.5}\n",
                                    encoding="utf-8")


@pytest.fixture
def domain(tmp_path: Path) -> Domain:
    return init_domain("tuned", tmp_path)


def test_search_raises_the_weight_of_the_channel_holding_the_liked_chunks() -> None:
    samples = [make_sample(f"r{i}", "fact", log_record(i)["channels"], [f"doc{i}#0001"]) for i in range(30)]
    assert mean_mrr(samples, FACT, 60) == 0.0  # ten BM25 chunks outrank the liked one at 0.5 / (60 + 1)
    after = coordinate_search(samples, FACT, 60)
    assert after["vector"] / max(after["bm25"], 1e-9) > FACT["vector"] / FACT["bm25"]
    assert mean_mrr(samples, after, 60) == 1.0


def test_tune_reports_train_and_held_out_and_keeps_thin_intents() -> None:
    samples = [make_sample(f"r{i}", "fact", log_record(i)["channels"], [f"doc{i}#0001"]) for i in range(30)]
    samples += [make_sample(f"p{i}", "person", log_record(i, "person")["channels"], [f"doc{i}#0001"])
                for i in range(3)]
    result = tune(samples, {"fact": FACT, "person": FACT}, 60, min_samples=20, holdout=0.3, seed=1)
    assert result.thin == {"person": 3}
    [fact] = result.intents
    assert (fact.n_train, fact.n_test) == (21, 9)
    assert fact.improved and fact.test_before == 0.0 and fact.test_after == 1.0
    train, test = split(samples[:30], 0.3, seed=1)
    assert {s.key for s in train}.isdisjoint({s.key for s in test})
    assert split(samples[:30], 0.3, seed=1) == (train, test)  # the seed makes it reproducible


def test_no_gain_on_held_out_proposes_nothing() -> None:
    # the liked chunk is already BM25's first: nothing to gain
    samples = [make_sample(f"r{i}", "fact", log_record(i, liked_in="bm25")["channels"], [f"doc{i}#0001"])
               for i in range(25)]
    result = tune(samples, {"fact": FACT}, 60, min_samples=20)
    assert not result.changes and not result.k_improved
    # a held-out gain no larger than min_gain is noise, not evidence
    vector_liked = [make_sample(f"r{i}", "fact", log_record(i)["channels"], [f"doc{i}#0001"]) for i in range(25)]
    assert tune(vector_liked, {"fact": FACT}, 60, min_samples=20).changes
    assert not tune(vector_liked, {"fact": FACT}, 60, min_samples=20, min_gain=1.0).changes


def test_logs_are_joined_with_ratings(domain: Domain) -> None:
    records = [log_record(i) for i in range(6)]
    records[5]["citations"] = []  # liked but uncited: unusable
    write_logs(domain, records, {"r000": "down", "r001": "up", "r002": "up", "r005": "up"})
    with open(domain.feedback_dir / "ratings.jsonl", "a", encoding="utf-8") as ratings:
        ratings.write(json.dumps({"request_id": "r000", "rating": "up"}) + "\n")
    samples, stats = samples_from_logs(domain.feedback_dir)
    assert stats == {"requests": 6, "rated": 4, "liked": 4, "usable": 3}  # r000's latest rating is up
    assert sorted(s.key for s in samples) == ["r000", "r001", "r002"]
    assert samples[0].relevant == frozenset({"doc0#0001"}) and samples[0].hits["vector"][0].rank == 1


def test_rotated_logs_are_read_oldest_first(tmp_path: Path) -> None:
    log = tmp_path / "query_log.jsonl"
    (tmp_path / "query_log.jsonl.2").write_text('{"n": 1}\n', encoding="utf-8")
    (tmp_path / "query_log.jsonl.1").write_text('{"n": 2}\nbroken\n', encoding="utf-8")
    log.write_text('{"n": 3}\n', encoding="utf-8")
    assert [r["n"] for r in read_log_family(log)] == [1, 2, 3]


def test_thin_data_says_so_and_writes_nothing(domain: Domain, capsys: pytest.CaptureFixture[str]) -> None:
    write_logs(domain, [log_record(i) for i in range(5)], {f"r{i:03d}": "up" for i in range(5)})
    assert main(["tune", "--domain", "tuned", "--base-dir", str(domain.root.parent)]) == 0
    out = capsys.readouterr().out
    assert "too thin to tune: no intent has 20 samples (fact 5)" in out
    assert not (domain.feedback_dir / "tuning").exists()


def test_proposal_then_apply_with_backup(domain: Domain, capsys: pytest.CaptureFixture[str]) -> None:
    favour_bm25(domain)
    write_logs(domain, [log_record(i) for i in range(40)], {f"r{i:03d}": "up" for i in range(40)})
    original = domain.instance_file.read_text(encoding="utf-8")
    args = ["tune", "--domain", "tuned", "--base-dir", str(domain.root.parent)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "nothing applied" in out and domain.instance_file.read_text(encoding="utf-8") == original
    [proposal] = (domain.feedback_dir / "tuning").glob("proposed-*.yml")
    text = proposal.read_text(encoding="utf-8")
    assert "# train n=28: MRR 0.000 -> 1.000; held-out n=12: MRR 0.000 -> 1.000" in text
    assert "    fact:\n" in text and "weights: {bm25:" in text
    assert main([*args, "--apply", str(proposal)]) == 0
    assert "previous version kept in" in capsys.readouterr().out
    [backup] = domain.root.glob("instance.yml.bak-*")
    assert backup.read_text(encoding="utf-8") == original
    weights = load_config(domain.instance_file).intents.classes["fact"].weights
    assert weights["vector"] / max(weights["bm25"], 1e-9) > FACT["vector"] / FACT["bm25"]
    assert load_config(domain.instance_file).prompts.system == load_config(backup).prompts.system


def test_apply_right_away_and_bad_arguments(domain: Domain, capsys: pytest.CaptureFixture[str]) -> None:
    favour_bm25(domain)
    write_logs(domain, [log_record(i) for i in range(30)], {f"r{i:03d}": "up" for i in range(30)})
    base = ["tune", "--domain", "tuned", "--base-dir", str(domain.root.parent)]
    assert main([*base, "--apply"]) == 0
    assert "applied to" in capsys.readouterr().out
    assert load_config(domain.instance_file).intents.classes["fact"].weights != FACT
    assert main([*base, "--holdout", "1.5"]) == 2
    assert "--holdout between 0 and 1" in capsys.readouterr().err


def test_labelled_questions_are_searched_at_full_depth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lambdarag.build.steps import build_domain
    from lambdarag.evaluation.dataset import load_questions
    from lambdarag.retrieval.knowledge import KnowledgeBase
    from lambdarag.tuning.samples import samples_from_questions

    domain = init_domain("labelled", tmp_path)
    domain.instance_file.write_text("embedding: {backend: none}\nretrieval:\n  channels:\n"
                                    "    vector: {enabled: false}\n    graph: {enabled: false}\n"
                                    "    wiki: {enabled: false}\n", encoding="utf-8")
    topics = {"travel": "出差住宿费标准为每天500元。", "library": "图书馆周末九点开放。",
              "canteen": "食堂早餐六点半供应。"}
    for name, text in topics.items():
        (domain.raw_dir / f"{name}.md").write_text(f"# {name}\n\n{text}\n", encoding="utf-8")
    build_domain(domain, ["extract", "index"], progress=False)
    questions = tmp_path / "q.jsonl"
    rows = [{"qid": f"q{i}", "question": q, "gold_doc_ids": [d]} for i, (q, d) in
            enumerate([("住宿费标准是多少", "travel"), ("图书馆几点开放", "library"), ("早餐几点供应", "canteen")])]
    questions.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    samples = samples_from_questions(KnowledgeBase.load(domain), load_questions(questions))
    assert [s.source for s in samples] == ["label"] * 3
    assert all(s.relevant and s.relevant <= {h.chunk_id for h in s.hits["bm25"]} for s in samples)
    assert main(["tune", "--domain", "labelled", "--base-dir", str(tmp_path), "--questions", str(questions),
                 "--min-samples", "2"]) == 0
    out = capsys.readouterr().out
    assert f"labelled: 3 questions from {questions}" in out and "proposal written to" in out


def test_samples_fuse_the_document_channel_as_the_pipeline_does() -> None:
    """The tuner recomputes fusion with retrieval.fusion.fuse: a document's rank goes to its chunks, scaled by the
    sample's document spread, never counted as a vote for the one chunk its hit carries."""
    rankings = {"bm25": ["other#0000", "asked#0003"], "document": ["asked#0000", "other#0000"]}
    with_spread = make_sample("r", "fact", rankings, ["asked#0003"], document_spread=1.0)
    one_chunk_docs = make_sample("r", "fact", rankings, ["asked#0003"], document_spread=0.0)
    weights = {"bm25": 1.0, "document": 2.0}
    assert mean_mrr([with_spread], weights, 20) == 1.0  # the asked document's chunk rises above the other's
    assert mean_mrr([one_chunk_docs], weights, 20) == 0.5  # spread 0: the chunk channel's order stands
