"""Deliberately broken backends are caught, and the report points at the failing case and its first bad limb."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.reference import ReferenceBackend
from cuzk.backends.registry import BackendEntry
from cuzk.conformance import run_suite, runner
from cuzk.conformance.__main__ import main
from cuzk.conformance.codec import hex_to_limbs
from cuzk.conformance.manifest import load_manifest
from cuzk.conformance.report import render_text
from cuzk.reference.curves import BN254, Curve


class DropsLastBase(ReferenceBackend):
    """An off-by-one in the MSM loop bound: the last term is never added."""

    name = "drops-last-base"
    capabilities = frozenset()

    def _msm(self, curve, group, bases, scalars, window):  # type: ignore[no-untyped-def]
        return super()._msm(curve, group, bases[:-1], scalars[:-1], window)


def _to_montgomery(array: np.ndarray, modulus: int) -> np.ndarray:
    L = array.shape[-1]
    R = 1 << (64 * L)
    return limbs.ints_to_limbs([v * R % modulus for v in limbs.limbs_to_ints(array)], L).reshape(array.shape)


class ReturnsMontgomery(ReferenceBackend):
    """Forgets to convert its results out of Montgomery form (x·R mod p)."""

    name = "returns-montgomery"
    capabilities = frozenset()

    def _msm(self, curve, group, bases, scalars, window):  # type: ignore[no-untyped-def]
        return _to_montgomery(super()._msm(curve, group, bases, scalars, window), curve.q)

    def _ntt(self, curve, values, inverse, coset):  # type: ignore[no-untyped-def]
        return _to_montgomery(super()._ntt(curve, values, inverse, coset), curve.r)


class ForgetsOneOverN(ReferenceBackend):
    """The inverse NTT without the final scaling by 1/n."""

    name = "forgets-one-over-n"
    capabilities = frozenset()

    def _ntt(self, curve: Curve, values, inverse, coset):  # type: ignore[no-untyped-def]
        out = super()._ntt(curve, values, inverse, coset)
        if not inverse:
            return out
        n = len(values)
        return limbs.fr_to_limbs(curve, [v * n for v in limbs.limbs_to_ints(out)])


def _failures(report, kind: str) -> dict[tuple[str, str | None], dict]:
    backend = report.to_json()["backends"]
    (only,) = backend.values()
    return {(f["case"], f["variant"]): f for f in only["kinds"][kind]["failures"]}


def _expected_output(vectors: Path, path: str, case_id: str) -> dict | list:
    doc = json.loads((vectors / path).read_text())
    return next(c for c in doc["cases"] if c["id"] == case_id)["output"]


def test_dropped_base_is_caught(vector_subset: Callable[..., Path]) -> None:
    vectors = vector_subset("bn254/msm/g1_random.json", "bn254/msm/g1_edge.json")
    report = run_suite([DropsLastBase()], vectors=vectors, quick=True)
    assert not report.ok
    failures = _failures(report, "msm")
    assert ("n=0", None) not in failures  # nothing to drop
    assert ("generator_times_one", None) in failures and ("n=17", None) in failures
    # n = 1: the result is the identity (zeros) instead of the base itself: limb [0, 0] (x, limb 0) differs.
    diff = failures[("n=1", None)]["first_difference"]
    expected = hex_to_limbs(_expected_output(vectors, "bn254/msm/g1_random.json", "n=1"), (2,), 4)[0]
    assert diff["index"] == [0, 0]
    assert diff["expected"] == f"0x{int(expected[0, 0]):016x}" and diff["got"] == "0x0000000000000000"
    assert "FAIL bn254/msm/g1_random.json n=1: first differing limb [0, 0]" in render_text(report)


def test_montgomery_output_is_caught(vector_subset: Callable[..., Path]) -> None:
    vectors = vector_subset("bn254/ntt/random.json", "bls12_381/msm/g1_edge.json")
    report = run_suite([ReturnsMontgomery()], vectors=vectors, quick=True)
    ntt_failures = _failures(report, "ntt")
    assert ("random/n=0", "forward") not in ntt_failures  # an empty output has nothing to get wrong
    diff = ntt_failures[("random/n=1", "forward")]["first_difference"]
    (value,) = _expected_output(vectors, "bn254/ntt/random.json", "random/n=1")["forward"]
    montgomery = int(value, 16) * 2**256 % BN254.r
    assert diff["expected_element"] == value and diff["got_element"] == f"0x{montgomery:064x}"
    assert diff["index"][0] == 0
    msm_failures = _failures(report, "msm")
    assert ("generator_times_one", None) in msm_failures
    assert ("zero_scalars", None) not in msm_failures  # the identity is zeros in either form
    assert report.to_json()["backends"]["returns-montgomery"]["failed"] > 0


def test_missing_one_over_n_is_caught(vector_subset: Callable[..., Path], tmp_path: Path) -> None:
    vectors = vector_subset("bls12_381/ntt/random.json", "bls12_381/ntt/structured.json")
    report = run_suite([ForgetsOneOverN()], vectors=vectors)
    failures = _failures(report, "ntt")
    assert failures, "the broken inverse went unnoticed"
    assert {variant for _, variant in failures} == {"inverse", "inverse_coset"}
    assert ("random/n=1", "inverse") not in failures  # 1/n = 1: the one size where the bug is invisible
    first = failures[("random/n=2", "inverse")]
    assert first["file"] == "bls12_381/ntt/random.json" and first["first_difference"]["index"][0] == 0
    assert ("zeros/n=16", "inverse") not in failures


def test_cli_passes_and_writes_the_json_report(vector_subset: Callable[..., Path], tmp_path: Path, capsys) -> None:
    """The CLI over the registered reference: exit 0 and a JSON report with the counts per backend × kind."""
    vectors = vector_subset("bn254/ntt/invalid.json", "bn254/field/fr.json")
    assert len(load_manifest(vectors)) == 2
    out = tmp_path / "report.json"
    assert main(["--backend", "reference", "--vectors", str(vectors), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    for kind in ("ntt", "field"):
        counts = report["backends"]["reference"]["kinds"][kind]
        assert {"passed", "failed", "skipped"} <= set(counts) and counts["failed"] == counts["skipped"] == 0
    assert "conformance: OK" in capsys.readouterr().out


def test_cli_exits_non_zero_on_a_failing_registered_backend(
    vector_subset: Callable[..., Path], tmp_path: Path, monkeypatch, capsys
) -> None:
    vectors = vector_subset("bn254/ntt/random.json")
    broken = ForgetsOneOverN()
    entry = BackendEntry(broken.name, "tests:ForgetsOneOverN", None, broken, None, 0)
    monkeypatch.setattr(runner, "discover", lambda: {broken.name: entry})
    out = tmp_path / "report.json"
    assert main(["run", "--backend", broken.name, "--vectors", str(vectors), "--json", str(out)]) == 1
    text = capsys.readouterr().out
    assert "FAIL bn254/ntt/random.json random/n=2 [inverse]: first differing limb [0, " in text
    assert "conformance: FAILED" in text
    failures = json.loads(out.read_text())["backends"][broken.name]["kinds"]["ntt"]["failures"]
    assert {"case", "variant", "message", "first_difference", "file"} <= set(failures[0])


class NegatesG2(ReferenceBackend):
    """A G2 MSM that returns −P (a sign slip in the y coordinate of the twist): the G1 MSMs and NTTs are right."""

    name = "negates-g2"
    capabilities = frozenset()

    def _msm(self, curve, group, bases, scalars, window):  # type: ignore[no-untyped-def]
        out = super()._msm(curve, group, bases, scalars, window)
        if group != "g2" or not out.any():
            return out
        point = limbs.limbs_to_point(curve, group, out)
        return limbs.point_to_limbs(curve, group, -point)


def test_groth16_kind_catches_a_wrong_g2_msm(vector_subset: Callable[..., Path]) -> None:
    """Only the B_G2 MSM is wrong: the whole-proof vectors fail, at the first limb of B (after A's 2·L limbs)."""
    vectors = vector_subset("bn254/groth16/proofs.json")
    report = run_suite([NegatesG2()], vectors=vectors, quick=True)
    failures = _failures(report, "groth16")
    assert ("cubic_1_libsnark", None) in failures and ("bits_1_circom", None) in failures
    diff = failures[("cubic_1_libsnark", None)]["first_difference"]
    assert diff["index"][0] >= 2 * 4, "A must match: only B (and hence C) is wrong"
    assert report.to_json()["backends"]["negates-g2"]["kinds"]["groth16"]["skipped"] == 2  # quick: mimc and merkle
