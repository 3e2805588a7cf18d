"""The ``pairing`` kind: a backend without the capability counts every case as skipped, the quick subset names
cases that exist, and a boolean answer is judged strictly (a wrong bool, a non-bool, an exception all fail)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from cuzk.backends.protocol import PAIRING
from cuzk.backends.reference import ReferenceBackend
from cuzk.conformance import VECTORS_DIR, run_suite
from cuzk.conformance.pairing import QUICK_CASES, check_answer
from cuzk.reference.curves import CURVES
from cuzk.reference.errors import CuzkError

SUBSET = ("bn254/pairing/edge.json", "bn254/pairing/invalid.json")


class NoPairing(ReferenceBackend):
    """The reference without the optional capability (as a third-party backend may be)."""

    name = "no-pairing"
    capabilities = ReferenceBackend.capabilities - {PAIRING}


def test_a_backend_without_pairing_skips_the_same_cases(vector_subset: Callable[..., Path]) -> None:
    report = run_suite([ReferenceBackend(), NoPairing()], vectors=vector_subset(*SUBSET), quick=True)
    assert report.ok
    ran, skipped = (b.counts("pairing") for b in report.backends)
    assert sum(ran.values()) == sum(skipped.values()) == 16 + 5
    assert ran["passed"] == 3 + 5 and ran["failed"] == 0  # quick: empty, single_pair, infinity_among_pairs; invalid
    assert skipped == {"passed": 0, "failed": 0, "skipped": 21}
    assert report.backends[1].skip_reasons("pairing") == {"capability missing: pairing": 21}
    assert report.to_json()["backends"]["no-pairing"]["kinds"]["pairing"]["skipped"] == 21


@pytest.mark.parametrize("curve", CURVES)
def test_the_quick_subset_names_committed_cases(curve: str) -> None:
    for case_set, idents in QUICK_CASES.items():
        doc = json.loads((VECTORS_DIR / curve / "pairing" / f"{case_set}.json").read_text())
        outputs = {case["id"]: case["output"] for case in doc["cases"]}
        assert set(idents) <= set(outputs), f"{curve}/pairing/{case_set}: a quick case is missing"
        assert {outputs[i] for i in idents} == {True, False}, "a quick run must see a true and a false product"


def _raise(exc: Exception) -> Callable[[], bool]:
    def call() -> bool:
        raise exc

    return call


@pytest.mark.parametrize(
    ("call", "status", "message"),
    [
        (lambda: True, "passed", "Π e(P_i, Q_i) = 1"),
        (lambda: np.bool_(True), "passed", "Π e(P_i, Q_i) = 1"),
        (lambda: False, "failed", "expected True (Π e(P_i, Q_i) = 1), got False"),
        (lambda: 1, "failed", "returned int 1, expected a bool"),
        (lambda: np.array([True]), "failed", "returned ndarray array([ True]), expected a bool"),
        (_raise(CuzkError("no")), "failed", "raised CuzkError: no"),
        (_raise(ZeroDivisionError("x")), "failed", "raised ZeroDivisionError: x (expected a result)"),
    ],
)
def test_answers_are_judged_strictly(call: Callable[[], object], status: str, message: str) -> None:
    result = check_answer("bn254/pairing/edge.json", "p_and_minus_p", True, call)
    assert (result.status, result.message) == (status, message)
    assert result.case == "p_and_minus_p" and result.variant is None
