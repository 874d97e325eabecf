"""Settings of document extraction and chunking (the `ingest:` section of the config)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class IngestSettings:
    """Chunk sizes and the limits that keep one bad file from hurting a build."""

    chunk_size: int = 500  # target characters per text chunk
    chunk_overlap: int = 80  # characters carried over between neighbouring chunks
    table_rows_per_chunk: int = 20  # a larger table becomes row groups, header repeated
    max_file_mb: float = 50  # larger files are refused
    max_unzipped_mb: float = 300  # DOCX/XLSX/PPTX expanding beyond this are refused
    timeout_s: float = 120  # per-file extraction time limit; <= 0 extracts in-process, unlimited
    max_memory_mb: float = 2048  # address space of one extraction worker (RLIMIT_AS); beyond it the file fails
    follow_symlinks: bool = False  # read symbolic links that lead out of raw/ (off: each is refused with the reason)
    # document metadata fields (Document.meta, plus "date") that go into every chunk's header, in this order
    metadata_fields: tuple[str, ...] = ("file", "issuer", "company", "organization", "organisation", "agency",
                                        "department", "publisher", "region", "province", "state", "city",
                                        "country", "form", "doc_type", "category", "subject", "period",
                                        "fiscal_year", "year", "quarter", "date")

    def __post_init__(self) -> None:
        if self.chunk_size < 50:
            raise ValueError(f"ingest.chunk_size must be at least 50, got {self.chunk_size}")
        if not 0 <= self.chunk_overlap < self.chunk_size // 2 + 1:
            raise ValueError(
                f"ingest.chunk_overlap must be between 0 and chunk_size/2, got {self.chunk_overlap}"
            )
        if self.table_rows_per_chunk < 1:
            raise ValueError(f"ingest.table_rows_per_chunk must be >= 1, got {self.table_rows_per_chunk}")

    @property
    def table_chars(self) -> int:
        """Character budget of one table chunk: tables are denser than prose, so twice the size."""
        return 2 * self.chunk_size

    def chunking_key(self) -> dict[str, Any]:
        """The settings that shape chunks: when they change, every document is re-chunked."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items() if k in _CHUNKING}

    def limits_key(self) -> dict[str, Any]:
        """The settings that decide failures: when they change, failed files are retried."""
        return {k: v for k, v in asdict(self).items() if k not in _CHUNKING}


_CHUNKING = ("chunk_size", "chunk_overlap", "table_rows_per_chunk", "metadata_fields")
