"""`lambdarag sync`: make a domain's raw/ mirror a source folder, then build what changed.

New and changed files (by path and content hash) are copied into raw/, files no longer in the source are removed
from raw/, and one build runs (extract is incremental: only the changed files are read; a removed file's chunks
leave every channel and the wiki pages built only from it go). A file the build would refuse (unsupported type,
empty, over ingest.max_file_mb, content unlike its extension, an unsafe name) is not copied: raw/ keeps its
previous version, which stays served, and the file is reported failed with its reason, as is a changed file
whose extraction fails (its previous version stays in the index). The whole sync holds the domain's build lock;
when its build has committed, the reload generation is bumped so a running server serves it. Nothing changed in
raw/, the build still runs when the chunks were made by another extractor version or chunking (after an upgrade
or an instance.yml edit), so a scheduled sync brings a domain up to what a fresh build would serve.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lambdarag.build.generation import announce_new_index
from lambdarag.build.jobs import build_error, file_failures
from lambdarag.build.raw_files import apply_plan, mirror_plan
from lambdarag.build.steps import StepOutcome, build_domain, ingest_settings
from lambdarag.channels.buildlock import build_lock
from lambdarag.config.domain import Domain
from lambdarag.errors import InputError
from lambdarag.ingest.run import extraction_outdated
from lambdarag.ingest.settings import IngestSettings
from lambdarag.ingest.store import CHUNKS_FILE, read_state


@dataclass
class SyncReport:
    """What a sync changed in raw/ and how its build went."""

    source: str
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # file → reason (raw/ or the index keeps its old version)
    unchanged: int = 0
    steps: list[StepOutcome] = field(default_factory=list)
    error: str = ""  # a build step that failed (not a file)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.error

    def summary(self) -> str:
        lines = [f"sync from {self.source}: {len(self.added)} added, {len(self.changed)} changed, "
                 f"{len(self.removed)} removed, {len(self.failed)} failed, {self.unchanged} unchanged"]
        for label, names in (("added", self.added), ("changed", self.changed), ("removed", self.removed)):
            lines += [f"{label}: {name}" for name in names]
        lines += [f"failed: {name}: {reason}" for name, reason in sorted(self.failed.items())]
        lines.append(f"build: {self.error}" if self.error else
                     "build: " + ("; ".join(f"{o.step} {'ok' if o.ok else 'with failures'}" for o in self.steps)
                                  or "nothing to build"))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "added": self.added, "changed": self.changed, "removed": self.removed,
                "failed": self.failed, "unchanged": self.unchanged, "error": self.error,
                "steps": [{"step": o.step, "ok": o.ok, "seconds": round(o.seconds, 3)} for o in self.steps]}


def sync_source(domain: Domain, given: str | None) -> Path:
    """The folder to mirror: ``given`` (--from), else the config's sync.from (relative to the domain folder)."""
    text = given if given is not None else domain.config.sync.source
    if not text:
        raise InputError("no folder to sync from", "pass --from DIR, or set sync.from in the domain's instance.yml")
    path = Path(text).expanduser()
    folder = (path if path.is_absolute() or given is not None else domain.root / path).resolve()
    if not folder.is_dir():
        raise InputError(f"sync source {folder} is not a folder", "pass an existing folder with --from DIR")
    raw = domain.raw_dir.resolve()
    if folder == raw or folder.is_relative_to(raw) or raw.is_relative_to(folder):
        raise InputError(f"sync source {folder} overlaps the domain's raw/ folder {raw}",
                         "sync from a folder outside the domain")
    return folder


def sync_domain(domain: Domain, source_dir: Path, wait_s: float | None = None,
                progress: bool | None = None) -> SyncReport:
    """Mirror ``source_dir`` into raw/ and build; see the module docstring."""
    settings = ingest_settings(domain)
    report = SyncReport(str(source_dir))
    with build_lock(domain.root, wait_s, what="sync"):
        domain.raw_dir.mkdir(parents=True, exist_ok=True)
        plan = mirror_plan(source_dir, domain.raw_dir, settings)
        apply_plan(plan, source_dir, domain.raw_dir)
        report.added, report.changed, report.removed = plan.added, plan.changed, plan.removed
        report.failed, report.unchanged = dict(plan.refused), plan.unchanged
        if plan.added or plan.changed or plan.removed or _outdated(domain, settings):
            report.steps = build_domain(domain, progress=progress, wait_s=wait_s)
            _take_failures(report)
            announce_new_index(domain.root)
        _still_failing(report, domain)
    return report


def _outdated(domain: Domain, settings: IngestSettings) -> bool:
    """Nothing extracted yet, or extracted otherwise than this version and configuration would (an upgrade, a new
    chunk size): the build runs though raw/ did not change, so the index serves what a fresh build would."""
    return not (domain.processed_dir / CHUNKS_FILE).is_file() or extraction_outdated(domain.processed_dir, settings)


def _still_failing(report: SyncReport, domain: Domain) -> None:
    """Files this sync did not change that still fail to extract: reported too, until they are fixed or removed."""
    for source, entry in read_state(domain.processed_dir).files.items():
        if entry.status == "failed" and source not in report.failed:
            report.failed[source] = f"{entry.reason} [unchanged since the last run]"


def _take_failures(report: SyncReport) -> None:
    """Files of this sync whose extraction failed move from added / changed to failed; a failed step is the error."""
    for failure in file_failures(report.steps, [*report.added, *report.changed]):
        report.failed[failure["source"]] = failure["reason"]
    report.added = [s for s in report.added if s not in report.failed]
    report.changed = [s for s in report.changed if s not in report.failed]
    report.error = build_error(report.steps)
