"""`lambdarag serve` / scripts/app.py: the gunicorn command line it execs, and its refusal of unknown domains."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from server_fixtures import ROOT, bare_domain

from lambdarag.cli import build_parser
from lambdarag.commands.serve import APP, gunicorn_argv


def argv_for(args: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
             port_env: str | None = None) -> list[str]:
    domain = bare_domain(tmp_path / "knowledge")
    if port_env is None:
        monkeypatch.delenv("PORT", raising=False)
    else:
        monkeypatch.setenv("PORT", port_env)
    parsed = build_parser().parse_args(["serve", "--domain", "kb", *args])
    return gunicorn_argv(parsed, domain.config.server)


def option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_defaults_come_from_the_server_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    argv = argv_for([], monkeypatch, tmp_path)
    assert argv[1:3] == ["-m", "gunicorn"] and argv[-1] == APP
    assert option(argv, "--bind") == "127.0.0.1:8080"
    assert (option(argv, "--workers"), option(argv, "--threads"), option(argv, "--timeout")) == ("2", "4", "120")
    assert option(argv, "--config") == "python:lambdarag.server.gunicorn_conf"


def test_flags_and_port_env_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert option(argv_for([], monkeypatch, tmp_path, port_env="9090"), "--bind") == "127.0.0.1:9090"
    argv = argv_for(["--host", "0.0.0.0", "--port", "8181", "--workers", "3", "--threads", "8"], monkeypatch,
                    tmp_path / "b", port_env="9090")
    assert option(argv, "--bind") == "0.0.0.0:8181"
    assert (option(argv, "--workers"), option(argv, "--threads")) == ("3", "8")


def test_gunicorn_config_module_is_importable() -> None:
    from lambdarag.server import gunicorn_conf

    assert gunicorn_conf.worker_class == "gthread" and gunicorn_conf.preload_app is False


def test_app_script_refuses_an_unknown_domain(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "scripts/app.py", "--domain", "nosuch", "--base-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "domain 'nosuch' not found" in done.stderr and "lambdarag init nosuch" in done.stderr
