"""Multi-scalar multiplication: the reference's signed-digit Pippenger, with batch-affine bucket sums, on all cores.

The digits are exactly :func:`cuzk.reference.msm.signed_digits` (window c, W = window_count(b, c) windows,
−2^(c−1) < d ≤ 2^(c−1)); the result, an element of the group returned in canonical affine form, is the
reference's bit for bit whatever the window. The work is cut into tasks (:func:`plan`): a window t over a range of
points, windows with no non-zero digit skipped, busy ones split so that every thread gets work. Per task:

1. the digits d_t(k_i) of its points; a zero digit or an infinity base contributes nothing and is dropped;
2. the (point, bucket |d|) pairs sorted by bucket (a counting sort; an argsort when 2^(c−1) buckets would dwarf
   the points, so any window up to 32 bits works; steps 1–2 are :mod:`.digits`), the points gathered in that
   order, negated where d < 0;
3. each bucket summed as a binary tree in affine coordinates, all buckets' pairs of one tree level at once: a
   level costs one field inversion for all its additions (Montgomery's batch inversion) and 6 multiplications per
   addition, against 10 for an XYZZ mixed addition. P + P (doubling, λ = 3x²/2y) and P + (−P) (the pair vanishes)
   are detected per pair;
4. Σ_j j·B_j by running sums over the non-empty buckets, high to low: running += B_j (mixed addition),
   total += (j − j_next)·running, so empty buckets cost nothing and windows wider than log2(n) stay cheap.

Finally Σ_t 2^(c·t)·S_t by Horner's rule (c doublings per window) and one inversion to affine.

Batch-affine bucket trees beat XYZZ mixed additions into an array of buckets (no sort) on both groups, by less
on G2, where Fq2 products make the saved multiplications relatively cheaper (docs/performance.md). Threads: nogil
kernels on a thread pool, as fast as ``numba.prange`` over the windows and safe whatever numba's threading layer
when several Python threads call at once (the workqueue layer aborts on concurrent use).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cuzk.backends.cpu.buckets import bucket_reduction, bucket_trees, gather
from cuzk.backends.cpu.curve import add_xyzz, double, identity, to_affine
from cuzk.backends.cpu.digits import SCALAR_LIMBS, signed_carries, sort_by_bucket
from cuzk.backends.cpu.field import (
    from_mont,
    is_zero,
    load,
    store,
    to_mont,
)
from cuzk.backends.cpu.jit import JIT
from cuzk.reference.msm import window_count

MAX_TASK_POINTS = 1 << 18  # a task's buffers: ~3·2^18 points (BLS12-381 G2: 150 MiB)


@njit(**JIT)
def window_sums(
    bases: np.ndarray,
    infinity: np.ndarray,
    scalars: np.ndarray,
    carries: np.ndarray,
    c: int,
    tasks: np.ndarray,
    sums: np.ndarray,
    like: Any,
    F: Any,
) -> None:
    """For each task (k, t, start, stop) of ``tasks``: Σ_i d_t(k_i)·P_i over the points start … stop − 1, stored
    as XYZZ elements 4k … 4k + 3 of ``sums``."""
    longest = 1
    for row in range(tasks.shape[0]):
        longest = max(longest, tasks[row, 3] - tasks[row, 2])
    half = 1 << (c - 1)
    counts = np.empty(half + 1 if half <= 4 * longest + 4096 else 0, np.int64)
    order = np.empty(longest, np.int64)
    seg_bucket = np.empty(longest, np.int64)
    seg_start = np.empty(longest, np.int64)
    seg_count = np.empty(longest, np.int64)
    scratch = np.empty((2, longest), np.int64)
    rows = bases.shape[0] // infinity.shape[0]  # limb rows per point: 2 (G1) or 4 (G2)
    src = np.empty((longest * rows, bases.shape[1]), np.uint64)
    dst = np.empty_like(src)
    den = np.empty(((longest // 2 + 1) * rows // 2, bases.shape[1]), np.uint64)
    prefix = np.empty_like(den)
    kind = np.empty(longest // 2 + 1, np.uint8)
    for row in range(tasks.shape[0]):
        k, t, first, last = tasks[row, 0], tasks[row, 1], tasks[row, 2], tasks[row, 3]
        nseg = sort_by_bucket(
            scalars, infinity, carries, t, c, first, last, order, seg_bucket, seg_start, seg_count, counts, scratch
        )
        m = 0 if nseg == 0 else seg_start[nseg - 1] + seg_count[nseg - 1]
        gather(bases, order, m, src, like, F)
        in_dst = bucket_trees(src, dst, seg_start, seg_count, nseg, den, prefix, kind, like, F)
        S = bucket_reduction(dst if in_dst else src, seg_bucket, seg_start, seg_count, nseg, like, F)
        for j in range(4):
            store(sums, 4 * k + j, S[j])


@njit(**JIT)
def combine(sums: np.ndarray, first_task: np.ndarray, c: int, like: Any, F: Any, out: np.ndarray) -> None:
    """Σ_t 2^(c·t)·S_t by Horner's rule, S_t the sum of the tasks first_task[t] … first_task[t + 1] − 1 of window t;
    written to ``out`` as canonical affine limbs (the identity as zeros)."""
    acc = identity(like)
    for t in range(first_task.shape[0] - 2, -1, -1):
        for _ in range(c):
            acc = double(acc, F)
        for k in range(first_task[t], first_task[t + 1]):
            S = (
                load(sums, 4 * k, like),
                load(sums, 4 * k + 1, like),
                load(sums, 4 * k + 2, like),
                load(sums, 4 * k + 3, like),
            )
            acc = add_xyzz(acc, S, F)
    x, y = to_affine(acc, F)
    store(out, 0, from_mont(x, F))
    store(out, 1, from_mont(y, F))


# --- bases ------------------------------------------------------------------------------------------------------


@njit(**JIT)
def bases_to_mont(
    canonical: np.ndarray, start: int, stop: int, out: np.ndarray, infinity: np.ndarray, like: Any, F: Any
) -> None:
    """Points start … stop − 1 into Montgomery form; infinity[i] marks the all-zero rows (the identity)."""
    for i in range(start, stop):
        x = load(canonical, 2 * i, like)
        y = load(canonical, 2 * i + 1, like)
        infinity[i] = is_zero(x) and is_zero(y)
        store(out, 2 * i, to_mont(x, F))
        store(out, 2 * i + 1, to_mont(y, F))


# --- the driver -------------------------------------------------------------------------------------------------


REDUCTION_COST = 4.4  # bucket-tree terms that one bucket of the reduction costs: by measurement (docs/performance.md)


def window_for_threads(n: int, bits: int = 255, threads: int = 1) -> int:
    """The window c minimizing the modelled cost ⌈W(c)/threads⌉ · (n + REDUCTION_COST · 2^(c−1)) for n terms.

    Per window, the bucket trees and the sort cost a fixed time per term and the reduction REDUCTION_COST times
    that per bucket; windows are dealt to the threads whole, so an odd W wastes half a round on 2 threads. The
    model's optima match the measured ones within noise (docs/performance.md).
    """
    if n <= 1:
        return 1

    def cost(c: int) -> float:
        return -(-window_count(bits, c) // threads) * (n + REDUCTION_COST * 2 ** (c - 1))

    return min(range(1, 25), key=cost)


class PreparedPoints:
    """Bases in Montgomery form, as rows of field elements: point i is limb rows rows·i … rows·i + rows − 1
    (rows = 2 for G1, 4 for G2), with the mask of the identity rows. What CpuBackend.prepare_bases keeps."""

    def __init__(self, mont: np.ndarray, infinity: np.ndarray, rows: int, like: Any, F: Any) -> None:
        self.mont, self.infinity, self.rows, self.like, self.F = mont, infinity, rows, like, F

    def __len__(self) -> int:
        return len(self.infinity)


SERIAL_BELOW = 32  # fewer points run on the calling thread: no hand-off, no queueing behind another call's tasks


def _on_threads(pool: Any, n: int, threads: int) -> tuple[Any, int]:
    """(a ``map(fn, items)`` and the thread count) for work on n points: the pool's, or the calling thread's
    (``pool.call`` per item, timed alike; a pool without ``call`` always maps) when n < SERIAL_BELOW."""
    call = getattr(pool, "call", None)
    if n >= SERIAL_BELOW or call is None:
        return pool.map, threads
    return (lambda fn, items: [call(fn, item) for item in items]), 1


def prepare(canonical: np.ndarray, like: Any, F: Any, pool: Any, threads: int) -> PreparedPoints:
    """Canonical affine limbs (n, 2, L) or (n, 2, 2, L) → :class:`PreparedPoints` (``pool.map`` runs the spans)."""
    n, limbs = canonical.shape[0], canonical.shape[-1]
    flat = np.ascontiguousarray(canonical).reshape(-1, limbs)
    mont = np.empty_like(flat)
    infinity = np.empty(n, np.bool_)
    run, threads = _on_threads(pool, n, threads)
    list(run(lambda ab: bases_to_mont(flat, ab[0], ab[1], mont, infinity, like, F), _spans(n, threads)))
    return PreparedPoints(mont, infinity, int(np.prod(canonical.shape[1:-1])), like, F)


def _spans(n: int, parts: int) -> list[tuple[int, int]]:
    bounds = [n * k // parts for k in range(parts + 1)]
    return [(bounds[k], bounds[k + 1]) for k in range(parts) if bounds[k] < bounds[k + 1]]


def plan(nonzero: np.ndarray, n: int, threads: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Tasks (k, t, start, stop) — window t over the points start … stop − 1 — and their deal to the threads.

    The work of window t is its count of non-zero digits. A window holding more than 1/(2·threads) of the total is
    split into point ranges (its partial sums add up to S_t: S_t is linear in the points), so that small scalars,
    whose digits all fall in the low windows, still use every core; so is one of more than MAX_TASK_POINTS points,
    which bounds a thread's buffers. Tasks go largest first to the least loaded thread. Tasks are numbered window
    by window (k ascending with t).
    """
    total = int(nonzero.sum())
    share = max(total / (2 * threads), 1.0)
    at_least = -(-n // MAX_TASK_POINTS)
    rows = []
    for t, work in enumerate(nonzero.tolist()):
        if work:  # an empty window adds nothing (S_t = O): no task
            parts = max(at_least, min(2 * threads, int(work // share)))
            rows += [(t, n * j // parts, n * (j + 1) // parts, work / parts) for j in range(parts)]
    tasks = np.array([(k, t, a, b) for k, (t, a, b, _) in enumerate(rows)], np.int64).reshape(-1, 4)
    loads = [0.0] * threads
    deals: list[list[int]] = [[] for _ in range(threads)]
    for k in sorted(range(len(rows)), key=lambda k: -rows[k][3]):
        least = loads.index(min(loads))
        loads[least] += rows[k][3] + 1  # + 1: every task has a fixed cost (its reduction)
        deals[least].append(k)
    return tasks, [tasks[d] for d in deals if d]


@njit(**JIT)
def scalar_stats(scalars: np.ndarray) -> tuple[int, int]:
    """(the bit length of the largest scalar, the number of non-zero scalars) of (n, 4) limbs."""
    top = np.zeros(SCALAR_LIMBS, np.uint64)
    count = 0
    for i in range(scalars.shape[0]):
        nonzero = False
        for k in range(SCALAR_LIMBS):
            v = scalars[i, k]
            if v != 0:
                top[k] |= v
                nonzero = True
        if nonzero:
            count += 1
    bits = 0
    for k in range(SCALAR_LIMBS - 1, -1, -1):
        if top[k] != 0:
            v, b = top[k], 0
            while v != 0:
                v >>= np.uint64(1)
                b += 1
            bits = 64 * k + b
            break
    return bits, count


def choose_window(scalars: np.ndarray, threads: int, window: int | None, pool: Any) -> tuple[int, int]:
    """(c, W) for these scalars: the window ``window`` or the modelled best for the number of non-zero scalars,
    and the windows their largest bit length needs.

    What the witness makes free (issue 6): a zero scalar has no non-zero digit and is never sorted, gathered or
    added; a scalar 1 is one affine addition into bucket 1 of window 0, i.e. a plain addition. What remained were
    the per-window scans of every scalar over all ⌈256/c⌉ windows, and a window chosen for n terms when most are
    zero: both are sized here by the scalars as they are. Windows past the largest bit length hold no digit (the
    signed-digit carry fits, since W = window_count(bits, c)), so the sum is the same point, bit for bit.
    """
    bits, terms = pool.call(scalar_stats, scalars)
    bits = max(bits, 1)
    c = window_for_threads(terms, bits, threads) if window is None else window
    return c, window_count(bits, c)


def msm(points: PreparedPoints, scalars: np.ndarray, c: int, w: int, pool: Any, threads: int) -> np.ndarray:
    """Σ scalars[i]·points[i] as canonical affine limbs (2·d, N), identity = zeros; c the window, w the windows
    (every scalar < 2^(c·w − 1), see :func:`choose_window`)."""
    n, like, F, rows = len(points), points.like, points.F, points.rows
    limbs = points.mont.shape[1]
    out = np.zeros((rows, limbs), np.uint64)
    if n == 0:
        return out
    scalars = np.ascontiguousarray(scalars)
    carries = np.empty((n, w + 1), np.uint8)
    run, threads = _on_threads(pool, n, threads)
    spans = _spans(n, threads)
    nonzero = np.zeros((len(spans), w), np.int64)
    list(run(lambda j: signed_carries(scalars, c, w, *spans[j], carries, nonzero[j]), range(len(spans))))
    tasks, deals = plan(nonzero.sum(axis=0), n, threads)
    sums = np.zeros((4 * len(tasks) * rows // 2, limbs), np.uint64)
    args = (points.mont, points.infinity, scalars, carries, c)
    list(run(lambda mine: window_sums(*args, mine, sums, like, F), deals))
    first_task = np.searchsorted(tasks[:, 1], np.arange(w + 1)).astype(np.int64)
    pool.call(combine, sums, first_task, c, like, F, out)
    return out
