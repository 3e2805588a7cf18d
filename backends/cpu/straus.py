"""MSMs of a few points by Straus's joint double-and-add (E. G. Straus, "Addition chains of vectors", 1964; the
"simultaneous multiple point multiplication" of Hankerson, Menezes and Vanstone's "Guide to Elliptic Curve
Cryptography", here with windows of one bit over groups of points).

The points are taken in groups of :data:`GROUP`. For each group, the sums of all its subsets are made once
(2^GROUP − 1 additions). Then one chain runs from the scalars' top bit down: a doubling per bit, and per group one
addition of the subset its scalars' bits select at that bit. For n points of b-bit scalars that is b doublings and
at most b·⌈n/GROUP⌉ additions in XYZZ form, with one inversion at the end.

Pippenger's windows (:mod:`.msm`) cost about ⌈b/c⌉ field inversions for their batch-affine bucket trees, whatever n
is, which is what a handful of points pays for: the engine's assembly on a device backend runs
Σl + Σh + s·Σa + r·Σb (4 G1 points) and [β]₂ + s·[δ]₂ (2 G2 points) here (:mod:`cuzk.engine.assembly`). The result is
the same group element, so the same canonical bytes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cuzk.backends.cpu.curve import add_xyzz, double, from_affine, identity, to_affine
from cuzk.backends.cpu.field import from_mont, load, store
from cuzk.backends.cpu.jit import JIT
from cuzk.backends.cpu.msm import PreparedPoints

GROUP = 4  # points per subset table: 2^4 entries
STRAUS_BELOW = 64  # MSMs of fewer points go by Straus (the measured crossover: docs/performance.md)


@njit(**JIT)
def _entry(table: np.ndarray, k: int, like: Any) -> Any:
    """The XYZZ point k of ``table`` (elements 4k … 4k + 3)."""
    return (
        load(table, 4 * k, like),
        load(table, 4 * k + 1, like),
        load(table, 4 * k + 2, like),
        load(table, 4 * k + 3, like),
    )


@njit(**JIT)
def _put(table: np.ndarray, k: int, P: Any) -> None:
    """XYZZ point k of ``table`` ← P."""
    X, Y, ZZ, ZZZ = P
    store(table, 4 * k, X)
    store(table, 4 * k + 1, Y)
    store(table, 4 * k + 2, ZZ)
    store(table, 4 * k + 3, ZZZ)


@njit(**JIT)
def _tables(bases: np.ndarray, infinity: np.ndarray, like: Any, F: Any, table: np.ndarray) -> None:
    """table entry g·2^GROUP + mask (XYZZ elements 4k … 4k + 3) = Σ of points GROUP·g + j over the bits j of mask;
    the identity for mask 0, and points past the end or at infinity add nothing."""
    n = infinity.shape[0]
    size = 1 << GROUP
    for g in range((n + GROUP - 1) // GROUP):
        base = g * size
        _put(table, base, identity(like))
        for mask in range(1, size):
            low = mask & -mask
            j = 0
            while (1 << j) != low:
                j += 1
            acc = _entry(table, base + (mask ^ low), like)
            i = GROUP * g + j
            if i < n and not infinity[i]:
                acc = add_xyzz(acc, from_affine(load(bases, 2 * i, like), load(bases, 2 * i + 1, like), F), F)
            _put(table, base + mask, acc)


@njit(**JIT)
def _chain(scalars: np.ndarray, bits: int, table: np.ndarray, like: Any, F: Any, out: np.ndarray) -> None:
    """Σ k_i·P_i from the subset tables, from bit ``bits`` − 1 down to 0, into ``out`` as canonical affine limbs
    (the identity as zeros)."""
    n = scalars.shape[0]
    groups = (n + GROUP - 1) // GROUP
    acc = identity(like)
    for bit in range(bits - 1, -1, -1):
        acc = double(acc, F)
        limb, shift = bit >> 6, np.uint64(bit & 63)
        for g in range(groups):
            mask = 0
            for j in range(min(GROUP, n - GROUP * g)):
                mask |= int((scalars[GROUP * g + j, limb] >> shift) & np.uint64(1)) << j
            if mask:
                acc = add_xyzz(acc, _entry(table, (g << GROUP) + mask, like), F)
    x, y = to_affine(acc, F)
    store(out, 0, from_mont(x, F))
    store(out, 1, from_mont(y, F))


def msm_straus(points: PreparedPoints, scalars: np.ndarray, bits: int, pool: Any) -> np.ndarray:
    """Σ scalars[i]·points[i] as canonical affine limbs (2·d, N), identity = zeros, every scalar below 2^bits;
    ``pool.call`` runs the kernels (on the calling thread, timed as the backend's others)."""
    n, like, F, rows = len(points), points.like, points.F, points.rows
    limbs = points.mont.shape[1]
    out = np.zeros((rows, limbs), np.uint64)
    if n == 0 or bits == 0:
        return out
    table = np.zeros((4 * (((n + GROUP - 1) // GROUP) << GROUP) * rows // 2, limbs), np.uint64)
    pool.call(_tables, points.mont, points.infinity, like, F, table)
    pool.call(_chain, np.ascontiguousarray(scalars), bits, table, like, F, out)
    return out


__all__ = ["GROUP", "STRAUS_BELOW", "msm_straus"]
