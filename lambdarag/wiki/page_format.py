"""The wiki page file format, written and read in one place: YAML front matter and a sectioned Markdown body.

A page file is ``---`` front matter (title, kind, aliases, sources, latest_revision, generated_hash)
``---`` and a body::

    # <title>
    别名：<alias>、<alias>          (only with aliases)
    ## 摘要        one paragraph, or （无）
    ## 关键事实    "- fact" lines, or "- （无）"
    ## 关系        "- <label>：<name or [[page]]>" lines, or "- （无）"
    ## 来源        "- <chunk id>" lines

generated_hash is the sha256 of the body as generated: a body that no longer matches it was edited by
a person. A page written beside a hand-edited one ends in GENERATED_SUFFIX.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

GENERATED_SUFFIX = ".generated.md"
SUMMARY, FACTS, RELATIONS, SOURCES = "摘要", "关键事实", "关系", "来源"
NONE = "（无）"  # an empty section
ALIASES = "别名："
_SECTION = re.compile(r"^##\s*(\S+)\s*$", re.MULTILINE)
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: pages are parsed often
_YAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def body_hash(body: str) -> str:
    """sha256 of a page body (what generated_hash records)."""
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def is_edited(front: Mapping[str, Any], body: str) -> bool:
    """A body that no longer matches the generated_hash of its front matter was changed by a person."""
    return front.get("generated_hash") != body_hash(body)


def render_body(title: str, aliases: Sequence[str], summary: str, facts: Sequence[str],
                relations: Sequence[tuple[str, str]], sources: Sequence[str]) -> str:
    """The Markdown body: relations as (label, target text), the target already a [[link]] where it has a page."""
    lines = [f"# {title}", ""]
    if aliases:
        lines += [ALIASES + "、".join(aliases), ""]
    lines += [f"## {SUMMARY}", "", summary or NONE, "", f"## {FACTS}", ""]
    lines += [f"- {fact}" for fact in facts] or [f"- {NONE}"]
    lines += ["", f"## {RELATIONS}", ""]
    lines += [f"- {label}：{target}" for label, target in relations] or [f"- {NONE}"]
    lines += ["", f"## {SOURCES}", ""] + [f"- {chunk_id}" for chunk_id in sources]
    return "\n".join(lines) + "\n"


def render_file(front: Mapping[str, Any], body: str) -> str:
    """A whole page file: the front matter fields in their order, then the body."""
    dumped = yaml.dump(dict(front), Dumper=_YAML_DUMPER, allow_unicode=True, sort_keys=False)
    return "---\n" + dumped + "---\n" + body


def parse_file(text: str) -> tuple[dict[str, Any], str]:
    """Front matter and body of a page file's text (no front matter: empty mapping, the whole text as body)."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end >= 0:
            try:
                front = yaml.load(text[4:end], Loader=_YAML_LOADER) or {}
            except yaml.YAMLError:
                front = {}
            if isinstance(front, dict):
                return front, text[end + 5:]
    return {}, text


def read_page(path: Path) -> tuple[dict[str, Any], str]:
    """Front matter and body of a page file."""
    return parse_file(path.read_text(encoding="utf-8"))


def sections(body: str) -> dict[str, str]:
    """A body's ``## name`` sections, name → stripped text."""
    parts = _SECTION.split(body)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def excerpt(body: str, limit: int) -> str:
    """Summary and key facts of a page body, at most ``limit``; a page written without those sections (by hand) gives
    its whole text, a generated page whose summary and facts are empty gives "" (its aliases, （无） placeholders and
    source ids say nothing a reader of the context could use)."""
    found = sections(body)
    summary = found.get(SUMMARY, "")
    summary = "" if summary == NONE else summary
    facts = [line.strip() for line in found.get(FACTS, "").splitlines()
             if line.strip().lstrip("- ") not in ("", NONE) and line.strip().lstrip("- ") not in summary]
    if not summary and not facts and (SUMMARY in found or FACTS in found):
        return ""
    text = "\n".join([summary, *facts]) if summary or facts else re.sub(r"^#.*$", "", body, flags=re.MULTILINE)
    text = "\n".join(line.strip() for line in text.splitlines() if line.strip())
    return text if len(text) <= limit else text[: limit - 1] + "…"
