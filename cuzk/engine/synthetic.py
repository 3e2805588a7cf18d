"""Circuits of any size as arrays: the large benchmark's R1CS and its witness, with no Python object per constraint.

A circuit object of the reference (one Python object per constraint and term) cannot reach Filecoin's sizes: a
PoRep partition has about 2^27 constraints. :func:`gates` writes a circuit straight into the CSR arrays the engine
takes (:class:`~cuzk.engine.witness.SparseQap`) and its witness into canonical limbs, with numpy:

    k free variables x_1 … x_k (x_1 the one public input), then one output w_i per gate:
    gate i:         x_left(i) · x_right(i) = w_i         left, right drawn uniformly from 1 … k

The shape is that of the multiplication gates a compiled circuit is made of. The last k + 1 constraints restate
gates drawn at random (as a circuit checks a bit it has checked before), so that the circuit has as many variables
as constraints, as a PoRep circuit has about: its key is the size the domain says (at 2^27 on BLS12-381, A, B₁, L and
H 12.9 GB each, B₂ 25.8 GB). Its witness is one of two kinds:

- ``porep``: what SHA-256 and Merkle-path circuits give a PoRep proof, mostly bits. A free variable is a bit
  (0 or 1, evenly) except one in DENSE_SHARE_POREP, a uniform field element (a hash's word); a product of bits is a
  bit, so of all the variables about 70 % are zeros, 27 % ones and 3 % field elements (2^18 constraints, seed 0).
- ``dense``: every free variable a uniform field element, so every scalar of every MSM is dense.

The products are taken by a backend's FIELD_OPS (the prover's own, or the host's), so the witness satisfies every
constraint; :meth:`ArrayCircuit.check` verifies it with the same products. The random choices come from ``seed``:
the same arguments give the same circuit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import Backend
from cuzk.engine.setup_arrays import ArrayScalars
from cuzk.engine.witness import Csr
from cuzk.reference.curves import Curve
from cuzk.reference.errors import ParameterError, UnsatisfiedConstraintError
from cuzk.reference.qap import domain_size

WITNESSES = ("porep", "dense")
FREE_SHARE = 8  # one free variable for this many constraints
DENSE_SHARE_POREP = 32  # one free variable in this many is a field element in a PoRep-like witness
NUM_INPUTS = 2  # the constant 1 and one public input (x_1)


@dataclass(frozen=True)
class ArrayCircuit:
    """An R1CS as CSR arrays (rows: the constraints; columns: z = (1, public…, aux…)) and a witness z as (n, 4)
    canonical limbs that satisfies it."""

    curve: Curve
    num_inputs: int  # public variables, the constant 1 included
    a: Csr
    b: Csr
    c: Csr
    z: np.ndarray

    @property
    def num_constraints(self) -> int:
        return len(self.a[0]) - 1

    @property
    def num_variables(self) -> int:
        return len(self.z)

    @property
    def domain_size(self) -> int:
        return domain_size(self.num_constraints, self.num_inputs)

    def public_inputs(self) -> list[int]:
        """z_1 … z_(num_inputs − 1), the statement."""
        return limbs.limbs_to_ints(self.z[1 : self.num_inputs])

    def qap_rows(self) -> tuple[Csr, Csr, Csr]:
        """A, B, C with the QAP's extra rows (:func:`~cuzk.reference.qap.qap_matrices`): one per public input,
        where A holds (i, 1) and B and C nothing."""
        ni = self.num_inputs
        one = limbs.ints_to_limbs([1] * ni, limbs.FR_LIMBS)
        a = _append_rows(self.a, np.arange(ni, dtype=np.int64), one)
        b, c = ((np.concatenate([m[0], np.full(ni, m[0][-1], dtype=np.int64)]), m[1], m[2]) for m in (self.b, self.c))
        return a, b, c  # B's and C's terms are shared with the circuit's, not copied

    def check(self, backend: Backend) -> None:
        """UnsatisfiedConstraintError naming the first constraint whose ⟨A_i,z⟩·⟨B_i,z⟩ ≠ ⟨C_i,z⟩ (SPARSE products and
        FIELD_OPS on ``backend``)."""
        products = []
        for indptr, columns, values in (self.a, self.b, self.c):
            matrix = backend.prepare_sparse(self.curve, indptr, columns, values, self.num_variables)  # type: ignore[attr-defined]
            products.append(backend.sparse_product(matrix, self.z))  # type: ignore[attr-defined]
        left, right, out = products
        made = field_products(backend, self.curve, left, right)
        failing = np.flatnonzero((made != out).any(axis=1))
        if len(failing):
            raise UnsatisfiedConstraintError(f"constraint {int(failing[0])} is not satisfied", int(failing[0]))


def field_products(backend: Backend, curve: Curve, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a_i·b_i mod r row by row, by ``backend``'s FIELD_OPS (in chunks: :class:`ArrayScalars`)."""
    return ArrayScalars(backend, curve).op("mul", a, b)


def random_elements(curve: Curve, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` field elements as canonical limbs, uniform below 2^(bits(r) − 1) < r: every bit but the top one of
    a scalar of Fr random, as dense as a hash's output for an MSM."""
    words = rng.integers(0, 1 << 64, size=(count, limbs.FR_LIMBS), dtype=np.uint64, endpoint=False)
    top_bits = curve.r.bit_length() - 1 - 64 * (limbs.FR_LIMBS - 1)
    words[:, -1] &= np.uint64((1 << top_bits) - 1)
    return words


def free_values(curve: Curve, count: int, witness: str, rng: np.random.Generator) -> np.ndarray:
    """The free variables' values for a ``witness`` of WITNESSES."""
    if witness == "dense":
        return random_elements(curve, count, rng)
    values = np.zeros((count, limbs.FR_LIMBS), dtype=np.uint64)
    values[:, 0] = rng.integers(0, 2, size=count, dtype=np.uint64)
    dense = np.flatnonzero(rng.integers(0, DENSE_SHARE_POREP, size=count) == 0)
    values[dense] = random_elements(curve, len(dense), rng)
    return values


def gates(curve: Curve, constraints: int, backend: Backend, *, witness: str = "porep", seed: int = 0) -> ArrayCircuit:
    """The circuit of ``constraints`` constraints and as many variables: multiplication gates over
    constraints/FREE_SHARE free variables (at least two), then restated gates; its ``witness`` ("porep" or
    "dense"), the products by ``backend``'s FIELD_OPS."""
    if witness not in WITNESSES:
        raise ParameterError(f"witness must be one of {', '.join(WITNESSES)}, got {witness!r}")
    if not isinstance(constraints, int) or constraints < 1:
        raise ParameterError(f"constraints must be a positive int, got {constraints!r}")
    rng = np.random.default_rng(seed)
    free = max(NUM_INPUTS, constraints // FREE_SHARE)
    count = max(1, constraints - 1 - free)  # gates: 1 + free + count variables, as many as constraints
    left = rng.integers(1, free + 1, size=count, dtype=np.int64)
    right = rng.integers(1, free + 1, size=count, dtype=np.int64)
    outputs = np.arange(free + 1, free + 1 + count, dtype=np.int64)
    z = np.empty((1 + free + count, limbs.FR_LIMBS), dtype=np.uint64)
    z[0] = limbs.int_to_limbs(1, limbs.FR_LIMBS)
    z[1 : free + 1] = free_values(curve, free, witness, rng)
    z[free + 1 :] = field_products(backend, curve, limbs.take_rows(z, left), limbs.take_rows(z, right))
    again = rng.integers(0, count, size=constraints - count, dtype=np.int64)  # restated gates
    left, right, outputs = (np.concatenate([x, x[again]]) for x in (left, right, outputs))
    return ArrayCircuit(curve, NUM_INPUTS, _unit_rows(left), _unit_rows(right), _unit_rows(outputs), z)


def _unit_rows(columns: np.ndarray) -> Csr:
    """One term per row, coefficient 1, at ``columns[i]`` in row i."""
    values = np.zeros((len(columns), limbs.FR_LIMBS), dtype=np.uint64)
    values[:, 0] = 1
    return np.arange(len(columns) + 1, dtype=np.int64), columns, values


def _append_rows(matrix: Csr, columns: np.ndarray, values: np.ndarray) -> Csr:
    """``matrix`` with one row of one term per entry of ``columns``."""
    indptr, old_columns, old_values = matrix
    tail = indptr[-1] + np.arange(1, len(columns) + 1, dtype=np.int64)
    return np.concatenate([indptr, tail]), np.concatenate([old_columns, columns]), np.concatenate([old_values, values])


def describe(circuit: ArrayCircuit) -> dict[str, Any]:
    """Counts for a benchmark's table: constraints, variables, domain, and the witness's zeros, ones and others."""
    z = circuit.z
    small = ~z[:, 1:].any(axis=1)
    zeros = int((small & (z[:, 0] == 0)).sum())
    ones = int((small & (z[:, 0] == 1)).sum())
    return {
        "constraints": circuit.num_constraints,
        "variables": circuit.num_variables,
        "domain": circuit.domain_size,
        "zeros": zeros,
        "ones": ones,
        "dense": circuit.num_variables - zeros - ones,
    }
