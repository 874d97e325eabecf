"""The HTTP service: an app factory over the question-answering pipeline.

    gunicorn 'lambdarag.server:create_app()'    # domain from $LAMBDARAG_DOMAIN
    create_app(open_domain("demo"))             # tests hand the Domain straight in

The server only parses, validates and renders; the request path lives in lambdarag.pipeline.run.
"""

from __future__ import annotations

import os

from flask import Flask, Response

from lambdarag.config.domain import Domain, open_domain
from lambdarag.errors import DomainError
from lambdarag.server.error_handlers import register_error_handlers
from lambdarag.server.guard import install_guard
from lambdarag.server.holder import KnowledgeHolder
from lambdarag.server.sessions import SessionStore
from lambdarag.server.state import EXTENSION_KEY, SESSIONS_FILE, ServerState

DOMAIN_ENV = "LAMBDARAG_DOMAIN"


def resolve_domain(domain: Domain | str | None) -> Domain:
    """A Domain as given, a domain name, or the name in $LAMBDARAG_DOMAIN."""
    if isinstance(domain, Domain):
        return domain
    name = domain or os.environ.get(DOMAIN_ENV, "")
    if not name:
        raise DomainError(f"no domain to serve: ${DOMAIN_ENV} is not set",
                          f"run: lambdarag serve --domain NAME (or set {DOMAIN_ENV}=NAME for gunicorn)")
    return open_domain(name)


def create_app(domain: Domain | str | None = None) -> Flask:
    """The Flask app serving one domain (a Domain, a domain name, or None for $LAMBDARAG_DOMAIN).

    The index loads now; a failure is reported by /readyz.
    """
    domain = resolve_domain(domain)
    app = Flask(__name__)
    install_guard(app, domain.config.server, domain.name, domain.root)  # a bad key file or origin fails here
    app.config["MAX_CONTENT_LENGTH"] = domain.config.server.max_body_bytes
    app.json.ensure_ascii = False  # type: ignore[attr-defined]  # Chinese stays readable in responses
    app.json.sort_keys = False  # type: ignore[attr-defined]
    store = SessionStore(domain.root / SESSIONS_FILE, ttl_s=domain.config.server.session_ttl_s)
    store.purge()
    holder = KnowledgeHolder(domain)
    holder.start()
    app.extensions[EXTENSION_KEY] = ServerState(domain=domain, holder=holder, store=store)
    register_error_handlers(app)
    _register_blueprints(app)
    app.after_request(_worker_header)
    return app


def _register_blueprints(app: Flask) -> None:
    from lambdarag.server import admin, ask, documents, faq_api, feedback_api, health, lookup, openai_api, search, web

    for module in (ask, search, lookup, openai_api, feedback_api, faq_api, admin, documents, health, web):
        app.register_blueprint(module.bp)


def _worker_header(response: Response) -> Response:
    # lets clients and tests see which gunicorn worker answered (session continuity across workers)
    response.headers["X-Worker-Pid"] = str(os.getpid())
    return response
