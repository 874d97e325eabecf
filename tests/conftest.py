"""Fixtures shared by every test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from llm_clients import close_all


@pytest.fixture(autouse=True)
def close_llm_clients() -> Iterator[None]:
    """Close the LLM clients a test made (see tests/llm_clients.py)."""
    yield
    close_all()
