"""Fixtures shared by every test module, and the hypothesis profiles."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings
from llm_clients import close_all

# The default run ("fast") replays the same examples every time (derandomized: no flaky CI) and stays within
# seconds per test; "long" draws fresh random examples, many more (RELIABILITY.md):
#   pytest tests/test_server_fuzz.py --hypothesis-profile=long     (or LAMBDARAG_HYPOTHESIS_PROFILE=long)
# Neither keeps an example database (a failure prints the example that reproduces it); hypothesis still caches
# Unicode tables and constants in .hypothesis/, which carries its own .gitignore.
settings.register_profile("fast", max_examples=100, derandomize=True, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=3000, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("LAMBDARAG_HYPOTHESIS_PROFILE", "fast"))


@pytest.fixture(autouse=True)
def close_llm_clients() -> Iterator[None]:
    """Close the LLM clients a test made (see tests/llm_clients.py)."""
    yield
    close_all()
