"""The report of an extract run: what was done, skipped, removed, failed and why."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Failure:
    """A raw file that could not be extracted, and why."""

    path: str  # relative to raw/
    reason: str


@dataclass
class ExtractReport:
    """Counts and lists of one `extract_domain` run; `summary()` is what the CLI prints."""

    done: list[str] = field(default_factory=list)  # extracted in this run
    skipped: list[str] = field(default_factory=list)  # unchanged since the last run
    removed: list[str] = field(default_factory=list)  # gone from raw/: their chunks removed
    failed: list[Failure] = field(default_factory=list)
    needs_ocr: list[str] = field(default_factory=list)  # "scan.pdf" or "mixed.pdf (pages 2, 5)"
    notes: list[str] = field(default_factory=list)  # e.g. "a.docx: content is PDF but extension is .docx"
    documents: int = 0  # documents in the domain after the run
    chunks: int = 0  # chunks in the domain after the run
    pages: int = 0  # pages, slides and sheets extracted in this run
    bytes: int = 0  # size of the files extracted in this run
    peak_worker_mb: float = 0.0  # highest resident memory of an extraction worker in this run (0: none ran)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed

    def summary(self) -> str:
        """Readable lines, the last one "completed" or "completed with N failures"."""
        lines = [
            f"files: {len(self.done)} extracted, {len(self.skipped)} unchanged (skipped), "
            f"{len(self.removed)} removed, {len(self.failed)} failed",
            f"documents: {self.documents}, chunks: {self.chunks}",
        ]
        if self.needs_ocr:
            lines.append(f"needs OCR (no text layer, not extracted): {'; '.join(self.needs_ocr)}")
        lines += [f"failed: {_printable(failure.path)}: {failure.reason}" for failure in self.failed]
        lines += [f"note: {note}" for note in self.notes]
        if self.peak_worker_mb:
            lines.append(f"memory: extraction workers peaked at {self.peak_worker_mb:.0f} MB resident")
        lines.append(f"time: {self.seconds:.1f} s")
        count = len(self.failed)
        lines.append(f"completed with {count} failure{'s' if count != 1 else ''}" if count else "completed")
        return "\n".join(lines)


def _printable(path: str) -> str:
    """A raw path as it goes on a report line: quoted with escapes when it holds control characters."""
    return path if path.isprintable() else repr(path)
