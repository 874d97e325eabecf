"""No rule in the core carries a name invented for the demo or a fragment fitted to one data set.

The demo's names are read from its own documents (every person, organisation and place the entity
extractor finds there that is not an ordinary word of jieba's dictionary: 招待所 and 财务处 are nouns,
江城大学 and 致远楼 are inventions), so a new demo document extends the check by itself. String literals outside
lambdarag/demo/ count; docstrings do not (they may show an example).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import jieba

from lambdarag.demo.content import DOCUMENTS
from lambdarag.demo.writers import render_text
from lambdarag.graph.entities import extract_entities

PACKAGE = Path(__file__).resolve().parent.parent / "lambdarag"
# Fragments once fitted to development data (entity stop lists, a slot rule): each must stay out.
FITTED_FRAGMENTS = ("江城", "报账大厅", "司副", "康委", "贾某", "华中", "石油", "应用经济学院", "赵鹏", "中国人民大学")
NAME_KINDS = frozenset({"person", "org", "place"})


@cache
def demo_names() -> frozenset[str]:
    """Every person, organisation and place named in the demo's documents that is not an ordinary word."""
    jieba.initialize()  # get_FREQ reads the dictionary only once it is loaded
    found = {e.name for doc in DOCUMENTS for e in extract_entities(render_text(doc)) if e.kind in NAME_KINDS}
    return frozenset(name for name in found if not jieba.get_FREQ(name))


def core_literals() -> Iterator[tuple[str, int, str]]:
    """(file, line, text) of each string literal of the core that is not a docstring."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if "demo" in path.relative_to(PACKAGE).parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                yield str(path.relative_to(PACKAGE)), node.lineno, node.value


def test_the_demo_names_are_found() -> None:
    names = demo_names()
    assert len([n for n in names if len(n) >= 2]) >= 20  # the check below has something to check


def test_no_core_literal_carries_a_demo_name_or_a_fitted_fragment() -> None:
    needles = sorted(demo_names() | set(FITTED_FRAGMENTS))
    hits = [f"{file}:{line}: {needle}" for file, line, text in core_literals() for needle in needles if needle in text]
    assert not hits, "domain words belong in the domain's instance.yml:\n" + "\n".join(hits)
