"""The setup on arrays (cuzk.engine.setup_arrays) against the reference's setup, point for point, on every backend
that offers its operations; and a proof from its key, for a circuit of cuzk.engine.synthetic, that verifies."""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.registry import get_backend
from cuzk.engine.assembly import ResidentTable
from cuzk.engine.prover import Prover
from cuzk.engine.setup import backend_multiples
from cuzk.engine.setup_arrays import ArrayScalars, setup_arrays, stable_order, transpose
from cuzk.engine.synthetic import ArrayCircuit, gates
from cuzk.engine.witness import SparseQap, witness_backend
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import ParameterError, ProvingKeyError
from cuzk.reference.groth16 import ToxicWaste, verify
from cuzk.reference.groth16.generator import generate_parameters_from_matrices
from cuzk.reference.qap import powers
from tests._suite_backends import usable_or_skip

QUERIES = ("a_query", "b_g1_query", "b_g2_query", "h_query", "l_query")
# constraints per backend: the reference's points are pure Python (milliseconds each); PoCL compiles its programs
SIZES = {"reference": 10, "cpu": 60, "opencl": 30, "cuda": 200}


def toxic(curve: Curve, tau: int = 987654321) -> ToxicWaste:
    field = curve.Fr
    return ToxicWaste(tau=field(tau), alpha=field(3), beta=field(5), gamma=field(7), delta=field(11))


def rows(matrix) -> list[list[tuple[int, int]]]:  # type: ignore[no-untyped-def]
    indptr, columns, values = matrix
    ints = limbs.limbs_to_ints(values)
    return [[(int(columns[k]), ints[k]) for k in range(indptr[i], indptr[i + 1])] for i in range(len(indptr) - 1)]


def reference_key(circuit: ArrayCircuit, secrets: ToxicWaste):  # type: ignore[no-untyped-def]
    """The reference's scalars (Python integers, one at a time), the points by the cpu backend's fixed base."""
    matrices = (rows(circuit.a), rows(circuit.b), rows(circuit.c))
    curve = circuit.curve
    multiples = backend_multiples(curve, get_backend("cpu"))
    return generate_parameters_from_matrices(
        curve, matrices, circuit.num_inputs, circuit.num_variables, secrets, multiples=multiples
    )


@pytest.fixture(params=sorted(SIZES))
def backend(request):  # type: ignore[no-untyped-def]
    usable_or_skip(request.param)
    return get_backend(request.param)


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
def test_key_is_the_references(backend, curve: Curve) -> None:  # type: ignore[no-untyped-def]
    circuit = gates(curve, SIZES[backend.name], get_backend("cpu"), witness="dense", seed=3)
    secrets = toxic(curve)
    key = setup_arrays(curve, circuit.qap_rows(), circuit.num_inputs, circuit.num_variables, secrets, backend)
    expected = reference_key(circuit, secrets)
    for name in QUERIES:
        assert np.array_equal(getattr(key, name).limbs, getattr(expected, name).limbs), name
    assert key.vk == expected.vk
    assert (key.beta_g1, key.delta_g1) == (expected.beta_g1, expected.delta_g1)
    assert (key.num_constraints, key.domain_size) == (expected.num_constraints, expected.domain_size)


@pytest.mark.parametrize(("witness", "keep"), [("porep", ()), ("dense", ("g1", "g2")), ("porep", ("g1",))])
def test_proof_from_the_array_key_verifies(witness: str, keep: tuple[str, ...]) -> None:
    curve, cpu = BN254, get_backend("cpu")
    circuit = gates(curve, 500, cpu, witness=witness, seed=4)
    shape = (circuit.qap_rows(), circuit.num_inputs, circuit.num_variables, toxic(curve))
    key = setup_arrays(curve, *shape, cpu, keep=keep)
    assert isinstance(key.l_query, ResidentTable) is ("g1" in keep)
    assert isinstance(key.b_g2_query, ResidentTable) is ("g2" in keep)
    prover = Prover(key, cpu, verify=False)
    a, b, _ = circuit.qap_rows()
    host = witness_backend(cpu, from_key=True)
    qap = SparseQap.from_csr(host, curve, [a, b], circuit.num_constraints, circuit.num_variables, circuit.domain_size)
    w = prover.assign(circuit.z, qap)
    proof = prover.prove_assignment(w.z, w.a, w.b, w.c, z_kept=w.z_kept, abc_kept=w.abc_kept)
    statement = [curve.Fr(x) for x in circuit.public_inputs()]
    assert verify(key.vk, statement, proof)
    assert not verify(key.vk, [curve.Fr(x + 1) for x in circuit.public_inputs()], proof)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_generator_bases_are_the_multiples_kept(backend, group: str) -> None:  # type: ignore[no-untyped-def]
    """generator_bases makes the bases prepare_bases would keep of generator_multiples' points (on a GPU without
    their crossing to the host): MSMs over both agree, and with the reference's MSM over the points."""
    curve = BLS12_381
    rng = np.random.default_rng(5)
    k = limbs.ints_to_limbs([int(x) for x in rng.integers(0, 1 << 62, size=9)] + [0, 1], limbs.FR_LIMBS)
    points = backend.generator_multiples(curve, group, k)
    made = backend.generator_bases(curve, group, k, uses=1)
    assert made.n == len(k)
    scalars = limbs.ints_to_limbs([int(x) for x in rng.integers(0, 1 << 62, size=len(k))], limbs.FR_LIMBS)
    expected = get_backend("reference").msm(curve, group, points, scalars)
    np.testing.assert_array_equal(backend.msm_prepared(made, scalars), expected)
    np.testing.assert_array_equal(backend.msm_prepared(backend.prepare_bases(curve, group, points), scalars), expected)


def test_resident_key_stays_with_its_backend() -> None:
    curve, cpu = BN254, get_backend("cpu")
    circuit = gates(curve, 20, cpu)
    key = setup_arrays(
        curve, circuit.qap_rows(), circuit.num_inputs, circuit.num_variables, toxic(curve), cpu, keep=("g1", "g2")
    )
    assert len(key.a_query) == circuit.num_variables and len(key.h_query) == circuit.domain_size - 1
    with pytest.raises(ProvingKeyError, match="kept by the cpu backend"):
        key.a_query[0]
    with pytest.raises(ParameterError, match="kept by the cpu backend"):
        Prover(key, "reference")


def test_geometric_rows_are_running_products() -> None:
    curve = BLS12_381
    rows_ = ArrayScalars(get_backend("cpu"), curve)
    for count in (0, 1, 2, 7, 64, 100):
        got = limbs.limbs_to_ints(rows_.geometric(5, 123456789, count))
        assert got == powers(123456789, count, curve.r, first=5)


def test_transpose_keeps_every_term() -> None:
    rng = np.random.default_rng(7)
    dense = rng.integers(0, 4, size=(9, 6)) * (rng.random((9, 6)) < 0.4)
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int64)
    r, c = np.nonzero(dense)
    values = limbs.ints_to_limbs([int(x) for x in dense[r, c]], limbs.FR_LIMBS)
    t_indptr, t_columns, t_values = transpose((indptr, c.astype(np.int64), values), 6)
    back = np.zeros((6, 9), dtype=np.int64)
    for j in range(6):
        for k in range(t_indptr[j], t_indptr[j + 1]):
            back[j, t_columns[k]] = limbs.limbs_to_int(t_values[k])
    assert np.array_equal(back, dense.T)


@pytest.mark.parametrize("top", [1, 300, 1 << 20, 1 << 40, 1 << 50])
def test_stable_order_is_numpys(top: int) -> None:
    keys = np.random.default_rng(top).integers(0, top, size=5000, dtype=np.int64)
    assert np.array_equal(stable_order(keys), np.argsort(keys, kind="stable"))


def test_tau_in_the_domain_is_refused() -> None:
    curve, cpu = BN254, get_backend("cpu")
    circuit = gates(curve, 10, cpu)
    with pytest.raises(ParameterError, match="domain"):
        setup_arrays(curve, circuit.qap_rows(), circuit.num_inputs, circuit.num_variables, toxic(curve, 1), cpu)
