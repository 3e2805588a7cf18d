"""What the witness makes free: zeros and ones among an MSM's scalars (z of a circuit of bits is half of each).

:func:`msm_auto` is the cpu backend's MSM entry: when zeros and ones are many it runs the ones alone, whose sum is
plain additions (one bucket, a window of one bit), and the other non-zero scalars with a window of their own, and
drops the zeros; else :func:`cuzk.backends.cpu.msm.msm` with the window chosen for the scalars; an MSM of a few
points goes by :func:`cuzk.backends.cpu.straus.msm_straus`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cuzk.backends.cpu.curve import add_affine, identity, to_affine
from cuzk.backends.cpu.field import from_mont, is_zero, load, store, to_mont
from cuzk.backends.cpu.jit import JIT
from cuzk.backends.cpu.msm import SCALAR_LIMBS, PreparedPoints, choose_window, msm, scalar_stats
from cuzk.backends.cpu.straus import STRAUS_BELOW, msm_straus

SPLIT_FRACTION = 0.125  # split off the zeros and ones when they are at least this fraction of the scalars
SPLIT_MIN = 1 << 10  # … and there are at least this many scalars (below, the extra calls cost more than they save)


@njit(**JIT)
def classify(scalars: np.ndarray, ones: np.ndarray, others: np.ndarray) -> tuple[int, int]:
    """The indices of the scalars equal to 1 into ``ones`` and of the other non-zero ones into ``others``;
    returns their counts (zeros are in neither)."""
    n1 = n2 = 0
    for i in range(scalars.shape[0]):
        high = scalars[i, 1] | scalars[i, 2] | scalars[i, 3]
        low = scalars[i, 0]
        if high == 0 and low == 0:
            continue
        if high == 0 and low == 1:
            ones[n1] = i
            n1 += 1
        else:
            others[n2] = i
            n2 += 1
    return n1, n2


@njit(**JIT)
def take(
    mont: np.ndarray,
    infinity: np.ndarray,
    scalars: np.ndarray,
    index: np.ndarray,
    rows: int,
    out_mont: np.ndarray,
    out_infinity: np.ndarray,
    out_scalars: np.ndarray,
) -> None:
    """Points and scalars index[0], index[1], … packed into the ``out_`` arrays."""
    for k in range(index.shape[0]):
        i = index[k]
        out_infinity[k] = infinity[i]
        for row in range(rows):
            for limb in range(mont.shape[1]):
                out_mont[rows * k + row, limb] = mont[rows * i + row, limb]
        for limb in range(SCALAR_LIMBS):
            out_scalars[k, limb] = scalars[i, limb]


@njit(**JIT)
def add_results(results: np.ndarray, count: int, like: Any, F: Any, out: np.ndarray) -> None:
    """out ← the sum of ``count`` canonical affine points (rows 2k, 2k + 1 of ``results`` as elements), affine."""
    acc = identity(like)
    for k in range(count):
        x, y = load(results, 2 * k, like), load(results, 2 * k + 1, like)
        if not (is_zero(x) and is_zero(y)):
            acc = add_affine(acc, to_mont(x, F), to_mont(y, F), F)
    x, y = to_affine(acc, F)
    store(out, 0, from_mont(x, F))
    store(out, 1, from_mont(y, F))


def msm_auto(points: PreparedPoints, scalars: np.ndarray, window: int | None, pool: Any, threads: int) -> np.ndarray:
    """Σ scalars[i]·points[i] (as :func:`msm`) with the window chosen for the scalars (:func:`choose_window`);
    fewer than STRAUS_BELOW points by Straus's joint double-and-add instead (:mod:`.straus`, no windows at all);
    when zeros and ones are many, in two parts: the ones alone, whose sum is plain additions (one bucket, window
    1 bit wide, so no per-window scans), and the other non-zero scalars with a window of their own; zeros in
    neither. With an explicit ``window`` everything goes through that window in one piece.

    Splitting pays most where zeros and ones are half the scalars or more (z of a circuit of bits), and a little
    where they are a quarter; below SPLIT_FRACTION it is not tried (MiMC's z, with no zeros, and H are not split).
    The classification costs one pass over the scalars. Figures: docs/performance.md.
    """
    n = len(points)
    if window is None and n < STRAUS_BELOW:  # a few points: no windows (see cuzk.backends.cpu.straus)
        bits, _ = pool.call(scalar_stats, scalars)
        return msm_straus(points, scalars, bits, pool)
    if window is None and n >= SPLIT_MIN:
        ones, others = np.empty(n, np.int64), np.empty(n, np.int64)
        n1, n2 = pool.call(classify, scalars, ones, others)
        if n - n2 >= SPLIT_FRACTION * n:
            out = np.zeros((points.rows, points.mont.shape[1]), np.uint64)
            parts = [
                _subset_msm(points, scalars, index[:k], pool, threads) for index, k in ((ones, n1), (others, n2)) if k
            ]
            if parts:
                pool.call(add_results, np.concatenate(parts), len(parts), points.like, points.F, out)
            return out
    c, w = choose_window(scalars, threads, window, pool)
    return msm(points, scalars, c, w, pool, threads)


def _subset_msm(points: PreparedPoints, scalars: np.ndarray, index: np.ndarray, pool: Any, threads: int) -> np.ndarray:
    k, rows = len(index), points.rows
    mont = np.empty((k * rows, points.mont.shape[1]), np.uint64)
    infinity = np.empty(k, np.bool_)
    picked = np.empty((k, SCALAR_LIMBS), np.uint64)
    pool.call(take, points.mont, points.infinity, scalars, index, rows, mont, infinity, picked)
    sub = PreparedPoints(mont, infinity, rows, points.like, points.F)
    c, w = choose_window(picked, threads, None, pool)
    return msm(sub, picked, c, w, pool, threads)


__all__ = ["SPLIT_FRACTION", "SPLIT_MIN", "add_results", "classify", "msm_auto", "take"]
