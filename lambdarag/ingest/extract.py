"""`extract_file`: one raw file -> its documents, by the extractor its content calls for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from lambdarag.errors import ExtractionError
from lambdarag.ingest.detect import detect
from lambdarag.ingest.document import Document
from lambdarag.ingest.docx_reader import extract_docx
from lambdarag.ingest.html_reader import extract_html
from lambdarag.ingest.pdf_reader import extract_pdf
from lambdarag.ingest.pptx_reader import extract_pptx
from lambdarag.ingest.rst_reader import extract_rst
from lambdarag.ingest.settings import IngestSettings
from lambdarag.ingest.text_formats import extract_csv, extract_jsonl, extract_markdown, extract_txt
from lambdarag.ingest.xlsx_reader import extract_xlsx

Reader = Callable[[Path, str, str], list[Document]]

READERS: dict[str, Reader] = {
    "pdf": extract_pdf,
    "docx": extract_docx,
    "pptx": extract_pptx,
    "xlsx": extract_xlsx,
    "md": extract_markdown,
    "txt": extract_txt,
    "rst": extract_rst,
    "html": extract_html,
    "csv": extract_csv,
    "jsonl": extract_jsonl,
}


# why a file of a kind may extract to nothing
_EMPTY = {"html": "nothing outside markup, scripts, styles and templates (a page built by its scripts, or a "
                  "component's template source: save the page as the browser shows it)"}


def extract_file(path: Path, doc_id: str, settings: IngestSettings, source: str = "") -> list[Document]:
    """The documents in ``path`` (many for a JSONL corpus, else one).

    Raises ExtractionError with a reason an operator can act on. An image, or a PDF without
    a text layer, is not an error: its document has no blocks and lists the pages needing OCR.
    """
    source = source or path.name
    detected = detect(path, settings)
    if detected.kind == "image":
        note = f"{detected.image_type} image: no text layer"
        return [Document(doc_id, doc_id.rsplit("/", 1)[-1], source, "image", pages=1,
                         needs_ocr_pages=(1,), notes=(note,))]
    try:
        documents = READERS[detected.kind](path, doc_id, source)
    except ExtractionError:
        raise
    except (Exception, RecursionError) as exc:  # a parser bug or damage it did not foresee
        raise ExtractionError(
            f"cannot extract {detected.kind.upper()}: {exc.__class__.__name__}: {exc}"
        ) from exc
    if detected.note:
        documents = [replace(doc, notes=(detected.note, *doc.notes)) for doc in documents]
    if documents and not any(doc.blocks or doc.needs_ocr_pages for doc in documents):
        # extracted without error yet nothing to index: said, or the file would look served ("done", 0 chunks)
        note = f"no text extracted: {_EMPTY.get(detected.kind, 'the file holds no text')}"
        documents = [replace(doc, notes=(*doc.notes, note)) for doc in documents]
    return documents
