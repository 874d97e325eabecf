"""The build path's steps, extract → index → vectors → wiki, each run and reported on its own.

A failing step is reported in its StepOutcome and never stops the later ones; the CLI
(`lambdarag build`), the demo, the evaluation workspace and the tests all build through here.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from lambdarag.channels.base import BuildResult, channel_module
from lambdarag.config.domain import Domain
from lambdarag.errors import IndexMismatchError, LambdaRAGError, rebuild_hint
from lambdarag.records import Chunk

if TYPE_CHECKING:  # the ingest package pulls in the document libraries: import it only when used
    from lambdarag.ingest.report import ExtractReport
    from lambdarag.ingest.settings import IngestSettings


STEPS = ("extract", "index", "vectors", "wiki")


@dataclass(frozen=True)
class StepOutcome:
    """One build step: what it did, how long it took, or why it was skipped or failed."""

    step: str
    seconds: float
    summary: str
    ok: bool = True
    results: tuple[BuildResult, ...] = ()


def ingest_settings(domain: Domain) -> IngestSettings:
    """The domain's `ingest:` config as the extractor's settings."""
    from lambdarag.ingest.settings import IngestSettings

    return IngestSettings(**asdict(domain.config.ingest))


def run_extract(domain: Domain, progress: bool | None = None) -> ExtractReport:
    """Extract and chunk the domain's raw/ into processed/ (incremental)."""
    from lambdarag.ingest.run import extract_domain

    return extract_domain(domain.raw_dir, domain.processed_dir, ingest_settings(domain), progress=progress)


def domain_chunks(domain: Domain) -> list[Chunk]:
    """The extracted chunks; none yet means extraction must run first."""
    from lambdarag.ingest.store import load_chunks

    chunks = load_chunks(domain.processed_dir)
    if not chunks:
        raise IndexMismatchError(
            f"domain {domain.name!r} has no extracted chunks",
            f"put documents into {domain.raw_dir} and {rebuild_hint('extract', domain.name)}",
        )
    return chunks


def _channel_step(names: Sequence[str]) -> Callable[[Domain, bool | None], tuple[BuildResult, ...]]:
    def step(domain: Domain, progress: bool | None) -> tuple[BuildResult, ...]:
        chunks = domain_chunks(domain)
        return tuple(channel_module(name).build(domain, chunks, progress=progress) for name in names)

    return step


def _vectors_enabled(domain: Domain) -> str | None:
    """None when the vector step should run, else why it is skipped."""
    if domain.config.embedding.backend == "none":
        return "embedding.backend is none"
    if not domain.config.retrieval.channels["vector"].enabled:
        return "retrieval.channels.vector.enabled is false"
    return None


def run_step(domain: Domain, step: str, progress: bool | None = None) -> StepOutcome:
    """Run one step; a failing step is reported, not raised, so later steps still run."""
    start = time.perf_counter()
    try:
        if step == "extract":
            report = run_extract(domain, progress)
            return StepOutcome(step, time.perf_counter() - start, report.summary(), ok=not report.failed)
        if step == "vectors" and (why := _vectors_enabled(domain)):
            return StepOutcome(step, 0.0, f"skipped: {why}")
        names = {"index": ("bm25", "document"), "vectors": ("vector",), "wiki": ("graph", "wiki")}[step]
        results = _channel_step(names)(domain, progress)
    except LambdaRAGError as exc:
        return StepOutcome(step, time.perf_counter() - start, f"failed: {exc}", ok=False)
    text = "; ".join(f"{r.channel}: {r.items} items" + (f" ({r.detail})" if r.detail else "") for r in results)
    return StepOutcome(step, time.perf_counter() - start, text, results=results)


def build_domain(
    domain: Domain, steps: Sequence[str] | None = None, progress: bool | None = None
) -> list[StepOutcome]:
    """Run the build steps in order (all by default) and return what each did."""
    outcomes = []
    for step in steps or STEPS:
        if step not in STEPS:
            raise LambdaRAGError(f"unknown build step {step!r}", f"known steps: {', '.join(STEPS)}")
        outcomes.append(run_step(domain, step, progress))
        print(f"[{step}] {outcomes[-1].summary} ({outcomes[-1].seconds:.1f} s)", file=sys.stderr)
    return outcomes


def timing_summary(outcomes: Sequence[StepOutcome]) -> str:
    """The closing table: step, seconds, status."""
    lines = ["step      seconds  status"]
    for o in outcomes:
        lines.append(f"{o.step:<9} {o.seconds:7.1f}  {'ok' if o.ok else 'FAILED'}")
    lines.append(f"{'total':<9} {sum(o.seconds for o in outcomes):7.1f}")
    return "\n".join(lines)
