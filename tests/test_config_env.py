"""LAMBDARAG__SECTION__KEY environment variables: typed by the schema, over instance.yml, errors naming them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from server_fixtures import ROOT

from lambdarag.config.domain import init_domain
from lambdarag.config.env import env_name, env_settings, setting_type
from lambdarag.config.load import load_config
from lambdarag.errors import ConfigError


def test_names_and_values_follow_the_schema() -> None:
    override, names = env_settings({
        "LAMBDARAG__LLM__MODEL": "true",  # a string setting keeps the text, even one YAML would read as a bool
        "LAMBDARAG__LLM__ENABLED": "true",
        "LAMBDARAG__EMBEDDING__DIM": "1024",
        "LAMBDARAG__QUERY__TERMS": "[报账大厅, 预算科]",
        "LAMBDARAG__PROMPTS__SYSTEM": "助手: {domain}",  # a colon would make YAML read a mapping
        "LAMBDARAG_ADMIN_TOKEN": "not a setting",
    })
    assert override == {"llm": {"model": "true", "enabled": True}, "embedding": {"dim": 1024},
                        "query": {"terms": ["报账大厅", "预算科"]}, "prompts": {"system": "助手: {domain}"}}
    assert names["embedding.dim"] == "LAMBDARAG__EMBEDDING__DIM" == env_name("embedding.dim")
    assert setting_type("retrieval.channels.vector.enabled") is bool and setting_type("nosuch.key") is None


def test_environment_wins_over_instance_yml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inst = tmp_path / "instance.yml"
    inst.write_text("llm: {base_url: http://from-instance/v1, timeout_s: 5}\nembedding: {query_prefix: 'q: '}\n",
                    encoding="utf-8")
    monkeypatch.setenv("LAMBDARAG__LLM__BASE_URL", "http://llm:8000/v1")
    monkeypatch.setenv("LAMBDARAG__EMBEDDING__QUERY_PREFIX", "")
    monkeypatch.setenv("LAMBDARAG__RETRIEVAL__CHANNELS__GRAPH__ENABLED", "false")
    cfg = load_config(inst)
    assert cfg.llm.base_url == "http://llm:8000/v1" and cfg.llm.timeout_s == 5.0
    assert cfg.embedding.query_prefix == "" and cfg.retrieval.channels["graph"].enabled is False
    assert load_config().llm.base_url == "http://llm:8000/v1"  # no instance file: still applied


@pytest.mark.parametrize(("var", "value", "message"), [
    ("LAMBDARAG__SERVER__WORKERS", "many", "expected an integer"),
    ("LAMBDARAG__SERVER__PORT", "0", "out of range"),
    ("LAMBDARAG__EMBEDDING__BACKEND", "gpu", "not one of"),
    ("LAMBDARAG__NOSUCH__KEY", "1", "unknown key"),
    ("LAMBDARAG__LLM__ENABLED", "[unclosed", "expected true or false"),
])
def test_a_bad_value_names_the_variable(var: str, value: str, message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(var, value)
    with pytest.raises(ConfigError) as exc:
        load_config()
    assert f"environment variable {var}" in str(exc.value) and message in str(exc.value)


def test_config_command_marks_environment_settings(tmp_path: Path) -> None:
    init_domain("kb", tmp_path)
    (tmp_path / "kb" / "instance.yml").write_text("llm: {model: from-instance, timeout_s: 9}\n", encoding="utf-8")
    env = {"PYTHONPATH": str(ROOT), "LAMBDARAG__LLM__MODEL": "from-env", "PATH": ""}
    done = subprocess.run([sys.executable, "-m", "lambdarag", "config", "--domain", "kb", "--base-dir", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "  model: from-env  # <- $LAMBDARAG__LLM__MODEL" in done.stdout
    assert "  timeout_s: 9.0  # <- instance.yml" in done.stdout
