"""Index publication: atomic swap, manifest checks, clean-up after a killed build."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lambdarag.channels.manifest import Manifest, publish, read_manifest
from lambdarag.errors import REBUILD_COMMANDS, IndexMismatchError, rebuild_hint


def _writer(text: str, version: int = 1):  # type: ignore[no-untyped-def]
    def write(folder: Path) -> Manifest:
        (folder / "data.txt").write_text(text, encoding="utf-8")
        return Manifest(channel="toy", format_version=version, params={"k": 1}, counts={"n": 1}, chunks_hash="h")

    return write


def test_publish_swaps_and_removes_the_previous_folder(tmp_path: Path) -> None:
    publish(tmp_path, "toy", _writer("old"))
    first = (tmp_path / "toy").resolve()
    publish(tmp_path, "toy", _writer("new"))
    assert (tmp_path / "toy" / "data.txt").read_text(encoding="utf-8") == "new"
    assert not first.exists()
    folder, manifest = read_manifest(tmp_path, "toy", "d", 1, {"k": 1}, "h")
    assert manifest.counts == {"n": 1} and folder == (tmp_path / "toy").resolve()


def test_mismatches_name_the_rebuild_command(tmp_path: Path) -> None:
    with pytest.raises(IndexMismatchError, match="missing"):
        read_manifest(tmp_path, "bm25", "finance", 1)
    publish(tmp_path, "bm25", _writer("x"))
    for kwargs, fragment in (({"format_version": 2}, "format"), ({"params": {"k": 2}}, "k=1"),
                             ({"chunks_digest": "other"}, "older than")):
        args = {"format_version": 1, **kwargs}
        with pytest.raises(IndexMismatchError, match=fragment) as err:
            read_manifest(tmp_path, "bm25", "finance", **args)  # type: ignore[arg-type]
        assert "python scripts/rebuild_index.py --domain finance" in str(err.value)


def test_a_failing_writer_leaves_the_old_index(tmp_path: Path) -> None:
    publish(tmp_path, "toy", _writer("old"))

    def broken(folder: Path) -> Manifest:
        (folder / "half").write_text("x", encoding="utf-8")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        publish(tmp_path, "toy", broken)
    assert (tmp_path / "toy" / "data.txt").read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".toy-")) == [
        (tmp_path / "toy").resolve().name
    ]


def test_folders_of_a_dead_builder_are_removed_on_the_next_publish(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    (tmp_path / f".toy-20260101000000-{pid}-1").mkdir()
    (tmp_path / f".toy.link-20260101000000-{pid}-1").symlink_to("nowhere")
    publish(tmp_path, "toy", _writer("new"))
    # the pid between dashes: as a bare substring it may be part of the new folder's own time stamp or counter
    leftovers = sorted(p.name for p in tmp_path.iterdir() if f"-{pid}-" in p.name)
    assert leftovers == []


def test_rebuild_commands_are_the_documented_scripts() -> None:
    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    for what, command in REBUILD_COMMANDS.items():
        if command.startswith("python scripts/"):
            assert (root / command.split()[1]).is_file(), what
        assert command.format(domain="finance") in readme, what
    assert rebuild_hint("bm25", "finance") == "run: python scripts/rebuild_index.py --domain finance"
    assert rebuild_hint("toy", "finance") == "run: lambdarag build --domain finance"


def test_a_chunk_list_hashes_as_its_chunks_and_only_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from lambdarag.channels import manifest
    from lambdarag.records import Chunk

    chunks = [Chunk(chunk_id=f"d#{i:04d}", doc_id="d", title="t", breadcrumb="t", text=f"text {i}") for i in range(3)]
    plain = manifest.chunks_hash(chunks)
    hashed = manifest.ChunkList(chunks)
    calls: list[int] = []
    real = manifest.content_hash
    monkeypatch.setattr(manifest, "content_hash", lambda c: calls.append(1) or real(c))
    assert [manifest.chunks_hash(hashed) for _ in range(5)] == [plain] * 5 and len(calls) == 1
    assert manifest.chunks_hash(chunks[:2]) != plain and len(calls) == 2
