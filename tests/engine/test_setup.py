"""The engine's setup (cuzk prove's): the reference's keys, point for point, with the points computed by the cpu
backend's fixed-base kernel; its integer Lagrange basis equals the reference's."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.registry import discover, get_backend
from cuzk.circuit_job import lagrange_basis_ints, one_party_setup, setup_with_backend
from cuzk.formats.points import PointTable
from cuzk.prover import Prover
from cuzk.reference.circuits import build
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.groth16 import ToxicWaste, create_proof, generate_parameters_with_toxic_waste, verify
from cuzk.reference.qap import Reduction, lagrange_basis_at

TOXIC = {"tau": 987654321, "alpha": 3, "beta": 5, "gamma": 7, "delta": 11}
QUERIES = ("a_query", "b_g1_query", "b_g2_query", "h_query", "l_query")


@pytest.fixture(scope="module")
def cpu():
    entry = discover()["cpu"]
    if not entry.available:
        pytest.skip(f"the cpu backend is not available here: {entry.reason}")
    return get_backend("cpu")


def as_limbs(curve: Curve, group: str, points) -> np.ndarray:
    return points.limbs if isinstance(points, PointTable) else limbs.points_to_limbs(curve, group, points)


@pytest.mark.parametrize("reduction", list(Reduction), ids=lambda r: r.value)
def test_backend_setup_is_the_references(cpu, curve: Curve, reduction: Reduction) -> None:
    cs = build("mimc", curve.Fr, size=1, seed=2)
    toxic = ToxicWaste(**{k: curve.Fr(v) for k, v in TOXIC.items()})
    expected = generate_parameters_with_toxic_waste(cs, curve, toxic, reduction=reduction)
    got = setup_with_backend(cs, curve, toxic, cpu, reduction=reduction)
    for name in QUERIES:
        group = "g2" if name == "b_g2_query" else "g1"
        assert np.array_equal(
            as_limbs(curve, group, getattr(got, name)), as_limbs(curve, group, getattr(expected, name))
        )
    assert got.vk == expected.vk
    assert (got.beta_g1, got.delta_g1) == (expected.beta_g1, expected.delta_g1)
    assert got.domain_size == expected.domain_size and got.num_constraints == expected.num_constraints


def test_a_key_from_the_fast_setup_proves_and_verifies(cpu) -> None:
    cs = build("bits", BN254.Fr, size=3, seed=5)
    pk, how = one_party_setup(cs, BN254, cpu, reduction=Reduction.CIRCOM)
    assert how == "cpu fixed-base"
    proof = Prover(pk, cpu).prove(cs, r=1, s=2)
    assert proof.to_bytes() == create_proof(pk, cs, r=1, s=2).to_bytes()
    assert verify(pk.vk, cs.input_assignment[1:], proof)


@pytest.mark.parametrize("n", [1, 2, 8, 64])
def test_integer_lagrange_basis(n: int) -> None:
    tau = random.Random(n).randrange(BLS12_381.r)
    assert lagrange_basis_ints(BLS12_381, n, tau) == [
        v.value for v in lagrange_basis_at(BLS12_381.Fr, n, BLS12_381.Fr(tau))
    ]


def test_generator_multiples_match_the_reference(cpu) -> None:
    rng = random.Random(7)
    for curve in (BN254, BLS12_381):
        ks = [0, 1, 2, curve.r - 1, 2**255 % curve.r] + [rng.randrange(curve.r) for _ in range(5)]
        for group in ("g1", "g2"):
            generator = limbs.group_of(curve, group).generator
            got = cpu.generator_multiples(curve, group, limbs.ints_to_limbs(ks, 4))
            assert np.array_equal(got, limbs.points_to_limbs(curve, group, [generator * k for k in ks])), group
