"""Quality targets of an evaluation run: absolute, or relative to another variant of the same run.

    recall@5=0.80            the full system reaches 0.80
    mrr@10=baseline+0.10     it reaches the naive baseline's value plus 0.10 (measured in the same run)
    mrr@10>baseline          it beats the baseline (strictly)
    mrr@10>best_channel      it beats the best single channel (the best only_<channel> variant)
    tuned:mrr@10=full+0.03   a variant other than the full system (here the --tune-split one) is held to it

A relative target whose reference variant did not run is missed, with the reason in its rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lambdarag.errors import InputError
from lambdarag.evaluation.runner import FULL, SINGLE_CHANNEL_PREFIX
from lambdarag.evaluation.summary import LOWER_IS_BETTER

BEST_CHANNEL = "best_channel"  # the best of the only_<channel> variants
_SPEC = re.compile(r"^(?:(?P<subject>[A-Za-z_]\w*):)?(?P<metric>[\w@.]+)\s*(?P<op>=|>)\s*(?P<ref>[A-Za-z_]\w*)?"
                   r"\s*(?P<offset>[+-]?\s*\d*\.?\d+)?$")


@dataclass(frozen=True)
class Target:
    """What a variant (the full system unless said) must reach on one metric."""

    metric: str
    offset: float = 0.0  # the absolute value, or what is added to the reference's value
    reference: str = ""  # "" absolute; a variant name; BEST_CHANNEL
    strict: bool = False  # beat (>) rather than reach (>=)
    subject: str = FULL  # the variant held to it

    @property
    def at_most(self) -> bool:
        """An absolute bound on a lower-is-better metric (not_found ≤ 0.05)."""
        return self.metric in LOWER_IS_BETTER and not self.reference and not self.strict

    def rule(self) -> str:
        op = ">" if self.strict else "<=" if self.at_most else ">="
        if not self.reference:
            return f"{op} {self.offset:g}"
        return f"{op} {self.reference}" + (f" {'+' if self.offset >= 0 else '-'} {abs(self.offset):g}"
                                            if self.offset else "")


def parse_target(text: str) -> Target:
    """``metric=0.75``, ``metric=baseline+0.10``, ``metric>baseline`` or ``metric>best_channel``."""
    match = _SPEC.match(text.strip())
    if match is None or (match["ref"] is None and match["offset"] is None):
        raise InputError(f"--target {text!r} is not METRIC=VALUE, METRIC=VARIANT+OFFSET or METRIC>VARIANT",
                         "write it like --target recall@5=0.80, --target mrr@10=baseline+0.10 "
                         "or --target mrr@10>best_channel")
    offset = float(match["offset"].replace(" ", "")) if match["offset"] else 0.0
    return Target(match["metric"], offset, match["ref"] or "", match["op"] == ">", match["subject"] or FULL)


def reference_value(target: Target, summaries: Mapping[str, Mapping[str, Any]]) -> tuple[float | None, str]:
    """The reference's value of the target's metric and which variant gave it (None when it did not run)."""
    if target.reference == BEST_CHANNEL:
        singles = {n: s.get(target.metric) for n, s in summaries.items() if n.startswith(SINGLE_CHANNEL_PREFIX)}
        measured = {n: float(v) for n, v in singles.items() if v is not None}
        if not measured:
            return None, "no single-channel variant ran"
        best = max(sorted(measured), key=measured.__getitem__)
        return measured[best], best
    value = summaries.get(target.reference, {}).get(target.metric)
    return (None, f"variant {target.reference} did not run") if value is None else (float(value), target.reference)


def check_targets(summaries: Mapping[str, Mapping[str, Any]], targets: Sequence[Target]) -> list[dict[str, Any]]:
    """Each target's threshold, the full system's value and whether it is met."""
    rows = []
    for target in targets:
        value = summaries.get(target.subject, {}).get(target.metric)
        wanted: float | None = target.offset
        rule = target.rule() + ("" if target.subject == FULL else f" (of {target.subject})")
        if target.reference:
            ref, source = reference_value(target, summaries)
            wanted = None if ref is None else round(ref + target.offset, 6)
            rule += f" ({source})"
        met = value is not None and wanted is not None and (
            value > wanted if target.strict else value <= wanted if target.at_most else value >= wanted)
        metric = target.metric if target.subject == FULL else f"{target.subject}:{target.metric}"
        rows.append({"metric": metric, "target": wanted, "value": value, "met": bool(met), "rule": rule})
    return rows
