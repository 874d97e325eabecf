"""The build path's steps, extract → index → vectors → wiki, each run and reported on its own.

A failing step is reported in its StepOutcome and never stops the later ones; the CLI
(`lambdarag build`), the demo, the evaluation workspace and the tests all build through here.

A build is one transaction of its domain: it holds the domain's build lock (a second build refuses or
waits, see channels/buildlock.py), its extract step writes a staged chunk list and its channel steps
build index folders that are held back; only when every step has run are the chunk list and then the
index links swapped in (a few renames). A build that dies before that, SIGKILL included, leaves the
previous chunk list and indexes serving, consistent with each other; the next build removes what it left.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lambdarag.channels.base import BuildResult, channel_module
from lambdarag.channels.buildlock import build_lock, pause_point
from lambdarag.channels.manifest import ChunkList, held_back, swap_in
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
    extract: ExtractReport | None = None  # the extract step's report (which files were done, removed, failed)


def ingest_settings(domain: Domain) -> IngestSettings:
    """The domain's `ingest:` config as the extractor's settings."""
    from lambdarag.ingest.settings import IngestSettings

    return IngestSettings(**asdict(domain.config.ingest))


def run_extract(
    domain: Domain, progress: bool | None = None, stage: bool = False, wait_s: float | None = None
) -> ExtractReport:
    """Extract and chunk the domain's raw/ into processed/ (incremental), under the domain's build lock;
    ``stage``: as the staged chunk list of a build, published when it commits."""
    from lambdarag.ingest.run import extract_domain

    with build_lock(domain.root, wait_s, what="extract"):
        return extract_domain(domain.raw_dir, domain.processed_dir, ingest_settings(domain), progress=progress,
                              stage=stage)


def domain_chunks(domain: Domain, staged: bool = False) -> ChunkList:
    """The extracted chunks (``staged``: the build's own when its extract step wrote them); none means extraction
    must run first. A ChunkList: the content hash every channel's manifest records is worked out once."""
    from lambdarag.ingest.store import load_chunks

    chunks = load_chunks(domain.processed_dir, staged=staged)
    if not chunks:
        raise IndexMismatchError(
            f"domain {domain.name!r} has no extracted chunks",
            f"put documents into {domain.raw_dir} and {rebuild_hint('extract', domain.name)}",
        )
    return ChunkList(chunks)


class BuildChunks:
    """The chunk list of one build, read once for all its channel steps (2 s and a hash of 36 M characters each time
    at 100k chunks); what the extract step writes replaces it."""

    def __init__(self, domain: Domain, staged: bool) -> None:
        self.domain, self.staged = domain, staged
        self._chunks: ChunkList | None = None

    def get(self) -> ChunkList:
        """The chunks, read on first use (an empty list raises every time, naming the extract command)."""
        if self._chunks is None:
            self._chunks = domain_chunks(self.domain, self.staged)
        return self._chunks

    def forget(self) -> None:
        self._chunks = None


def _channel_step(names: Sequence[str]) -> Callable[[Domain, bool | None, BuildChunks], tuple[BuildResult, ...]]:
    def step(domain: Domain, progress: bool | None, chunks: BuildChunks) -> tuple[BuildResult, ...]:
        listed = chunks.get()
        backend = domain.config.retrieval.backend
        return tuple(channel_module(name, backend).build(domain, listed, progress=progress) for name in names)

    return step


def _vectors_enabled(domain: Domain) -> str | None:
    """None when the vector step should run, else why it is skipped."""
    if domain.config.embedding.backend == "none":
        return "embedding.backend is none"
    if not domain.config.retrieval.channels["vector"].enabled:
        return "retrieval.channels.vector.enabled is false"
    return None


def run_step(domain: Domain, step: str, progress: bool | None = None, staged: bool = False,
             chunks: BuildChunks | None = None) -> StepOutcome:
    """Run one step; a failing step is reported, not raised, so later steps still run. ``staged``: a step of
    build_domain (extract writes, the others read, the staged chunk list); ``chunks``: the build's chunk list,
    shared by its steps."""
    start = time.perf_counter()
    chunks = chunks or BuildChunks(domain, staged)
    try:
        if step == "extract":
            chunks.forget()
            report = run_extract(domain, progress, stage=staged)
            return StepOutcome(step, time.perf_counter() - start, report.summary(), ok=not report.failed,
                               extract=report)
        if step == "vectors" and (why := _vectors_enabled(domain)):
            return StepOutcome(step, 0.0, f"skipped: {why}")
        names = {"index": ("bm25", "document"), "vectors": ("vector",), "wiki": ("graph", "wiki")}[step]
        results = _channel_step(names)(domain, progress, chunks)
        if step == "vectors" and domain.config.embedding.sentences:
            results += (build_sentences(domain, chunks.get(), progress),)
    except LambdaRAGError as exc:
        return StepOutcome(step, time.perf_counter() - start, f"failed: {exc}", ok=False)
    text = "; ".join(f"{r.channel}: {r.items} items" + (f" ({r.detail})" if r.detail else "") for r in results)
    return StepOutcome(step, time.perf_counter() - start, text, results=results)


def build_sentences(domain: Domain, chunks: Sequence[Chunk], progress: bool | None) -> BuildResult:
    """The sentence vectors of ``chunks``, each chunk's sentences as the extractive answer reads them."""
    from lambdarag.answer.units import chunk_sentences
    from lambdarag.channels import sentence_vectors

    return sentence_vectors.build(domain, chunks, [chunk_sentences(c.text) for c in chunks], progress=progress)


StepHook = Callable[[str, "StepOutcome | None"], None]


def build_domain(
    domain: Domain, steps: Sequence[str] | None = None, progress: bool | None = None, wait_s: float | None = None,
    on_step: StepHook | None = None,
) -> list[StepOutcome]:
    """Run the build steps in order (all by default) as one transaction and return what each did.

    ``wait_s``: how long to wait for another build of the domain to finish (None: $LAMBDARAG_BUILD_WAIT_S, else 0,
    refuse at once with BuildRunningError). ``on_step(step, None)`` is called as a step starts (and as "commit"
    starts), ``on_step(step, outcome)`` when it ends: a background job's progress."""
    from lambdarag.ingest.store import discard_staged

    chosen = list(steps or STEPS)
    if unknown := [step for step in chosen if step not in STEPS]:
        raise LambdaRAGError(f"unknown build step {unknown[0]!r}", f"known steps: {', '.join(STEPS)}")
    outcomes = []
    with build_lock(domain.root, wait_s), held_back(domain.index_dir) as held:
        discard_staged(domain.processed_dir)  # one a dead build left: this build stages its own, or none
        hook = on_step or _no_hook
        chunks = BuildChunks(domain, staged=True)
        for step in chosen:
            hook(step, None)
            pause_point(step)
            outcomes.append(run_step(domain, step, progress, staged=True, chunks=chunks))
            hook(step, outcomes[-1])
            print(f"[{step}] {outcomes[-1].summary} ({outcomes[-1].seconds:.1f} s)", file=sys.stderr)
        hook("commit", None)
        pause_point("commit")
        commit(domain, held)
    return outcomes


def _no_hook(step: str, outcome: StepOutcome | None) -> None:
    return None


def commit(domain: Domain, held: dict[str, Path]) -> None:
    """Swap the build's results in: the staged chunk list first, then every held index folder's link."""
    from lambdarag.ingest.store import promote_staged

    chunks = promote_staged(domain.processed_dir)
    pause_point("commit:links")
    swapped = swap_in(domain.index_dir, held)
    served = [*(["chunk list"] if chunks else []), *swapped]
    print(f"[commit] now served: {', '.join(served) or 'nothing new'}", file=sys.stderr)


def timing_summary(outcomes: Sequence[StepOutcome]) -> str:
    """The closing table: step, seconds, status."""
    lines = ["step      seconds  status"]
    for o in outcomes:
        lines.append(f"{o.step:<9} {o.seconds:7.1f}  {'ok' if o.ok else 'FAILED'}")
    lines.append(f"{'total':<9} {sum(o.seconds for o in outcomes):7.1f}")
    return "\n".join(lines)
