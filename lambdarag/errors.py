"""The few exceptions LambdaRAG raises on purpose.

Each carries a machine code, an HTTP status for the server's one error shape
``{"error": {"code", "message"}}`` and a message that says what failed and what to do; the
"what to do" of a missing or stale build is rebuild_hint, from the one table of build commands.
"""

from __future__ import annotations

# The command that (re)builds each step's output, as README.md documents it: a channel that is
# missing or stale names its own script; "build" is every step at once.
REBUILD_COMMANDS: dict[str, str] = {
    "extract": "python scripts/extract_docs.py --domain {domain}",
    "bm25": "python scripts/rebuild_index.py --domain {domain}",
    "document": "python scripts/rebuild_index.py --domain {domain}",  # the index step builds both
    "vector": "python scripts/build_vector_index.py --domain {domain}",
    "sentences": "python scripts/build_vector_index.py --domain {domain}",  # the vectors step builds both
    "graph": "python scripts/wiki_compile.py --domain {domain}",  # the wiki script builds the graph first
    "wiki": "python scripts/wiki_compile.py --domain {domain}",
    "build": "lambdarag build --domain {domain}",
}


def rebuild_hint(what: str, domain: str) -> str:
    """'run: COMMAND', the command that rebuilds ``what`` of ``domain`` (unknown names: the whole build)."""
    return "run: " + REBUILD_COMMANDS.get(what, REBUILD_COMMANDS["build"]).format(domain=domain)


class LambdaRAGError(Exception):
    """Base of every expected failure; never shown to users as a traceback."""

    code = "error"
    status = 500

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}: {self.hint}" if self.hint else self.message


class ConfigError(LambdaRAGError):
    """A configuration file is unreadable, has an unknown key, a wrong type or a bad value."""

    code = "config_error"
    status = 500

    def __init__(self, file: str, key_path: str, message: str) -> None:
        where = f"{file}: {key_path}" if key_path else file
        super().__init__(f"{where}: {message}")
        self.file = file
        self.key_path = key_path


class DomainError(LambdaRAGError):
    """A domain name is invalid, missing, or would escape the knowledge base directory."""

    code = "domain_error"
    status = 404


class IndexMismatchError(LambdaRAGError):
    """An index is missing, half-built or was built with other parameters than the config."""

    code = "index_mismatch"
    status = 503


class BuildRunningError(LambdaRAGError):
    """Another build of the same domain holds the domain's build lock."""

    code = "build_running"
    status = 409


class ExtractionError(LambdaRAGError):
    """One file could not be extracted; the build records it and goes on."""

    code = "extraction_error"
    status = 422


class ServiceError(LambdaRAGError):
    """An external service (LLM, embeddings) failed or answered something unusable."""

    code = "service_unavailable"
    status = 503


class InputError(LambdaRAGError):
    """A request or command-line argument is malformed."""

    code = "bad_request"
    status = 400


class NotFoundError(LambdaRAGError):
    """An id (request, session, domain) that does not exist."""

    code = "not_found"
    status = 404


class AuthError(LambdaRAGError):
    """A route without valid credentials: the admin token, or an API key when server.auth is on (401 missing,
    403 wrong or not for this domain)."""

    code = "unauthorized"
    status = 401

    def __init__(self, message: str, forbidden: bool = False) -> None:
        super().__init__(message)
        if forbidden:
            self.code = "forbidden"
            self.status = 403
