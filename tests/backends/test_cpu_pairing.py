"""The cpu backend's pairing (cuzk.backends.cpu.pairing) against the reference's: the full Fq12 value of e(P, Q),
pairing checks (bilinearity, a failing check, points at infinity, k = 0, a real Groth16 proof and a tampered one),
the Miller steps against the reference's line, and every constant recomputed from the curve independently."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import numba
import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.cpu import pairing as cp
from cuzk.backends.cpu.params import curve_params
from cuzk.backends.cpu.tower import fq2_mont, tower_consts
from cuzk.backends.errors import InputShapeError
from cuzk.reference import pairing as rp
from cuzk.reference.circuits import build
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.groth16 import Proof, generate_random_parameters, prepare_inputs, prove, verification_pairs, verify

CURVES = [BN254, BLS12_381]
by_name = pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)


def fq12_ints(value: Any) -> list[int]:
    """A reference Fq12 element as 12 integers, coefficients in tower order."""
    return [e.value for six in value.coeffs for two in six.coeffs for e in two.coeffs]


def decode(curve: Curve, element: Any) -> Any:
    """A Montgomery-form Fq2 tuple of limbs as a reference Fq2 element."""
    fq = curve_params(curve).fq
    r_inv = pow(fq.R, -1, curve.q)
    c0, c1 = (limbs.limbs_to_int(np.array(part, dtype=np.uint64)) * r_inv % curve.q for part in element)
    return curve.Fq2(c0, c1)


def g1(curve: Curve, points: list[Any]) -> np.ndarray:
    return limbs.points_to_limbs(curve, "g1", points)


def g2(curve: Curve, points: list[Any]) -> np.ndarray:
    return limbs.points_to_limbs(curve, "g2", points)


def check(curve: Curve, pairs: list[tuple[Any, Any]]) -> bool:
    return cp.pairing_check(curve, g1(curve, [p for p, _ in pairs]), g2(curve, [q for _, q in pairs]))


def random_points(curve: Curve, rng: random.Random) -> tuple[Any, Any]:
    return curve.g1.generator * rng.randrange(1, curve.r), curve.g2.generator * rng.randrange(1, curve.r)


# --- constants, recomputed here -------------------------------------------------------------------------------


@by_name
def test_constants_are_the_curves(curve: Curve) -> None:
    """Frobenius γ's, π's constants, 3b', the loop's digits and the hard part's programs, each recomputed."""
    consts = cp.pairing_consts(curve)
    assert [decode(curve, g) for g in tower_consts(curve).frob] == curve.Fq12.FROBENIUS_GAMMAS
    assert decode(curve, consts.b3) == curve.g2.b + curve.g2.b + curve.g2.b
    x, y = (curve.g2.generator * 5).to_affine()
    pi = (x.conjugate() * decode(curve, consts.pi_x), y.conjugate() * decode(curve, consts.pi_y))
    assert pi == rp.twist_frobenius(curve, x, y)
    digits = [int(d) for d in consts.loop]
    assert sum(d << i for i, d in enumerate(reversed(digits))) == rp.ate_loop_count(curve)
    assert all(a == 0 or b == 0 for a, b in itertools.pairwise(digits))  # non-adjacent form

    def value(row: np.ndarray) -> int:
        return sum(int(d) << i for i, d in enumerate(reversed(row.tolist())))

    programs, n = consts.powers, consts.n_pre
    m = math.prod(value(programs[k][0]) for k in range(n))
    assert value(programs[n][0]) == curve.x
    c = [[value(programs[n + 1 + i][j]) for j in range(4)] for i in range(4)]
    q = curve.q
    total = m * sum(c[i][j] * curve.x**j * q**i for i in range(4) for j in range(4)) + consts.extra
    assert total == (q**4 - q**2 + 1) // curve.r


@numba.njit
def _steps(t: Any, C: Any) -> Any:
    """2T, T + Q with Q = T (the tangent's fallback), and 2T + Q, each with its line."""
    s = cp.doubling_step(t, C)
    return s, cp.addition_step(t, t[0], t[1], C), cp.addition_step((s[0], s[1], s[2]), t[0], t[1], C)


@by_name
def test_steps_follow_the_reference(curve: Curve) -> None:
    """The projective steps land on 2Q and 3Q, and their lines are the reference's line_at up to a factor."""
    consts = cp.pairing_consts(curve)
    fq = curve_params(curve).fq
    q_point = curve.g2.generator * 11
    x, y = q_point.to_affine()
    t = (fq2_mont(fq, x), fq2_mont(fq, y), fq2_mont(fq, curve.Fq2.one()))
    doubled, same, added = _steps(t, consts)
    assert same == doubled
    for s, multiple, (x_t, y_t), slope in (
        (doubled, 2, (x, y), (x.square() * 3) / y.double()),
        (added, 3, (q_point * 2).to_affine(), None),
    ):
        X, Y, Z, l0, lx, ly = (decode(curve, e) for e in s)
        assert (q_point * multiple).to_affine() == (X / Z, Y / Z)
        slope = slope if slope is not None else (y - y_t) / (x - x_t)
        assert (lx / ly, l0 / ly) == (-slope, slope * x_t - y_t)  # line_at's coefficients, divided by ℓy's


# --- values and checks against the reference ------------------------------------------------------------------


@by_name
def test_value_is_the_reference_pairing(curve: Curve) -> None:
    rng = random.Random(f"value-{curve.name}")
    for _ in range(2):
        p, q = random_points(curve, rng)
        value = cp.pairing_value(curve, g1(curve, [p])[0], g2(curve, [q])[0])
        assert value == fq12_ints(rp.pairing(curve, p, q))


@by_name
def test_bilinearity(curve: Curve) -> None:
    """e([a]P, [b]Q)·e(−[ab]P, Q) = 1; with Q doubled in the second pair it is not (and the reference agrees)."""
    rng = random.Random(f"bilinear-{curve.name}")
    p, q = random_points(curve, rng)
    a, b = rng.randrange(1, curve.r), rng.randrange(1, curve.r)
    assert check(curve, [(p * a, q * b), (-(p * (a * b)), q)])
    wrong = [(p * a, q * b), (-(p * (a * b)), q * 2)]
    assert not check(curve, wrong)
    assert not rp.pairing_check(curve, wrong)


@by_name
def test_points_at_infinity_contribute_one(curve: Curve) -> None:
    rng = random.Random(f"infinity-{curve.name}")
    p, q = random_points(curve, rng)
    o1, o2 = curve.g1.identity(), curve.g2.identity()
    identity = [1] + [0] * 11
    assert cp.pairing_value(curve, g1(curve, [o1])[0], g2(curve, [q])[0]) == identity
    assert cp.pairing_value(curve, g1(curve, [p])[0], g2(curve, [o2])[0]) == identity
    assert check(curve, [(o1, q), (p, o2), (o1, o2)])
    assert check(curve, [(p, q), (o1, q), (-p, q)])
    assert not check(curve, [(p, q), (p, o2)])


@by_name
def test_empty_product_is_one(curve: Curve) -> None:
    L = limbs.fq_limbs(curve)
    assert cp.pairing_check(curve, np.zeros((0, 2, L), np.uint64), np.zeros((0, 2, 2, L), np.uint64))


def test_shapes_are_checked() -> None:
    with pytest.raises(InputShapeError):
        cp.pairing_check(BN254, np.zeros((2, 2, 4), np.uint64), np.zeros((1, 2, 2, 4), np.uint64))
    with pytest.raises(InputShapeError):
        cp.pairing_check(BN254, np.zeros((1, 2, 6), np.uint64), np.zeros((1, 2, 2, 6), np.uint64))


# --- a real Groth16 proof -------------------------------------------------------------------------------------


def verifier_pairs(pk: Any, public: list[Any], proof: Proof) -> list[tuple[Any, Any]]:
    """The four pairs of cuzk.reference.groth16.verify: e(A, B)·e(−α, β)·e(−Σ x_i·IC_i, γ)·e(−C, δ) = 1."""
    return verification_pairs(pk.vk, prepare_inputs(pk.vk, public), proof)


@by_name
def test_groth16_proof(curve: Curve) -> None:
    """A proof verifies with the cpu pairing as with the reference; with C moved, neither accepts it. (The cubic
    circuit, 4 constraints: MiMC's 331 would make the reference's setup and proof 8 s longer, the pairs no realer.)"""
    cs = build("cubic", curve.Fr, size=1, seed=3)
    pk = generate_random_parameters(cs, curve)
    public = cs.input_assignment[1:]
    proof = prove(pk, cs)
    tampered = Proof(proof.a, proof.b, proof.c + curve.g1.generator)
    for candidate, expected in ((proof, True), (tampered, False)):
        assert verify(pk.vk, public, candidate) is expected
        assert check(curve, verifier_pairs(pk, public, candidate)) is expected
