"""The configuration reference (docs/CONFIG.md), rendered from agent-config.yml's keys, defaults and comments.

``lambdarag config-reference`` writes it; tests/test_config_reference.py renders it again and fails when the
file and agent-config.yml have drifted apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from lambdarag.config.env import env_name, setting_type

COMMENT = " # "
MAX_DEFAULT_CHARS = 70

PREAMBLE = """# Configuration reference

Generated from `agent-config.yml` by `lambdarag config-reference`: do not edit by hand (the test
`tests/test_config_reference.py` fails when this file and `agent-config.yml` drift apart; run the command to
bring it up to date).

A setting is decided in three layers, each over the one before:

1. `agent-config.yml`: every setting with its default (the table below);
2. the domain's `knowledge/<domain>/instance.yml`: any subset; mappings merge key by key, a list replaces the
   inherited list, and `key+: [...]` appends to it;
3. environment variables `LAMBDARAG__SECTION__KEY=value` (the *Environment* column), over both: what a
   container deployment sets (`docker-compose.yml`). A string setting takes the value as written; the others
   read it as YAML (`true`, `1024`, `[a, b]`, `{报销: 1.5}`).

Unknown keys, wrong types, out-of-range values and prompt templates missing a placeholder are errors naming
the file (or the environment variable), the key path and the bad value. `lambdarag config --domain NAME`
prints the effective configuration with each override marked. Secrets never live in any of these files: the
`*_env` settings name the environment variable that holds them. Besides the settings, the process reads
`LAMBDARAG_DOMAIN` (the domain `lambdarag serve` and the app factory serve), `LAMBDARAG_KNOWLEDGE_DIR` (over
`knowledge.base_dir`), `LAMBDARAG_CONFIG` (another file in place of `agent-config.yml`) and `PORT` (over
`server.port`).
"""


@dataclass(frozen=True)
class Entry:
    """One line of agent-config.yml: a section (value None) or a setting, with its comment."""

    path: str
    value: Any
    comment: str
    section: bool


def parse(text: str) -> list[Entry]:
    """The sections and settings of agent-config.yml in file order (raises ValueError on a line it cannot read)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"agent-config.yml is not valid YAML: {exc}") from exc
    stack: list[tuple[int, str]] = []
    entries: list[Entry] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        prefix = ".".join(name for _, name in stack)
        entry = _entry(line.strip(), prefix, data, number)
        entries.append(entry)
        if entry.section:
            stack.append((indent, entry.path.rsplit(".", 1)[-1]))
    return entries


def _entry(line: str, prefix: str, data: Any, number: int) -> Entry:
    key = line.split(":", 1)[0]
    path = f"{prefix}.{key}" if prefix else key
    expected = _lookup(data, path, number)
    starts = [i for i in range(len(line)) if line.startswith(COMMENT, i)]
    for cut in [*starts, len(line)]:
        head, comment = line[:cut], line[cut + len(COMMENT):].strip() if cut < len(line) else ""
        try:
            parsed = yaml.safe_load(head)
        except yaml.YAMLError:
            continue
        if isinstance(parsed, dict) and list(parsed) == [key]:
            if parsed[key] is None and isinstance(expected, dict):
                return Entry(path, None, comment, section=True)
            if parsed[key] == expected:
                return Entry(path, expected, comment, section=False)
    raise ValueError(f"agent-config.yml line {number}: cannot read {line!r}")


def _lookup(data: Any, path: str, number: int) -> Any:
    node = data
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            raise ValueError(f"agent-config.yml line {number}: {path} is not a key of the file")
        node = node[part]
    return node


def render(text: str) -> str:
    """docs/CONFIG.md for this agent-config.yml text."""
    out = [PREAMBLE]
    for entry in parse(text):
        if setting_type(entry.path) is None:
            raise ValueError(f"agent-config.yml: {entry.path} is not a setting of the schema (config/schema.py)")
        if entry.section and "." not in entry.path:
            out += [f"\n## `{entry.path}`\n", *([f"{_prose(entry.comment)}\n"] if entry.comment else []),
                    "| Setting | Default | Environment | Meaning |", "|---|---|---|---|"]
        elif entry.section:
            out.append(f"| **`{entry.path}`** | | | {_prose(entry.comment)} |")
        else:
            out.append(f"| `{entry.path}` | {_default(entry.value)} | `{env_name(entry.path)}` | "
                       f"{_prose(entry.comment)} |")
    return "\n".join(out) + "\n"


def _default(value: Any) -> str:
    text = yaml.safe_dump(value, allow_unicode=True, default_flow_style=True, width=100_000).strip()
    text = text.removesuffix("...").strip()
    if len(text) > MAX_DEFAULT_CHARS:
        text = text[: MAX_DEFAULT_CHARS - 1] + "…"
    return f"`{_cell(text)}`" if text else '`""`'


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _prose(text: str) -> str:
    """A comment as a table cell: "<key>" stays visible (not read as an HTML tag)."""
    return _cell(text).replace("<", "&lt;")
