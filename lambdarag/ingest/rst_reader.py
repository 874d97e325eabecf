"""reStructuredText (.rst, .rest) read as the page Sphinx or docutils renders from it, without docutils.

Software documentation, and the policies some teams keep in Sphinx, are written in reStructuredText. docutils is no
dependency of ours, and it would stop at the first Sphinx role or directive it does not know; this reader knows
the markup a page's reader sees through, block by block (inline markup: rst_inline.py; tables: rst_tables.py):

- section titles (underlined, or over- and underlined) open sections, levels given to adornment styles in the
  order they first appear, as rST does; the first title is the document's title;
- a paragraph is one line (the page reflows it); a list keeps one item per line, in one block;
- a field (":checkout:" over its indented body) and a definition (a term over its indented definition) read as
  "checkout: Checks out a project's code…": the body's sentence keeps its subject. An admonition's body reads
  "Note: …", a version note's "New in version 2.1: …", a tab's or a Sphinx object's body has its title as label;
  over a list or a code block the label is a line of its own ("Linux:" over "- 2 GB of memory");
- code and literal blocks stay as written; containers (tabs, only, topic…) keep their body; directive options,
  images, tables of contents, comments, targets, substitution definitions and transitions are no text; a field
  list before any other markup is a Sphinx page's metadata (":orphan:"), not shown;
- grid, simple, list and CSV tables are tables.

Anything else is a paragraph: a file that is not rST still yields its text, and no input raises.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from lambdarag.ingest import rst_tables
from lambdarag.ingest.document import DocBuilder, Document, Table
from lambdarag.ingest.rst_inline import definitions, inline
from lambdarag.ingest.tables import build_table, clean_cell
from lambdarag.ingest.text_formats import read_text

PartKind = Literal["title", "rubric", "text", "code", "item", "table"]
Found = tuple[int, list["_Part"]] | None  # a block reader's answer: the line after the block and its parts

_MAX_DEPTH = 40  # nested bodies read as rST; deeper ones are read as plain paragraphs (no recursion limit)
_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1*")
_EXPLICIT = re.compile(r"\.\.(?: +(.*))?")
_DIRECTIVE = re.compile(r"([A-Za-z0-9][\w.:+-]*?)::(?:\s+(.*))?")
_FOOTNOTE = re.compile(r"\[[^\]]+\](?:\s+(.*))?")
_FIELD = re.compile(r":((?:[^:\\`\s]|\\.|`[^`]*`)(?:[^:\\`]|\\.|`[^`]*`)*):(?:\s+(.*))?")
_OPTION = re.compile(r":([\w.-][\w .-]*):(?:\s+(.*))?")
_BULLET = re.compile(r"[-*+•‣⁃](?: +|$)")
_ENUMERATOR = r"\d+|#|[A-Za-z]|[ivxlcdmIVXLCDM]+"
_ENUMERATED = re.compile(rf"(?:\((?:{_ENUMERATOR})\)|(?:{_ENUMERATOR})[.)])(?: +|$)")
_LINE_BLOCK = re.compile(r"\|(?: +|$)")
_SENTENCE_END = re.compile(r"[.:;!?。：；！？]$")
_ADMONITIONS = {"note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important", "caution": "Caution",
                "attention": "Attention", "danger": "Danger", "error": "Error", "hint": "Hint", "seealso": "See also",
                "todo": "Todo"}
_VERSIONS = {"versionadded": "New in version", "versionchanged": "Changed in version",
             "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}
_CODE = frozenset({"code-block", "code", "sourcecode", "parsed-literal", "math", "doctest", "testcode", "testoutput",
                   "testsetup", "code-tab", "productionlist", "prompt", "highlight-block"})
# a body shown without the argument: the argument is a condition, a class or a count, no title
_CONTAINERS = frozenset({"container", "only", "ifconfig", "tabs", "tab-set", "grid", "hlist", "glossary",
                         "compound", "epigraph", "highlights", "pull-quote", "div", "class", "rst-class", "cssclass",
                         "figure", "line-block"})
_DROPPED = frozenset({"image", "toctree", "contents", "raw", "include", "literalinclude", "meta", "highlight", "index",
                      "sectnum", "section-numbering", "header", "footer", "target-notes", "default-role", "role",
                      "title", "autosummary", "tabularcolumns", "graphviz", "digraph", "graph", "mermaid", "plantuml",
                      "uml", "youtube", "video", "iframe", "currentmodule", "module", "program", "py:module",
                      "py:currentmodule"})


@dataclass(frozen=True)
class _Part:
    """One piece of the page in reading order; consecutive items make one block."""

    kind: PartKind
    text: str = ""
    style: str = ""  # a title's adornment: its character, after "^" when it is overlined too
    table: Table | None = None


def extract_rst(path: Path, doc_id: str, source: str) -> list[Document]:
    lines = [line.expandtabs(8).rstrip() for line in read_text(path).split("\n")]  # rST's tab stops: 8
    builder = DocBuilder(doc_id, source, "rst")
    title = _emit(builder, _Reader(definitions(lines)).blocks(lines))
    return [builder.build(title)]


def _emit(builder: DocBuilder, parts: list[_Part]) -> str:
    """Add the parts to ``builder``; returns the document's title, its first section title (not a section itself).
    Levels follow the order styles first appear in; when the title's style comes again, its sections are level 1."""
    titles = [n for n, part in enumerate(parts) if part.kind == "title"]
    styles = list(dict.fromkeys(parts[n].style for n in titles))
    shift = 1 if sum(parts[n].style == styles[0] for n in titles) > 1 else 0
    level, items = 0, []
    for n, part in enumerate(parts):
        if part.kind == "item":
            items.append(part.text)
            continue
        builder.text("\n".join(items))
        items = []
        if part.kind == "title" and n != titles[0]:
            level = styles.index(part.style) + shift
            builder.heading(level, part.text)
        elif part.kind == "rubric":
            builder.heading(level + 1, part.text)  # a small heading under the section it stands in
        elif part.kind == "table":
            builder.table(part.table)
        elif part.kind != "title":
            builder.text(part.text)
    builder.text("\n".join(items))
    return parts[titles[0]].text if titles else ""


class _Reader:
    """Reads lines (tabs expanded, right-stripped) into parts; a body is read again, dedented, one level deeper."""

    def __init__(self, substitutions: dict[str, str]) -> None:
        self.substitutions = substitutions
        self.started = False  # whether anything was read yet: a field list before it is the page's metadata

    def blocks(self, lines: list[str], depth: int = 0) -> list[_Part]:
        if depth > _MAX_DEPTH:
            return [_Part("text", self.inline(" ".join(line.strip() for line in lines)))]
        parts: list[_Part] = []
        i = 0
        while i < len(lines):
            if not lines[i].strip():
                i += 1
                continue
            i, found = self._block(lines, i, depth)
            parts.extend(found)
            self.started = self.started or bool(found)
        return parts

    def inline(self, text: str) -> str:
        return inline(text, self.substitutions)

    def _block(self, lines: list[str], i: int, depth: int) -> tuple[int, list[_Part]]:
        if lines[i].startswith(" "):  # a block quote
            end = _indented(lines, i)
            return end, self.blocks(_dedent(lines[i:end]), depth + 1)
        readers: tuple[Callable[[list[str], int, int], Found], ...] = (
            self._title, self._transition, self._grid, self._simple, self._explicit, self._field, self._list,
            self._line_block, self._doctest)
        for read in readers:
            found = read(lines, i, depth)
            if found is not None:
                return found
        return self._paragraph(lines, i, depth)

    def _title(self, lines: list[str], i: int, depth: int) -> Found:
        over = _rule(lines[i])
        if (over and i + 2 < len(lines) and lines[i + 1].strip() and not _rule(lines[i + 1].strip())
                and _rule(lines[i + 2]) == over):
            return i + 3, [_Part("title", self.inline(lines[i + 1].strip()), f"^{over}")]
        if not over and _underlined(lines, i):
            return i + 2, [_Part("title", self.inline(lines[i].strip()), lines[i + 1][0])]
        return None

    def _transition(self, lines: list[str], i: int, depth: int) -> Found:
        return (i + 1, []) if _rule(lines[i]) and len(lines[i]) >= 4 else None

    def _grid(self, lines: list[str], i: int, depth: int) -> Found:
        if not rst_tables.is_grid_rule(lines[i]):
            return None
        end = i + 1
        while end < len(lines) and lines[end][:1] in ("+", "|"):
            end += 1
        grid, spans, header_rows = rst_tables.grid_table(lines[i:end])
        return end, [self._table(grid, header_rows, spans)]

    def _simple(self, lines: list[str], i: int, depth: int) -> Found:
        if not rst_tables.is_simple_rule(lines[i]):
            return None
        end = next((n + 1 for n in range(i + 1, len(lines))
                    if rst_tables.is_simple_rule(lines[n]) and (n + 1 == len(lines) or not lines[n + 1].strip())), None)
        if end is None:
            return None  # no closing rule: not a table
        grid, header_rows = rst_tables.simple_table(lines[i:end])
        return end, [self._table(grid, header_rows)]

    def _table(self, grid: rst_tables.Grid, header_rows: int, spans: rst_tables.Spans | None = None,
               caption: str = "") -> _Part:
        cells = [[self.inline(clean_cell(cell)) for cell in row] for row in grid]
        return _Part("table", table=build_table(cells, spans, header_rows=header_rows, caption=caption))

    def _explicit(self, lines: list[str], i: int, depth: int) -> Found:
        """Explicit markup (".. "): a directive, a footnote's text; a target, a substitution, a comment are none."""
        markup = _EXPLICIT.fullmatch(lines[i])
        if markup is None:
            return (_indented(lines, i + 1), []) if lines[i].startswith("__ ") else None  # "__ url": a target
        head = markup[1] or ""
        if not head and (i + 1 == len(lines) or not lines[i + 1].strip()):
            return i + 1, []  # an empty comment ends at its blank line: an indented block after it is a quote
        end = _indented(lines, i + 1)
        body = lines[i + 1 : end]
        if (directive := _DIRECTIVE.fullmatch(head)) is not None:
            return end, self._directive(directive[1].lower(), directive[2] or "", body, depth)
        if (footnote := _FOOTNOTE.fullmatch(head)) is not None:
            return end, self.blocks([footnote[1] or "", *_dedent(body)], depth + 1)
        return end, []  # a target (".. _name:"), a substitution definition (rst_inline reads it), a comment

    def _directive(self, name: str, first: str, block: list[str], depth: int) -> list[_Part]:
        argument, options, content = _directive_parts(first, block)
        if name in _DROPPED or (name.startswith("auto") and not content):
            return []
        if name in _CODE:
            return _code(content)
        if name in ("list-table", "csv-table"):
            read = rst_tables.list_table if name == "list-table" else rst_tables.csv_table
            grid, header_rows = read(content, options)
            return [self._table(grid, header_rows, caption=self.inline(" ".join(argument)))]
        if name in _ADMONITIONS:
            return _labelled(_ADMONITIONS[name], self.blocks([*argument, "", *content], depth + 1))
        if name in _VERSIONS:
            version, _, text = " ".join(argument).partition(" ")
            return _labelled(f"{_VERSIONS[name]} {version}".strip(), self.blocks([text, "", *content], depth + 1))
        title = self.inline(" ".join(argument))
        if name in ("rubric", "centered"):
            return [_Part("rubric" if name == "rubric" else "text", title)]
        body = self.blocks(content, depth + 1)
        if name == "table":
            return _labelled(title, body)  # its title is the caption of the table it holds
        return body if name in _CONTAINERS else _labelled(title, body)  # admonition, topic, sidebar, tab, objects

    def _field(self, lines: list[str], i: int, depth: int) -> Found:
        field = _FIELD.fullmatch(lines[i])
        if field is None:
            return None
        end = _indented(lines, i + 1)
        if depth == 0 and not self.started:
            return end, []  # a Sphinx page's metadata (":orphan:", ":tocdepth: 2"): not on the page
        body = self.blocks([field[2] or "", *_dedent(lines[i + 1 : end])], depth + 1)
        return end, _labelled(self.inline(field[1]), body)

    def _list(self, lines: list[str], i: int, depth: int) -> Found:
        """A bullet or enumerated list: each item's body read, its first line after the item's marker."""
        parts: list[_Part] = []
        items = number = 0  # number: the last item's, which an auto-numbered item ("#.") follows
        while i < len(lines) and (marker := _item_marker(lines, i)) is not None:
            items += 1
            end = _indented(lines, i + 1)
            body = self.blocks([lines[i][marker.end() :], *_dedent(lines[i + 1 : end])], depth + 1)
            shown, number = _shown_marker(marker[0].strip(), number)
            parts.extend(_item(shown, body))
            i = next((n for n in range(end, len(lines)) if lines[n].strip()), len(lines))
        return (i, parts) if items else None

    def _line_block(self, lines: list[str], i: int, depth: int) -> Found:
        """A line block ("| line"): one block, a line each; a line without its bar goes on with the line above."""
        if _LINE_BLOCK.match(lines[i]) is None:
            return None
        shown: list[str] = []
        while i < len(lines) and lines[i].strip():
            marker = _LINE_BLOCK.match(lines[i])
            if marker is not None:
                shown.append(lines[i][marker.end() :].strip())
            else:
                shown[-1] = f"{shown[-1]} {lines[i].strip()}"
            i += 1
        return i, [_Part("text", "\n".join(self.inline(line) for line in shown))]

    def _doctest(self, lines: list[str], i: int, depth: int) -> Found:
        if not lines[i].startswith(">>>"):
            return None
        end = next((n for n in range(i, len(lines)) if not lines[n].strip()), len(lines))
        return end, _code(lines[i:end])

    def _paragraph(self, lines: list[str], i: int, depth: int) -> tuple[int, list[_Part]]:
        """A paragraph (its lines joined: the page reflows them); a line over an indented block is a definition
        list's term; a paragraph ending in "::" introduces the literal block indented under it."""
        if i + 1 < len(lines) and lines[i + 1].startswith(" "):
            end = _indented(lines, i + 1)
            return end, _labelled(self.inline(lines[i].strip()), self.blocks(_dedent(lines[i + 1 : end]), depth + 1))
        end = i + 1
        while end < len(lines) and lines[end].strip() and not _underlined(lines, end):
            end += 1
        text = " ".join(line.strip() for line in lines[i:end])
        if not text.endswith("::"):
            return end, [_Part("text", self.inline(text))]
        text = text[:-2].rstrip() if text == "::" or text[-3] == " " else text[:-1]
        shown = [_Part("text", self.inline(text))] if text else []
        start = next((n for n in range(end, len(lines)) if lines[n].strip()), len(lines))
        if start < len(lines) and lines[start].startswith(" "):
            end = _indented(lines, start)
            shown += _code(lines[start:end])
        return end, shown


def _directive_parts(first: str, block: list[str]) -> tuple[list[str], dict[str, str], list[str]]:
    """A directive's argument lines, its options and its content: the argument runs from the directive's line to
    the first option or blank line, the options (":name: value") to the first blank line, the content after it."""
    end = next((n for n, line in enumerate(block) if not line.strip()), len(block))
    head, content = _dedent(block[:end]), _dedent(block[end + 1 :])
    argument = [first] if first.strip() else []
    options: dict[str, str] = {}
    name = ""
    for n, line in enumerate(head):
        option = _OPTION.fullmatch(line)
        if option is not None:
            name = option[1].lower()
            options[name] = option[2] or ""
        elif name and line.startswith(" "):
            options[name] += f" {line.strip()}"  # an option's value goes on
        elif name:  # content without the blank line before it
            return argument, options, [*head[n:], "", *content]
        else:
            argument.append(line.strip())
    return argument, options, content


def _labelled(label: str, parts: list[_Part]) -> list[_Part]:
    """``parts`` led by ``label``: "label: text" on a paragraph, a line of its own over a list or a code block,
    a table's caption; the label alone without parts."""
    if not label:
        return parts
    if not parts:
        return [_Part("text", label)]
    first = parts[0]
    if first.kind == "text":
        joined = f"{label} {first.text}" if _SENTENCE_END.search(label) else f"{label}: {first.text}"
        return [replace(first, text=joined), *parts[1:]]
    if first.table is not None and not first.table.caption:
        return [replace(first, table=replace(first.table, caption=label)), *parts[1:]]
    colon = label if label.endswith(":") else f"{label}:"
    if first.kind == "code":
        return [replace(first, text=f"{colon}\n{first.text}"), *parts[1:]]
    return [_Part("item" if first.kind == "item" else "text", colon), *parts]


def _item(marker: str, body: list[_Part]) -> list[_Part]:
    """One list item's parts: its marker before the first paragraph; its other paragraphs, code and nested items
    as lines of the list's block."""
    if body and body[0].kind in ("text", "code"):
        body = [replace(body[0], text=f"{marker} {body[0].text}"), *body[1:]]
    return [replace(part, kind="item") if part.kind in ("text", "code") else part for part in body]


def _item_marker(lines: list[str], i: int) -> re.Match[str] | None:
    """The bullet or enumerator opening line ``i`` as a list item; an enumerator only when the item's next line
    is blank, indented or another item ("A. Smith wrote" over more text is a paragraph, as in rST)."""
    bullet = _BULLET.match(lines[i])
    if bullet is not None:
        return bullet
    enumerated = _ENUMERATED.match(lines[i])
    after = lines[i + 1] if i + 1 < len(lines) else ""
    if enumerated is None or (after.strip() and not after.startswith(" ") and _ENUMERATED.match(after) is None):
        return None
    return enumerated


def _shown_marker(marker: str, number: int) -> tuple[str, int]:
    """A list item's marker as the page shows it, and its number: a bullet as "-" (no number), an auto-numbered
    "#." as the number after ``number``, any other enumerator as written."""
    if _BULLET.fullmatch(marker):
        return "-", 0
    if marker[:-1] == "#":
        return f"{number + 1}{marker[-1]}", number + 1
    digits = marker.strip("().")
    return marker, int(digits) if digits.isdigit() else 0


def _code(lines: list[str]) -> list[_Part]:
    """A code or literal block, as written (dedented)."""
    text = "\n".join(_dedent(lines)).strip("\n")
    return [_Part("code", text)] if text.strip() else []


def _rule(line: str) -> str:
    """The character a line of adornment (one punctuation character repeated) repeats; "" for any other line."""
    return line[0] if line and _ADORNMENT.fullmatch(line) else ""


def _underlined(lines: list[str], i: int) -> bool:
    """Whether line ``i`` is a section title over its underline: unindented text over a rule at least as wide
    (or of four characters or more: docutils takes a short underline with a warning)."""
    text = lines[i]
    under = lines[i + 1] if i + 1 < len(lines) else ""
    return (bool(text) and not text[0].isspace() and not _rule(text) and bool(_rule(under)) and len(under) >= 2
            and (len(under) >= rst_tables.width(text) or len(under) >= 4))


def _indented(lines: list[str], i: int) -> int:
    """The end of the indented block from line ``i``: blank lines inside it are its own, trailing ones not."""
    end = i
    for n in range(i, len(lines)):
        if lines[n] and not lines[n].startswith(" "):
            break
        end = n + 1 if lines[n] else end
    return end


def _dedent(lines: list[str]) -> list[str]:
    indent = min((len(line) - len(line.lstrip(" ")) for line in lines if line.strip()), default=0)
    return [line[indent:] for line in lines]
