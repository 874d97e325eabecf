"""Cross-encoder rerank client: the Jina/Cohere shape vLLM serves (/v1/rerank) or TEI's (/rerank), over plain HTTP.

Every failure raises RerankError with its kind (timeout, error, malformed) so the retrieval stage can keep the
fused order and say why; the parsers accept only a reply that scores every document sent exactly once.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from lambdarag.config.load import secret
from lambdarag.config.schema import Config, RerankConfig
from lambdarag.errors import ServiceError
from lambdarag.models.health import Outcome

JINA = "jina"
TEI = "tei"
TIMEOUT, ERROR, MALFORMED = "timeout", "error", "malformed"
SOCKET_GRACE_S = 0.5  # the socket outlives rerank.timeout_s: the stage's budget ends the wait, this frees the thread
_HINT = "the fused order is kept; check the rerank server at rerank.base_url + rerank.path, or disable rerank.enabled"


class RerankError(ServiceError):
    """A rerank call failed: ``kind`` is timeout, error (connection, HTTP status) or malformed (unusable reply)."""

    def __init__(self, kind: str, message: str, hint: str = _HINT) -> None:
        super().__init__(message, hint)
        self.kind = kind


def parse_jina(payload: Any, count: int, top_n: int) -> dict[int, float]:
    """Scores by document index from ``{"results": [{"index", "relevance_score"}, ...]}`` (any order).

    The reply must score min(top_n, count) distinct documents of the ``count`` sent.
    """
    if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
        raise RerankError(MALFORMED, f"rerank reply is not an object with a results list: {_short(payload)}")
    return _scores(payload["results"], "relevance_score", count, min(top_n, count))


def parse_tei(payload: Any, count: int) -> dict[int, float]:
    """Scores by text index from TEI's ``[{"index", "score"}, ...]``: every one of the ``count`` texts, once."""
    if not isinstance(payload, list):
        raise RerankError(MALFORMED, f"TEI rerank reply is not a list: {_short(payload)}")
    return _scores(payload, "score", count, count)


def _scores(items: list[Any], key: str, count: int, expected: int) -> dict[int, float]:
    """Validate index/score pairs: ints in [0, count), no repeats, finite numbers, exactly ``expected`` of them."""
    if len(items) != expected:
        raise RerankError(MALFORMED, f"rerank reply scores {len(items)} documents, expected {expected} of {count}")
    scores: dict[int, float] = {}
    for item in items:
        index = item.get("index") if isinstance(item, dict) else None
        score = item.get(key) if isinstance(item, dict) else None
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise RerankError(MALFORMED, f"rerank reply has a bad index (want an int in [0, {count})): {_short(item)}")
        if index in scores:
            raise RerankError(MALFORMED, f"rerank reply scores document {index} twice")
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            raise RerankError(MALFORMED, f"rerank reply has a bad {key} (want a finite number): {_short(item)}")
        scores[index] = float(score)
    return scores


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text[:160]


class RerankClient:
    """One rerank endpoint; ``rerank(query, documents)`` returns a score per document index."""

    def __init__(self, base_url: str, path: str = "/v1/rerank", api: str = JINA, model: str = "",
                 api_key: str | None = None, timeout_s: float = 2.0) -> None:
        if api not in (JINA, TEI):
            raise ValueError(f"rerank api must be {JINA} or {TEI}, got {api!r}")
        self.url = base_url.rstrip("/") + "/" + path.lstrip("/")
        self.api = api
        self.model = model
        self.timeout_s = timeout_s
        self._api_key = api_key
        self.outcome = Outcome()

    @classmethod
    def from_settings(cls, cfg: RerankConfig) -> RerankClient:
        """Client for the `rerank:` section; the API key comes from the env var it names."""
        return cls(cfg.base_url, cfg.path, cfg.api, cfg.model, secret(cfg.api_key_env), cfg.timeout_s + SOCKET_GRACE_S)

    def request_body(self, query: str, documents: Sequence[str]) -> dict[str, Any]:
        """The JSON body of this endpoint's shape, every document to be scored."""
        if self.api == TEI:
            return {"query": query, "texts": list(documents), "truncate": True}
        return {"model": self.model, "query": query, "documents": list(documents), "top_n": len(documents)}

    def rerank(self, query: str, documents: Sequence[str]) -> dict[int, float]:
        """Score per index of ``documents``; RerankError on a time-out, an HTTP or connection error, a bad reply."""
        payload = self._post(self.request_body(query, documents))
        if self.api == TEI:
            return parse_tei(payload, len(documents))
        return parse_jina(payload, len(documents), len(documents))

    def _post(self, body: dict[str, Any]) -> Any:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            exc.close()
            raise RerankError(ERROR, f"rerank endpoint {self.url} answered HTTP {exc.code}") from exc
        except TimeoutError as exc:
            raise RerankError(TIMEOUT, f"rerank endpoint {self.url} timed out after {self.timeout_s:g}s") from exc
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            kind = TIMEOUT if isinstance(reason, TimeoutError) else ERROR
            raise RerankError(kind, f"rerank endpoint {self.url} failed: {reason}") from exc
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise RerankError(MALFORMED, f"rerank endpoint {self.url} answered non-JSON: {raw[:120]!r}") from exc


def reranker_from_config(cfg: Config) -> RerankClient | None:
    """The configured rerank client, or None when rerank.enabled is false."""
    return RerankClient.from_settings(cfg.rerank) if cfg.rerank.enabled else None
