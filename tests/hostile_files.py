"""Hostile documents made in tmp_path: entity bombs, archive bombs, sparse giants, memory hogs.

Each is a real file of the format it claims; none is stored in the repository.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

GB = 1 << 30
MB = 1 << 20
# "billion laughs": nine levels of ten references each, 10^9 copies of "lol" once expanded (3 GB)
LAUGHS_DTD = '<!DOCTYPE lolz [<!ENTITY lol0 "lol">' + "".join(
    f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)) + "]>"
# the part of each format whose text a reader parses, and the closing tag of a text run in it
LAUGH_PARTS = {"docx": ("word/document.xml", b"</w:t>"), "pptx": ("ppt/slides/slide1.xml", b"</a:t>"),
               "xlsx": ("xl/worksheets/sheet1.xml", b"</t>")}


def with_laughs(source: Path, target: Path) -> Path:
    """A copy of an Office file whose text part declares the billion-laughs entities and uses the last one."""
    part, closing = LAUGH_PARTS[target.suffix.lstrip(".")]

    def poisoned(data: bytes) -> bytes:
        text = data.decode("utf-8")
        declaration, sep, body = text.partition("?>") if text.startswith("<?xml") else ("", "", text)
        body = body.replace(closing.decode(), "&lol9;" + closing.decode(), 1)
        return f"{declaration}{sep}\n{LAUGHS_DTD}\n{body.lstrip()}".encode()

    return rewrite_member(source, target, part, poisoned)


def rewrite_member(source: Path, target: Path, member: str, change: object) -> Path:
    """A copy of a ZIP container with one member's bytes passed through ``change``."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as new:
        for info in old.infolist():
            data = old.read(info.filename)
            new.writestr(info.filename, change(data) if info.filename == member else data)  # type: ignore[operator]
    return target


def with_big_text(source: Path, target: Path, megabytes: int) -> Path:
    """A DOCX whose body is ``megabytes`` of ordinary paragraphs: legal, but a parser's tree is many times that."""
    paragraph = "<w:p><w:r><w:t>报销须在三个月内完成，逾期不予受理。</w:t></w:r></w:p>"
    count = megabytes * MB // len(paragraph.encode())

    def grown(data: bytes) -> bytes:
        text = data.decode("utf-8")
        head, _, rest = text.partition("<w:body>")
        return (head + "<w:body>" + paragraph * count + rest).encode()

    return rewrite_member(source, target, "word/document.xml", grown)


def deflate_bomb(source: Path, path: Path, member: str, inflated: int, declared: int | None = None) -> Path:
    """A copy of the DOCX ``source`` with ``member`` (added or replaced) inflating to ``inflated`` bytes of zeros,
    written in milliseconds (one compressed 1 MB block repeated). ``declared`` is the size its headers claim
    (default the truth); the CRC is not computed, as nothing may inflate the member far enough to check it."""
    block = zlib.compressobj(9, zlib.DEFLATED, -15)
    one_mb = block.compress(bytes(MB)) + block.flush(zlib.Z_FULL_FLUSH)
    stream = one_mb * (inflated // MB) + block.flush()
    with zipfile.ZipFile(source) as archive:
        others = {name: archive.read(name) for name in archive.namelist() if name != member}
    entries = [(name, zlib.compress(data)[2:-4], len(data), zlib.crc32(data)) for name, data in others.items()]
    entries.append((member, stream, inflated if declared is None else declared, 0))
    _write_zip(path, entries)
    return path


def _write_zip(path: Path, entries: list[tuple[str, bytes, int, int]]) -> None:
    """A ZIP of deflated members (name, raw deflate stream, size it declares, CRC), headers written by hand."""
    local, central = bytearray(), bytearray()
    for name, data, size, crc in entries:
        encoded = name.encode()
        fields = (20, 0, 8, 0, 0x21, crc, len(data), size, len(encoded), 0)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, *fields, 0, 0, 0, 0, len(local)) + encoded
        local += struct.pack("<IHHHHHIIIHH", 0x04034B50, *fields) + encoded + data
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(local), 0)
    path.write_bytes(bytes(local + central + end))


def sparse_file(path: Path, size: int, head: bytes) -> Path:
    """A file of ``size`` bytes that starts with ``head`` and takes no disk space beyond it (truncate)."""
    with path.open("wb") as handle:
        handle.write(head)
        handle.truncate(size)
    return path


def encrypted_pdf(path: Path) -> Path:
    """A PDF that needs a user password to open (RC4/AES by reportlab's StandardEncryption)."""
    from test_ingest_support import make_encrypted_pdf

    return make_encrypted_pdf(path, user_password="secret")
