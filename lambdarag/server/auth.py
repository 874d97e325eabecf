"""API keys for the question routes: read once per worker, kept only as SHA-256 digests, compared in constant time.

Keys come from the environment variable ``server.auth.api_keys_env`` (``KEY DOMAINS [SCOPES]`` entries separated
by ";" or newlines; KEY as written or as ``sha256:<hex>``) and from the file ``server.auth.api_keys_file`` (one
``sha256:<hex> DOMAINS [SCOPES]`` a line, hashed only, ``#`` starts a comment). DOMAINS is ``d1,d2`` or ``*``.
SCOPES is ``read`` (the question routes; the default, so a key written before scopes existed stays read-only),
``write`` (the documents API: uploads, deletions, jobs) or ``read,write``. No message, log line or trace ever
holds a key: errors name the entry or line, never its text.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from pathlib import Path

from werkzeug.datastructures import Headers

from lambdarag.config.load import secret
from lambdarag.config.schema import AuthConfig
from lambdarag.errors import AuthError, ConfigError

HASH_PREFIX = "sha256:"
KEY_HEADER = "X-API-Key"
KEY_HINT = "send the header 'Authorization: Bearer <key>' (or 'X-API-Key: <key>')"
SCOPES = frozenset({"read", "write"})
DEFAULT_SCOPES = frozenset({"read"})


def digest(value: str) -> bytes:
    """The SHA-256 of a key or token: what is kept and compared (fixed length, so the compare leaks no length)."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).digest()


def same_secret(presented: str, expected: str) -> bool:
    """Constant-time comparison of two secrets through their digests."""
    return hmac.compare_digest(digest(presented), digest(expected))


@dataclass(frozen=True)
class ApiKey:
    """One key: its digest, the domains it may use ("*" = all), and where it was defined (never the key)."""

    digest: bytes
    domains: frozenset[str]
    source: str
    scopes: frozenset[str] = DEFAULT_SCOPES  # "read": question routes; "write": the documents API

    def allows(self, domain: str) -> bool:
        return "*" in self.domains or domain in self.domains

    @property
    def client_id(self) -> str:
        """A name for rate limiting: a prefix of the digest, which says nothing about the key."""
        return "key:" + self.digest.hex()[:16]


def parse_entry(entry: str, file: str, where: str, hashed_only: bool) -> ApiKey:
    """``KEY DOMAINS [SCOPES]`` → ApiKey; errors name ``file`` and ``where``, never the entry's text."""
    parts = entry.split()
    if len(parts) not in (2, 3):
        raise ConfigError(file, where, f"expected 'KEY DOMAINS' or 'KEY DOMAINS SCOPES', got {len(parts)} fields")
    key, domain_list = parts[:2]
    domains = frozenset(d.strip() for d in domain_list.split(",") if d.strip())
    if not domains:
        raise ConfigError(file, where, "no domains: write d1,d2 or *")
    scopes = _scopes(parts[2], file, where) if len(parts) == 3 else DEFAULT_SCOPES
    if key.startswith(HASH_PREFIX):
        hexdigest = key[len(HASH_PREFIX):].lower()
        if len(hexdigest) != 64 or any(c not in "0123456789abcdef" for c in hexdigest):
            raise ConfigError(file, where, "sha256: must be followed by 64 hex digits")
        return ApiKey(bytes.fromhex(hexdigest), domains, f"{file} {where}", scopes)
    if hashed_only:
        raise ConfigError(file, where, "keys in the file must be hashed: write sha256:<hex of the key>")
    return ApiKey(digest(key), domains, f"{file} {where}", scopes)


def _scopes(text: str, file: str, where: str) -> frozenset[str]:
    scopes = frozenset(s.strip() for s in text.split(",") if s.strip())
    if not scopes or scopes - SCOPES:
        raise ConfigError(file, where, f"scopes must be read, write or read,write, got {sorted(scopes - SCOPES)}")
    return scopes


def keys_from_env(env_name: str) -> list[ApiKey]:
    value = secret(env_name) or ""
    entries = [e.strip() for line in value.splitlines() for e in line.split(";")]
    return [parse_entry(e, f"${env_name}", f"entry {i}", hashed_only=False)
            for i, e in enumerate([e for e in entries if e], 1)]


def keys_from_file(path: Path) -> list[ApiKey]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), "", f"cannot read the API key file: {exc}") from exc
    keys = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if text:
            keys.append(parse_entry(text, str(path), f"line {number}", hashed_only=True))
    return keys


def presented_key(headers: Headers) -> str | None:
    """The key a request carries: ``Authorization: Bearer <key>``, else ``X-API-Key``."""
    scheme, _, token = headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return headers.get(KEY_HEADER, "").strip() or None


@dataclass(frozen=True)
class KeyRing:
    """The keys of one worker (read at start-up: a changed file or variable needs a restart or SIGHUP)."""

    enabled: bool
    keys: tuple[ApiKey, ...]
    sources: str  # where keys are read from, for the "none configured" message

    @classmethod
    def from_config(cls, cfg: AuthConfig, domain_root: Path) -> KeyRing:
        if not cfg.enabled:
            return cls(False, (), "")
        keys = keys_from_env(cfg.api_keys_env) if cfg.api_keys_env else []
        sources = [f"${cfg.api_keys_env}"] if cfg.api_keys_env else []
        if cfg.api_keys_file:
            keys += keys_from_file(domain_root / cfg.api_keys_file)  # an absolute path stays as it is
            sources.append(cfg.api_keys_file)
        return cls(True, tuple(keys), " or ".join(sources) or "server.auth")

    def match(self, presented: str) -> ApiKey | None:
        """The key with this digest; every stored key is compared (no early exit), each in constant time."""
        wanted = digest(presented)
        found: ApiKey | None = None
        for key in self.keys:
            if hmac.compare_digest(key.digest, wanted) and found is None:
                found = key
        return found

    def require(self, presented: str | None, key: ApiKey | None, domain: str, scope: str = "read") -> None:
        """Refuse a request without a valid key for ``domain`` and ``scope`` (401 missing or unknown, 403 not for
        this domain or without the scope)."""
        if not self.keys:
            raise AuthError(f"API keys are required but none are configured: set {self.sources}", forbidden=True)
        if presented is None:
            raise AuthError(f"API key missing: {KEY_HINT}")
        if key is None:
            raise AuthError(f"API key not valid: {KEY_HINT} with a key issued for this server")
        if not key.allows(domain):
            raise AuthError(f"this API key may not use domain {domain!r}", forbidden=True)
        if scope not in key.scopes:
            raise AuthError(f"this API key has no {scope} scope (it has {','.join(sorted(key.scopes))})",
                            forbidden=True)
