"""The engine's compiled R1CS evaluation (numba CSR kernels over Montgomery limbs) equals the reference's QAP
evaluations, on the project's circuits, on random matrices and on the edge cases of the limb arithmetic (empty
rows, zero coefficients, r − 1, z holding 0 and r − 1), and refuses bad witnesses naming the constraint."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.cpu import sparse
from cuzk.reference.circuits import CIRCUITS, build
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import NonCanonicalError, ParameterError, ProvingKeyError, UnsatisfiedConstraintError
from cuzk.reference.groth16.prover import qap_evaluations
from cuzk.reference.qap import evaluate_rows
from cuzk.reference.r1cs import ConstraintSystem
from cuzk.reference.toy import TOY
from cuzk.witness import CompiledR1CS


def ints(array: np.ndarray) -> list[int]:
    return limbs.limbs_to_ints(array)


@pytest.mark.parametrize("name", sorted(CIRCUITS))
@pytest.mark.parametrize("setting", [TOY, BN254, BLS12_381], ids=lambda c: c.name)
def test_compiled_evaluation_equals_the_reference(name: str, setting: Curve) -> None:
    cs = build(name, setting.Fr, size=2, seed=3)
    compiled = CompiledR1CS.from_cs(cs)
    z = [v.value for v in cs.full_assignment()]
    got = compiled.evaluate(z)
    expected = qap_evaluations(cs)
    assert [ints(rows) for rows in got] == [[v.value for v in rows] for rows in expected]
    z_limbs = compiled.witness(z)
    assert ints(z_limbs) == z
    assert all(np.array_equal(x, y) for x, y in zip(compiled.evaluate(z_limbs), got, strict=True))


def random_rows(rng: random.Random, r: int, count: int, width: int) -> list[list[tuple[int, int]]]:
    """Rows with 0 … 5 terms (a quarter empty), coefficients among 0, 1, 2, r − 1 and random values; a row may name
    a column twice (the kernel sums the terms as given, as evaluate_rows does)."""
    special = [0, 1, 2, r - 1, r - 2]
    rows = []
    for _ in range(count):
        terms = 0 if rng.random() < 0.25 else rng.randrange(1, 6)
        rows.append(
            [
                (rng.randrange(width), rng.choice(special) if rng.random() < 0.5 else rng.randrange(r))
                for _ in range(terms)
            ]
        )
    return rows


@pytest.mark.parametrize("curve", [BN254, BLS12_381, TOY], ids=lambda c: c.name)
@pytest.mark.parametrize("count", [1, 37, 5000])  # 5000 rows: cut into spans on the module's thread pool
def test_csr_kernel_equals_evaluate_rows(curve: Curve, count: int) -> None:
    fr, r = curve.Fr, curve.Fr.MODULUS
    rng = random.Random(count)
    width = 40
    rows = random_rows(rng, r, count, width)
    z = [rng.choice([0, 1, r - 1, rng.randrange(r)]) for _ in range(width)]
    z[0], z[1] = 0, r - 1
    matrix = sparse.CsrMatrix.from_rows(rows, r, width)
    padded = count + 7
    got = matrix.evaluate(limbs.ints_to_limbs(z, 4), padded)
    reference_rows = [[(col, fr(c)) for col, c in row] for row in rows]
    expected = [v.value for v in evaluate_rows(reference_rows, [fr(v) for v in z], padded)]
    assert ints(got) == expected


def test_csr_extremes() -> None:
    """(r − 1)·(r − 1) summed many times, a zero coefficient, an empty matrix, a row of only zero products."""
    r = BN254.r
    z = limbs.ints_to_limbs([r - 1, 0, 1], 4)
    rows = [[(0, r - 1)] * 9, [(1, r - 1), (0, 0)], [], [(2, r - 1), (2, 1)], [(0, 1), (2, 1)]]
    got = ints(sparse.CsrMatrix.from_rows(rows, r, 3).evaluate(z))
    assert got == [9 % r, 0, 0, 0, 0]
    empty = sparse.CsrMatrix.from_rows([], r, 3)
    assert empty.evaluate(z, 4).shape == (4, 4) and not empty.evaluate(z, 4).any()
    assert ints(sparse.CsrMatrix.from_rows([[]] * 3, r, 3).evaluate(z)) == [0, 0, 0]


def test_csr_from_terms_keeps_rows_and_order() -> None:
    """The .zkey path: terms in any order, grouped by row (stable), rows with no term are zero."""
    r = BN254.r
    rng = random.Random(7)
    terms = [(rng.randrange(6), rng.randrange(4), rng.randrange(r)) for _ in range(30)]
    z = [rng.randrange(r) for _ in range(4)]
    rows = np.array([t[0] for t in terms], dtype=np.int64)
    cols = np.array([t[1] for t in terms], dtype=np.int64)
    values = limbs.ints_to_limbs([t[2] for t in terms], 4)
    matrix = sparse.CsrMatrix.from_terms(rows, cols, values, 8, r, 4)
    expected = [sum(c * z[j] for k, j, c in terms if k == row) % r for row in range(8)]
    assert ints(matrix.evaluate(limbs.ints_to_limbs(z, 4))) == expected
    with pytest.raises(ParameterError, match="row"):
        sparse.CsrMatrix.from_terms(rows, cols, values, 3, r, 4)


def test_csr_refuses_what_the_kernel_cannot_read() -> None:
    r = BN254.r
    with pytest.raises(ParameterError, match="column"):
        sparse.CsrMatrix.from_rows([[(3, 1)]], r, 3)  # z would be read past its end
    matrix = sparse.CsrMatrix.from_rows([[(2, 1)]], r, 3)
    with pytest.raises(ParameterError, match="columns"):
        matrix.evaluate(limbs.ints_to_limbs([1, 2], 4))
    with pytest.raises(NonCanonicalError, match=r"z\[1\]"):
        matrix.evaluate(limbs.ints_to_limbs([1, r, 2], 4))
    with pytest.raises(ParameterError, match="uint64"):
        matrix.evaluate(np.zeros((3, 4), dtype=np.int64))
    with pytest.raises(ParameterError, match="odd"):
        sparse.field_consts(2**255 + 1)


def test_hadamard_and_check() -> None:
    r = BN254.r
    rng = random.Random(3)
    xs = [0, 1, r - 1, r - 1] + [rng.randrange(r) for _ in range(6000)]
    ys = [r - 1, r - 1, r - 1, 0] + [rng.randrange(r) for _ in range(6000)]
    a, b = limbs.ints_to_limbs(xs, 4), limbs.ints_to_limbs(ys, 4)
    c = sparse.hadamard(a, b, r)
    assert ints(c) == [x * y % r for x, y in zip(xs, ys, strict=True)]
    assert sparse.first_unsatisfied(a, b, c, len(xs), r) == -1
    for k in (5999, 3, 4500):  # the first failing row wins, whichever span of the pool holds it
        c[k, 0] ^= np.uint64(1)
    assert sparse.first_unsatisfied(a, b, c, len(xs), r) == 3
    assert sparse.first_unsatisfied(a, b, c, 3, r) == -1  # only the rows asked for are checked


def test_compiled_evaluation_names_the_failing_constraint() -> None:
    cs = build("mimc", BN254.Fr, size=1)
    compiled = CompiledR1CS.from_cs(cs)
    z = [v.value for v in cs.full_assignment()]
    z[cs.num_inputs + 5] += 1  # corrupt one aux value
    with pytest.raises(UnsatisfiedConstraintError) as failure:
        compiled.evaluate(z)
    cs.aux_assignment[5] = cs.aux_assignment[5] + 1
    assert failure.value.index == cs.which_is_unsatisfied()
    assert f"constraint {failure.value.index} is not satisfied" in str(failure.value)
    with pytest.raises(ProvingKeyError, match="variables"):
        compiled.evaluate(z[:-1])


def test_a_late_failing_constraint_is_named() -> None:
    """A witness wrong only near the end of a circuit big enough for the check to be cut into spans on the pool:
    the constraint named is still the reference's first unsatisfied one."""
    cs = build("mimc", BN254.Fr, size=15)  # ~5000 constraints
    compiled = CompiledR1CS.from_cs(cs)
    z = [v.value for v in cs.full_assignment()]
    k = cs.num_aux - 2
    z[cs.num_inputs + k] = (z[cs.num_inputs + k] + 1) % BN254.r
    with pytest.raises(UnsatisfiedConstraintError) as failure:
        compiled.evaluate(z)
    cs.aux_assignment[k] = cs.aux_assignment[k] + 1
    expected = cs.which_is_unsatisfied()
    assert expected is not None and expected > 4096
    assert failure.value.index == expected


class MatricesOnly:
    """A constraint system seen only through ``matrices()`` (no linear combinations to walk)."""

    def __init__(self, cs: ConstraintSystem) -> None:
        self.field, self.num_inputs, self.num_aux = cs.field, cs.num_inputs, cs.num_aux
        self.num_constraints, self.matrices = cs.num_constraints, cs.matrices


def test_compiling_from_the_terms_or_from_matrices_is_the_same() -> None:
    """The compile walks the combinations' terms (unsorted, as stored); through matrices() (sorted, merged) the
    rows must be the same integers, here with terms that cancel and a coefficient r − 1."""
    fr = BN254.Fr
    cs = ConstraintSystem(fr)
    p = cs.alloc_input(2)
    x, y = cs.alloc(3), cs.alloc(5)
    cs.enforce(cs.lc(y, x, (-1, y), 4), cs.lc(x, (-1, p), p), cs.lc(21))  # (x + 4)·x = 21 = 7·3
    cs.enforce(cs.lc((fr.MODULUS - 1, y)), p, cs.lc((-2, y)))
    assert cs.which_is_unsatisfied() is None
    z = [v.value for v in cs.full_assignment()]
    direct = CompiledR1CS.from_cs(cs).evaluate(z)
    through = CompiledR1CS.from_cs(MatricesOnly(cs)).evaluate(z)
    expected = [[v.value for v in rows] for rows in qap_evaluations(cs)]
    assert [ints(v) for v in direct] == [ints(v) for v in through] == expected
