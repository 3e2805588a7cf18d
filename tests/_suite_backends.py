"""Which backends a test may skip: an optional one (cuda, opencl: an extra and a device) that cannot run here skips
with its reason; a required one (the reference, and cpu, whose numba is a required dependency of the base install)
that cannot run fails the test, saying why, for a missing required dependency is a broken install, not a skip."""

from __future__ import annotations

import pytest

from cuzk.backends.registry import discover

REQUIRED_BACKENDS = ("reference", "cpu")  # they run wherever the base install does (numpy, numba)


def usable_or_skip(name: str) -> None:
    """Return when backend ``name`` can run here; else skip (an optional backend) or fail (a required one)."""
    entry = discover().get(name)
    if entry is not None and entry.available:
        return
    reason = entry.reason if entry is not None else "not registered"
    if name in REQUIRED_BACKENDS:
        pytest.fail(
            f"the {name} backend must run wherever cuzk is installed (numba is a required dependency), but: {reason}",
            pytrace=False,
        )
    pytest.skip(f"the {name} backend cannot run here: {reason}")  # the wording of tests/backends/_gpu.py
