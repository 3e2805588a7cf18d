"""Sparse matrices over Fr on limbs: the cpu backend's SPARSE capability (A·z, B·z, C·z of a proof's witness).

A matrix is kept in CSR form (:class:`CsrMatrix`): for row k, its terms are ``columns[indptr[k]:indptr[k + 1]]``
with their coefficients. The coefficients are stored once, in Montgomery form c·R (R = 2^256); the witness z stays
canonical. Then one Montgomery product gives a canonical term, mont_mul(c·R, z) = c·z·R·R⁻¹ = c·z, and the sums of
canonical terms are canonical: no conversion of z or of the output, and the rows are bit for bit the integers
Σ c_j·z_j mod r of the reference's ``evaluate_rows``. A coefficient equal to one (R in Montgomery form, most of them
in a typical circuit) skips the product: mont_mul(R, z) = z, the same value.

The arithmetic is the cpu backend's (:mod:`.field`: the same intrinsics, so the same machine code as the MSM and NTT
kernels) with 4-limb Montgomery constants for the matrix's modulus: Fr of both curves, and any odd modulus below
2^255 (the toy field of the reference's walkthrough too: CIOS needs only an odd p with a spare top bit).

Why in this package: the kernels call :mod:`.field`'s intrinsics, whose IR is emitted into every caller, and
:mod:`.jit` stamps the disk cache of this package's functions with the hash of all of its sources; a kernel outside
it would keep a stale cache after an edit of the field arithmetic.

Threads: rows are cut into spans of about equal work (terms + rows) and run as nogil kernels on a small pool of this
module's own (``NUMBA_NUM_THREADS`` threads), not the backend's: the witness of proof k + 1 is evaluated on the
pipeline's producer thread while the backend's pool runs proof k, and neither should queue behind the other or
count in the other's kernel clock. No ``prange``: numba's workqueue threading layer aborts when several Python
threads enter parallel regions at once (see :mod:`.msm`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Any

import numba
import numpy as np
from numba import njit

from cuzk.backends import limbs
from cuzk.backends.cpu.field import add, is_eq, load, mul, store, to_mont, zero
from cuzk.backends.cpu.jit import JIT
from cuzk.backends.cpu.params import FieldConsts, FieldParams
from cuzk.reference.errors import NonCanonicalError, ParameterError

LIMBS = limbs.FR_LIMBS
PARALLEL_WORK = 1 << 15  # terms + rows below which a kernel runs on the calling thread (~1 ms)
SPANS_PER_THREAD = 4  # spans per pool thread: rows of uneven length still share out evenly

# --- kernels ------------------------------------------------------------------------------------------------------


@njit(**JIT)
def csr_rows(
    indptr: np.ndarray,
    columns: np.ndarray,
    coefficients: np.ndarray,
    z: np.ndarray,
    out: np.ndarray,
    start: int,
    stop: int,
    F: Any,
) -> None:
    """out[k] = Σ_j coefficients[j]·z[columns[j]] over row k's terms, for rows start … stop − 1 (coefficients in
    Montgomery form, z and out canonical; a coefficient R, i.e. one, adds z[col] without a product)."""
    like = F.one
    for k in range(start, stop):
        acc = zero(like)
        for j in range(indptr[k], indptr[k + 1]):
            coefficient = load(coefficients, j, like)
            value = load(z, columns[j], like)
            if not is_eq(coefficient, like):
                value = mul(coefficient, value, F)
            acc = add(acc, value, F)
        store(out, k, acc)


@njit(**JIT)
def montgomery_forms(values: np.ndarray, out: np.ndarray, start: int, stop: int, F: Any) -> None:
    """out[k] = values[k]·R (canonical in, Montgomery form out)."""
    like = F.one
    for k in range(start, stop):
        store(out, k, to_mont(load(values, k, like), F))


# --- threads ------------------------------------------------------------------------------------------------------

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def threads() -> int:
    """The pool's threads: numba's NUMBA_NUM_THREADS (the usable cores)."""
    return int(numba.config.NUMBA_NUM_THREADS)


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(threads(), thread_name_prefix="cuzk-witness")
        return _POOL


def spans(work: np.ndarray) -> list[tuple[int, int]]:
    """Rows cut into spans of about equal work; ``work`` is the cumulative work before each row (rows + 1 entries,
    non-decreasing, from 0). One span when the whole is too small to be worth the pool."""
    rows, total = len(work) - 1, int(work[-1]) if len(work) else 0
    parts = min(rows, threads() * SPANS_PER_THREAD) if total >= PARALLEL_WORK and threads() > 1 else 1
    if parts <= 1:
        return [(0, rows)] if rows > 0 else []
    bounds = np.unique(np.searchsorted(work, np.linspace(0, total, parts + 1)[1:-1], side="left"))
    edges = [0, *(int(x) for x in bounds if 0 < x < rows), rows]
    return [(lo, hi) for lo, hi in pairwise(edges) if lo < hi]


def run(kernel: Callable[[int, int], Any], parts: list[tuple[int, int]]) -> list[Any]:
    """``kernel(start, stop)`` for every span: on the calling thread when there is one, else on the pool."""
    if len(parts) <= 1:
        return [kernel(lo, hi) for lo, hi in parts]
    return list(_pool().map(lambda span: kernel(*span), parts))


def _even(rows: int) -> list[tuple[int, int]]:
    """Spans of equal rows (element-wise kernels)."""
    return spans(np.arange(rows + 1, dtype=np.int64) * 8)


# --- the field ----------------------------------------------------------------------------------------------------


@cache
def field_consts(modulus: int) -> FieldConsts:
    """The 4-limb Montgomery constants of F_modulus (R = 2^256 whatever the modulus's size)."""
    if modulus % 2 == 0 or modulus < 3 or modulus >> (64 * LIMBS - 1):
        raise ParameterError(f"modulus {modulus:#x} must be odd and below 2^{64 * LIMBS - 1} for the sparse kernels")
    return FieldParams(modulus, LIMBS).consts


def check_limbs(values: np.ndarray, modulus: int, name: str) -> np.ndarray:
    """``values`` as a C-contiguous (n, 4) uint64 array of canonical elements: ParameterError for another shape or
    type, NonCanonicalError naming the first row ≥ modulus (the kernels need canonical inputs)."""
    if not isinstance(values, np.ndarray) or values.dtype != np.uint64 or values.ndim != 2 or values.shape[1] != LIMBS:
        shape = getattr(values, "shape", None)
        raise ParameterError(f"{name}: expected (n, {LIMBS}) uint64 limbs, got {type(values).__name__} {shape}")
    bad = limbs.first_noncanonical(values, modulus)
    if bad is not None:
        raise NonCanonicalError(f"{name}[{bad[0]}] = {limbs.limbs_to_int(values[bad[0]]):#x} is not below {modulus:#x}")
    return np.ascontiguousarray(values)


def to_montgomery(values: np.ndarray, modulus: int) -> np.ndarray:
    """(n, 4) canonical limbs → their Montgomery forms v·R mod modulus."""
    values = check_limbs(values, modulus, "values")
    out = np.empty_like(values)
    F = field_consts(modulus)
    run(lambda lo, hi: montgomery_forms(values, out, lo, hi, F), _even(len(values)))
    return out


# --- the matrix ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CsrMatrix:
    """A matrix over F_modulus in CSR form, its coefficients in Montgomery form (4 limbs each)."""

    indptr: np.ndarray  # int64 (rows + 1,): row k's terms are indptr[k] … indptr[k + 1] − 1
    columns: np.ndarray  # int64 (terms,)
    coefficients: np.ndarray  # uint64 (terms, 4): c·R mod modulus
    modulus: int
    num_columns: int  # every column is below it: z must have at least this many values

    @property
    def num_rows(self) -> int:
        return len(self.indptr) - 1

    @classmethod
    def from_csr(
        cls, indptr: np.ndarray, columns: np.ndarray, values: np.ndarray, modulus: int, num_columns: int
    ) -> CsrMatrix:
        """From CSR arrays with canonical coefficient limbs (checked: the kernels read z unchecked at the columns)."""
        indptr, columns = np.ascontiguousarray(indptr, np.int64), np.ascontiguousarray(columns, np.int64)
        if len(indptr) == 0 or indptr[0] != 0 or indptr[-1] != len(columns) or np.any(np.diff(indptr) < 0):
            raise ParameterError("indptr must rise from 0 to the number of terms")
        if len(columns) and (columns.min() < 0 or columns.max() >= num_columns):
            raise ParameterError(f"a column is outside 0 … {num_columns - 1}")
        if len(values) != len(columns):
            raise ParameterError(f"{len(columns)} columns, {len(values)} coefficients")
        mont = to_montgomery(values.reshape(len(columns), LIMBS), modulus)
        return cls(indptr, columns, mont, modulus, num_columns)

    def product(self, z: np.ndarray, out_rows: int | None = None) -> np.ndarray:
        """(out_rows, 4) canonical limbs: ⟨row k, z⟩ mod modulus for every row, zeros after the last (``out_rows``
        defaults to the rows). z must be C-contiguous (n, 4) uint64 canonical limbs with n ≥ num_columns: the
        kernels read it unchecked, so the caller validates it (the backend's ``sparse_product`` does, once)."""
        out_rows = self.num_rows if out_rows is None else out_rows
        if out_rows < self.num_rows or len(z) < self.num_columns:
            shape = f"{self.num_rows}×{self.num_columns}"
            raise ParameterError(f"{out_rows} output rows and z of {len(z)} rows for a {shape} matrix")
        out = np.zeros((out_rows, LIMBS), dtype=np.uint64)
        F = field_consts(self.modulus)
        work = self.indptr + np.arange(self.num_rows + 1, dtype=np.int64)
        indptr, columns, coefficients = self.indptr, self.columns, self.coefficients
        run(lambda lo, hi: csr_rows(indptr, columns, coefficients, z, out, lo, hi, F), spans(work))
        return out


__all__ = ["CsrMatrix", "check_limbs", "field_consts", "spans", "to_montgomery"]
