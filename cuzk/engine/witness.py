"""The witness side of a proof: A·z, B·z and C·z on the domain, as sparse products on a host backend.

The reference computes ⟨A_k, z⟩ row by row with field-element objects (:func:`~cuzk.reference.qap.evaluate_rows`).
The engine hands the QAP's matrices once per key to the backend that does its host work
(:func:`~cuzk.backends.registry.host_backend`: the prover's own backend when it computes on the host, else the cpu
backend, else the reference's plain Python), through the protocol's SPARSE capability, and evaluates every witness
with it: z crosses to limbs once (the limbs the MSMs take), and A·z, B·z, C·z come back as the canonical limbs the
backend's H computation takes. From a circuit (:meth:`SparseQap.from_cs`) C is a matrix and the constraints are
checked, A·z ∘ B·z = C·z row by row (FIELD_OPS' products), naming the first failing one; a .zkey holds no C
(:func:`cuzk.engine.zkey.qap_of_zkey`), so C·z is taken as (A·z)∘(B·z), as snarkjs takes it.

:func:`~cuzk.reference.groth16.prover.qap_evaluations` is the oracle these evaluations are tested against.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.indexed import IndexedCoefficients
from cuzk.backends.protocol import (
    COMPUTE_H,
    DEVICE,
    KEPT_SCALARS,
    SPARSE,
    Backend,
    KeptScalars,
    SparseMatrix,
    has_capability,
)
from cuzk.backends.registry import host_backend
from cuzk.engine.calls import TimedCalls
from cuzk.reference.curves import Curve, curve_by_name
from cuzk.reference.errors import ParameterError, ProvingKeyError, UnsatisfiedConstraintError
from cuzk.reference.qap import domain_size, qap_matrices

Csr = tuple[np.ndarray, np.ndarray, np.ndarray | IndexedCoefficients]  # indptr, columns, coefficients (limbs)


@dataclass(frozen=True)
class Assignment:
    """A witness ready for the prover: z = (1, inputs…, aux…) and A·z, B·z, C·z on the domain, as (n, 4) uint64
    canonical limbs; ``z_kept`` and ``abc_kept``: z and (a, b, c) kept on the prover's backend, where it keeps
    scalars (checked and uploaded once; :meth:`cuzk.engine.prover.Prover.stage`). Where the backend made a, b, c
    itself (:func:`witness_backend`), they are only kept: a, b, c are then the same KeptScalars as ``abc_kept``."""

    z: np.ndarray
    a: np.ndarray | KeptScalars
    b: np.ndarray | KeptScalars
    c: np.ndarray | KeptScalars
    z_kept: KeptScalars | None = None
    abc_kept: tuple[KeptScalars, KeptScalars, KeptScalars] | None = None


def witness_limbs(z: np.ndarray | Sequence[Any]) -> np.ndarray:
    """z as (n, 4) uint64 limbs: an array is passed through, a list of ints (or of Fr elements) converted once."""
    if isinstance(z, np.ndarray):
        return z
    values = list(z)
    try:
        return limbs.ints_to_limbs(values, limbs.FR_LIMBS)  # ints: no pass through int()
    except AttributeError:
        return limbs.ints_to_limbs([int(v) for v in values], limbs.FR_LIMBS)


@dataclass(frozen=True)
class SparseQap:
    """The QAP's matrices A, B and, from a circuit, C (rows: the constraints, then one per public input; columns:
    z), prepared on the host ``backend`` for the witness side of every proof of one key."""

    backend: Backend
    curve: Curve
    a: SparseMatrix
    b: SparseMatrix
    c: SparseMatrix | None  # None: C·z = (A·z)∘(B·z), as snarkjs computes it from a .zkey
    num_constraints: int
    num_variables: int
    domain_size: int

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with the curve's name (curves are singletons), for a worker process (:mod:`.witness_process`)."""
        fields = (self.backend, self.curve.name, self.a, self.b, self.c)
        return _sparse_qap, (*fields, self.num_constraints, self.num_variables, self.domain_size)

    @classmethod
    def from_csr(
        cls,
        backend: Backend,
        curve: Curve,
        matrices: Sequence[Csr],
        num_constraints: int,
        num_variables: int,
        n: int,
        *,
        reductions: int = 0,
    ) -> SparseQap:
        """From the CSR arrays of A, B and optionally C (rows in the reference's domain order); ``reductions``: the
        values are c·R^reductions (a .zkey's stored form: 2), see the backends' ``prepare_sparse``. The matrices are
        prepared side by side (a device lays each out on the host, numpy letting go of the GIL, then uploads it)."""

        def prepare(matrix: Csr) -> SparseMatrix:
            indptr, columns, values = matrix
            return backend.prepare_sparse(curve, indptr, columns, values, num_variables, reductions=reductions)  # type: ignore[attr-defined,no-any-return]

        with ThreadPoolExecutor(len(matrices), thread_name_prefix="cuzk-sparse") as pool:
            a, b, *c = pool.map(prepare, matrices)
        return cls(backend, curve, a, b, c[0] if c else None, num_constraints, num_variables, n)

    @classmethod
    def from_cs(cls, cs: Any, curve: Curve, backend: Backend) -> SparseQap:
        """The QAP of ``cs`` (a reference ConstraintSystem, or anything with its ``matrices()``)."""
        num_variables = cs.num_inputs + cs.num_aux
        if hasattr(cs, "constraints"):
            matrices = _qap_terms(cs)
        else:
            matrices = [csr_of_rows(m) for m in qap_matrices(*cs.matrices(), cs.num_inputs)]
        n = domain_size(cs.num_constraints, cs.num_inputs)
        return cls.from_csr(backend, curve, matrices, cs.num_constraints, num_variables, n)

    def evaluate(
        self, z: np.ndarray | KeptScalars, *, keep: bool = False, calls: TimedCalls | None = None
    ) -> tuple[Any, Any, Any]:
        """(A·z, B·z, C·z) on the domain as (n, 4) canonical limbs, zero-padded to n; z is (num_variables, 4)
        canonical limbs (checked by the backend's ``sparse_product``), or kept by that backend (checked already).
        With ``keep`` (a QAP from a .zkey, on a backend with KEPT_SCALARS) the three are kept by the backend, where
        its compute_h_kept reads them: on a device, nothing crosses to the host. With ``calls`` (a prover's), each
        product is a timed call named ``qap_evaluations``, as the prover's phase is: its kernels count as compute.

        With C, every constraint is checked first: UnsatisfiedConstraintError names the first failing one (by index;
        the reference's :meth:`~cuzk.reference.r1cs.ConstraintSystem.check_satisfied` names it too, with its values).
        """
        if len(z) != self.num_variables:
            raise ProvingKeyError(f"the circuit has {self.num_variables} variables, the witness {len(z)}")
        backend, n = self.backend, self.domain_size
        if keep and self.c is not None:
            raise ParameterError("keep=True is for a QAP without C (a .zkey's): a circuit's constraints are checked")
        timed = partial(calls.timed, backend, "qap_evaluations") if calls is not None else nullcontext
        with timed():
            a = backend.sparse_product(self.a, z, rows=n, keep=keep)  # type: ignore[attr-defined]
        with timed():
            b = backend.sparse_product(self.b, z, rows=n, keep=keep)  # type: ignore[attr-defined]
        with timed():
            if self.c is None:  # a .zkey's C·z is A·z ∘ B·z on the domain
                return a, b, backend.field_op(self.curve, "fr", "mul", a, b, keep=keep)  # type: ignore[attr-defined]
            c = backend.sparse_product(self.c, z, rows=n)  # type: ignore[attr-defined]
        m = self.num_constraints
        products = backend.field_op(self.curve, "fr", "mul", a[:m], b[:m])  # type: ignore[attr-defined]
        failing = np.flatnonzero((products != c[:m]).any(axis=1))
        if len(failing):
            k = int(failing[0])
            va, vb, vc = limbs.limbs_to_ints(np.stack([a[k], b[k], c[k]]))
            raise UnsatisfiedConstraintError(
                f"constraint {k} is not satisfied: ⟨a,z⟩ = {va}, ⟨b,z⟩ = {vb}, ⟨c,z⟩ = {vc}", k
            )
        return a, b, c


def witness_backend(backend: Backend, *, from_key: bool) -> Backend:
    """Where a proof on ``backend`` makes A·z, B·z and C·z: for a .zkey (``from_key``: C = A∘B, nothing to check)
    ``backend`` itself when it is a device that offers SPARSE and KEPT_SCALARS, so that z is uploaded once and the
    products stay where compute_h and the MSMs read them; otherwise (and for a circuit, whose constraints are
    checked on the host) the host backend with SPARSE."""
    own = from_key and all(has_capability(backend, c) for c in (DEVICE, SPARSE, KEPT_SCALARS, COMPUTE_H))
    return backend if own else host_backend(backend, SPARSE)


def _sparse_qap(backend: Backend, curve: str, *fields: Any) -> SparseQap:
    return SparseQap(backend, curve_by_name(curve), *fields)


def csr_of_rows(rows: Sequence[Sequence[tuple[int, Any]]]) -> Csr:
    """CSR arrays of sparse rows of (column, coefficient) terms; a coefficient is an int or a field element."""
    lengths = np.fromiter((len(row) for row in rows), dtype=np.int64, count=len(rows))
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    columns = np.fromiter((column for row in rows for column, _ in row), dtype=np.int64, count=int(indptr[-1]))
    values = [int(getattr(coeff, "value", coeff)) for row in rows for _, coeff in row]
    return indptr, columns, limbs.ints_to_limbs(values, limbs.FR_LIMBS)


def _qap_terms(cs: Any) -> list[Csr]:
    """The CSR arrays of the QAP's A, B, C, read from the constraints' linear combinations.

    The rows of :func:`~cuzk.reference.qap.qap_matrices` over ``cs.matrices()``, less its per-row work: that sorts
    each row's terms by column, merges a column named twice and drops zero coefficients, none of which changes a
    sum mod r, so the evaluations are the same integers (tested against the reference's), several times faster.
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


__all__ = ["Assignment", "Csr", "SparseQap", "csr_of_rows", "witness_backend", "witness_limbs"]
