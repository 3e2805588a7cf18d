"""Shared fixtures: the curves every reference test runs over, a seeded RNG, hypothesis profiles; the test
command's grouped skip summary (one line per distinct reason, tests/_suite_summary.py).

Run the long cases with ``pytest -m slow`` (and ``HYPOTHESIS_PROFILE=thorough`` for many more examples); ``-rs``
lists every skip with its location instead of the grouped summary.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from cuzk.backends import registry
from cuzk.reference.curves import BLS12_381, BN254, Curve

from ._suite_summary import write_grouped_skips

settings.register_profile(
    "default", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("thorough", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ALL_CURVES = [BLS12_381, BN254]


@pytest.fixture(params=ALL_CURVES, ids=lambda c: c.name)
def curve(request: pytest.FixtureRequest) -> Curve:
    """Each reference test that takes ``curve`` runs once per curve."""
    return request.param


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    """A random source seeded from the test's name, so every failure reproduces."""
    return random.Random(request.node.nodeid)


@pytest.fixture
def clean_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No CUZK_BACKEND / CUZK_DEVICE from the caller's shell, and no backend instances or warnings carried over
    (the backend and conformance folders use it for every test)."""
    monkeypatch.delenv(registry.ENV_BACKEND, raising=False)
    monkeypatch.delenv(registry.ENV_DEVICE, raising=False)
    registry.refresh()
    yield
    registry.refresh()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    """After the run: the skipped tests grouped by reason, one line each with its count (pytest's own short summary,
    after this section, keeps the failures, errors, xfails and xpasses)."""
    write_grouped_skips(terminalreporter)
