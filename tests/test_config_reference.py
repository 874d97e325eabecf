"""docs/CONFIG.md is agent-config.yml rendered: regenerated here and compared, so the two cannot drift."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from server_fixtures import ROOT

from lambdarag.config.load import DEFAULT_CONFIG_FILE, load_config, to_plain
from lambdarag.config.reference import parse, render

CONFIG_MD = ROOT / "docs" / "CONFIG.md"


def leaves(node: Any, prefix: str = "") -> set[str]:
    if not isinstance(node, dict) or not node:
        return {prefix}
    return set().union(*(leaves(v, f"{prefix}.{k}" if prefix else k) for k, v in node.items()))


def test_the_reference_is_current() -> None:
    expected = render(DEFAULT_CONFIG_FILE.read_text(encoding="utf-8"))
    assert CONFIG_MD.read_text(encoding="utf-8") == expected, "docs/CONFIG.md is stale: run lambdarag config-reference"


def test_every_setting_of_the_schema_has_a_row() -> None:
    settings = {e.path for e in parse(DEFAULT_CONFIG_FILE.read_text(encoding="utf-8")) if not e.section}
    for leaf in leaves(to_plain(load_config())):
        assert any(leaf == s or leaf.startswith(s + ".") for s in settings), leaf  # a flow mapping is one row
    text = CONFIG_MD.read_text(encoding="utf-8")
    assert "| `retrieval.channels.vector.timeout_s` | `5.0` | `LAMBDARAG__RETRIEVAL__CHANNELS__VECTOR__TIMEOUT_S` |" \
        in text
    assert "| `llm.enabled` | `false` | `LAMBDARAG__LLM__ENABLED` | false = embedded default" in text


def test_check_fails_when_the_config_changes(tmp_path: Path) -> None:
    config = tmp_path / "agent-config.yml"
    output = tmp_path / "CONFIG.md"
    config.write_text(DEFAULT_CONFIG_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    command = [sys.executable, "-m", "lambdarag", "config-reference", "--config", str(config), "--output", str(output)]
    env = {"PYTHONPATH": str(ROOT), "PATH": ""}
    assert subprocess.run(command, cwd=ROOT, env=env, timeout=60).returncode == 0
    assert subprocess.run([*command, "--check"], cwd=ROOT, env=env, timeout=60).returncode == 0
    text = config.read_text(encoding="utf-8").replace("# gunicorn worker processes", "# worker processes of gunicorn")
    config.write_text(text, encoding="utf-8")
    done = subprocess.run([*command, "--check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "run lambdarag config-reference" in done.stderr
    assert "worker processes of gunicorn" not in output.read_text(encoding="utf-8")


@pytest.mark.parametrize("text", [
    "server:\n  port: 8080 # ok\n  portt 9\n",  # not YAML
    "server:\n  cors_origins:  # a block list: one setting over several lines\n    - https://a.example\n",
    "nosuch: 1  # not a setting of the schema\n",
])
def test_a_line_it_cannot_place_is_an_error(text: str) -> None:
    with pytest.raises(ValueError):
        render(text)
