"""The documents API: upload, list, show and delete a domain's documents, and follow the jobs that serve them.

    POST   /api/documents          multipart/form-data, one or many files (any field name)  → 202 + job
    GET    /api/documents          ?offset=0&limit=50: doc id, title, size, hash, status, reason, chunks, updated
    GET    /api/documents/<id>     one document
    DELETE /api/documents/<id>     → 202 + job: its chunks leave every channel with the job's build
    GET    /api/jobs/<id>          a job's state and progress (queued, running, done, failed)

Every route needs the admin token or an API key of this domain with the ``write`` scope. The work is in
lambdarag.build.documents (checks, raw/ changes, the catalogue) and lambdarag.build.jobs (the background build);
this module only parses and renders. An upload request may be as large as ``documents.max_files`` files of
``ingest.max_file_mb`` each, whatever ``server.max_body_bytes`` says for the JSON routes.
"""

from __future__ import annotations

import re

from flask import Blueprint, Response, jsonify, request

from lambdarag.build import documents, jobs
from lambdarag.build.steps import ingest_settings
from lambdarag.errors import IndexMismatchError, InputError, LambdaRAGError, NotFoundError
from lambdarag.ingest.detect import MB
from lambdarag.server.body import UnsupportedMediaType
from lambdarag.server.state import require_writer, state

bp = Blueprint("documents", __name__)
FORM_OVERHEAD_BYTES = 1 * MB  # multipart boundaries and headers on top of the files themselves
MAX_LIMIT = 500
JOB_ID = re.compile(r"^[0-9a-f]{32}$")


class UploadTooLarge(LambdaRAGError):
    """An upload over documents.max_files × ingest.max_file_mb (plus the form's overhead)."""

    code = "payload_too_large"
    status = 413


def upload_limit() -> int:
    cfg = state().config
    return int(cfg.documents.max_files * cfg.ingest.max_file_mb * MB) + FORM_OVERHEAD_BYTES


@bp.before_request
def _writers_only() -> None:
    require_writer()
    if request.method == "POST":
        limit = upload_limit()
        request.max_content_length = limit  # this route's cap instead of server.max_body_bytes
        if request.content_length is not None and request.content_length > limit:
            size = f"{request.content_length / MB:.1f} MB"
            raise UploadTooLarge(f"upload of {size} is over the cap of {limit / MB:.1f} MB",
                                 "send fewer files at once (documents.max_files × ingest.max_file_mb)")


@bp.post("/api/documents")
def upload() -> tuple[Response, int]:
    if request.mimetype != "multipart/form-data":
        raise UnsupportedMediaType(f"Content-Type {request.mimetype or '(none)'!r} is not multipart/form-data",
                           "send the files as a form, e.g. curl -F file=@policy.pdf")
    files = [item for _, item in request.files.items(multi=True)]
    if not files:
        raise InputError("no file in the upload", "send one or more files, e.g. curl -F file=@policy.pdf")
    if len(files) > state().config.documents.max_files:
        raise InputError(f"{len(files)} files in one upload, the cap is {state().config.documents.max_files}",
                         "send fewer files at once (documents.max_files)")
    domain, settings, staged = state().domain, ingest_settings(state().domain), []
    try:
        for item in files:
            staged.append(documents.stage(domain, item.filename or "", item.stream, settings))
    except BaseException:
        documents.discard(staged)
        raise
    changes, job = documents.upload(domain, staged)
    if job is not None:
        jobs.kick(domain)
    return jsonify({"documents": changes, "job": job.to_dict() if job else None}), 202 if job else 200


@bp.get("/api/documents")
def listing() -> Response:
    offset, limit = _int_arg("offset", 0, 0, None), _int_arg("limit", 50, 1, MAX_LIMIT)
    domain = state().domain
    rows = documents.catalog(domain, served_titles())
    page = [documents.titled(domain, row).to_dict() for row in rows[offset:offset + limit]]
    return jsonify({"documents": page, "total": len(rows), "offset": offset, "limit": limit})


@bp.get("/api/documents/<path:doc_id>")
def show(doc_id: str) -> Response:
    return jsonify(documents.find(state().domain, doc_id, served_titles()).to_dict())


@bp.delete("/api/documents/<path:doc_id>")
def delete(doc_id: str) -> tuple[Response, int]:
    domain = state().domain
    change, job = documents.delete(domain, doc_id)
    jobs.kick(domain)
    return jsonify({"document": change, "job": job.to_dict()}), 202


@bp.get("/api/jobs/<job_id>")
def job(job_id: str) -> Response:
    domain = state().domain
    found = jobs.JobStore(domain.root).get(job_id) if JOB_ID.match(job_id) else None
    if found is None:
        raise NotFoundError(f"no job {job_id[:64]!r} in domain {domain.name!r}",
                            "the id is in the answer of POST or DELETE /api/documents")
    if found.state in jobs.ACTIVE:
        jobs.kick(domain)  # nothing works the queue (its runner died): start one, which takes the job up again
    return jsonify(found.to_dict())


def served_titles() -> dict[str, str]:
    """doc id → title of the documents in the index this worker answers from ({} when none is loaded)."""
    try:
        kb = state().holder.get()
    except IndexMismatchError:
        return {}
    return kb.titles


def _int_arg(name: str, default: int, lo: int, hi: int | None) -> int:
    text = request.args.get(name)
    if text is None:
        return default
    if not text.isdigit() or int(text) < lo or (hi is not None and int(text) > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise InputError(f"query parameter {name}={text[:20]!r} is not an integer {bound}", f"send {name}={default}")
    return int(text)
