"""Plain-text formats: TXT, Markdown, CSV and JSONL corpora (one document per line)."""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from lambdarag.errors import ExtractionError
from lambdarag.ingest.document import DocBuilder, Document, page_locator
from lambdarag.ingest.markdown_html import markdown_lines
from lambdarag.ingest.names import shown, unsafe_doc_id
from lambdarag.ingest.plain_headings import SENTENCE_END, TERM_LEVEL, is_rule, is_term, underlined_level
from lambdarag.ingest.tables import build_table
from lambdarag.text.dates import find_dates
from lambdarag.text.numerals import ONE_TO_NINE, TEN, TWO_COUNTING

_MAX_NOTED_LINES = 5
TITLE_MAX = 80  # characters of a plain-text file's first line that can be its title
TITLE_BLOCK_LINES = 2  # lines under a plain-text title before its blank line: a version and date, a URL
_CN_NUM = f"{ONE_TO_NINE}{TEN}百千零〇{TWO_COUNTING}\\d"  # heading and list numbers: 第十二章, 二百零一、
_CHAPTER = re.compile(rf"^第[{_CN_NUM}]+[章编](\s|$)")
_PART = re.compile(rf"^第[{_CN_NUM}]+节(\s|$)")
_ENUMERATED = re.compile(rf"^[{_CN_NUM}]+、\S")
_WEB_ADDRESS = re.compile(r"^(?:https?://|www\.)\S+$")
_MD_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_MD_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_MD_FENCE = re.compile(r"^\s*(```|~~~)")
_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MDX_ESM = re.compile(r"^(?:import|export)\s")  # an MDX page's ESM statement, at a line's start
_MDX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.DOTALL)
_JSX_TAG = re.compile(r"</?[A-Z][\w.]*(?:\s[^<>]*)?/?>")  # a component's tag (<Callout type="info">, </Tabs>)
_MD_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
# a paragraph that is one short bold span, without a sentence's or a label's end ("**五、用户退订流程**"): the heading
# many Markdown pages write instead of "####"
_MD_BOLD_HEADING = re.compile(r"\s*(\*\*|__)([^*_\n]{1,40}?(?<![。！？.!?：:；;，,]))\1\s*")
# A page starts at a form feed (pdftotext writes one between pages) or at a line holding only a
# bracketed page label, "[page 12]" in any case or "[第12页]", which converters write before a
# page's text. Printed page numbers ("— 12 —", "Page 3 of 40", a bare "12") stay text: they are
# footers closing the page they number, and a bare number is as often a table cell or a list item.
_PAGE_MARKER = re.compile(r"\[\s*(?:page\s*(\d+)|第\s*(\d+)\s*页)\s*\]", re.IGNORECASE)


def decode_text(data: bytes) -> str:
    """Text from bytes: BOM, else strict UTF-8, else strict GB18030, else the best guess."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    for encoding in ("utf-8", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    from charset_normalizer import from_bytes  # only for the rare file that is neither

    best = from_bytes(data).best()
    if best is None:
        raise ExtractionError("cannot decode text: not UTF-8, GB18030 or another known encoding")
    return str(best)


def read_text(path: Path) -> str:
    return decode_text(path.read_bytes()).replace("\r\n", "\n").replace("\r", "\n")


def numbered_heading_level(line: str) -> int | None:
    """Level of a Chinese numbered heading line (第一章 1, 第一节 2, 一、 3), else None."""
    line = line.strip()
    if not line or len(line) > 40 or SENTENCE_END.search(line):
        return None
    if _CHAPTER.match(line):
        return 1
    if _PART.match(line):
        return 2
    if _ENUMERATED.match(line) and len(line) <= 30:
        return 3
    return None


def extract_txt(path: Path, doc_id: str, source: str) -> list[Document]:
    builder = DocBuilder(doc_id, source, "txt")
    title, text = leading_title(read_text(path))
    pages = add_plain_text(builder, text)
    return [builder.build(title, pages=pages)]


def leading_title(text: str) -> tuple[str, str]:
    """A plain-text file's title and the text after it: its first line when that line heads a block of its own
    (``_title_block``), is short (at most TITLE_MAX characters), is not a sentence, a numbered heading
    (DocBuilder.build promotes a sole one) or a page marker, and more text follows. Else ("", text): the title is
    then the file's name. The lines under the title stay text: "Version 1.3, 3 November 2008" is searched."""
    head, _, rest = text.lstrip("\n").partition("\n")
    line = head.strip()
    if (not line or len(line) > TITLE_MAX or not rest.strip() or SENTENCE_END.search(line)
            or numbered_heading_level(line) is not None or page_marker(line) is not None or "\f" in line):
        return "", text
    return (line, rest) if rest.startswith("\f") or _title_block(rest.split("\n")) else ("", text)


def _title_block(lines: list[str]) -> bool:
    """Whether the lines under a title line close its block: a blank line at once or after at most
    TITLE_BLOCK_LINES short lines that are no sentence and do not go on with it in lower case (a version and its
    date, a URL, a publisher and date line, an underline); a paragraph's next line goes on with its first."""
    for n, raw in enumerate(lines[:TITLE_BLOCK_LINES + 1]):
        line = raw.strip()
        if not line:
            return True
        if (n == TITLE_BLOCK_LINES or "\f" in raw or len(line) > TITLE_MAX or SENTENCE_END.search(line)
                or (line[0].islower() and not _WEB_ADDRESS.match(line)) or numbered_heading_level(line) is not None
                or page_marker(line) is not None):
            return False
    return False


def page_marker(line: str) -> int | None:
    """The page number a page-marker line opens ("[page 12]", "[第12页]"), else None."""
    match = _PAGE_MARKER.fullmatch(line.strip())
    return int(match.group(1) or match.group(2)) if match else None


def text_pages(text: str) -> list[tuple[int | None, str]]:
    """The text cut at page breaks into (page number, text), marker lines dropped; [(None, text)] without any."""
    pages: list[tuple[int | None, str]] = []
    page = 1 if "\f" in text else None  # form feeds number the pages from 1; a marker names its page
    lines: list[str] = []
    for n, part in enumerate(text.split("\f")):
        if n:
            pages.append((page, "\n".join(lines)))
            lines, page = [], (page or 0) + 1
        for line in part.split("\n"):
            number = page_marker(line)
            if number is None:
                lines.append(line)
                continue
            pages.append((page, "\n".join(lines)))
            lines, page = [], number
    pages.append((page, "\n".join(lines)))
    return [(number, body) for number, body in pages if body.strip()]


def add_plain_text(builder: DocBuilder, text: str, headings: bool = True) -> int:
    """Paragraphs, page by page, each with its page locator; returns the last page number (0 without pages)."""
    pages = text_pages(text)
    numbers = [number for number, _ in pages if number is not None]
    if numbers:
        builder.page_unit = "页"  # chunks spanning pages get a range locator, as PDF chunks do
    for number, body in pages:
        _add_paragraphs(builder, body, headings, number)
    return max(numbers, default=0)


def _add_paragraphs(builder: DocBuilder, text: str, headings: bool, page: int | None) -> None:
    """Paragraphs separated by blank lines; numbered Chinese heading lines, underlined lines and definition terms
    open sections (ingest/plain_headings.py)."""
    locator = page_locator(page) if page is not None else ""
    paragraph: list[str] = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        level = _heading_level(lines, i) if headings else None
        if level is not None or not line.strip() or (headings and is_rule(line)):  # a rule is no text
            builder.text("\n".join(paragraph), locator, page)
            paragraph = []
            if level is not None:
                builder.heading(level, line, locator)
            continue
        paragraph.append(line.rstrip())
    builder.text("\n".join(paragraph), locator, page)


def _heading_level(lines: list[str], i: int) -> int | None:
    """The level of the section line ``i`` opens: numbered (Chinese), underlined, a definition's term; else None."""
    numbered = numbered_heading_level(lines[i])
    if numbered is not None:
        return numbered
    underlined = underlined_level(lines, i)
    return underlined if underlined is not None else (TERM_LEVEL if is_term(lines, i) else None)


def extract_markdown(path: Path, doc_id: str, source: str) -> list[Document]:
    text = read_text(path)
    title, text = front_matter_title(text)
    if path.suffix.lower() == ".mdx":
        text = mdx_markdown(text)
    builder = DocBuilder(doc_id, source, "md")
    lines = _shown_lines(text.split("\n"))
    i, in_code, level = 0, False, 0
    paragraph: list[str] = []
    while i < len(lines):
        line = lines[i]
        if _MD_FENCE.match(line):
            in_code = not in_code
        elif not in_code and (heading := _md_heading(lines, i)) is not None:
            builder.text("\n".join(paragraph))
            paragraph = []
            builder.heading(*heading)
            level = heading[0]
            i += 2 if _MD_HEADING.match(line) is None else 1
            continue
        elif not in_code and not paragraph and (bold := _MD_BOLD_HEADING.fullmatch(line)) is not None:
            builder.heading(min(level + 1, 6), bold.group(2))  # siblings under the last "#" heading
        elif not in_code and _is_md_table_start(lines, i):
            builder.text("\n".join(paragraph))
            paragraph = []
            i = _md_table(builder, lines, i)
            continue
        elif not in_code and not line.strip():
            builder.text("\n".join(paragraph))
            paragraph = []
        else:
            paragraph.append(_md_inline(line.rstrip()) if not in_code else line.rstrip())
        i += 1
    builder.text("\n".join(paragraph))
    return [builder.build(title)]


def mdx_markdown(text: str) -> str:
    """An MDX page's Markdown: its ESM statements (``import``/``export`` blocks, up to the blank line after them),
    its ``{/* comments */}`` and its components' tags (``<Callout type="info">``, the text inside them kept) dropped;
    code blocks as written. Lower-case tags are HTML, read as Markdown's are (ingest/markdown_html.py)."""
    out: list[str] = []
    in_code = in_esm = False
    for line in _MDX_COMMENT.sub("", text).split("\n"):
        if _MD_FENCE.match(line):
            in_code = not in_code
        if not in_code and not in_esm and _MDX_ESM.match(line):
            in_esm = True
        if in_esm:
            in_esm = bool(line.strip())
            continue
        out.append(line if in_code else _JSX_TAG.sub("", line))
    return "\n".join(out)


def _shown_lines(lines: list[str]) -> list[str]:
    """The lines as a reader sees them (ingest/markdown_html.py), code blocks as written."""
    out: list[str] = []
    in_code = False
    for line in lines:
        fence = _MD_FENCE.match(line) is not None
        in_code = in_code != fence
        out.extend([line] if in_code or fence else markdown_lines(line))
    return out


def front_matter_title(text: str) -> tuple[str, str]:
    """The title a page's YAML front matter gives ("" without one) and the page after it: static-site sources write
    it before Markdown and HTML alike (``---\\ntitle: "…"\\nmeta: "…"\\n---``), and it is no text of theirs."""
    if not text.startswith("---\n"):
        return "", text
    end = text.find("\n---", 4)
    if end < 0:
        return "", text
    match = re.search(r"^title:\s*['\"]?(.*?)['\"]?\s*$", text[4:end], re.MULTILINE)
    return (match.group(1) if match else ""), text[end + 4 :].lstrip("-\n")


def _md_heading(lines: list[str], i: int) -> tuple[int, str] | None:
    match = _MD_HEADING.match(lines[i])
    if match:
        return len(match.group(1)), _md_inline(match.group(2))
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    if lines[i].strip() and re.fullmatch(r"\s{0,3}(=+|-{2,})\s*", nxt) and "|" not in lines[i]:
        return (1 if "=" in nxt else 2), _md_inline(lines[i].strip())
    return None


def _is_md_table_start(lines: list[str], i: int) -> bool:
    return "|" in lines[i] and i + 1 < len(lines) and bool(_MD_TABLE_RULE.match(lines[i + 1]))


def _md_table(builder: DocBuilder, lines: list[str], i: int) -> int:
    """Add the pipe table starting at line ``i``; returns the index of the line after it."""
    grid = [_md_cells(lines[i])]
    i += 2
    while i < len(lines) and "|" in lines[i] and lines[i].strip():
        grid.append(_md_cells(lines[i]))
        i += 1
    builder.table(build_table(grid, header_rows=1))
    return i


def _md_cells(line: str) -> list[str]:
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    return [_md_inline(cell.replace("\\|", "|").strip()) for cell in re.split(r"(?<!\\)\|", line)]


def _md_inline(text: str) -> str:
    text = _MD_IMAGE.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    return _MD_EMPHASIS.sub(r"\2", text)


def extract_csv(path: Path, doc_id: str, source: str) -> list[Document]:
    text = read_text(path)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else _sniff_delimiter(text[:8192])
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    try:
        grid = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as exc:
        raise ExtractionError(f"malformed CSV: {exc}") from exc
    builder = DocBuilder(doc_id, source, "csv")
    builder.table(build_table(grid, header_rows=1))
    return [builder.build()]


def _sniff_delimiter(sample: str) -> str:
    try:
        return csv.Sniffer().sniff(sample, delimiters=",\t;|").delimiter
    except csv.Error:
        return ","


_JSONL_OWN = frozenset({"doc_id", "title", "text", "date"})  # fields with a place of their own in a Document


def extract_jsonl(path: Path, doc_id: str, source: str) -> list[Document]:
    """One document per line {"doc_id", "title", "text"} and an optional "date"; doc_ids are kept as they are.
    The line's other short fields (company, region, form...) are kept as the document's metadata."""
    docs: list[Document] = []
    seen: set[str] = set()
    problems: list[str] = []
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        record, problem = _jsonl_record(line, seen)
        if problem:
            problems.append(f"line {number}: {problem}")
            continue
        seen.add(record["doc_id"])
        builder = DocBuilder(record["doc_id"], source, "jsonl")
        # a corpus line is already a retrieval unit, often a window cut mid-section: no headings
        pages = add_plain_text(builder, record["text"], headings=False)
        docs.append(replace(builder.build(record["title"], pages=pages, meta=record["meta"]), date=record["date"]))
    if not docs:
        first = f" ({problems[0]})" if problems else ""
        raise ExtractionError(f'no valid lines: expected {{"doc_id", "title", "text"}} per line{first}')
    if problems:
        shown = "; ".join(problems[:_MAX_NOTED_LINES])
        more = f" (+{len(problems) - _MAX_NOTED_LINES} more)" if len(problems) > _MAX_NOTED_LINES else ""
        docs[0] = _with_note(docs[0], f"{len(problems)} lines skipped: {shown}{more}")
    return docs


def _jsonl_record(line: str, seen: set[str]) -> tuple[dict[str, Any], str]:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        return {}, f"invalid JSON ({exc.msg})"
    if not isinstance(data, dict) or not str(data.get("doc_id", "")).strip():
        return {}, "no doc_id"
    doc_id = str(data["doc_id"]).strip()
    if why := unsafe_doc_id(doc_id):
        return {}, f"{why}: {shown(doc_id)} refused"
    if doc_id in seen:
        return {}, f"duplicate doc_id {doc_id!r}"
    if not isinstance(data.get("text"), str):
        return {}, f"no text for {doc_id!r}"
    meta = [(k, v) for k, v in data.items() if k not in _JSONL_OWN]
    return {"doc_id": doc_id, "title": str(data.get("title") or ""), "text": data["text"],
            "date": document_date(data.get("date")), "meta": meta}, ""


def document_date(value: object) -> str:
    """A line's "date" normalised ("2014-06-13", "2014-06", "2014"); "" when absent or not a date."""
    text = str(value or "").strip()
    if re.fullmatch(r"(?:19|20)\d{2}", text):
        return text
    found = find_dates(text[:40])
    return found[0] if found else ""


def _with_note(doc: Document, note: str) -> Document:
    return replace(doc, notes=(*doc.notes, note))
