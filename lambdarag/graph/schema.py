"""What the entity graph holds: the entity and relation records, the node kinds and the relation vocabulary.

Relation ids are read in three ways: PATH_LABELS (a path walked outwards from the question's entity, as
the context shows it), INVERSE (the id read against the edge) and RELATION_LABELS (a wiki page's 关系
line, by relation and direction: True when the page's entity is the edge's source).
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("org", "role", "person", "regulation", "phone", "email", "date", "amount", "place", "ticker")


@dataclass(frozen=True)
class Entity:
    """One mention: canonical name, kind, and the span of its surface text in the input."""

    name: str  # regulations without 《》, Chinese dates normalised ("2024-07-01"), others as written
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Relation:
    """A directed edge between two entity names, with the weight it adds to the graph."""

    source: str
    relation: str  # belongs_to based_on responsible_for issued_by contact revises repeals co_occurs
    target: str
    weight: float


NODE_KINDS = frozenset({"org", "person", "regulation", "role", "place", "phone", "email", "ticker"})


RELATIONS = ("belongs_to", "based_on", "responsible_for", "issued_by", "contact", "revises", "repeals")


# Chinese readings of the relation ids in Hit.path, for whoever shows a path to a person or a prompt.
PATH_LABELS = {
    "belongs_to": "隶属", "has_part": "下设", "based_on": "依据", "basis_of": "是…的依据",
    "responsible_for": "负责", "handled_by": "由…负责", "issued_by": "由…制定", "issued": "制定",
    "contact": "联系方式", "contact_of": "是…的联系方式", "revises": "修订", "revised_by": "被…修订",
    "repeals": "废止", "repealed_by": "被…废止", "co_occurs": "同时提及",
}
PATH_LABELS_EN = {  # the same paths read in English (an English question's context)
    "belongs_to": "belongs to", "has_part": "has", "based_on": "based on", "basis_of": "is the basis of",
    "responsible_for": "responsible for", "handled_by": "handled by", "issued_by": "issued by", "issued": "issued",
    "contact": "contact", "contact_of": "is the contact of", "revises": "revises", "revised_by": "revised by",
    "repeals": "repeals", "repealed_by": "repealed by", "co_occurs": "mentioned with",
}


INVERSE = {
    "belongs_to": "has_part", "based_on": "basis_of", "responsible_for": "handled_by", "issued_by": "issued",
    "contact": "contact_of", "revises": "revised_by", "repeals": "repealed_by", "co_occurs": "co_occurs",
}


RELATION_LABELS = {
    ("belongs_to", True): "隶属", ("belongs_to", False): "下设",
    ("based_on", True): "依据", ("based_on", False): "作为依据",
    ("responsible_for", True): "负责", ("responsible_for", False): "负责方",
    ("issued_by", True): "制定部门", ("issued_by", False): "制定",
    ("contact", True): "联系方式", ("contact", False): "联系对象",
    ("revises", True): "修订", ("revises", False): "被修订",
    ("repeals", True): "废止", ("repeals", False): "被废止",
    ("co_occurs", True): "相关", ("co_occurs", False): "相关",
}
