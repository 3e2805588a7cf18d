"""Deliberately broken backends are caught, and the report points at the failing case and its first bad limb."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.cpu import CpuBackend
from cuzk.backends.protocol import PAIRING
from cuzk.backends.reference import ReferenceBackend
from cuzk.backends.registry import BackendEntry
from cuzk.conformance import run_suite, runner
from cuzk.conformance.__main__ import main
from cuzk.conformance.codec import hex_to_limbs
from cuzk.conformance.manifest import load_manifest
from cuzk.conformance.report import failure_lines, render_text
from cuzk.reference.curves import BN254, CURVES, Curve
from cuzk.reference.pairing import miller_loop


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


class DropsLastPair(CpuBackend):
    """An off-by-one in the loop over the pairs of a pairing check: the last pair is never multiplied in."""

    name = "drops-last-pair"

    def _pairing_check(self, curve: Curve, g1: np.ndarray, g2: np.ndarray) -> bool:
        return super()._pairing_check(curve, g1[:-1], g2[:-1])


PAIRING_FILES = [
    f"{curve}/pairing/{name}.json" for curve in CURVES for name in ("bilinear", "edge", "groth16", "invalid")
]


def test_dropped_pair_is_caught(vector_subset: Callable[..., Path]) -> None:
    """Every file of the pairing kind, at compiled speed: the true products with a real last pair fail, as do the
    false ones that dropping the last pair makes true; what the bug cannot change passes."""
    report = run_suite([DropsLastPair()], vectors=vector_subset(*PAIRING_FILES))
    assert not report.ok
    failed = {(vf.path.split("/")[0], r.case) for vf, r in report.backends[0].failures()}
    for curve in CURVES:
        for case in ("single_pair", "generators", "p_and_minus_p", "ab_moved_to_g1", "many_pairs", "proof"):
            assert (curve, case) in failed
        assert (curve, "ab_pair_dropped") in failed  # e(aP, bQ) alone becomes the empty product: true
        for case in ("empty", "infinity_g1", "infinity_last", "c_perturbed", "delta_pair_dropped", "more_g1_than_g2"):
            assert (curve, case) not in failed
    message = "expected False (Π e(P_i, Q_i) ≠ 1), got True"
    assert f"FAIL bn254/pairing/edge.json single_pair: {message}" in failure_lines(report.backends[0], limit=100)
    assert f"conformance: FAILED ({len(failed)} failed cases, 0 problems with the vectors)" in render_text(report)
    failures = _failures(report, "pairing")
    assert failures[("proof", None)]["message"] == "expected True (Π e(P_i, Q_i) = 1), got False"
    assert failures[("proof", None)]["file"] in ("bls12_381/pairing/groth16.json", "bn254/pairing/groth16.json")


class SkipsFinalExponentiation(ReferenceBackend):
    """Compares the product of the Miller loops with 1, without the final exponentiation."""

    name = "skips-final-exponentiation"
    capabilities = frozenset({PAIRING})

    def _pairing_check(self, curve: Curve, g1: np.ndarray, g2: np.ndarray) -> bool:
        f = curve.Fq12.one()
        for p, q in zip(limbs.limbs_to_points(curve, "g1", g1), limbs.limbs_to_points(curve, "g2", g2), strict=True):
            f = f * miller_loop(curve, p, q)
        return bool(f == curve.Fq12.one())


def _holds_a_finite_pair(inp: dict[str, list]) -> bool:
    """Whether some pair of a pairing case has two points other than infinity (all-zero coordinates)."""
    finite = lambda point: any(int(c, 16) for c in np.ravel(point))  # noqa: E731
    return any(finite(p) and finite(q) for p, q in zip(inp["g1"], inp["g2"], strict=True))


def test_missing_final_exponentiation_is_caught(vector_subset: Callable[..., Path]) -> None:
    """Exactly the true products holding a pair of two finite points fail: a Miller loop's value is 1 only up to the
    factors the final exponentiation removes; false products stay false, and products of O-pairs stay 1."""
    path = "bn254/pairing/edge.json"
    vectors = vector_subset(path)
    report = run_suite([SkipsFinalExponentiation()], vectors=vectors)
    cases = json.loads((vectors / path).read_text())["cases"]
    expected = {case["id"] for case in cases if case["output"] is True and _holds_a_finite_pair(case["input"])}
    assert {"generators_cancel", "p_and_minus_p", "infinity_among_pairs"} <= expected
    assert set(_failures(report, "pairing")) == {(case, None) for case in expected}
    counts = report.backends[0].counts("pairing")
    assert counts["passed"] == 16 - len(expected) and counts["skipped"] == 0  # empty, O-pairs and the false ones
