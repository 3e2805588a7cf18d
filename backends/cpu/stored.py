"""Values as iden3 files store them (.zkey, .ptau), made canonical on every core, and back: the MONTGOMERY_FORM
capability.

snarkjs writes an element a of F_p as the little-endian words of a·R mod p with R = 2^(64·N) — exactly the form
the cpu kernels compute in (:mod:`.params`). So a point section is, word for word, an array of points in this
backend's Montgomery form: checking a point is the curve equation y² = x³ + b evaluated there (b in Montgomery
form, both sides carrying one R), and leaving the form is one Montgomery reduction per coordinate. A coefficient of
the key's section 4 is stored as c·R² (snarkjs's Montgomery form of c·R): two reductions give c.

The numpy decoder of :mod:`cuzk.formats.points` is the oracle these kernels are tested against; it does the same
with 32-bit limbs in numpy passes, tens of times slower.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
from numba import njit

from cuzk.backends import limbs
from cuzk.backends.cpu.field import add, from_mont, is_eq, is_zero, load, mul, sqr, store, to_mont
from cuzk.backends.cpu.jit import JIT
from cuzk.backends.cpu.msm import PreparedPoints
from cuzk.backends.cpu.params import CurveParams, limb_tuple
from cuzk.reference.curves import Curve

NOT_REDUCED, NOT_ON_CURVE = 0, 1  # the problems a point can have, in the order they are checked


@njit(**JIT)
def first_unreduced(words: np.ndarray, p: np.ndarray, start: int, stop: int) -> int:
    """The first row in start … stop − 1 of (rows, N) words that is not below p, or −1."""
    n = words.shape[1]
    for row in range(start, stop):
        k = n - 1
        while k > 0 and words[row, k] == p[k]:
            k -= 1
        if words[row, k] >= p[k]:  # the top differing word (or the last, when every word above equals p's)
            return row
    return -1


@njit(**JIT)
def points_to_canonical(
    words: np.ndarray, out: np.ndarray, b: Any, check: bool, start: int, stop: int, like: Any, F: Any
) -> int:
    """Points start … stop − 1 (x at element 2i, y at 2i + 1, Montgomery form, every word below p) into canonical
    ``out``; with ``check`` each finite point must satisfy y² = x³ + b. Returns the first point that does not, or −1.
    All-zero points (snarkjs's point at infinity) stay all zero, the backends' identity."""
    for i in range(start, stop):
        x = load(words, 2 * i, like)
        y = load(words, 2 * i + 1, like)
        if is_zero(x) and is_zero(y):
            store(out, 2 * i, x)
            store(out, 2 * i + 1, y)
            continue
        if check and not is_eq(sqr(y, F), add(mul(sqr(x, F), x, F), b, F)):
            return i
        store(out, 2 * i, from_mont(x, F))
        store(out, 2 * i + 1, from_mont(y, F))
    return -1


@njit(**JIT)
def points_checked(
    words: np.ndarray, infinity: np.ndarray, b: Any, check: bool, start: int, stop: int, like: Any, F: Any
) -> int:
    """Points start … stop − 1 of ``words`` kept in Montgomery form (every word below p): infinity[i] marks the
    all-zero ones; with ``check`` each finite point must satisfy y² = x³ + b. Returns the first that does not, or
    −1. The check of :func:`points_to_canonical`, without leaving the form the MSM kernels compute in."""
    for i in range(start, stop):
        x = load(words, 2 * i, like)
        y = load(words, 2 * i + 1, like)
        infinity[i] = is_zero(x) and is_zero(y)
        if check and not infinity[i] and not is_eq(sqr(y, F), add(mul(sqr(x, F), x, F), b, F)):
            return i
    return -1


@njit(**JIT)
def scalars_to_canonical(words: np.ndarray, out: np.ndarray, reductions: int, start: int, stop: int, F: Any) -> None:
    """out[k] = words[k]·R^(−reductions) for rows start … stop − 1 (every word below p)."""
    like = F.one
    for k in range(start, stop):
        v = load(words, k, like)
        for _ in range(reductions):
            v = from_mont(v, F)
        store(out, k, v)


@njit(**JIT)
def canonical_to_stored(words: np.ndarray, out: np.ndarray, powers: int, start: int, stop: int, F: Any) -> None:
    """out[k] = words[k]·R^powers for rows start … stop − 1 (every word below p): how a file stores them."""
    like = F.one
    for k in range(start, stop):
        v = load(words, k, like)
        for _ in range(powers):
            v = to_mont(v, F)
        store(out, k, v)


# --- the drivers: rows cut into spans, one kernel call per span on the backend's pool -----------------------------

SPAN_ROWS = 1 << 13  # rows per kernel call: small enough to share out, large enough to hide the call (~0.1 ms)


def _spans(rows: int, threads: int) -> list[tuple[int, int]]:
    parts = max(4 * threads, -(-rows // SPAN_ROWS)) if rows else 1
    return list(pairwise(np.linspace(0, rows, min(parts, max(rows, 1)) + 1).astype(np.int64).tolist()))


def _first(found: list[int]) -> int:
    bad = [i for i in found if i >= 0]
    return min(bad) if bad else -1


def _field_of(curve: Curve, params: CurveParams, group: str) -> tuple[Any, Any, Any, int]:
    """(F, an element of the group's coordinate field, b in Montgomery form, words per point) of ``group``."""
    fq = params.fq
    F, b_value = fq.consts, limbs.group_of(curve, group).b
    if group == "g1":
        return F, F.one, fq.mont_tuple(b_value.value), 2
    return F, (F.one, F.one), (fq.mont_tuple(b_value.c0.value), fq.mont_tuple(b_value.c1.value)), 4


def prepare_stored(
    curve: Curve, params: CurveParams, group: str, stored: np.ndarray, check: bool, pool: Any, threads: int
) -> tuple[PreparedPoints, int]:
    """A section's rows as the MSM's prepared bases (the STORED_BASES capability): (the points, their words in
    Montgomery form as snarkjs stores them and the kernels compute, with the mask of the points at infinity; the
    index of the first bad point or −1). Every word is checked below p and, with ``check``, every
    point on its curve, as :func:`points_from_montgomery` does, which the bad point's error then names; nothing is
    converted, so that the round trip through canonical limbs (out of the form here, back into it to prepare the
    bases) is not made."""
    n, fq = len(stored), params.fq
    F, like, b, per_point = _field_of(curve, params, group)
    words = np.empty((n * per_point, fq.n), np.uint64)  # aligned (a file's sections are not 8-byte aligned)
    infinity = np.empty(n, np.bool_)
    p = np.array(limb_tuple(fq.modulus, fq.n), dtype=np.uint64)

    def span(bounds: tuple[int, int]) -> int:
        lo, hi = bounds
        words[lo * per_point : hi * per_point].view(np.uint8).reshape(hi - lo, -1)[:] = stored[lo:hi]
        unreduced = first_unreduced(words, p, lo * per_point, hi * per_point)
        stop = (unreduced // per_point) if unreduced >= 0 else hi  # the points before the first unreduced one
        off = points_checked(words, infinity, b, check, lo, stop, like, F)
        return off if off >= 0 else stop if unreduced >= 0 else -1

    bad = _first(list(pool.map(span, _spans(n, threads))))
    return PreparedPoints(words, infinity, per_point, like, F), bad


def points_from_montgomery(
    curve: Curve, params: CurveParams, group: str, stored: np.ndarray, check: bool, pool: Any, threads: int
) -> tuple[np.ndarray, int, str]:
    """See the MONTGOMERY_FORM capability. Each span of points is copied into an aligned buffer of its own (a file's
    sections are not 8-byte aligned), so the copies run on the pool too and the extra memory is a span per thread."""
    n, fq = len(stored), params.fq
    shape = limbs.point_shape(curve, group)
    F, like, b, per_point = _field_of(curve, params, group)
    out = np.empty((n * per_point, fq.n), np.uint64)
    p = np.array(limb_tuple(fq.modulus, fq.n), dtype=np.uint64)

    def span(bounds: tuple[int, int]) -> tuple[int, int]:
        lo, hi = bounds
        words = np.empty(((hi - lo) * per_point, fq.n), np.uint64)
        words.view(np.uint8).reshape(hi - lo, -1)[:] = stored[lo:hi]
        unreduced = first_unreduced(words, p, 0, len(words))
        stop = unreduced // per_point if unreduced >= 0 else hi - lo  # the points before the first unreduced one
        off = points_to_canonical(words, out[lo * per_point : hi * per_point], b, check, 0, stop, like, F)
        if off >= 0:
            return lo + off, NOT_ON_CURVE
        return (lo + stop, NOT_REDUCED) if unreduced >= 0 else (-1, -1)

    found = [r for r in pool.map(span, _spans(n, threads)) if r[0] >= 0]
    if not found:
        return out.reshape(n, *shape), -1, ""
    index, problem = found[0]  # spans in order: the lowest index
    group_name = limbs.group_of(curve, group).name
    reason = f"a coordinate is not reduced modulo q of {curve.name}" if problem == NOT_REDUCED else ""
    return out.reshape(n, *shape), index, reason or f"the point is not on {group_name}"


def scalars_from_montgomery(
    params: CurveParams, stored: np.ndarray, reductions: int, pool: Any, threads: int
) -> tuple[np.ndarray, int]:
    """See the MONTGOMERY_FORM capability."""
    fr, words = params.fr, np.ascontiguousarray(stored)
    p = np.array(limb_tuple(fr.modulus, fr.n), dtype=np.uint64)
    unreduced = _first(pool.map(lambda span: first_unreduced(words, p, *span), _spans(len(words), threads)))
    if unreduced >= 0:
        return np.zeros_like(words), unreduced
    out, F = np.empty_like(words), fr.consts
    pool.map(
        lambda span: scalars_to_canonical(words, out, reductions, span[0], span[1], F), _spans(len(words), threads)
    )
    return out, -1


def field_to_montgomery(field: Any, values: np.ndarray, powers: int, pool: Any, threads: int) -> np.ndarray:
    """See the MONTGOMERY_FORM capability: ``field`` the parameters of Fr or Fq (:mod:`.params`)."""
    words, F = np.ascontiguousarray(values, np.uint64), field.consts
    out = np.empty_like(words)
    pool.map(lambda span: canonical_to_stored(words, out, powers, span[0], span[1], F), _spans(len(words), threads))
    return out


__all__ = [
    "NOT_ON_CURVE",
    "NOT_REDUCED",
    "canonical_to_stored",
    "field_to_montgomery",
    "first_unreduced",
    "points_checked",
    "points_from_montgomery",
    "points_to_canonical",
    "prepare_stored",
    "scalars_from_montgomery",
    "scalars_to_canonical",
]
