"""The words the context packer writes around the evidence, in the question's language.

The evidence itself is quoted as written; only the packer's own labels (the key-points block, relation and wiki
pieces, a chunk's locator) follow the reader, so an English question's context (what the LLM reads and the page
shows) carries no Chinese labels, and a Chinese one is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lambdarag.graph.schema import PATH_LABELS, PATH_LABELS_EN
from lambdarag.ingest.document import english_locator


@dataclass(frozen=True)
class ContextLabels:
    """One language's labels: slot names, the key-points heading, piece prefixes, separators, the locator."""

    slots: Mapping[str, str]
    key_points: str
    relation: str  # before a relation path
    wiki: str  # "{title}" is the page's title
    untitled: str  # a wiki page without an id
    colon: str
    list_separator: str
    paths: Mapping[str, str]
    locator: Callable[[str], str]
    locator_frame: str  # "{locator}" is the shown locator

    def path(self, steps: tuple[str, ...]) -> str:
        """A relation path as read: relation ids in this language, entity names as they are."""
        return " → ".join(self.paths.get(step, step) for step in steps)


CHINESE = ContextLabels(
    slots={
        "name": "姓名", "title": "职务", "department": "部门", "phone": "电话", "email": "邮箱", "office": "办公地点",
        "duties": "职责", "mention": "相关信息", "steps": "办理步骤", "conditions": "条件", "materials": "所需材料",
        "where": "办理地点", "basis": "依据", "table": "表格", "row": "行", "column": "列", "value": "数值",
    },
    key_points="【要点】", relation="关系：", wiki="百科（{title}）：", untitled="条目", colon="：",
    list_separator="；", paths=PATH_LABELS, locator=lambda locator: locator, locator_frame="（{locator}）",
)

ENGLISH = ContextLabels(
    slots={
        "name": "Name", "title": "Position", "department": "Department", "phone": "Phone", "email": "Email",
        "office": "Office", "duties": "Duties", "mention": "Mentioned", "steps": "Steps", "conditions": "Conditions",
        "materials": "Materials", "where": "Where", "basis": "Basis", "table": "Table", "row": "Row",
        "column": "Column", "value": "Value",
    },
    key_points="Key points:", relation="Relation: ", wiki="Wiki ({title}): ", untitled="entry", colon=": ",
    list_separator="; ", paths=PATH_LABELS_EN, locator=english_locator, locator_frame=" ({locator})",
)


def context_labels(english: bool) -> ContextLabels:
    """The labels for a reader of English (``english``) or of Chinese."""
    return ENGLISH if english else CHINESE
