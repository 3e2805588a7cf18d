"""Many MSMs of a few terms each in one pass: a batch's rows summed term by term (``msm_batch`` of small rows).

A key's setup from a ptau makes each variable's points as sums of the Lagrange points of the constraints it appears
in, by the circuit's coefficients (:mod:`cuzk.engine.setup_ptau`): millions of rows of one to a few terms, nearly
all with coefficient 1 or −1. Each such row as an MSM call of its own pays the call (conversions, a Straus table,
an inversion) for a handful of additions. Here every row of a batch goes in one kernel call per span of rows: each
term's point is loaded once (XYZZ, Montgomery form), multiplied by its scalar — not at all for 1, a negation for
−1, else by its group's endomorphisms (:func:`~cuzk.backends.cpu.endo.times_endo`, digits made once per
distinct scalar) — and added to its row's sum; the sums leave XYZZ form a chunk at a time through one inversion
(:func:`~cuzk.backends.cpu.point_ntt.store_affine`). The result is the same group element as an MSM's, so the same
canonical bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cuzk.backends import limbs
from cuzk.backends.cpu.curve import add_xyzz, identity
from cuzk.backends.cpu.endo import TABLE_ROWS, endo_consts, endo_digits, times_endo
from cuzk.backends.cpu.field import neg
from cuzk.backends.cpu.jit import JIT
from cuzk.backends.cpu.params import CurveParams
from cuzk.backends.cpu.point_ntt import CHUNK, load_point, load_points, run_spans, store_affine, store_point
from cuzk.reference.curves import Curve

SMALL_ROWS = 64  # rows of at most this many terms are summed here (longer ones: an MSM of their own)
TIMES_ONE, TIMES_MINUS_ONE, TIMES_DIGITS = 0, 1, 2  # how a term's point is multiplied by its scalar


@njit(**JIT)
def sum_rows(
    points: np.ndarray,
    kinds: np.ndarray,
    digit_rows: np.ndarray,
    digits: np.ndarray,
    indptr: np.ndarray,
    start: int,
    stop: int,
    out: np.ndarray,
    degree: int,
    E: Any,
    like: Any,
    F: Any,
) -> None:
    """out point r ← Σ over terms t of row r (indptr[r] … indptr[r + 1] − 1) of [scalar t]·(point t), for rows
    start … stop − 1; a term's scalar is 1, −1 or the digits' row digit_rows[t] (``kinds[t]``)."""
    table = np.empty((TABLE_ROWS * degree, points.shape[1]), np.uint64)
    for r in range(start, stop):
        acc = identity(like)
        for t in range(indptr[r], indptr[r + 1]):
            P = load_point(points, t, like)
            kind = kinds[t]
            if kind == TIMES_MINUS_ONE:
                P = (P[0], neg(P[1], F), P[2], P[3])
            elif kind == TIMES_DIGITS:
                P = times_endo(P, digits, digit_rows[t], table, E, like, F)
            acc = add_xyzz(acc, P, F)
        store_point(out, r, acc)


def small_rows(bases: list[Any]) -> bool:
    """Whether a batch is rows of raw points (not prepared bases) of at most SMALL_ROWS terms each, two or more."""
    return len(bases) > 1 and all(isinstance(b, np.ndarray) and len(b) <= SMALL_ROWS for b in bases)


class RowSums:
    """The driver: rows of canonical affine points and canonical scalars in, their sums as canonical affine limbs
    out, the kernels' spans spread over the pool's threads."""

    def __init__(self, curve: Curve, params: CurveParams, pool: Any, threads: int) -> None:
        self.curve, self.params, self.pool, self.threads = curve, params, pool, threads
        self.F = params.fq.consts

    def _run(self, kernel: Any, total: int, before: tuple, after: tuple) -> None:
        run_spans(self.pool, self.threads, kernel, total, before, after, CHUNK)

    def __call__(self, group: str, bases: list[np.ndarray], scalars: list[np.ndarray]) -> np.ndarray:
        """Σ scalars[i][t]·bases[i][t] for each row i, as (rows, 2, L) or (rows, 2, 2, L) canonical affine limbs."""
        width = limbs.point_shape(self.curve, group)[-1]
        indptr = np.zeros(len(bases) + 1, np.int64)
        np.cumsum([len(b) for b in bases], out=indptr[1:])
        terms = int(indptr[-1])
        empty = np.zeros((0, width), np.uint64)
        table = np.concatenate([np.asarray(b, np.uint64).reshape(-1, width) for b in bases] or [empty])
        values = np.concatenate(scalars) if terms else np.zeros((0, limbs.FR_LIMBS), np.uint64)
        return self.over_table(group, table, indptr, np.arange(terms, dtype=np.int64), values)

    def over_table(
        self, group: str, table: np.ndarray, indptr: np.ndarray, index: np.ndarray, values: np.ndarray
    ) -> np.ndarray:
        """Row r: Σ values[t]·table[index[t]] over t = indptr[r] … indptr[r + 1] − 1 (capability ROW_SUMS); the
        table's points as canonical affine limbs, any shape with coordinates on the last axis."""
        F, r = self.F, self.params.fr.modulus
        degree = 1 if group == "g1" else 2
        like = F.one if degree == 1 else (F.one, F.one)
        shape = limbs.point_shape(self.curve, group)
        width = shape[-1]
        canonical = np.ascontiguousarray(table, np.uint64).reshape(-1, width)
        terms, rows = len(index), len(indptr) - 1
        kinds, digit_rows, digits = self._classify(group, values, r)
        xyzz = np.empty((4 * terms * degree, width), np.uint64)
        self._run(load_points, terms, (canonical, np.ascontiguousarray(index, np.int64)), (xyzz, like, F))
        E = endo_consts(self.curve, self.params, group)
        sums = np.empty((4 * rows * degree, width), np.uint64)
        self._run(sum_rows, rows, (xyzz, kinds, digit_rows, digits, indptr), (sums, degree, E, like, F))
        out = np.empty((2 * rows * degree, width), np.uint64)
        self._run(store_affine, rows, (sums,), (out, degree, like, F))
        return out.reshape(rows, *shape)

    def _classify(self, group: str, values: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each term's kind (×1, ×(−1), digits), its row of the digits, and the digits of the distinct other
        scalars (:func:`~cuzk.backends.cpu.endo.endo_digits`, one row each: a circuit's coefficients repeat)."""
        one, minus_one = (limbs.int_to_limbs(v, limbs.FR_LIMBS) for v in (1, r - 1))
        kinds = np.full(len(values), TIMES_DIGITS, np.int8)
        kinds[np.all(values == one, axis=1)] = TIMES_ONE
        kinds[np.all(values == minus_one, axis=1)] = TIMES_MINUS_ONE
        others = np.flatnonzero(kinds == TIMES_DIGITS)
        digit_rows = np.zeros(len(values), np.int64)
        distinct, inverse = np.unique(values[others], axis=0, return_inverse=True)
        digit_rows[others] = inverse.reshape(-1)
        return kinds, digit_rows, endo_digits(self.curve, group, limbs.limbs_to_ints(distinct) or [0])


__all__ = ["SMALL_ROWS", "RowSums", "small_rows", "sum_rows"]
