"""Domain lifecycle: init from the template, name validation, the config CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from lambdarag.cli import main
from lambdarag.config.domain import SUBDIRS, init_domain, knowledge_base_dir, open_domain
from lambdarag.errors import DomainError


def test_init_creates_the_folders_and_instance_file(tmp_path: Path) -> None:
    domain = init_domain("finance-office", tmp_path)
    assert domain.root == (tmp_path / "finance-office").resolve()
    for sub in SUBDIRS:
        assert (domain.root / sub).is_dir()
    text = domain.instance_file.read_text(encoding="utf-8")
    assert "finance-office" in text and "@NAME@" not in text
    assert domain.config.prompts.system.count("{domain}") == 1


@pytest.mark.parametrize("name", ["", "Upper", "../escape", "a/b", "-lead", "x" * 65, "名字", "a b", ".", "..",
                                  "kb\n", "/abs", "kb/../x", "a\x00", "a\\b", "~kb", " kb"])
def test_bad_names_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(DomainError, match="invalid domain name"):
        init_domain(name, tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["a", "demo", "finance_2024", "x" * 64, "0day"])
def test_good_names(tmp_path: Path, name: str) -> None:
    assert init_domain(name, tmp_path).name == name


def test_init_refuses_an_existing_domain_unless_forced_and_keeps_raw(tmp_path: Path) -> None:
    domain = init_domain("demo", tmp_path)
    doc = domain.raw_dir / "policy.md"
    doc.write_text("# 差旅费管理办法\n", encoding="utf-8")
    with pytest.raises(DomainError, match="already exists"):
        init_domain("demo", tmp_path)
    init_domain("demo", tmp_path, force=True)
    assert doc.read_text(encoding="utf-8") == "# 差旅费管理办法\n"


def test_a_domain_folder_linked_out_of_the_knowledge_base_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "knowledge"
    base.mkdir()
    init_domain("real", tmp_path / "elsewhere")
    (base / "linked").symlink_to(tmp_path / "elsewhere" / "real", target_is_directory=True)
    with pytest.raises(DomainError, match=r"domain 'linked' resolves outside .*knowledge: choose another name"):
        open_domain("linked", base)


def test_open_missing_domain_says_how_to_create_it(tmp_path: Path) -> None:
    with pytest.raises(DomainError, match="lambdarag init nowhere"):
        open_domain("nowhere", tmp_path)


def test_base_dir_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAMBDARAG_KNOWLEDGE_DIR", str(tmp_path))
    assert knowledge_base_dir() == tmp_path.resolve()
    init_domain("envdomain")
    assert (tmp_path / "envdomain" / "instance.yml").exists()


def test_cli_init_and_config_mark_overrides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "demo", "--base-dir", str(tmp_path)]) == 0
    inst = tmp_path / "demo" / "instance.yml"
    inst.write_text(inst.read_text(encoding="utf-8") + "retrieval:\n  final_top_k: 5\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["config", "--domain", "demo", "--base-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "  final_top_k: 5  # <- instance.yml" in out
    assert "  rrf_k: 20\n" in out


def test_cli_expected_errors_are_one_line_and_exit_nonzero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["config", "--domain", "missing", "--base-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "lambdarag init missing" in err
    inst_dir = tmp_path / "broken"
    init_domain("broken", tmp_path)
    (inst_dir / "instance.yml").write_text("retrieval:\n  rrf_k: many\n", encoding="utf-8")
    assert main(["config", "--domain", "broken", "--base-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "retrieval.rrf_k" in err and "Traceback" not in err
