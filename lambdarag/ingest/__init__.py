"""Document ingestion: extract raw files (PDF, DOCX, PPTX, XLSX, Markdown, reStructuredText, TXT, HTML,
CSV, JSONL) into structured records, chunk them heading-aware, incrementally and failure-tolerantly.

    report = extract_domain(domain.raw_dir, domain.processed_dir, IngestSettings())
    chunks = load_chunks(domain.processed_dir)
"""

from lambdarag.ingest.chunk import chunk_document
from lambdarag.ingest.document import Block, Document, Section, Table
from lambdarag.ingest.extract import extract_file
from lambdarag.ingest.report import ExtractReport, Failure
from lambdarag.ingest.run import extract_domain
from lambdarag.ingest.settings import IngestSettings
from lambdarag.ingest.store import load_chunks

__all__ = [
    "Block",
    "Document",
    "ExtractReport",
    "Failure",
    "IngestSettings",
    "Section",
    "Table",
    "chunk_document",
    "extract_domain",
    "extract_file",
    "load_chunks",
]
