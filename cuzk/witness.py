"""The witness side of a proof, fast: A·z, B·z, C·z on the domain and the satisfiability check, on limbs.

The reference computes ⟨A_k, z⟩ row by row with field-element objects (:func:`~cuzk.reference.qap.evaluate_rows`),
which is clear and costs about a microsecond per term. The engine compiles the matrices once per proving key into
CSR arrays with the coefficients in Montgomery limbs (:class:`~cuzk.backends.cpu.sparse.CsrMatrix`) and evaluates
every row with a numba kernel over those limbs, on all cores and without the GIL: z crosses to limbs once (the
limbs the MSMs take), and A·z, B·z, C·z come out as the canonical limbs the backend's H computation takes, never
becoming Python integers. The constraints are checked on the same limbs, A·z ∘ B·z = C·z row by row, and the first
failing row is named as before.

Measured on the 2-core box (mimc, BN254, cpu backend; before → after): the evaluation took 147 → 19 ms at 2^16
and 607 → 42 ms at 2^18 (numpy object arrays of Python ints before); the conversion to limbs, inside the proof
before (86 ms at 2^16, 419 ms at 2^18, ~720 ms per proof in a 3-proof pipeline, where the producer's Python fought
it for the GIL), is one conversion of z before it (~30 ms, ~150 ms); compiling the matrices, 1.06 → 0.20 s at
2^16 and 5.2 → 1.0 s at 2^18 (:func:`_qap_terms`).

:func:`~cuzk.reference.groth16.prover.qap_evaluations` is the oracle these evaluations are tested against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cuzk.backends import limbs
from cuzk.reference.errors import ProvingKeyError, UnsatisfiedConstraintError
from cuzk.reference.qap import domain_size, qap_matrices

if TYPE_CHECKING:
    from cuzk.backends.cpu.sparse import CsrMatrix


def witness_limbs(z: np.ndarray | Sequence[Any]) -> np.ndarray:
    """z as (n, 4) uint64 limbs: an array is passed through, a list of ints (or of Fr elements) converted once."""
    if isinstance(z, np.ndarray):
        return z
    values = list(z)
    try:
        return limbs.ints_to_limbs(values, limbs.FR_LIMBS)  # ints: no pass through int()
    except AttributeError:
        return limbs.ints_to_limbs([int(v) for v in values], limbs.FR_LIMBS)


def _qap_terms(cs: Any) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(indptr, columns, coefficient limbs) of the QAP's A, B, C, read from the constraints' linear combinations.

    The rows of :func:`~cuzk.reference.qap.qap_matrices` over ``cs.matrices()``, less its per-row work: that sorts
    each row's terms by column, merges a column named twice and drops zero coefficients, none of which changes a
    sum mod r, so the evaluations are the same integers (tested against the reference's). Measured: 4× faster
    than ``matrices()`` (mimc, 2^16: ~1 s of the once-per-key compile_circuit).
    """
    n = cs.num_inputs
    flat: list[tuple[list[int], list[int], list[int]]] = [([], [], []) for _ in range(3)]
    for constraint in cs.constraints:
        for (lengths, columns, values), lc in zip(flat, constraint[:3], strict=False):
            terms = lc.terms
            lengths.append(len(terms))
            for variable, coefficient in terms.items():
                columns.append(variable.full_index(n))
                values.append(coefficient.value)
    # one row per public input: A gets (i, 1), B and C nothing
    flat[0][0].extend([1] * n)
    flat[0][1].extend(range(n))
    flat[0][2].extend([1] * n)
    for lengths, _, _ in flat[1:]:
        lengths.extend([0] * n)
    out = []
    for lengths, columns, values in flat:
        indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(np.array(lengths, dtype=np.int64), out=indptr[1:])
        out.append((indptr, np.array(columns, dtype=np.int64), limbs.ints_to_limbs(values, limbs.FR_LIMBS)))
    return out


@dataclass(frozen=True)
class CompiledR1CS:
    """The QAP matrices of one circuit (the R1CS rows plus one row per public input), compiled for evaluation.

    The numba kernels load (from the disk cache, or compile once per machine) on the first :meth:`from_cs`.
    """

    a: CsrMatrix
    b: CsrMatrix
    c: CsrMatrix
    num_constraints: int
    num_inputs: int
    num_variables: int
    domain_size: int
    modulus: int

    @classmethod
    def from_cs(cls, cs: Any) -> CompiledR1CS:
        """The QAP matrices of ``cs`` (a reference ConstraintSystem, or anything with its ``matrices()``)."""
        from cuzk.backends.cpu.sparse import CsrMatrix

        modulus, num_variables = cs.field.MODULUS, cs.num_inputs + cs.num_aux
        if hasattr(cs, "constraints"):
            a, b, c = (
                CsrMatrix.from_csr(indptr, columns, values, modulus, num_variables)
                for indptr, columns, values in _qap_terms(cs)
            )
        else:
            matrices = qap_matrices(*cs.matrices(), cs.num_inputs)
            a, b, c = (CsrMatrix.from_rows(m, modulus, num_variables) for m in matrices)
        return cls(
            a,
            b,
            c,
            num_constraints=cs.num_constraints,
            num_inputs=cs.num_inputs,
            num_variables=num_variables,
            domain_size=domain_size(cs.num_constraints, cs.num_inputs),
            modulus=modulus,
        )

    def witness(self, z: np.ndarray | Sequence[Any]) -> np.ndarray:
        """z as the canonical (num_variables, 4) limbs the kernels and the MSMs take: ProvingKeyError for another
        length, NonCanonicalError for a value ≥ r."""
        from cuzk.backends.cpu.sparse import check_limbs

        if len(z) != self.num_variables:
            raise ProvingKeyError(f"the circuit has {self.num_variables} variables, the witness {len(z)}")
        return check_limbs(witness_limbs(z), self.modulus, "z")

    def evaluate(self, z: np.ndarray | Sequence[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(A·z, B·z, C·z) on the domain as (n, 4) canonical limbs, zero-padded to n, after checking every constraint
        holds; z is (num_variables, 4) limbs, or a list of ints converted once.

        Raises UnsatisfiedConstraintError naming the first failing constraint (by index; the reference's
        :meth:`~cuzk.reference.r1cs.ConstraintSystem.check_satisfied` names it too, with its values).
        """
        from cuzk.backends.cpu.sparse import first_unsatisfied

        z = self.witness(z)
        a, b, c = (m.evaluate(z, self.domain_size) for m in (self.a, self.b, self.c))
        k = first_unsatisfied(a, b, c, self.num_constraints, self.modulus)
        if k >= 0:
            va, vb, vc = limbs.limbs_to_ints(np.stack([a[k], b[k], c[k]]))
            raise UnsatisfiedConstraintError(
                f"constraint {k} is not satisfied: ⟨a,z⟩ = {va}, ⟨b,z⟩ = {vb}, ⟨c,z⟩ = {vc}", k
            )
        return a, b, c


__all__ = ["CompiledR1CS", "witness_limbs"]
