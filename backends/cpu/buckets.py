"""The bucket phase of one MSM task: gather the points in bucket order, sum each bucket as an affine binary tree
with batch inversion, reduce Σ_j j·B_j by running sums. See :mod:`.msm` for the algorithm as a whole.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cuzk.backends.cpu.curve import add_affine, add_xyzz, identity, times
from cuzk.backends.cpu.field import add, dbl, inv, is_eq, is_zero, load, mul, neg, one, sqr, store, sub
from cuzk.backends.cpu.jit import JIT


@njit(**JIT)
def gather(bases: np.ndarray, order: np.ndarray, m: int, buf: np.ndarray, like: Any, F: Any) -> None:
    """buf[k] = ±bases[i] in bucket order (point k at elements 2k, 2k + 1)."""
    for k in range(m):
        v = order[k]
        i = v if v >= 0 else -v - 1
        x = load(bases, 2 * i, like)
        y = load(bases, 2 * i + 1, like)
        store(buf, 2 * k, x)
        store(buf, 2 * k + 1, y if v >= 0 else neg(y, F))


_ADD, _DOUBLE, _CANCEL = 0, 1, 2


@njit(**JIT, inline="always")  # numba inlines both passes into bucket_trees: as calls they ran slower
def classify_pairs(
    a: np.ndarray,
    seg_start: np.ndarray,
    seg_count: np.ndarray,
    nseg: int,
    den: np.ndarray,
    prefix: np.ndarray,
    kind: np.ndarray,
    like: Any,
    F: Any,
) -> tuple[Any, int]:
    """Pass 1 of a level: classify every pair (2q, 2q + 1) of every bucket (add, double, cancel), store its
    denominator (x2 − x1, or 2y for a doubling; 1 for a cancel) and the product of the denominators before it.
    Returns the product of all of them and the number of pairs."""
    acc_one = one(like, F)
    acc = acc_one
    pairs = 0
    for s in range(nseg):
        st = seg_start[s]
        for q in range(seg_count[s] // 2):
            x1 = load(a, 2 * (st + 2 * q), like)
            x2 = load(a, 2 * (st + 2 * q) + 2, like)
            if is_eq(x1, x2):
                y1 = load(a, 2 * (st + 2 * q) + 1, like)
                y2 = load(a, 2 * (st + 2 * q) + 3, like)
                if is_eq(y1, y2) and not is_zero(y1):
                    kind[pairs], d = _DOUBLE, dbl(y1, F)
                else:
                    kind[pairs], d = _CANCEL, acc_one
            else:
                kind[pairs], d = _ADD, sub(x2, x1, F)
            store(den, pairs, d)
            store(prefix, pairs, acc)
            acc = mul(acc, d, F)
            pairs += 1
    return acc, pairs


@njit(**JIT, inline="always")
def sum_pairs(
    a: np.ndarray,
    b: np.ndarray,
    seg_start: np.ndarray,
    seg_count: np.ndarray,
    nseg: int,
    den: np.ndarray,
    prefix: np.ndarray,
    kind: np.ndarray,
    acc: Any,
    pairs: int,
    like: Any,
    F: Any,
) -> None:
    """Pass 2 of a level: walk the pairs back from the last, peel each denominator's inverse off ``acc`` (the
    inverse of the product of all of them) and write each bucket's sums, then its odd point, packed to the front
    of its segment in ``b``; seg_count becomes the points each bucket holds."""
    k = pairs
    for s in range(nseg - 1, -1, -1):
        st, cnt = seg_start[s], seg_count[s]
        half = cnt // 2
        cancelled = 0
        for q in range(k - half, k):
            cancelled += kind[q] == _CANCEL
        w = st + half - cancelled + (cnt & 1) - 1
        if cnt & 1:
            store(b, 2 * w, load(a, 2 * (st + cnt - 1), like))
            store(b, 2 * w + 1, load(a, 2 * (st + cnt - 1) + 1, like))
            w -= 1
        for q in range(half - 1, -1, -1):
            k -= 1
            d = load(den, k, like)
            inv_d = mul(acc, load(prefix, k, like), F)
            acc = mul(acc, d, F)
            if kind[k] == _CANCEL:
                continue
            e = 2 * (st + 2 * q)
            x1, y1 = load(a, e, like), load(a, e + 1, like)
            if kind[k] == _ADD:
                lam = mul(sub(load(a, e + 3, like), y1, F), inv_d, F)
            else:
                xx = sqr(x1, F)
                lam = mul(add(dbl(xx, F), xx, F), inv_d, F)
            x3 = sub(sub(sqr(lam, F), x1, F), load(a, e + 2, like), F)
            store(b, 2 * w, x3)
            store(b, 2 * w + 1, sub(mul(lam, sub(x1, x3, F), F), y1, F))
            w -= 1
        seg_count[s] = half - cancelled + (cnt & 1)


@njit(**JIT)
def bucket_trees(
    src: np.ndarray,
    dst: np.ndarray,
    seg_start: np.ndarray,
    seg_count: np.ndarray,
    nseg: int,
    den: np.ndarray,
    prefix: np.ndarray,
    kind: np.ndarray,
    like: Any,
    F: Any,
) -> bool:
    """Sum every bucket's affine points pairwise, level by level, until each bucket holds at most one point.

    One level: pass 1 (:func:`classify_pairs`) walks all pairs (2q, 2q + 1) of all buckets, classifies each (add,
    double, cancel) and accumulates the prefix products of the denominators (x2 − x1, or 2y for a doubling); one
    inversion; pass 2 (:func:`sum_pairs`) walks back, peeling each denominator's inverse off the running inverse,
    and writes the sums to the other buffer. Returns True when the final points are in ``dst`` (False: in
    ``src``); seg_count is updated.
    """
    in_src = True
    while True:
        a, b = (src, dst) if in_src else (dst, src)
        acc, pairs = classify_pairs(a, seg_start, seg_count, nseg, den, prefix, kind, like, F)
        if pairs == 0:
            return not in_src
        sum_pairs(a, b, seg_start, seg_count, nseg, den, prefix, kind, inv(acc, F), pairs, like, F)
        in_src = not in_src


@njit(**JIT)
def bucket_reduction(
    buf: np.ndarray, seg_bucket: np.ndarray, seg_start: np.ndarray, seg_count: np.ndarray, nseg: int, like: Any, F: Any
) -> Any:
    """Σ_j j·B_j over the non-empty buckets (at most one affine point each), by running sums from the top bucket:
    with j_s the buckets in descending order and j_(last+1) = 0, Σ_j j·B_j = Σ_s (j_s − j_(s+1))·Σ_(s' ≤ s) B_j_s'.
    """
    running = identity(like)
    total = identity(like)
    for s in range(nseg - 1, -1, -1):
        if seg_count[s]:
            e = 2 * seg_start[s]
            running = add_affine(running, load(buf, e, like), load(buf, e + 1, like), F)
        gap = seg_bucket[s] - (seg_bucket[s - 1] if s > 0 else 0)
        total = add_xyzz(total, running if gap == 1 else times(running, gap, F), F)
    return total


__all__ = ["bucket_reduction", "bucket_trees", "classify_pairs", "gather", "sum_pairs"]
