"""Which extractor a file needs, from its content (magic bytes) and its extension together.

Also the checks that run before any parser touches a file: empty, over the size cap, a ZIP
container that would expand beyond the cap (read from the central directory only).
"""

from __future__ import annotations

import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from lambdarag.errors import ExtractionError
from lambdarag.ingest.settings import IngestSettings

MB = 1024 * 1024
MAX_ZIP_ENTRIES = 20_000
XML_HEAD_BYTES = 64 * 1024  # where an XML part's DOCTYPE would be: before its root element
# OPC (ECMA-376 part 2) forbids DTDs in a package's XML parts: one that declares them carries entities
# (billion laughs, external entities) and is refused before any XML parser runs, in every text encoding
_DTD_MARKS = tuple(mark.encode(encoding) for mark in ("<!DOCTYPE", "<!ENTITY")
                   for encoding in ("utf-8", "utf-16-le", "utf-16-be"))

EXTENSIONS = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".docm": "docx",
    ".pptx": "pptx",
    ".pptm": "pptx",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".md": "md",
    ".markdown": "md",
    ".mdx": "md",  # Markdown with JSX and ESM (ingest/text_formats.py reads its Markdown)
    ".txt": "txt",
    ".text": "txt",
    ".rst": "rst",
    ".rest": "rst",
    ".html": "html",
    ".htm": "html",
    ".csv": "csv",
    ".tsv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}
TEXT_KINDS = frozenset({"md", "txt", "rst", "html", "csv", "jsonl"})
BINARY_KINDS = frozenset({"pdf", "docx", "pptx", "xlsx"})
_LEGACY_OFFICE = {".doc": ".docx", ".xls": ".xlsx", ".ppt": ".pptx", ".wps": ".docx", ".et": ".xlsx"}
_OOXML_PARTS = (("word/document.xml", "docx"), ("ppt/presentation.xml", "pptx"), ("xl/workbook.xml", "xlsx"))
_IMAGES = (
    (b"\x89PNG\r\n\x1a\n", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"BM", "BMP"),
)
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# a whole HTML page (a browser's "save as", a CMS export, a server page saved as .jsp, .php or .aspx) whatever its
# extension says: read as HTML, not its markup as text; UTF-8 or ASCII-compatible bytes, after a BOM, blank space,
# comments, an XML declaration and a server page's directives ("<%@ page … %>", "<?php … ?>")
_HTML_PAGE = re.compile(rb"^(?:\xef\xbb\xbf)?\s*(?:(?:<!--.*?-->|<%.*?%>|<\?.*?\?>)\s*)*<(?:!doctype\s+html|html)\b",
                        re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Detected:
    """The extractor to use and, when content and extension disagree, a note saying so."""

    kind: str  # one of EXTENSIONS' values, or "image"
    note: str = ""
    image_type: str = ""


def supported(path: Path) -> bool:
    return path.suffix.lower() in EXTENSIONS


def detect(path: Path, settings: IngestSettings) -> Detected:
    """The kind of ``path``; raises ExtractionError with the reason when it cannot be extracted."""
    size = path.stat().st_size
    if size == 0:
        raise ExtractionError("file is empty (0 bytes)")
    if size > settings.max_file_mb * MB:
        raise ExtractionError(f"file is {size / MB:.1f} MB > cap {settings.max_file_mb:g} MB")
    suffix = path.suffix.lower()
    expected = EXTENSIONS.get(suffix)
    with path.open("rb") as handle:
        head = handle.read(8192)
    content = _sniff(path, head, settings)
    if content == "text" and expected in (None, "md", "txt", "rst") and _HTML_PAGE.match(head):
        # a page saved under .md, or a server page's source (.jsp, .php, .aspx): its HTML is what a reader sees
        return Detected("html", f"content is an HTML page but extension is {suffix or '(none)'}")
    if content.startswith("image:"):
        return Detected("image", image_type=content.split(":", 1)[1])
    if content in BINARY_KINDS:
        note = "" if expected == content else f"content is {content.upper()} but extension is {suffix or '(none)'}"
        return Detected(content, note)
    return _judge_other(content, suffix, expected, path)


def check_zip(path: Path, settings: IngestSettings) -> list[str]:
    """Names in a ZIP container, refusing one that would expand beyond the cap."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except zipfile.BadZipFile as exc:
        raise ExtractionError(f"corrupt or truncated file: not a readable ZIP container ({exc})") from exc
    if len(infos) > MAX_ZIP_ENTRIES:
        raise ExtractionError(f"zip holds {len(infos)} entries > cap {MAX_ZIP_ENTRIES} (archive bomb?)")
    total = sum(info.file_size for info in infos)
    if total > settings.max_unzipped_mb * MB:
        raise ExtractionError(
            f"zip expands to {total / MB:.0f} MB > cap {settings.max_unzipped_mb:g} MB (archive bomb?)"
        )
    if liar := next((info for info in infos if info.compress_size > info.file_size * 1.01 + 1024), None):
        sizes = f"claims {liar.file_size} bytes but holds {liar.compress_size} compressed"
        raise ExtractionError(f"zip member {liar.filename} {sizes} (a lying archive?): refused")
    if part := _part_with_dtd(path, infos):
        raise ExtractionError(f"XML part {part} declares a DTD or entities (entity expansion attack?): refused")
    return [info.filename for info in infos]


def _part_with_dtd(path: Path, infos: list[zipfile.ZipInfo]) -> str:
    """The first XML part whose head declares a DOCTYPE or an ENTITY ("" when none does)."""
    with zipfile.ZipFile(path) as archive:
        for info in infos:
            if not info.filename.endswith((".xml", ".rels")) or info.is_dir():
                continue
            try:
                with archive.open(info) as member:
                    head = member.read(XML_HEAD_BYTES)
            except (zipfile.BadZipFile, zlib.error, OSError, NotImplementedError, RuntimeError, EOFError):
                continue  # a damaged part: the reader reports it
            if any(mark in head for mark in _DTD_MARKS):
                return info.filename
    return ""


def _sniff(path: Path, head: bytes, settings: IngestSettings) -> str:
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        names = set(check_zip(path, settings))
        return next((kind for part, kind in _OOXML_PARTS if part in names), "zip")
    if head.startswith(_OLE):
        return "ole"
    for magic, name in _IMAGES:
        if head.startswith(magic):
            return f"image:{name}"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image:WEBP"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" not in head:
        return "text"
    return "binary"


def _judge_other(content: str, suffix: str, expected: str | None, path: Path) -> Detected:
    """Text, unknown binary, OLE and non-Office ZIP content."""
    shown = suffix or "(none)"
    if content == "ole":
        raise ExtractionError(_ole_reason(path, suffix))
    if content == "zip":
        raise ExtractionError(f"ZIP archive that is not DOCX/PPTX/XLSX (extension {shown}): unpack it into raw/")
    if expected is None:
        raise ExtractionError(
            f"unsupported file type {shown} (supported: {', '.join(sorted(set(EXTENSIONS)))})"
        )
    if content == "text" and expected in TEXT_KINDS:
        return Detected(expected)
    if content == "text":
        raise ExtractionError(f"not a valid {expected.upper()} file: the content is plain text")
    if expected in TEXT_KINDS:
        raise ExtractionError(f"content is binary, not text (extension {shown})")
    raise ExtractionError(f"not a valid {expected.upper()} file: content not recognised (corrupt?)")


def _ole_reason(path: Path, suffix: str) -> str:
    if suffix in _LEGACY_OFFICE:
        return f"legacy Office format ({suffix}) is not supported: save it as {_LEGACY_OFFICE[suffix]}"
    if "EncryptedPackage".encode("utf-16-le") in path.read_bytes():
        return "encrypted (password-protected) Office file: save a copy without the password"
    return "legacy Office (OLE) file is not supported: save it as .docx, .xlsx or .pptx"
