"""One error shape for every route: {"error": {"code", "message"}} with the matching status.

LambdaRAGError subclasses carry their own code and status; Werkzeug's HTTP errors (bad JSON,
unknown route, wrong method, body over the cap) are mapped to the same shape; anything else is a
500 whose details stay in the server log. Routes under /v1/ add OpenAI's "type" and "param" keys
to the same object, so the official client reads our errors too.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from lambdarag.errors import LambdaRAGError

log = logging.getLogger(__name__)

HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "too_many_requests",
    500: "internal_error",
    503: "service_unavailable",
}
HTTP_MESSAGES = {
    400: "the request could not be parsed: send a JSON object",
    404: "no such route or id: see docs/SERVER.md for the endpoints",
    405: "method not allowed on this route: see docs/SERVER.md",
    413: "request body too large: keep it under server.max_body_bytes",
}
OPENAI_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                404: "invalid_request_error", 413: "invalid_request_error", 415: "invalid_request_error"}


def error_payload(code: str, message: str, status: int, param: str | None = None) -> dict[str, Any]:
    """The one error body; /v1/ routes also get OpenAI's type and param."""
    body: dict[str, Any] = {"code": code, "message": message}
    if request.path.startswith("/v1/"):
        body["type"] = OPENAI_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
        body["param"] = param
    return {"error": body}


def error_response(code: str, message: str, status: int, param: str | None = None) -> tuple[Response, int]:
    return jsonify(error_payload(code, message, status, param)), status


def handle_lambdarag(exc: LambdaRAGError) -> tuple[Response, int]:
    if exc.status >= 500:
        log.warning("%s %s failed: %s", request.method, request.path, exc)
    response, status = error_response(exc.code, str(exc), exc.status, getattr(exc, "param", None))
    response.headers.update(getattr(exc, "headers", None) or {})  # Retry-After of a 429
    if status == 401:
        response.headers["WWW-Authenticate"] = "Bearer"  # RFC 9110: a 401 names the scheme it wants
    return response, status


def handle_http(exc: HTTPException) -> tuple[Response, int] | HTTPException:
    status = exc.code or 500
    if status < 400:
        return exc  # routing redirects keep their Location header
    code = HTTP_CODES.get(status, "http_error")
    # Werkzeug's own descriptions are English HTML-ish prose; ours say what to do
    message = HTTP_MESSAGES.get(status) or exc.description or exc.name
    response, status = error_response(code, message, status)
    allow = exc.get_response().headers.get("Allow")
    if allow:
        response.headers["Allow"] = allow
    return response, status


def handle_unexpected(exc: Exception) -> tuple[Response, int]:
    log.exception("unexpected error on %s %s", request.method, request.path)
    return error_response("internal_error", "internal server error; details are in the server log", 500)


def register_error_handlers(app: Flask) -> None:
    """Route every failure through the one error shape."""
    app.register_error_handler(LambdaRAGError, handle_lambdarag)
    app.register_error_handler(HTTPException, handle_http)
    app.register_error_handler(Exception, handle_unexpected)
