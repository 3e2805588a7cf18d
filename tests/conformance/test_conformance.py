"""The conformance suite over every registered backend: one parametrized body, as STYLE.md asks.

A backend that cannot run here is skipped with its reason (pytest's -ra prints it), never silently. The reference
runs the quick subset (every MSM edge case, random MSMs up to n = 17 in G1 and 9 in G2, capability variants up to
n = 4, NTTs up to n = 256, all field cases, seven pairing checks per curve: about 30 s on the reference), and every
backend but the reference runs every committed vector, a superset of that subset (seconds when compiled);
``pytest -m slow`` adds the full run of the reference (about two minutes) and the other backends' quick runs.
"""

from __future__ import annotations

import pytest

from cuzk.backends import registry
from cuzk.conformance import KINDS, SuiteReport, run_suite
from cuzk.conformance.report import render_text
from cuzk.reference.curves import CURVES
from tests._suite_backends import usable_or_skip

BACKENDS = registry.registered_backends()


def _run(name: str, quick: bool) -> SuiteReport:
    usable_or_skip(name)  # cpu and the reference fail instead: they are required
    return run_suite([name], quick=quick)


def _assert_conforms(report: SuiteReport) -> None:
    assert report.ok, render_text(report)
    (backend,) = report.backends
    for kind in KINDS:
        for curve in CURVES:
            counts = backend.counts(kind, curve)
            assert counts["failed"] == 0
            if backend.name == "reference":
                assert counts["passed"] > 0, f"reference ran no {kind} case on {curve}"


# The quick subset of a compiled backend is part of its full run, which the default run makes (below): its own
# quick run only with -m slow. The reference runs the quick subset by default, the full run with -m slow.
QUICK = [name if name == "reference" else pytest.param(name, marks=pytest.mark.slow) for name in BACKENDS]


@pytest.mark.parametrize("name", QUICK)
def test_backend_conforms_quick(name: str) -> None:
    report = _run(name, quick=True)
    _assert_conforms(report)
    if name == "reference":  # the only skips are the quick subset's, never a missing capability
        assert all(reason.startswith("quick run: ") for reason in report.backends[0].skip_reasons())


# Every committed vector: seconds on a compiled backend, minutes on the pure-Python reference (slow run only).
FULL = [pytest.param(name, marks=pytest.mark.slow) if name == "reference" else name for name in BACKENDS]


@pytest.mark.parametrize("name", FULL)
def test_backend_conforms_full(name: str) -> None:
    report = _run(name, quick=False)
    _assert_conforms(report)
    if name == "reference":
        assert report.backends[0].counts()["skipped"] == 0
