"""reStructuredText inline markup read as the text a rendered page shows (rst_reader.py reads the blocks).

A Sphinx page's sentences are full of markup: ``literal``, *emphasis*, `a link <https://…>`_, and above all
interpreted text with a role (:ref:`Label <target>`, :doc:`/path`, :term:`Foo`, :guilabel:`Cancel build`). What
reaches the chunks is what a reader sees in their place, as far as the file alone tells:

- a literal keeps its text as written (escapes and markup inside it are not read);
- a role with an explicit title shows the title; a cross-reference without one shows its target as written
  (the title Sphinx would look up lives in another file), a :doc: path its last part ("/reference/cdn" → "cdn"),
  a "~module.func" its last name; a role that only styles its text (:guilabel:, :abbr:, :file:…) shows the text;
- a hyperlink reference shows its text (`text <url>`_, `name`_, name_), a bare URL stays;
- a substitution |name| is its `.. |name| replace::` text, nothing for an image or other substitution, and its
  bare name when the file does not define it (the definition is in conf.py's rst_prolog or an include, which the
  file does not carry: the name is the best text left, and a reader never sees stray bars);
- footnote and citation references ([1]_, [#note]_) go: the footnote's text is read where it stands;
- backslash escapes go ("\\*" is a star, "\\ " nothing).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# a span's text never runs over the next opener of its kind, and is bounded: a long line is read in linear time
_LITERAL = re.compile(r"``(?=\S)((?:[^`]|`(?!`)){1,2000}?)(?<=\S)``(?!`)")
# an escaped character is held as a private-use character (plane 15) while markup is read, so that it is never
# read as markup; characters beyond the BMP are not held (an escaped emoji is no markup anyway)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_HELD = 0xF0000
_HELD_CHAR = re.compile("[\U000f0000-\U000fffff]")
# backquoted text opens and closes on a non-space and touches no other backquote ("``" unterminated opens nothing)
_INTERPRETED = re.compile(r"(?::(?P<role>[A-Za-z][\w.+-]*(?::[\w.+-]+)*):)?(?P<target>_)?(?<!`)`"
                          r"(?P<body>[^`\s](?:[^`]*[^`\s])?)`(?!`)(?::(?P<after>[A-Za-z][\w.+-]*):)?(?P<link>__?)?")
_TITLED = re.compile(r"(.*?)\s*<([^<>]*)>", re.DOTALL)  # "Title <target>"
_SUBSTITUTION = re.compile(r"(\s?)(?<![\w|])\|(?=\S)([^|\n]*?\S)\|(?:__?)?(?![\w|])")
_FOOTNOTE_REF = re.compile(r"\s*\[(?:#[\w.-]*|\*|\d+|[^\W\d][\w.-]*)\]_(?!\w)")
_STRONG = re.compile(r"(?<![\w*])\*\*(?=\S)((?:[^*]|\*(?!\*)){1,2000}?)(?<=\S)\*\*(?![\w*])")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*]{1,2000}?)(?<=\S)\*(?![\w*])")
_NAMED_REF = re.compile(r"(?<![\w/.-])([^\W_](?:[\w.+-]*[^\W_])?)__?(?!\w)")  # name_ and name__
_DEFINITION = re.compile(r"\.\.\s+\|([^|]+)\|\s+([\w:.-]+)::(?:\s+(.*))?")
# roles whose text is shown as written: no "Title <target>" inside them
_STYLING_ROLES = frozenset({"abbr", "code", "command", "dfn", "emphasis", "file", "guilabel", "kbd", "literal",
                            "mailheader", "makevar", "math", "menuselection", "mimetype", "newsgroup", "program",
                            "regexp", "samp", "strong", "sub", "subscript", "sup", "superscript", "t",
                            "title-reference"})


def inline(text: str, substitutions: Mapping[str, str]) -> str:
    """``text`` (one paragraph, a title or a cell) with its inline markup read as the text it shows."""
    pieces = _LITERAL.split(text)  # odd pieces are literals' text
    return "".join(piece if n % 2 else _markup(piece, substitutions) for n, piece in enumerate(pieces))


def definitions(lines: list[str]) -> dict[str, str]:
    """The file's substitutions, name → the text it shows: a `replace::` its text, any other (an image, a date,
    a Unicode character code) nothing. Names are also kept in lower case: rST matches them ignoring case last."""
    found: dict[str, str] = {}
    for line in lines:
        match = _DEFINITION.fullmatch(line.strip())
        if match is not None:
            shown = inline(match[3] or "", {}) if match[2] == "replace" else ""
            found.setdefault(match[1].strip(), shown)
            found.setdefault(match[1].strip().lower(), shown)
    return found


def _markup(text: str, substitutions: Mapping[str, str]) -> str:
    """Markup outside literals read; escaped characters held meanwhile so that none is read as markup."""
    text = _ESCAPE.sub(_hold, text)
    text = _INTERPRETED.sub(_interpreted, text)
    text = _SUBSTITUTION.sub(lambda m: _substituted(m[1], m[2], substitutions), text)
    text = _FOOTNOTE_REF.sub("", text)
    text = _STRONG.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _NAMED_REF.sub(r"\1", text)
    return _HELD_CHAR.sub(lambda m: chr(ord(m.group()) - _HELD), text)


def _hold(match: re.Match[str]) -> str:
    char = match[1]
    if char.isspace():
        return ""  # "\ " separates markup from the text it touches, and shows nothing
    return chr(_HELD + ord(char)) if ord(char) <= 0xFFFF else char


def _interpreted(match: re.Match[str]) -> str:
    """Backquoted text: a hyperlink reference or inline target shows its text, interpreted text its role's."""
    body = " ".join(match["body"].split())
    if match["link"] or match["target"]:
        titled = _TITLED.fullmatch(body)
        return (titled[1] or titled[2]) if titled is not None else body
    role = (match["role"] or match["after"] or "").rsplit(":", 1)[-1].lower()
    return _role_text(role, body)


def _role_text(role: str, body: str) -> str:
    """What Sphinx shows for ``role`` on ``body``, as far as the file alone tells."""
    if role in _STYLING_ROLES:
        return body.replace("-->", "▸") if role == "menuselection" else body
    titled = _TITLED.fullmatch(body)
    if titled is not None and titled[1]:
        return titled[1]
    target = (titled[2] if titled is not None else body).lstrip("!")
    if role == "doc":
        return target.rstrip("/").rsplit("/", 1)[-1] or target
    return target[1:].rsplit(".", 1)[-1] if target.startswith("~") else target


def _substituted(space: str, name: str, substitutions: Mapping[str, str]) -> str:
    """A substitution's text after the space before it; one showing nothing (an image) takes that space along."""
    name = " ".join(name.split())
    shown = substitutions.get(name, substitutions.get(name.lower(), name))
    return f"{space}{shown}" if shown else ""
