"""Fixtures shared by every test module, and the hypothesis profiles."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, settings
from llm_clients import close_all
from server_fixtures import ADMIN_TOKEN, copy_domain, shared_source

from lambdarag.config.domain import Domain
from lambdarag.server import create_app

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


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Domain:
    """The server tests' built domain, built once per session (server_fixtures.shared_source); a module may
    define a ``source`` of its own."""
    return shared_source(tmp_path_factory)


@pytest.fixture
def domain(source: Domain, tmp_path: Path) -> Domain:
    """A private copy of ``source`` for a test that writes to or rebuilds it; a module may define its own."""
    return copy_domain(source, tmp_path / "knowledge")


@pytest.fixture
def app(domain: Domain, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    """The real app on ``domain``, with the admin token set; a module may define an ``app`` of its own."""
    monkeypatch.setenv("LAMBDARAG_ADMIN_TOKEN", ADMIN_TOKEN)
    app = create_app(domain)
    yield app
    app.extensions["lambdarag"].store.close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client of the module's ``app``."""
    return app.test_client()
