"""Relation patterns between the entities of one sentence (extract_relations).

A trigger word (隶属, 下设, 依据, 负责, 制定, 联系电话, 修订, 废止 ...) relates the nearest suitable
entities on either side within its clause; Chinese often leaves a subject named in an earlier
clause unsaid, so the sentence before the clause stands in for a missing left side. A role
between a unit and a name (报账大厅负责人张敏) relates the person to the unit. Every other pair
of entities in the sentence gets a weak co-occurrence edge.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from itertools import combinations

from lambdarag.graph.schema import NODE_KINDS, Entity, Relation

_TRIGGERS: tuple[tuple[str, str], ...] = (
    ("隶属于|隶属|归口|属于|归属", "belongs_to"),
    ("下设|设有|内设|另设", "has_part"),
    ("依据|根据|按照|参照", "based_on"),
    ("负责|主管|分管|主持", "responsible_for"),
    ("制定|发布|印发|颁布|起草", "issued_by"),
    ("联系电话|联系方式|咨询电话|办公电话|电话|邮箱|电子邮箱", "contact"),
    ("修订|修正|修改", "revises"),
    ("废止|废除|停止执行", "repeals"),
)
_TRIGGER_RE = [(re.compile(words), rel) for words, rel in _TRIGGERS]
_SELF_REFERENCE = re.compile(r"本(?:办法|规定|细则|制度|条例|规则|通知|意见|标准|规程|章程|方案)")
_MAX_COOCCURRING = 8


def extract_relations(
    sentence: str, entities: Sequence[Entity], cooccurrence_weight: float = 0.3, subject: str | None = None
) -> list[Relation]:
    """Pattern relations (weight 1.0) and co-occurrence edges between the entities of one sentence.

    ``subject`` is the regulation the sentence belongs to, standing in for 本办法 / 本规定.
    """
    ents = _with_subject(sentence, entities, subject)
    relations: list[Relation] = []
    for pattern, rel in _TRIGGER_RE:
        for m in pattern.finditer(sentence):
            if any(e.start <= m.start() < e.end for e in ents):
                continue  # a trigger inside a name (负责人) is no trigger
            relations += _apply(rel, m.start(), m.end(), sentence, ents, subject)
    relations += _role_relations(sentence, ents)
    relations = _unique(r for r in relations if r.source != r.target)
    linked = {frozenset((r.source, r.target)) for r in relations}
    graph_ents = [e for e in ents if e.kind in NODE_KINDS][:_MAX_COOCCURRING]
    for a, b in combinations(_unique_names(graph_ents), 2):
        if frozenset((a, b)) not in linked:
            relations.append(Relation(a, "co_occurs", b, cooccurrence_weight))
    return relations


def _with_subject(sentence: str, entities: Sequence[Entity], subject: str | None) -> list[Entity]:
    ents = list(entities)
    if subject:
        for m in _SELF_REFERENCE.finditer(sentence):
            if all(m.end() <= e.start or e.end <= m.start() for e in ents):
                ents.append(Entity(subject, "regulation", m.start(), m.end()))
    return sorted(ents, key=lambda e: e.start)


_CLAUSE_END = re.compile(r"[，,；;。！？!?：:\n]")
_ACTORS = ("person", "org", "role")  # who is responsible, in order of preference
_LIST_GLUE = frozenset({"", "、", "，", ",", "和", "及", "以及", "与", "或"})


def _apply(
    rel: str, start: int, end: int, sentence: str, ents: Sequence[Entity], subject: str | None
) -> list[Relation]:
    """One trigger: the entities of its clause on either side decide the edge."""
    lo, hi = _clause(sentence, start, end)
    before = [e for e in ents if lo <= e.start and e.end <= start]
    after = [e for e in ents if e.start >= end and e.end <= hi]
    earlier = [e for e in ents if e.end <= start]  # the whole sentence before the trigger
    topic = before or earlier  # 财务处……，下设……: Chinese omits a subject the previous clause named
    if rel == "belongs_to":
        return _pair(rel, _nearest(before, ("org", "place"), True), _nearest(after, ("org", "place"), False))
    if rel == "has_part":
        owner = _nearest(before, ("org",), True) or _nearest(earlier, ("org",), False)
        parts = _leading_run(sentence, after, ("org",)) if owner else []
        return [Relation(p.name, "belongs_to", owner.name, 1.0) for p in parts if owner]
    if rel == "based_on":
        return _based_on(earlier, after, subject)
    if rel == "responsible_for":
        actor = next((a for kind in _ACTORS if (a := _nearest(topic, (kind,), True))), None)
        wanted = ("org", "regulation", "place")
        first = next((i for i, e in enumerate(after) if e.kind in wanted), len(after))
        targets = _leading_run(sentence, after[first:], wanted)
        if not targets and actor is not None:  # 本办法由财务处负责解释: what the actor is responsible for came first
            targets = [e for e in before if e.end <= actor.start and e.kind == "regulation"][-1:]
        return [r for t in targets for r in _pair(rel, actor, t)]
    if rel == "issued_by":
        return _issued_by(earlier, before, after)
    if rel == "contact":
        return _contact(topic, after)
    return _revises(rel, earlier, after, subject)


def _clause(sentence: str, start: int, end: int) -> tuple[int, int]:
    head = [m.end() for m in _CLAUSE_END.finditer(sentence, 0, start)]
    tail = _CLAUSE_END.search(sentence, end)
    return (head[-1] if head else 0), (tail.start() if tail else len(sentence))


def _pair(rel: str, source: Entity | None, target: Entity | None) -> list[Relation]:
    return [Relation(source.name, rel, target.name, 1.0)] if source and target else []


def _based_on(earlier: Sequence[Entity], after: Sequence[Entity], subject: str | None) -> list[Relation]:
    basis = _nearest(after, ("regulation",), last=False)
    if basis is None:
        return []
    source = _nearest(earlier, ("regulation",), last=True) or _nearest(
        [e for e in after if e.start > basis.end], ("regulation",), last=False)
    name = source.name if source else subject
    return [Relation(name, "based_on", basis.name, 1.0)] if name else []


def _issued_by(earlier: Sequence[Entity], before: Sequence[Entity], after: Sequence[Entity]) -> list[Relation]:
    regulation = _nearest(after, ("regulation",), last=False) or _nearest(earlier, ("regulation",), last=True)
    issuers = [e for e in [*before, *after[:1]] if e.kind == "org"]
    if regulation is None or not issuers:
        return []
    return [Relation(regulation.name, "issued_by", org.name, 1.0) for org in issuers]


def _contact(topic: Sequence[Entity], after: Sequence[Entity]) -> list[Relation]:
    target = _nearest(after, ("phone", "email"), last=False)
    if target is None:
        return []
    owners = [o for o in (_nearest(topic, ("person",), True), _nearest(topic, ("org",), True)) if o]
    return [Relation(o.name, "contact", target.name, 1.0) for o in owners]


def _revises(rel: str, earlier: Sequence[Entity], after: Sequence[Entity], subject: str | None) -> list[Relation]:
    """《A》修订《B》 → A revises B; 《B》同时废止 / 废止《B》 in a document → the document repeals B."""
    old = _nearest(after, ("regulation",), last=False)
    newer = _nearest(earlier, ("regulation",), last=True)
    if old is None:
        old, newer = newer, None
    name = newer.name if newer else subject
    return [Relation(name, rel, old.name, 1.0)] if old and name and name != old.name else []


def _role_relations(sentence: str, ents: Sequence[Entity]) -> list[Relation]:
    """财务处处长李建华 / 报账大厅负责人张敏 / 张敏（主管） / | 赵磊 | 科长 | 预算科 |: the person is responsible."""
    out = []
    for i, role in enumerate(ents):
        if role.kind != "role":
            continue
        before = ents[i - 1] if i > 0 else None
        after = ents[i + 1] if i + 1 < len(ents) else None
        person = _adjacent(sentence, role, after, "person")
        org = _adjacent(sentence, before, role, "org", left=True)
        if person is None:
            person = _adjacent(sentence, before, role, "person", left=True)
            org = _adjacent(sentence, ents[i - 2] if i > 1 else None, before, "org", left=True) if person else None
            org = org or _adjacent(sentence, role, after, "org")  # a table row: name | role | unit
        if person and org:
            out.append(Relation(org.name, "contact", person.name, 1.0) if role.name == "联系人"
                       else Relation(person.name, "responsible_for", org.name, 1.0))
    return out


def _adjacent(sentence: str, a: Entity | None, b: Entity | None, kind: str, left: bool = False) -> Entity | None:
    """The entity of ``kind`` among a (left) or b (right) when only a bracket, colon or table bar separates them."""
    if a is None or b is None:
        return None
    wanted = a if left else b
    gap = sentence[a.end:b.start]
    return wanted if wanted.kind == kind and len(gap) <= 3 and not gap.strip("（）():：| ") else None


def _nearest(ents: Sequence[Entity], kinds: tuple[str, ...], last: bool) -> Entity | None:
    pool = [e for e in ents if e.kind in kinds]
    if not pool:
        return None
    return pool[-1] if last else pool[0]


def _leading_run(sentence: str, after: Sequence[Entity], kinds: tuple[str, ...]) -> list[Entity]:
    """The list of names right after a trigger (下设综合办公室、预算科和会计核算科…)."""
    out: list[Entity] = []
    for e in after:
        if e.kind not in kinds or (out and sentence[out[-1].end:e.start].strip() not in _LIST_GLUE):
            break
        out.append(e)
    return out


def _unique(relations: Iterable[Relation]) -> list[Relation]:
    seen: dict[tuple[str, str, str], Relation] = {}
    for r in relations:
        seen.setdefault((r.source, r.relation, r.target), r)
    return list(seen.values())


def _unique_names(ents: Sequence[Entity]) -> list[str]:
    return list(dict.fromkeys(e.name for e in ents))
