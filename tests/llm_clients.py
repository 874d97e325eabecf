"""LLM clients that tests make, closed after every test by the autouse fixture in conftest.py.

Timed-out requests leave sockets behind that the garbage collector would warn about (and
warnings are errors here), so every client a test makes is closed when the test ends.
"""

from __future__ import annotations

from lambdarag.config.schema import Config
from lambdarag.models.llm import LLMClient

_CLIENTS: list[LLMClient] = []


def client(cfg: Config) -> LLMClient:
    """A real LLM client for ``cfg.llm``, registered for closing."""
    _CLIENTS.append(LLMClient.from_settings(cfg.llm))
    return _CLIENTS[-1]


def close_all() -> None:
    while _CLIENTS:
        _CLIENTS.pop().close()
