"""The benchmark's circuits as arrays (cuzk.engine.synthetic): satisfied by their witness, unsatisfied when it is
changed, made again from the same seed, with the witness's kinds of values as documented."""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.registry import get_backend
from cuzk.engine.synthetic import DENSE_SHARE_POREP, FREE_SHARE, NUM_INPUTS, describe, gates
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import ParameterError, UnsatisfiedConstraintError
from cuzk.reference.qap import qap_matrices


@pytest.fixture(scope="module")
def cpu():  # type: ignore[no-untyped-def]
    return get_backend("cpu")


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
@pytest.mark.parametrize("witness", ["porep", "dense"])
def test_witness_satisfies_and_a_changed_one_does_not(cpu, curve: Curve, witness: str) -> None:  # type: ignore[no-untyped-def]
    circuit = gates(curve, 3000, cpu, witness=witness, seed=11)
    circuit.check(cpu)
    assert circuit.num_constraints == 3000 and circuit.num_inputs == NUM_INPUTS
    assert circuit.num_variables == 3000  # 1 + free + gates
    assert limbs.limbs_to_int(circuit.z[0]) == 1
    assert all(v < curve.r for v in limbs.limbs_to_ints(circuit.z))
    gates_count = 3000 - 1 - 3000 // FREE_SHARE
    outputs = circuit.c[1]
    assert np.array_equal(outputs[:gates_count], np.arange(3000 - gates_count, 3000))  # then restated gates
    assert set(outputs[gates_count:].tolist()) <= set(outputs[:gates_count].tolist())
    changed = circuit.z.copy()
    target = circuit.num_variables - 5  # the output of gate gates_count − 5
    changed[target] = limbs.int_to_limbs((limbs.limbs_to_int(changed[target]) + 1) % curve.r, limbs.FR_LIMBS)
    broken = type(circuit)(curve, circuit.num_inputs, circuit.a, circuit.b, circuit.c, changed)
    with pytest.raises(UnsatisfiedConstraintError, match=f"constraint {gates_count - 5} "):
        broken.check(cpu)


def test_porep_witness_is_mostly_bits_and_dense_one_is_not(cpu) -> None:  # type: ignore[no-untyped-def]
    porep = describe(gates(BN254, 20000, cpu, witness="porep", seed=1))
    dense = describe(gates(BN254, 20000, cpu, witness="dense", seed=1))
    # a free variable is dense with probability 1/DENSE_SHARE_POREP, an output when either factor is dense and
    # the other is not zero: about 3% of the variables
    share = porep["dense"] / porep["variables"]
    assert 0.5 / DENSE_SHARE_POREP < share < 2 / DENSE_SHARE_POREP
    assert porep["zeros"] > porep["ones"] > porep["dense"]
    assert dense["dense"] >= dense["variables"] - 2  # the constant 1 (and, unlikely, a tiny value)


def test_same_seed_same_circuit(cpu) -> None:  # type: ignore[no-untyped-def]
    first, again, other = (gates(BN254, 500, cpu, seed=s) for s in (5, 5, 6))
    assert np.array_equal(first.z, again.z) and np.array_equal(first.a[1], again.a[1])
    assert not np.array_equal(first.a[1], other.a[1])


def test_qap_rows_are_the_references(cpu) -> None:  # type: ignore[no-untyped-def]
    circuit = gates(BN254, 40, cpu, seed=2)

    def rows(matrix):  # type: ignore[no-untyped-def]
        indptr, columns, values = matrix
        ints = limbs.limbs_to_ints(values)
        return [[(int(columns[k]), ints[k]) for k in range(indptr[i], indptr[i + 1])] for i in range(len(indptr) - 1)]

    expected = qap_matrices(rows(circuit.a), rows(circuit.b), rows(circuit.c), circuit.num_inputs)
    assert tuple(rows(m) for m in circuit.qap_rows()) == tuple(expected)


@pytest.mark.parametrize(("args", "message"), [((0, "porep"), "positive"), ((10, "bits"), "witness must be")])
def test_bad_arguments(cpu, args, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ParameterError, match=message):
        gates(BN254, args[0], cpu, witness=args[1])
