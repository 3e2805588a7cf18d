"""The one setup core and its callers: the reference's keys, point for point, with the points computed by a
backend's fixed-base kernel (cuzk prove's setup) and over snarkjs's domain order (cuzk groth16 setup's .zkey); the
batch-inverted Lagrange basis equals the formula evaluated one division at a time."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.registry import get_backend
from cuzk.engine.prover import Prover
from cuzk.engine.setup import one_party_setup, setup_with_toxic_waste, setup_zkey, snarkjs_root_of_unity
from cuzk.formats.domain import h_positions, row_positions
from cuzk.formats.points import PointTable
from cuzk.formats.r1cs import read_r1cs, write_constraint_system
from cuzk.formats.zkey import read_zkey
from cuzk.formats.zkey_write import write_zkey
from cuzk.reference.circuits import build
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.groth16 import ToxicWaste, create_proof, generate_parameters_with_toxic_waste, verify
from cuzk.reference.ntt import domain_root
from cuzk.reference.qap import Reduction, batch_inverse, domain_generator, lagrange_basis_at, qap_at, qap_matrices
from tests._suite_backends import usable_or_skip

TOXIC = {"tau": 987654321, "alpha": 3, "beta": 5, "gamma": 7, "delta": 11}
QUERIES = ("a_query", "b_g1_query", "b_g2_query", "h_query", "l_query")
# the circuit the backends' keys are checked on: 66 constraints (67 variables over the cpu backend's two threads'
# spans, 128 H points: one inversion chunk each, as for every key below fixed_base.CHUNK points); the expected key
# is the pure-Python reference's (~5 ms a point), made once per curve and reduction for both backends
CIRCUIT = ("bits", 1)


def backend_or_skip(name: str):  # type: ignore[no-untyped-def]
    usable_or_skip(name)  # cpu and the reference fail instead: they are required
    return get_backend(name)


@pytest.fixture(scope="module")
def cpu():  # type: ignore[no-untyped-def]
    return backend_or_skip("cpu")


def as_limbs(curve: Curve, group: str, points) -> np.ndarray:  # type: ignore[no-untyped-def]
    return points.limbs if isinstance(points, PointTable) else limbs.points_to_limbs(curve, group, points)


def assert_same_key(curve: Curve, got, expected) -> None:  # type: ignore[no-untyped-def]
    for name in QUERIES:
        group = "g2" if name == "b_g2_query" else "g1"
        assert np.array_equal(
            as_limbs(curve, group, getattr(got, name)), as_limbs(curve, group, getattr(expected, name))
        ), name
    assert got.vk == expected.vk
    assert (got.beta_g1, got.delta_g1) == (expected.beta_g1, expected.delta_g1)
    assert got.domain_size == expected.domain_size and got.num_constraints == expected.num_constraints
    assert got.reduction is expected.reduction


@functools.cache
def reference_key(curve: Curve, reduction: Reduction):  # type: ignore[no-untyped-def]
    """CIRCUIT's system, the toxic waste and the reference's key from them (read only by the tests)."""
    family, size = CIRCUIT
    cs = build(family, curve.Fr, size=size, seed=2)
    toxic = ToxicWaste(**{k: curve.Fr(v) for k, v in TOXIC.items()})
    return cs, toxic, generate_parameters_with_toxic_waste(cs, curve, toxic, reduction=reduction)


@pytest.mark.parametrize("backend_name", ["cpu", "reference"])
@pytest.mark.parametrize("reduction", list(Reduction), ids=lambda r: r.value)
def test_backend_setup_is_the_references(backend_name: str, curve: Curve, reduction: Reduction) -> None:
    backend = backend_or_skip(backend_name)
    cs, toxic, expected = reference_key(curve, reduction)
    got = setup_with_toxic_waste(cs, curve, toxic, backend, reduction=reduction)
    assert isinstance(got.a_query, PointTable) and isinstance(got.b_g2_query, PointTable)
    assert_same_key(curve, got, expected)


def test_a_key_from_the_fast_setup_proves_and_verifies(cpu) -> None:  # type: ignore[no-untyped-def]
    cs = build("bits", BN254.Fr, size=3, seed=5)
    pk, how = one_party_setup(cs, BN254, cpu, reduction=Reduction.CIRCOM)
    assert how == "cpu fixed-base"
    proof = Prover(pk, cpu).prove(cs, r=1, s=2)
    assert proof.to_bytes() == create_proof(pk, cs, r=1, s=2).to_bytes()
    assert verify(pk.vk, cs.input_assignment[1:], proof)


class NoFixedBase:
    """A backend that declares no optional capability: its setup's points must come from the reference backend."""

    name = "bare"
    capabilities: frozenset[str] = frozenset()

    def generator_multiples(self, *args: object) -> None:
        raise AssertionError("called a method the backend does not declare")


def test_a_backend_without_fixed_base_leaves_the_points_to_the_reference() -> None:
    cs = build("cubic", BN254.Fr, size=1, seed=1)
    toxic = ToxicWaste(**{k: BN254.Fr(v) for k, v in TOXIC.items()})
    got = setup_with_toxic_waste(cs, BN254, toxic, NoFixedBase(), reduction=Reduction.CIRCOM)  # type: ignore[arg-type]
    assert_same_key(BN254, got, generate_parameters_with_toxic_waste(cs, BN254, toxic, reduction=Reduction.CIRCOM))
    pk, how = one_party_setup(cs, BN254, NoFixedBase(), reduction=Reduction.LIBSNARK)  # type: ignore[arg-type]
    assert how == "reference fixed-base"
    assert verify(pk.vk, cs.input_assignment[1:], create_proof(pk, cs, r=3, s=4))


@pytest.mark.parametrize("n", [1, 2, 8, 64])
def test_lagrange_basis_is_the_formula(n: int) -> None:
    """L_k(τ) = ω^k·(τⁿ − 1)/(n·(τ − ω^k)), one division each, against the batch-inverted basis."""
    fr = BLS12_381.Fr
    tau = fr(random.Random(n).randrange(BLS12_381.r))
    omega = domain_root(fr, n)
    expected = [omega**k * (tau**n - 1) / ((tau - omega**k) * n) for k in range(n)]
    assert lagrange_basis_at(fr, n, tau) == expected
    assert batch_inverse([], fr.MODULUS) == []
    assert batch_inverse([x.value for x in expected], fr.MODULUS) == [x.inverse().value for x in expected]


@pytest.mark.parametrize("n", [1, 4, 32])
def test_snarkjs_root_numbers_the_domain_as_domain_py_permutes_it(curve: Curve, n: int) -> None:
    """The basis over ffjavascript's root is the reference's basis permuted by row_positions, the odd 2n-point
    one by h_positions: the two descriptions of snarkjs's order agree (on BN254 both are the identity)."""
    fr = curve.Fr
    tau = fr(random.Random(n).randrange(curve.r))
    root = snarkjs_root_of_unity(fr)
    assert root ** (1 << (fr.TWO_ADICITY - 1)) == -fr.one()  # a primitive 2^S-th root of unity
    assert domain_generator(fr, n, root) ** n == fr.one()
    reference, snarkjs = lagrange_basis_at(fr, n, tau), lagrange_basis_at(fr, n, tau, root_of_unity=root)
    assert snarkjs == [reference[k] for k in row_positions(fr, n).tolist()]
    odd_reference = lagrange_basis_at(fr, 2 * n, tau)
    odd_snarkjs = lagrange_basis_at(fr, 2 * n, tau, root_of_unity=root)[1::2]
    assert odd_snarkjs == [odd_reference[2 * j + 1] for j in h_positions(fr, n).tolist()]


def write_circuit(curve: Curve, family: str, size: int, path: Path):  # type: ignore[no-untyped-def]
    """A reference circuit as a .r1cs (its public inputs as circom's), and the constraint system."""
    cs = build(family, curve.Fr, size=size, seed=3)
    write_constraint_system(path, cs)
    return cs


def test_setup_zkey_on_the_cpu_backend_writes_the_pure_python_key(cpu, curve: Curve, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cs = write_circuit(curve, "bits", 1, tmp_path / "c.r1cs")
    r1cs, toxic = read_r1cs(tmp_path / "c.r1cs"), ToxicWaste(**TOXIC)
    write_zkey(tmp_path / "cpu.zkey", setup_zkey(r1cs, toxic, backend=cpu, path="cpu.zkey"))
    write_zkey(tmp_path / "python.zkey", setup_zkey(r1cs, toxic, backend="reference"))
    assert (tmp_path / "cpu.zkey").read_bytes() == (tmp_path / "python.zkey").read_bytes()

    # and that key is the reference's over snarkjs's order: u_j(τ) over the permuted basis, H at h_positions
    fr, key = curve.Fr, read_zkey(tmp_path / "cpu.zkey")
    n, num_inputs = key.domain_size, cs.num_inputs
    basis = lagrange_basis_at(fr, n, fr(TOXIC["tau"]))
    permuted = [basis[k] for k in row_positions(fr, n).tolist()]
    a = qap_matrices(*cs.matrices(), num_inputs)[0]
    u = qap_at(a, cs.num_inputs + cs.num_aux, permuted)
    assert (
        key.a_query.limbs.tolist() == limbs.points_to_limbs(curve, "g1", [curve.g1.generator * x for x in u]).tolist()
    )
    odd = lagrange_basis_at(fr, 2 * n, fr(TOXIC["tau"]))
    h = [odd[2 * j + 1] / fr(TOXIC["delta"]) for j in h_positions(fr, n).tolist()]
    assert (
        key.h_query.limbs.tolist() == limbs.points_to_limbs(curve, "g1", [curve.g1.generator * x for x in h]).tolist()
    )


def test_setup_zkey_takes_a_backend_name_or_none(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    write_circuit(BN254, "cubic", 1, tmp_path / "c.r1cs")
    r1cs, toxic = read_r1cs(tmp_path / "c.r1cs"), ToxicWaste(**TOXIC)
    monkeypatch.setenv("CUZK_BACKEND", "reference")
    by_default, by_name = setup_zkey(r1cs, toxic), setup_zkey(r1cs, toxic, backend="reference")
    write_zkey(tmp_path / "a.zkey", by_default)
    write_zkey(tmp_path / "b.zkey", by_name)
    assert (tmp_path / "a.zkey").read_bytes() == (tmp_path / "b.zkey").read_bytes()


def test_generator_multiples_match_the_reference(cpu) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(7)
    for curve in (BN254, BLS12_381):
        ks = [0, 1, 2, curve.r - 1, 2**255 % curve.r] + [rng.randrange(curve.r) for _ in range(5)]
        for group in ("g1", "g2"):
            generator = limbs.group_of(curve, group).generator
            got = cpu.generator_multiples(curve, group, limbs.ints_to_limbs(ks, 4))
            assert np.array_equal(got, limbs.points_to_limbs(curve, group, [generator * k for k in ks])), group
