"""PAIRING on every backend that offers it (cpu: numba; opencl, cuda: the ``pairing`` program), one body each,
against the reference: the Fq12 value of e(P, Q), checks of k = 0, 1, 2 and 4 pairs (bilinearity, a pair changed,
points at infinity, a real Groth16 proof and a tampered one) and the public method's input checks. A GPU backend
that cannot run here is skipped with its reason (opencl runs on PoCL)."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.errors import BackendInputError
from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.backends.kernels.constants import pairing_constants
from cuzk.backends.registry import get_backend
from cuzk.reference import pairing as rp
from cuzk.reference.circuits import build
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.groth16 import Proof, generate_random_parameters, prepare_inputs, prove, verification_pairs, verify
from tests._suite_backends import usable_or_skip
from tests.backends._gpu import GPU_BACKENDS, available

Pairs = list[tuple[Any, Any]]

by_name = pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)


@pytest.fixture(params=["cpu", "opencl", "cuda"])
def backend(request: pytest.FixtureRequest) -> Any:
    name = request.param
    if name in GPU_BACKENDS:
        return available(name)
    usable_or_skip(name)
    return get_backend(name)


def g1(curve: Curve, points: list[Any]) -> np.ndarray:
    return limbs.points_to_limbs(curve, "g1", points)


def g2(curve: Curve, points: list[Any]) -> np.ndarray:
    return limbs.points_to_limbs(curve, "g2", points)


def check(backend: Any, curve: Curve, pairs: Pairs) -> bool:
    return backend.pairing_check(curve, g1(curve, [p for p, _ in pairs]), g2(curve, [q for _, q in pairs]))


def value(backend: Any, curve: Curve, p: Any, q: Any) -> list[int]:
    """e(P, Q) as 12 canonical integers: a device's pairing_product, the cpu backend's pairing_value."""
    if isinstance(backend, DeviceBackend):
        return backend.pairing_product(curve, g1(curve, [p]), g2(curve, [q]))
    from cuzk.backends.cpu import pairing as cp

    return cp.pairing_value(curve, g1(curve, [p])[0], g2(curve, [q])[0])


def fq12_ints(element: Any) -> list[int]:
    """A reference Fq12 element as 12 integers, coefficients in tower order."""
    return [e.value for six in element.coeffs for two in six.coeffs for e in two.coeffs]


def random_points(curve: Curve, rng: random.Random) -> tuple[Any, Any]:
    return curve.g1.generator * rng.randrange(1, curve.r), curve.g2.generator * rng.randrange(1, curve.r)


@by_name
def test_value_is_the_reference_pairing(backend: Any, curve: Curve) -> None:
    rng = random.Random(f"value-{curve.name}")
    for _ in range(2):
        p, q = random_points(curve, rng)
        assert value(backend, curve, p, q) == fq12_ints(rp.pairing(curve, p, q))


@by_name
def test_checks_of_one_two_and_four_pairs(backend: Any, curve: Curve) -> None:
    """k = 1: e(P, Q) ≠ 1; k = 2: e([a]P, [b]Q)·e(−[ab]P, Q) = 1; k = 4 (a Groth16 check's shape): two such
    products. Each true check made false by changing one pair (the reference agrees)."""
    rng = random.Random(f"checks-{curve.name}")
    p, q = random_points(curve, rng)
    a, b, c = (rng.randrange(1, curve.r) for _ in range(3))
    two = [(p * a, q * b), (-(p * (a * b)), q)]
    four = [*two, (p * c, q), (-p, q * c)]
    assert not check(backend, curve, [(p, q)])
    assert check(backend, curve, two) and check(backend, curve, four)
    for pairs in (two, four):
        changed = [*pairs[:-1], (pairs[-1][0], pairs[-1][1] * 2)]
        assert not check(backend, curve, changed)
        assert not rp.pairing_check(curve, changed)


@by_name
def test_points_at_infinity_contribute_one(backend: Any, curve: Curve) -> None:
    rng = random.Random(f"infinity-{curve.name}")
    p, q = random_points(curve, rng)
    o1, o2 = curve.g1.identity(), curve.g2.identity()
    identity = [1] + [0] * 11
    assert value(backend, curve, o1, q) == identity
    assert value(backend, curve, p, o2) == identity
    assert check(backend, curve, [(o1, q), (p, o2), (o1, o2)])
    assert check(backend, curve, [(p, q), (o1, q), (-p, q)])
    assert not check(backend, curve, [(p, q), (p, o2)])


@by_name
def test_empty_product_is_one(backend: Any, curve: Curve) -> None:
    L = limbs.fq_limbs(curve)
    assert backend.pairing_check(curve, np.zeros((0, 2, L), np.uint64), np.zeros((0, 2, 2, L), np.uint64))


def test_inputs_are_checked(backend: Any) -> None:
    with pytest.raises(BackendInputError):  # G1 and G2 of different lengths
        backend.pairing_check(BN254, np.zeros((2, 2, 4), np.uint64), np.zeros((1, 2, 2, 4), np.uint64))
    with pytest.raises(BackendInputError):  # BLS12-381's 6 limbs for BN254
        backend.pairing_check(BN254, np.zeros((1, 2, 6), np.uint64), np.zeros((1, 2, 2, 6), np.uint64))
    too_large = np.zeros((1, 2, 4), np.uint64)
    too_large[0, 0] = limbs.int_to_limbs(BN254.q, 4)
    with pytest.raises(BackendInputError):  # a coordinate ≥ q
        backend.pairing_check(BN254, too_large, np.zeros((1, 2, 2, 4), np.uint64))


@pytest.fixture(scope="module", params=[BN254, BLS12_381], ids=lambda c: c.name)
def groth16_pairs(request: pytest.FixtureRequest) -> tuple[Curve, Pairs, Pairs]:
    """The four pairs of a reference proof's verification, and of the proof with C moved. (The cubic circuit, 4
    constraints: MiMC's 331 would make the reference's setup and proof 8 s longer, the pairs no realer.)"""
    curve = request.param
    cs = build("cubic", curve.Fr, size=1, seed=3)
    pk = generate_random_parameters(cs, curve)
    public = cs.input_assignment[1:]
    proof = prove(pk, cs)
    tampered = Proof(proof.a, proof.b, proof.c + curve.g1.generator)
    assert verify(pk.vk, public, proof) and not verify(pk.vk, public, tampered)
    acc = prepare_inputs(pk.vk, public)
    return curve, verification_pairs(pk.vk, acc, proof), verification_pairs(pk.vk, acc, tampered)


def test_groth16_proof(backend: Any, groth16_pairs: tuple[Curve, Pairs, Pairs]) -> None:
    """A proof's four pairs check as the reference verifier says; with C moved they do not."""
    curve, real, tampered = groth16_pairs
    assert check(backend, curve, real)
    assert not check(backend, curve, tampered)


@by_name
def test_kernel_constants_are_the_curves(curve: Curve) -> None:
    """The GPU kernels' constants (cuzk.backends.kernels.constants.pairing_constants), each recomputed: Frobenius
    γ's, π's constants, 3b', the loop's digits (a NAF of ate_loop_count) and the hard part's programs."""
    pc = pairing_constants(curve)

    def fq2(pair: tuple[int, int]) -> Any:
        return curve.Fq2(*pair)

    def number(digits: tuple[int, ...]) -> int:
        return sum(d << i for i, d in enumerate(reversed(digits)))

    assert [fq2(g) for g in pc.frobenius] == curve.Fq12.FROBENIUS_GAMMAS
    assert fq2(pc.twist_b3) == curve.g2.b * 3
    x, y = (curve.g2.generator * 5).to_affine()
    cx, cy = (fq2(c) for c in pc.twist_frobenius)
    assert (x.conjugate() * cx, y.conjugate() * cy) == rp.twist_frobenius(curve, x, y)
    assert number(pc.loop_digits) == rp.ate_loop_count(curve)
    assert all(a == 0 or b == 0 for a, b in itertools.pairwise(pc.loop_digits))
    n, programs = pc.hard_part_pre, pc.hard_part
    m = math.prod(number(programs[k][0]) for k in range(n))
    assert number(programs[n][0]) == curve.x
    c = [[number(programs[n + 1 + i][j]) for j in range(4)] for i in range(4)]
    q = curve.q
    total = m * sum(c[i][j] * curve.x**j * q**i for i in range(4) for j in range(4)) + pc.hard_part_extra
    assert total == (q**4 - q**2 + 1) // curve.r
