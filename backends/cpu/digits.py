"""The signed digits of an MSM's scalars and the terms of one window sorted by bucket (:mod:`.msm`'s steps 1–2).

The digits are exactly :func:`cuzk.reference.msm.signed_digits`: window t of scalar i is its bits c·t … c·t + c − 1
plus the carry out of window t − 1, less 2^c when that sum exceeds 2^(c−1) (the carry into window t + 1); one pass
per scalar stores the carries, and each window's digits are read back from them. The sort groups a window's
non-zero digits by bucket |d| (a counting sort, or an argsort when 2^(c−1) buckets would dwarf the points).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cuzk.backends.cpu.jit import JIT

SCALAR_LIMBS = 4

# --- signed digits ----------------------------------------------------------------------------------------------


@njit(**JIT, inline="always")  # numba inlines it into each caller: as a call it cost more than its work
def window_bits(scalars: np.ndarray, i: int, t: int, c: int) -> int:
    """Bits c·t … c·t + c − 1 of scalar i (little-endian uint64 limbs; bits past the last limb are 0)."""
    bit = t * c
    limb = bit >> 6
    if limb >= SCALAR_LIMBS:
        return 0
    off = bit & 63
    v = scalars[i, limb] >> np.uint64(off)
    if off + c > 64 and limb + 1 < SCALAR_LIMBS:
        v |= scalars[i, limb + 1] << np.uint64(64 - off)
    return np.int64(v & ((np.uint64(1) << np.uint64(c)) - np.uint64(1)))


@njit(**JIT)
def signed_carries(
    scalars: np.ndarray, c: int, w: int, start: int, stop: int, carries: np.ndarray, nonzero: np.ndarray
) -> None:
    """carries[i, t] ∈ {0, 1}: the carry into window t of scalar i, for rows start … stop − 1 (t = 0 … w);
    nonzero[t] += the number of those scalars whose digit t is not zero (the work of window t).

    The recurrence of the reference's signed_digits: v = bits_t + carry_t; carry_{t+1} = [v > 2^(c−1)].
    The digit of window t is then v − carry_{t+1}·2^c (:func:`digit`): zero exactly when v is 0 or 2^c.
    """
    half, full = 1 << (c - 1), 1 << c
    for i in range(start, stop):
        carry = 0
        for t in range(w):
            carries[i, t] = carry
            v = window_bits(scalars, i, t, c) + carry
            carry = 1 if v > half else 0
            if v != 0 and v != full:
                nonzero[t] += 1
        carries[i, w] = carry


@njit(**JIT, inline="always")  # as a call, the sort's digits took 10× the time of the sort itself
def digit(scalars: np.ndarray, carries: np.ndarray, i: int, t: int, c: int) -> int:
    """d_t(k_i), the signed digit of window t of scalar i."""
    return window_bits(scalars, i, t, c) + np.int64(carries[i, t]) - (np.int64(carries[i, t + 1]) << c)


# --- one window -------------------------------------------------------------------------------------------------


@njit(**JIT)
def window_terms(
    scalars: np.ndarray,
    infinity: np.ndarray,
    carries: np.ndarray,
    t: int,
    c: int,
    start: int,
    stop: int,
    keys: np.ndarray,
    terms: np.ndarray,
) -> int:
    """The terms of window t with a non-zero digit, over the points start … stop − 1: keys[m] = |d|, terms[m] = i
    (d > 0) or −(i + 1) (d < 0); returns their number m. Without branches: the digits' signs are random, and their
    mispredictions cost this loop ten times its work."""
    m = 0
    for i in range(start, stop):
        d = digit(scalars, carries, i, t, c)
        sign = d >> 63  # −1 for a negative digit, else 0
        keys[m] = (d ^ sign) - sign
        terms[m] = i ^ sign  # i, or −(i + 1) = ~i
        m += (d != 0) & (not infinity[i])  # else written over by the next term
    return m


@njit(**JIT)
def bucket_counts(
    keys: np.ndarray, m: int, counts: np.ndarray, seg_bucket: np.ndarray, seg_start: np.ndarray, seg_count: np.ndarray
) -> int:
    """The counting sort's first half: the non-empty buckets (seg_bucket, seg_start, seg_count) of m keys, and in
    ``counts`` each bucket's first position; returns the number of buckets."""
    counts[:] = 0
    for k in range(m):
        counts[keys[k]] += 1
    nseg, pos = 0, 0
    for j in range(1, counts.shape[0]):
        cnt = counts[j]
        if cnt:
            seg_bucket[nseg], seg_start[nseg], seg_count[nseg] = j, pos, cnt
            nseg += 1
        counts[j] = pos
        pos += cnt
    return nseg


@njit(**JIT)
def scatter_terms(keys: np.ndarray, terms: np.ndarray, m: int, counts: np.ndarray, order: np.ndarray) -> None:
    """The counting sort's second half: each term to its bucket's next position in ``order``."""
    for k in range(m):
        order[counts[keys[k]]] = terms[k]
        counts[keys[k]] += 1


@njit(**JIT)
def sort_by_bucket(
    scalars: np.ndarray,
    infinity: np.ndarray,
    carries: np.ndarray,
    t: int,
    c: int,
    start: int,
    stop: int,
    order: np.ndarray,
    seg_bucket: np.ndarray,
    seg_start: np.ndarray,
    seg_count: np.ndarray,
    counts: np.ndarray,
    scratch: np.ndarray,
) -> int:
    """The non-zero digits of window t of the points start … stop − 1, grouped by bucket |d|, buckets ascending;
    returns the number of buckets.

    ``order[k]`` is i (d > 0) or −(i + 1) (d < 0) for the k-th term; bucket s holds order[seg_start[s] …] for
    seg_count[s] terms. ``counts`` (2^(c−1) + 1 entries, or empty) selects the counting sort; ``scratch`` is
    (2, stop − start) or larger. Its passes are kernels of their own: one loop holding all three ran 4.6× slower.
    """
    keys, terms = scratch[0], scratch[1]
    m = window_terms(scalars, infinity, carries, t, c, start, stop, keys, terms)
    if counts.shape[0] > 0:
        nseg = bucket_counts(keys, m, counts, seg_bucket, seg_start, seg_count)
        scatter_terms(keys, terms, m, counts, order)
        return nseg
    nseg = 0
    perm = np.argsort(keys[:m])
    for k in range(m):
        order[k] = terms[perm[k]]
        key = keys[perm[k]]
        if nseg == 0 or seg_bucket[nseg - 1] != key:
            seg_bucket[nseg], seg_start[nseg], seg_count[nseg] = key, k, 0
            nseg += 1
        seg_count[nseg - 1] += 1
    return nseg


__all__ = ["SCALAR_LIMBS", "digit", "signed_carries", "sort_by_bucket", "window_bits"]
