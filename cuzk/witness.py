"""The witness side of a proof, fast: A·z, B·z, C·z on the domain and the satisfiability check, in bulk.

The reference computes ⟨A_k, z⟩ row by row with field-element objects (:func:`~cuzk.reference.qap.evaluate_rows`),
which is clear and costs about a microsecond per term. The engine compiles the matrices once per proving key into
flat arrays (CSR: for every non-zero, its column and coefficient; for every row, where it starts) and evaluates all
rows of a matrix with three numpy operations on Python integers (object arrays: the products run in numpy's C
loop, the 256-bit arithmetic in Python's): gather z at the columns, multiply by the coefficients, sum per row.
The rows then cross to the backend as limbs without ever becoming field-element objects.

:func:`~cuzk.reference.groth16.prover.qap_evaluations` is the oracle these evaluations are tested against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.reference.errors import ProvingKeyError, UnsatisfiedConstraintError
from cuzk.reference.qap import domain_size, qap_matrices


@dataclass(frozen=True)
class SparseMatrix:
    """One QAP matrix in CSR form: row k's terms are columns[starts[k]:starts[k+1]] with their coefficients."""

    columns: np.ndarray  # int64, one per non-zero
    coefficients: np.ndarray  # object (Python ints), one per non-zero
    starts: np.ndarray  # int64, one per row (the rows with no terms included)
    num_rows: int

    @classmethod
    def from_rows(cls, rows: list[list[tuple[int, Any]]]) -> SparseMatrix:
        lengths = [len(row) for row in rows]
        starts = np.zeros(len(rows), dtype=np.int64)
        if rows:
            starts[1:] = np.cumsum(lengths)[:-1]
        columns = np.fromiter((col for row in rows for col, _ in row), dtype=np.int64, count=sum(lengths))
        coefficients = np.empty(sum(lengths), dtype=object)
        coefficients[:] = [int(coeff) for row in rows for _, coeff in row]
        return cls(columns, coefficients, starts, len(rows))

    def evaluate(self, z: np.ndarray, modulus: int) -> np.ndarray:
        """⟨row_k, z⟩ mod modulus for every row, as an object array of Python ints (z: object array of ints)."""
        out = np.zeros(self.num_rows, dtype=object)
        if not len(self.columns):
            return out
        products = z[self.columns] * self.coefficients
        nonempty = np.flatnonzero(np.diff(np.append(self.starts, len(self.columns))) > 0)
        out[nonempty] = np.add.reduceat(products, self.starts[nonempty])
        return out % modulus


@dataclass(frozen=True)
class CompiledR1CS:
    """The QAP matrices of one circuit (the R1CS rows plus one row per public input), compiled for evaluation."""

    a: SparseMatrix
    b: SparseMatrix
    c: SparseMatrix
    num_constraints: int
    num_inputs: int
    num_variables: int
    domain_size: int
    modulus: int

    @classmethod
    def from_cs(cls, cs: Any) -> CompiledR1CS:
        a, b, c = qap_matrices(*cs.matrices(), cs.num_inputs)
        return cls(
            SparseMatrix.from_rows(a),
            SparseMatrix.from_rows(b),
            SparseMatrix.from_rows(c),
            num_constraints=cs.num_constraints,
            num_inputs=cs.num_inputs,
            num_variables=cs.num_inputs + cs.num_aux,
            domain_size=domain_size(cs.num_constraints, cs.num_inputs),
            modulus=cs.field.MODULUS,
        )

    def evaluate(self, z: list[int]) -> tuple[list[int], list[int], list[int]]:
        """(A·z, B·z, C·z) on the domain, zero-padded to n, after checking every constraint holds.

        Raises UnsatisfiedConstraintError naming the first failing constraint (by index; the reference's
        :meth:`~cuzk.reference.r1cs.ConstraintSystem.check_satisfied` names it too, with its values).
        """
        if len(z) != self.num_variables:
            raise ProvingKeyError(f"the circuit has {self.num_variables} variables, the witness {len(z)}")
        z_array = np.empty(len(z), dtype=object)
        z_array[:] = z
        rows = [m.evaluate(z_array, self.modulus) for m in (self.a, self.b, self.c)]
        m = self.num_constraints
        failing = np.flatnonzero((rows[0][:m] * rows[1][:m] - rows[2][:m]) % self.modulus)
        if len(failing):
            k = int(failing[0])
            raise UnsatisfiedConstraintError(
                f"constraint {k} is not satisfied: ⟨a,z⟩ = {rows[0][k]}, ⟨b,z⟩ = {rows[1][k]}, ⟨c,z⟩ = {rows[2][k]}",
                k,
            )
        padding = [0] * (self.domain_size - len(rows[0]))
        return tuple(list(r) + padding for r in rows)  # type: ignore[return-value]
