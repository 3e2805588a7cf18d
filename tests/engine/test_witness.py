"""The witness side of a proof (A·z, B·z, C·z as the host backend's sparse products, capability SPARSE) equals the
reference's QAP evaluations, on every backend that offers SPARSE: on the project's circuits, on random matrices and
on the edge cases of the limb arithmetic (empty rows, zero coefficients, r − 1, z holding 0 and r − 1); bad input
gets the protocol's typed errors, and a witness that does not satisfy its circuit is refused naming the constraint."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.cpu import sparse
from cuzk.backends.errors import BackendInputError, InputSizeMismatchError
from cuzk.backends.indexed import IndexedCoefficients, palette
from cuzk.backends.protocol import KEPT_SCALARS, SPARSE, Backend, KeptScalars, has_capability
from cuzk.backends.registry import get_backend
from cuzk.engine.witness import SparseQap, csr_of_rows
from cuzk.reference.circuits import CIRCUITS, build
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import NonCanonicalError, ParameterError, ProvingKeyError, UnsatisfiedConstraintError
from cuzk.reference.groth16.prover import qap_evaluations
from cuzk.reference.qap import evaluate_rows
from cuzk.reference.r1cs import ConstraintSystem

from .._suite_backends import usable_or_skip

HOSTS = ["cpu", "reference", "opencl", "cuda"]  # every backend with SPARSE; the devices where they run


def ints(array: np.ndarray) -> list[int]:
    return limbs.limbs_to_ints(array)


@pytest.fixture(params=HOSTS)
def host(request: pytest.FixtureRequest) -> Backend:
    usable_or_skip(request.param)
    backend = get_backend(request.param)
    assert has_capability(backend, SPARSE)
    return backend


@pytest.mark.parametrize("name", sorted(CIRCUITS))
@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
def test_sparse_evaluation_equals_the_reference(name: str, curve: Curve, host: Backend) -> None:
    cs = build(name, curve.Fr, size=2, seed=3)
    qap = SparseQap.from_cs(cs, curve, host)
    z = limbs.ints_to_limbs([v.value for v in cs.full_assignment()], 4)
    got = qap.evaluate(z)
    expected = qap_evaluations(cs)
    assert [ints(rows) for rows in got] == [[v.value for v in rows] for rows in expected]


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


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
@pytest.mark.parametrize("count", [1, 37, 5000])  # 5000 rows: cut into spans on the cpu's thread pool
def test_sparse_product_equals_evaluate_rows(curve: Curve, count: int, host: Backend) -> None:
    fr, r = curve.Fr, curve.Fr.MODULUS
    rng = random.Random(count)
    width = 40
    rows = random_rows(rng, r, count, width)
    z = [rng.choice([0, 1, r - 1, rng.randrange(r)]) for _ in range(width)]
    z[0], z[1] = 0, r - 1
    matrix = host.prepare_sparse(curve, *csr_of_rows(rows), width)  # type: ignore[attr-defined]
    padded = count + 7
    got = host.sparse_product(matrix, limbs.ints_to_limbs(z, 4), rows=padded)  # type: ignore[attr-defined]
    reference_rows = [[(col, fr(c)) for col, c in row] for row in rows]
    expected = [v.value for v in evaluate_rows(reference_rows, [fr(v) for v in z], padded)]
    assert ints(got) == expected


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
@pytest.mark.parametrize("reductions", [1, 2])  # 2: a .zkey's coefficients, c·R², as the file stores them
def test_stored_coefficients_give_the_same_products(curve: Curve, reductions: int, host: Backend) -> None:
    """Coefficients given as c·R^k mod r (R = 2^256) with ``reductions`` k: the products are those of c, whether
    the backend decodes them on the host or reduces them on the device after the upload."""
    fr, r = curve.Fr, curve.Fr.MODULUS
    rng = random.Random(reductions)
    width, count = 30, 37
    rows = random_rows(rng, r, count, width)
    z = [rng.choice([0, 1, r - 1, rng.randrange(r)]) for _ in range(width)]
    indptr, columns, values = csr_of_rows(rows)
    factor = pow(2, 256 * reductions, r)
    stored = limbs.ints_to_limbs([v * factor % r for v in ints(values)], 4)
    matrix = host.prepare_sparse(curve, indptr, columns, stored, width, reductions=reductions)  # type: ignore[attr-defined]
    got = host.sparse_product(matrix, limbs.ints_to_limbs(z, 4), rows=count)  # type: ignore[attr-defined]
    reference_rows = [[(col, fr(c)) for col, c in row] for row in rows]
    assert ints(got) == [v.value for v in evaluate_rows(reference_rows, [fr(v) for v in z], count)]
    with pytest.raises(BackendInputError, match="reductions"):
        host.prepare_sparse(curve, indptr, columns, stored, width, reductions=5)  # type: ignore[attr-defined]


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
@pytest.mark.parametrize("reductions", [0, 2])
def test_coefficients_by_index_into_a_table_give_the_same_products(
    curve: Curve, reductions: int, host: Backend
) -> None:
    """Two matrices whose coefficients are indices into one table made over both (a .zkey's A and B): the products
    are those of the coefficients themselves, as the backend keeps them (a device) or expands them (a host); an
    index past the table, a signed index or a table value not below r is refused."""
    fr, r = curve.Fr, curve.Fr.MODULUS
    rng = random.Random(11 + reductions)
    width, count = 30, 41
    rows_a, rows_b = random_rows(rng, r, count, width), random_rows(rng, r, count, width)
    z = [rng.choice([0, 1, r - 1, rng.randrange(r)]) for _ in range(width)]
    (indptr_a, columns_a, values_a), (indptr_b, columns_b, values_b) = csr_of_rows(rows_a), csr_of_rows(rows_b)
    factor = pow(2, 256 * reductions, r)
    stored = limbs.ints_to_limbs([v * factor % r for v in ints(np.concatenate([values_a, values_b]))], 4)
    table = palette(curve, stored, reductions)
    for indptr, columns, terms, rows in (
        (indptr_a, columns_a, slice(0, len(values_a)), rows_a),
        (indptr_b, columns_b, np.arange(len(values_a), len(stored)), rows_b),
    ):
        matrix = host.prepare_sparse(curve, indptr, columns, table.take(terms), width, reductions=reductions)  # type: ignore[attr-defined]
        got = host.sparse_product(matrix, limbs.ints_to_limbs(z, 4), rows=count)  # type: ignore[attr-defined]
        expected = evaluate_rows([[(col, fr(c)) for col, c in row] for row in rows], [fr(v) for v in z], count)
        assert ints(got) == [v.value for v in expected]
    part = table.take(slice(0, len(values_a)))
    for bad, match in (
        (IndexedCoefficients(part.table, part.index + np.uint32(len(part.table))), "index"),
        (IndexedCoefficients(part.table, part.index.astype(np.int64)), "unsigned"),
        (IndexedCoefficients(limbs.ints_to_limbs([r] * len(part.table), 4), part.index), "coefficients"),
    ):
        with pytest.raises((BackendInputError, NonCanonicalError), match=match):
            host.prepare_sparse(curve, indptr_a, columns_a, bad, width, reductions=reductions)  # type: ignore[attr-defined]


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
def test_kept_products_are_the_products(curve: Curve, host: Backend) -> None:
    """With ``keep`` (KEPT_SCALARS) the products stay on the backend, as a .zkey's witness side does on a device:
    A·z from z kept there, B·z from z given as an array, C = (A·z)∘(B·z) from both kept; each read back through
    field_op (kept operands, no keep) is the reference's, row for row; a row of 40 terms spans chunks."""
    if not has_capability(host, KEPT_SCALARS):
        pytest.skip(f"the {host.name} backend keeps no scalars (KEPT_SCALARS)")
    fr, r = curve.Fr, curve.Fr.MODULUS
    rng = random.Random(7)
    width, count = 50, 300
    rows_a = [*random_rows(rng, r, count, width), [(j % width, rng.randrange(r)) for j in range(40)]]
    rows_b = random_rows(rng, r, count + 1, width)
    z = [1] + [rng.choice([0, 1, r - 1, rng.randrange(r)]) for _ in range(width - 1)]
    z_limbs, padded = limbs.ints_to_limbs(z, 4), count + 9
    z_kept = host.keep_scalars(curve, z_limbs)  # type: ignore[attr-defined]
    a = host.sparse_product(host.prepare_sparse(curve, *csr_of_rows(rows_a), width), z_kept, rows=padded, keep=True)  # type: ignore[attr-defined]
    b = host.sparse_product(host.prepare_sparse(curve, *csr_of_rows(rows_b), width), z_limbs, rows=padded, keep=True)  # type: ignore[attr-defined]
    assert all(isinstance(v, KeptScalars) and len(v) == padded for v in (a, b))
    c = host.field_op(curve, "fr", "mul", a, b, keep=True)  # type: ignore[attr-defined]
    zero = np.zeros((padded, 4), dtype=np.uint64)
    got = [ints(host.field_op(curve, "fr", "add", v, zero)) for v in (a, b, c)]  # type: ignore[attr-defined]
    expected_a, expected_b = (
        [v.value for v in evaluate_rows([[(col, fr(x)) for col, x in row] for row in rows], [fr(v) for v in z], padded)]
        for rows in (rows_a, rows_b)
    )
    assert got == [expected_a, expected_b, [x * y % r for x, y in zip(expected_a, expected_b, strict=True)]]


def test_sparse_extremes(host: Backend) -> None:
    """(r − 1)·(r − 1) summed many times, a zero coefficient, an empty matrix, a row of only zero products."""
    r = BN254.r
    z = limbs.ints_to_limbs([r - 1, 0, 1], 4)
    rows = [[(0, r - 1)] * 9, [(1, r - 1), (0, 0)], [], [(2, r - 1), (2, 1)], [(0, 1), (2, 1)]]

    def product(rows: list[list[tuple[int, int]]], out: int | None = None) -> np.ndarray:
        matrix = host.prepare_sparse(BN254, *csr_of_rows(rows), 3)  # type: ignore[attr-defined]
        return host.sparse_product(matrix, z, rows=out)  # type: ignore[attr-defined]

    assert ints(product(rows)) == [9 % r, 0, 0, 0, 0]
    empty = product([], 4)
    assert empty.shape == (4, 4) and not empty.any()
    assert ints(product([[]] * 3)) == [0, 0, 0]


def test_sparse_refuses_what_the_kernel_cannot_read(host: Backend) -> None:
    r = BN254.r
    with pytest.raises(BackendInputError, match="column"):
        host.prepare_sparse(BN254, *csr_of_rows([[(3, 1)]]), 3)  # type: ignore[attr-defined]  # z read past its end
    indptr, columns, values = csr_of_rows([[(2, 1)]])
    with pytest.raises(BackendInputError, match="indptr"):
        host.prepare_sparse(BN254, indptr[::-1].copy(), columns, values, 3)  # type: ignore[attr-defined]
    matrix = host.prepare_sparse(BN254, indptr, columns, values, 3)  # type: ignore[attr-defined]
    with pytest.raises(InputSizeMismatchError, match="columns"):
        host.sparse_product(matrix, limbs.ints_to_limbs([1, 2], 4))  # type: ignore[attr-defined]
    with pytest.raises(NonCanonicalError, match=r"z\[1\]|row 1"):
        host.sparse_product(matrix, limbs.ints_to_limbs([1, r, 2], 4))  # type: ignore[attr-defined]
    with pytest.raises(BackendInputError, match="uint64"):
        host.sparse_product(matrix, np.zeros((3, 4), dtype=np.int64))  # type: ignore[attr-defined]
    with pytest.raises(InputSizeMismatchError, match="rows"):
        host.sparse_product(matrix, limbs.ints_to_limbs([1, 2, 3], 4), rows=0)  # type: ignore[attr-defined]


def test_the_kernels_need_an_odd_modulus_with_a_spare_bit() -> None:
    with pytest.raises(ParameterError, match="odd"):
        sparse.field_consts(2**255 + 1)


def test_cpu_products_shared_among_threads_equal_the_reference() -> None:
    """C = (A·z)∘(B·z) of a .zkey's witness: the cpu backend's FIELD_OPS products, cut among the pool's threads
    from PARALLEL_ROWS rows on, row for row the reference's."""
    from cuzk.backends.cpu import PARALLEL_ROWS

    r = BN254.r
    rng = random.Random(3)
    count = PARALLEL_ROWS + 4001
    xs = [0, 1, r - 1, r - 1] + [rng.randrange(r) for _ in range(count - 4)]
    ys = [r - 1, r - 1, r - 1, 0] + [rng.randrange(r) for _ in range(count - 4)]
    got = get_backend("cpu").field_op(BN254, "fr", "mul", limbs.ints_to_limbs(xs, 4), limbs.ints_to_limbs(ys, 4))  # type: ignore[attr-defined]
    assert ints(got) == [x * y % r for x, y in zip(xs, ys, strict=True)]


def test_sparse_evaluation_names_the_failing_constraint(host: Backend) -> None:
    cs = build("mimc", BN254.Fr, size=1)
    qap = SparseQap.from_cs(cs, BN254, host)
    z = [v.value for v in cs.full_assignment()]
    z[cs.num_inputs + 5] += 1  # corrupt one aux value
    with pytest.raises(UnsatisfiedConstraintError) as failure:
        qap.evaluate(limbs.ints_to_limbs(z, 4))
    cs.aux_assignment[5] = cs.aux_assignment[5] + 1
    assert failure.value.index == cs.which_is_unsatisfied()
    assert f"constraint {failure.value.index} is not satisfied" in str(failure.value)
    with pytest.raises(ProvingKeyError, match="variables"):
        qap.evaluate(limbs.ints_to_limbs(z[:-1], 4))


def test_a_late_failing_constraint_is_named() -> None:
    """A witness wrong only near the end of a circuit big enough for the products to be cut among the threads:
    the constraint named is still the reference's first unsatisfied one."""
    cs = build("mimc", BN254.Fr, size=15)  # ~5000 constraints
    qap = SparseQap.from_cs(cs, BN254, get_backend("cpu"))
    z = [v.value for v in cs.full_assignment()]
    k = cs.num_aux - 2
    z[cs.num_inputs + k] = (z[cs.num_inputs + k] + 1) % BN254.r
    with pytest.raises(UnsatisfiedConstraintError) as failure:
        qap.evaluate(limbs.ints_to_limbs(z, 4))
    cs.aux_assignment[k] = cs.aux_assignment[k] + 1
    expected = cs.which_is_unsatisfied()
    assert expected is not None and expected > 4096
    assert failure.value.index == expected


class MatricesOnly:
    """A constraint system seen only through ``matrices()`` (no linear combinations to walk)."""

    def __init__(self, cs: ConstraintSystem) -> None:
        self.field, self.num_inputs, self.num_aux = cs.field, cs.num_inputs, cs.num_aux
        self.num_constraints, self.matrices = cs.num_constraints, cs.matrices


def test_compiling_from_the_terms_or_from_matrices_is_the_same(host: Backend) -> None:
    """The compile walks the combinations' terms (unsorted, as stored); through matrices() (sorted, merged) the
    rows must be the same integers, here with terms that cancel and a coefficient r − 1."""
    fr = BN254.Fr
    cs = ConstraintSystem(fr)
    p = cs.alloc_input(2)
    x, y = cs.alloc(3), cs.alloc(5)
    cs.enforce(cs.lc(y, x, (-1, y), 4), cs.lc(x, (-1, p), p), cs.lc(21))  # (x + 4)·x = 21 = 7·3
    cs.enforce(cs.lc((fr.MODULUS - 1, y)), p, cs.lc((-2, y)))
    assert cs.which_is_unsatisfied() is None
    z = limbs.ints_to_limbs([v.value for v in cs.full_assignment()], 4)
    direct = SparseQap.from_cs(cs, BN254, host).evaluate(z)
    through = SparseQap.from_cs(MatricesOnly(cs), BN254, host).evaluate(z)
    expected = [[v.value for v in rows] for rows in qap_evaluations(cs)]
    assert [ints(v) for v in direct] == [ints(v) for v in through] == expected
