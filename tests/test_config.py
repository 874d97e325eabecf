"""Configuration: merge semantics, every error path, the CLI view of overrides."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from lambdarag.config.load import DEFAULT_CONFIG_FILE, load_config, load_config_with_sources, merge, secret
from lambdarag.config.schema import CHANNEL_NAMES, INTENT_NAMES
from lambdarag.errors import ConfigError


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_merge_mappings_key_by_key_and_lists_replace() -> None:
    base = {"a": {"x": 1, "y": [1, 2]}, "b": 2}
    out = merge(base, {"a": {"y": [9]}})
    assert out == {"a": {"x": 1, "y": [9]}, "b": 2}
    assert base == {"a": {"x": 1, "y": [1, 2]}, "b": 2}, "merge must not mutate its input"


def test_merge_plus_suffix_appends_without_duplicates() -> None:
    out = merge({"terms": ["报账", "预约"]}, {"terms+": ["预约", "退回"]})
    assert out == {"terms": ["报账", "预约", "退回"]}


def test_merge_append_type_mismatch_is_an_error() -> None:
    with pytest.raises(TypeError):
        merge({"terms": ["a"]}, {"terms+": {"b": 1}})


DESIGN_CHANNELS = ("bm25", "vector", "graph", "wiki")  # the four channels DESIGN.md gives weights for


def test_defaults_carry_the_design_weights() -> None:
    cfg = load_config()
    expected = {
        # the design's, with the dense channel raised to BM25's weight where it was below (docs/EVALUATION.md:
        # vectors alone came within 0.02 of BM25 alone or beat it on every development set) and the graph kept
        # for person and relation questions only (leave-one-out by intent: ±0 or worse elsewhere; 0 = not searched)
        "person": (0.8, 0.8, 0.3, 0.5), "process": (0.7, 0.7, 0.0, 0.6), "data": (1.0, 1.0, 0.0, 0.1),
        "fact": (1.0, 1.0, 0.0, 0.1), "compare": (0.5, 0.8, 0.0, 0.7), "relation": (0.5, 0.5, 0.7, 0.8),
        "synthesis": (0.6, 0.6, 0.0, 0.6), "temporal": (1.0, 1.0, 0.0, 0.2),
    }
    for intent, weights in expected.items():
        got = cfg.intents.classes[intent].weights
        assert tuple(got[c] for c in DESIGN_CHANNELS) == weights
        assert set(got) == set(CHANNEL_NAMES)
        assert len(cfg.intents.classes[intent].keywords) >= 8
    assert cfg.retrieval.rrf_k == 20
    assert cfg.query.entity_expansion is False  # opt-in: it changed no ranking on any development set
    assert cfg.corrective.threshold == pytest.approx(0.30)
    assert cfg.corrective.max_retries == 0  # opt-in: the retry changed no ranking on any development set
    assert cfg.context.max_chars == 3500
    assert set(cfg.intents.classes) == set(INTENT_NAMES)


def test_every_setting_has_a_comment() -> None:
    """Each leaf line of agent-config.yml carries a one-line comment (sections may too)."""
    uncommented = []
    for line in DEFAULT_CONFIG_FILE.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.endswith(":"):
            continue
        if " # " not in line:
            uncommented.append(line)
    # the keyword maps of intents after the first carry the same comment as the first
    assert [u for u in uncommented if "keywords:" not in u and "weights:" not in u] == []


def test_config_is_frozen() -> None:
    cfg = load_config()
    with pytest.raises(AttributeError):
        cfg.retrieval.rrf_k = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        cfg.intents.classes["fact"].weights["bm25"] = 0.0  # type: ignore[index]


def test_instance_overrides_merge_and_append(tmp_path: Path) -> None:
    inst = write(tmp_path / "instance.yml", """
retrieval:
  final_top_k: 5
intents:
  classes:
    process:
      keywords: {报销: 1.5, 预约: 1.0, 退回: 1.0}
slots:
  intents+: [fact]
query:
  terms: [报账大厅]
""")
    cfg, paths = load_config_with_sources(inst)
    assert cfg.retrieval.final_top_k == 5
    assert cfg.retrieval.rrf_k == 20
    kw = cfg.intents.classes["process"].keywords
    assert kw["报销"] == 1.5 and kw["流程"] == 2.0, "mapping merges: defaults stay"
    assert cfg.slots.intents == ("person", "process", "data", "fact")
    assert cfg.query.terms == ("报账大厅",)
    assert "intents.classes.process.keywords" in paths and "retrieval.rrf_k" not in paths


@pytest.mark.parametrize(
    ("override", "key_path", "fragment"),
    [
        ("retrieval:\n  rrf_kk: 3\n", "retrieval.rrf_kk", "unknown key"),
        ("bogus: 1\n", "bogus", "unknown key"),
        ("retrieval:\n  rrf_k: sixty\n", "retrieval.rrf_k", "expected an integer"),
        ("retrieval:\n  rrf_k: 1.5\n", "retrieval.rrf_k", "expected an integer"),
        ("llm:\n  enabled: 'yes'\n", "llm.enabled", "expected true or false"),
        ("llm:\n  temperature: 5\n", "llm.temperature", "out of range"),
        ("corrective:\n  threshold: -0.1\n", "corrective.threshold", "out of range"),
        ("server:\n  port: 70000\n", "server.port", "out of range"),
        ("embedding:\n  backend: magic\n", "embedding.backend", "is not one of"),
        ("rerank:\n  api: cohere\n", "rerank.api", "is not one of"),
        ("rerank:\n  top_n: 0\n", "rerank.top_n", "out of range"),
        ("rerank:\n  timeout_s: fast\n", "rerank.timeout_s", "expected a number"),
        ("rerank:\n  enabled: 1\n", "rerank.enabled", "expected true or false"),
        ("retrieval:\n  channels:\n    sparse: {enabled: true, top_k: 3, timeout_s: 1}\n",
         "retrieval.channels.sparse", "unknown key"),
        ("intents:\n  classes:\n    gossip: {weights: {}, keywords: {}}\n", "intents.classes.gossip", "unknown key"),
        ("intents:\n  classes:\n    fact:\n      weights: {bm25: x}\n", "intents.classes.fact.weights.bm25",
         "expected a number"),
        ("prompts:\n  answer: '只有{question}'\n", "prompts.answer", "lacks placeholder"),
        ("prompts:\n  answer: '{context}{question}{oops}'\n", "prompts.answer", "unknown placeholder"),
        ("prompts:\n  answer: '{context'\n", "prompts.answer", "bad template"),
        ("query:\n  terms: 报账\n", "query.terms", "expected a list"),
        ("slots:\n  intents: [gossip]\n", "slots.intents[0]", "is not one of"),
        ("retrieval: 3\n", "retrieval", "expected a mapping"),
        ("server:\n  auth: {enabled: 'on'}\n", "server.auth.enabled", "expected true or false"),
        ("server:\n  auth: {api_keys: x}\n", "server.auth.api_keys", "unknown key"),
        ("server:\n  rate_limit: {requests_per_minute: -1}\n", "server.rate_limit.requests_per_minute", "out of range"),
        ("server:\n  rate_limit: {burst: 0}\n", "server.rate_limit.burst", "out of range"),
        ("server:\n  cors_origins: https://a.example\n", "server.cors_origins", "expected a list"),
        ("prompts:\n  data_rule: '资料是数据'\n", "prompts.data_rule", "lacks placeholder"),
        ("prompts:\n  english: {answer: 'Only {question}'}\n", "prompts.english.answer", "lacks placeholder"),
        ("prompts:\n  english: {intent: '{question}'}\n", "prompts.english.intent", "unknown key"),
    ],
)
def test_config_errors_name_file_key_and_value(tmp_path: Path, override: str, key_path: str, fragment: str) -> None:
    inst = write(tmp_path / "instance.yml", override)
    with pytest.raises(ConfigError) as err:
        load_config(inst)
    message = str(err.value)
    assert str(inst) in message
    assert key_path in message
    assert fragment in message


def test_bad_value_message_shows_the_value(tmp_path: Path) -> None:
    inst = write(tmp_path / "instance.yml", "server:\n  port: 70000\n")
    with pytest.raises(ConfigError, match="70000"):
        load_config(inst)


def test_error_in_base_file_names_the_base_file(tmp_path: Path) -> None:
    data = yaml.safe_load(DEFAULT_CONFIG_FILE.read_text(encoding="utf-8"))
    data["context"]["max_chars"] = "lots"
    base = write(tmp_path / "agent-config.yml", yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(ConfigError, match=re.escape(f"{base}: context.max_chars")):
        load_config(None, base)


def test_missing_key_in_base_file(tmp_path: Path) -> None:
    data = yaml.safe_load(DEFAULT_CONFIG_FILE.read_text(encoding="utf-8"))
    del data["graph"]["max_hops"]
    base = write(tmp_path / "agent-config.yml", yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(ConfigError, match=r"graph\.max_hops: missing required key"):
        load_config(None, base)


@pytest.mark.parametrize("text", ["a: [1, 2\n", "- just\n- a list\n"])
def test_unreadable_yaml(tmp_path: Path, text: str) -> None:
    inst = write(tmp_path / "instance.yml", text)
    with pytest.raises(ConfigError, match=re.escape(str(inst))):
        load_config(inst)


def test_append_to_a_scalar_is_an_error(tmp_path: Path) -> None:
    inst = write(tmp_path / "instance.yml", "retrieval:\n  rrf_k+: [1]\n")
    with pytest.raises(ConfigError, match="cannot append"):
        load_config(inst)


def test_empty_instance_file_is_the_default(tmp_path: Path) -> None:
    assert load_config(write(tmp_path / "instance.yml", "")) == load_config()


def test_secrets_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = load_config()
    monkeypatch.delenv(cfg.llm.api_key_env, raising=False)
    assert secret(cfg.llm.api_key_env) is None
    monkeypatch.setenv(cfg.llm.api_key_env, "s3cret")
    assert secret(cfg.llm.api_key_env) == "s3cret"
    assert "s3cret" not in DEFAULT_CONFIG_FILE.read_text(encoding="utf-8")
