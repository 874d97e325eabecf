"""OpenAI-compatible chat client (vLLM in production): plain text, streaming and validated JSON.

Every failure (time-out, connection, HTTP error, a reply that is not JSON, a stream cut midway) raises
ServiceError with the cause, so callers can fall back to their rule-based path and record why. After a failure
of the endpoint itself, calls are refused at once for llm.cooldown_s (models/health.py: a down or hung LLM
costs one time-out, not one per stage and request), then tried again one at a time; /readyz reads
``outcome`` and ``breaker``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar, cast

import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam

from lambdarag.config.load import secret
from lambdarag.config.schema import Config, LLMConfig
from lambdarag.errors import ServiceError
from lambdarag.models.health import Breaker, Outcome

T = TypeVar("T")
Message = dict[str, Any]

REPAIR_PROMPT = "只输出JSON"
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _transport_errors() -> tuple[type[Exception], ...]:
    """The HTTP library's base error (httpx under openai 1.x, httpx2 later): raised while a stream is read."""
    names = [m for m in ("httpx2", "httpx") if importlib.util.find_spec(m) is not None]
    return tuple(importlib.import_module(m).HTTPError for m in names)


_TRANSPORT_ERRORS = _transport_errors()
_HINT = "check that the LLM server at llm.base_url is running, or set llm.enabled: false"
COOLDOWN_S = 10.0


class LLMClient:
    """A thread-safe chat client for one OpenAI-compatible endpoint and model."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "EMPTY",
        timeout_s: float = 30.0,
        max_retries: int = 1,
        max_tokens: int = 800,
        temperature: float = 0.1,
        cooldown_s: float = COOLDOWN_S,
    ) -> None:
        self.base_url = base_url
        self.model = model
        self.timeout_s = timeout_s
        self.max_tokens = max_tokens
        self.temperature = temperature
        # the openai client retries connection errors, 408/429 and 5xx itself, with backoff
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=max_retries)
        self.outcome = Outcome()  # the last call's status, for /readyz
        self.breaker = Breaker(cooldown_s)

    @classmethod
    def from_settings(cls, llm: LLMConfig) -> LLMClient:
        """Client for the llm section of a config; the API key comes from the named env var."""
        return cls(
            base_url=llm.base_url,
            model=llm.model,
            api_key=secret(llm.api_key_env) or "EMPTY",
            timeout_s=llm.timeout_s,
            max_retries=llm.max_retries,
            max_tokens=llm.max_tokens,
            temperature=llm.temperature,
            cooldown_s=llm.cooldown_s,
        )

    def close(self) -> None:
        """Close the pooled HTTP connections (the client is unusable afterwards)."""
        self._client.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _limits(self, max_tokens: int | None, temperature: float | None) -> tuple[int, float]:
        return (max_tokens if max_tokens is not None else self.max_tokens,
                temperature if temperature is not None else self.temperature)

    def chat(self, messages: Sequence[Message], *, max_tokens: int | None = None,
             temperature: float | None = None) -> str:
        """The assistant's reply text for ``messages``."""
        tokens, temp = self._limits(max_tokens, temperature)
        with self._call("chat request"):
            reply = self._client.chat.completions.create(
                model=self.model, messages=_params(messages), max_tokens=tokens, temperature=temp
            )
            if not isinstance(reply, ChatCompletion):  # a 200 that is not JSON comes back as its text
                raise ValueError(f"the reply is not a chat completion: {str(reply)[:120]!r}")
        if not reply.choices or reply.choices[0].message.content is None:
            raise ServiceError(f"LLM {self.model} at {self.base_url} returned no message content", _HINT)
        return reply.choices[0].message.content

    def stream(self, messages: Sequence[Message], *, max_tokens: int | None = None,
               temperature: float | None = None) -> Generator[str, None, None]:
        """The reply as text deltas, in order; a failure midway raises ServiceError."""
        tokens, temp = self._limits(max_tokens, temperature)
        with self._call("streaming chat request"):
            chunks = self._client.chat.completions.create(
                model=self.model, messages=_params(messages), max_tokens=tokens, temperature=temp, stream=True
            )
            with chunks:  # closes the HTTP response also when the caller stops reading early
                for chunk in chunks:
                    if isinstance(chunk, ChatCompletionChunk) and chunk.choices and chunk.choices[0].delta.content:
                        yield chunk.choices[0].delta.content

    @contextmanager
    def _call(self, what: str) -> Iterator[None]:
        """One request to the endpoint: refused while the breaker is open, its outcome recorded, failures raised as
        ServiceError (the openai client lets a body that is not JSON through as a ValueError, and a connection lost
        midway in a stream as the HTTP library's error)."""
        refused, trying = self.breaker.admit()
        if refused:
            raise ServiceError(f"LLM {what} skipped: the endpoint at {self.base_url} {refused}", _HINT)
        started = time.perf_counter()
        try:
            yield
        except openai.OpenAIError as exc:
            raise self._failed(_service_error(what, exc), _kind(exc), started, trying) from exc
        except _TRANSPORT_ERRORS as exc:
            error = ServiceError(f"LLM {what} failed midway: {type(exc).__name__}: {exc}", _HINT)
            raise self._failed(error, "error", started, trying) from exc
        except ValueError as exc:
            error = ServiceError(f"LLM {what} failed: malformed reply ({type(exc).__name__}: {exc})", _HINT)
            raise self._failed(error, "malformed", started, trying) from exc
        except BaseException:  # the caller stopped reading a stream (GeneratorExit): nothing learnt
            self.breaker.release(trying)
            raise
        self.outcome.record("ok", ms=(time.perf_counter() - started) * 1000)
        self.breaker.succeeded()

    def _failed(self, error: ServiceError, kind: str, started: float, trying: bool) -> ServiceError:
        """Record a failed call; a failure of the endpoint (not of this request) opens the breaker."""
        self.outcome.record(kind, error.message, (time.perf_counter() - started) * 1000)
        if kind == "rejected":
            self.breaker.release(trying)
        else:
            self.breaker.failed(error.message)
        return error

    def chat_json(self, messages: Sequence[Message], validate: Callable[[Any], T], *,
                  max_tokens: int | None = None) -> T:
        """The first JSON object of the reply, checked by ``validate``; one repair request on failure."""
        history = list(messages)
        reply = self.chat(history, max_tokens=max_tokens, temperature=0.0)
        try:
            return validate(parse_json(reply))
        except (ValueError, TypeError, KeyError) as first:
            # one repair turn: models often wrap JSON in prose; asking again usually suffices
            repair = [*history, {"role": "assistant", "content": reply}, {"role": "user", "content": REPAIR_PROMPT}]
            reply = self.chat(repair, max_tokens=max_tokens, temperature=0.0)
            try:
                return validate(parse_json(reply))
            except (ValueError, TypeError, KeyError) as second:
                raise ServiceError(
                    f"LLM {self.model} returned unusable JSON twice ({first}; then {second}): {reply[:200]!r}",
                    "the rule-based path is used instead; check the model or the prompt",
                ) from second

    def ping(self) -> str | None:
        """None when the endpoint lists its models, else the error text (for /readyz)."""
        try:
            self._client.with_options(timeout=min(self.timeout_s, 5.0), max_retries=0).models.list()
        except openai.OpenAIError as exc:
            return str(_service_error("model listing", exc))
        return None


def parse_json(reply: str) -> Any:
    """The first JSON object in ``reply`` (```json fences and surrounding prose ignored)."""
    fenced = _FENCE.search(reply)
    candidates = [fenced.group(1), reply] if fenced else [reply]
    decoder = json.JSONDecoder()
    for text in candidates:
        for match in re.finditer(r"\{", text):
            try:
                value, _ = decoder.raw_decode(text, match.start())
            except ValueError:
                continue
            return value
    raise ValueError(f"no JSON object in reply {reply[:120]!r}")


def _params(messages: Sequence[Message]) -> list[ChatCompletionMessageParam]:
    """Our plain message dicts as the openai client's typed message parameters."""
    return cast(list[ChatCompletionMessageParam], list(messages))


def _service_error(what: str, exc: openai.OpenAIError) -> ServiceError:
    if isinstance(exc, openai.APITimeoutError):
        cause = "timed out"
    elif isinstance(exc, openai.APIConnectionError):
        cause = f"connection failed ({exc.__cause__ or exc})"
    elif isinstance(exc, openai.APIStatusError):
        cause = f"HTTP {exc.status_code}: {exc.message}"
    else:
        cause = f"{type(exc).__name__}: {exc}"
    return ServiceError(f"LLM {what} failed: {cause}", _HINT)


def _kind(exc: openai.OpenAIError) -> str:
    """timeout | error (connection, 5xx, 429: the endpoint's fault) | rejected (another 4xx: this request's) |
    malformed."""
    if isinstance(exc, openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return "error"
    if isinstance(exc, openai.APIStatusError):
        return "error" if exc.status_code >= 500 or exc.status_code == 429 else "rejected"
    return "malformed"


def llm_from_config(cfg: Config) -> LLMClient | None:
    """The configured LLM client, or None when config.llm.enabled is false (embedded default)."""
    return LLMClient.from_settings(cfg.llm) if cfg.llm.enabled else None
