"""The NTT over G1/G2 points (capability POINT_NTT): a ptau's Lagrange bases, for ``prepare phase2``.

The transform of :func:`cuzk.reference.point_ntt.point_ntt`, compiled: bit reversal, then log₂ n passes of
butterflies (A, B) → (A + [w]B, A − [w]B) over points in XYZZ form (:mod:`.curve`); the inverse runs the passes
with ω⁻¹ and multiplies every output by n⁻¹ (the same points as the reference's order, which reads the forward
transform backwards). A butterfly's cost is its scalar multiplication by a 254-bit twiddle, made cheap by the
group's endomorphisms (:mod:`.endo`): GLV halves on G1, GLS quarters on G2 (~128 and ~64 doublings instead of ~254),
width-5 wNAF digits, the chain in Jacobian coordinates.

The inverse's n⁻¹ costs log₂ n + 1 multiplications instead of n: s·DFT(x) = s·DFT(x_even) ± (s·w)·DFT(x_odd), so
the scale rides on the first group of every pass (the butterflies whose A half holds point 0, already scaled): they
multiply by s·w (s·1 too) instead of w, after point 0 alone is multiplied by s. The twiddles' halves and digits
are computed once per transform for the n/2 distinct twiddles ω^t (and s·ω^t), a row each. A pass's butterflies are
independent: spread over the pool's threads, a span each. The results leave XYZZ form a chunk at a time through
one inversion (Montgomery's trick).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
from numba import njit

from cuzk.backends.cpu.curve import add_xyzz, from_affine, identity
from cuzk.backends.cpu.endo import TABLE_ROWS, endo_consts, endo_digits, times_endo
from cuzk.backends.cpu.field import from_mont, inv, is_zero, load, mul, neg, one, store, to_mont
from cuzk.backends.cpu.jit import JIT
from cuzk.backends.cpu.params import CurveParams
from cuzk.reference.curves import Curve

CHUNK = 1024  # points brought to affine form by one inversion
SERIAL_BUTTERFLIES = 64  # passes with fewer butterflies run on the calling thread


@njit(**JIT)
def store_point(arr: np.ndarray, i: int, P: Any) -> None:
    for c in range(4):
        store(arr, 4 * i + c, P[c])


@njit(**JIT)
def load_point(arr: np.ndarray, i: int, like: Any) -> Any:
    return (load(arr, 4 * i, like), load(arr, 4 * i + 1, like), load(arr, 4 * i + 2, like), load(arr, 4 * i + 3, like))


@njit(**JIT)
def load_points(
    canonical: np.ndarray, order: np.ndarray, start: int, stop: int, out: np.ndarray, like: Any, F: Any
) -> None:
    """out point i ← XYZZ Montgomery form of canonical affine point order[i] ((0, 0): the identity)."""
    for i in range(start, stop):
        x, y = load(canonical, 2 * order[i], like), load(canonical, 2 * order[i] + 1, like)
        if is_zero(x) and is_zero(y):
            store_point(out, i, identity(like))
        else:
            store_point(out, i, from_affine(to_mont(x, F), to_mont(y, F), F))


@njit(**JIT)
def butterflies(
    points: np.ndarray,
    digits: np.ndarray,
    scaled: np.ndarray,
    half: int,
    stride: int,
    start: int,
    stop: int,
    degree: int,
    E: Any,
    like: Any,
    F: Any,
) -> None:
    """Butterflies start … stop − 1 of the pass combining halves of ``half`` points: butterfly b pairs points
    i = (b // half)·2·half + b % half and i + half with twiddle ω^(t), t = (b % half)·stride (row t of ``digits``).
    The first group's butterflies (b < half) read row t of ``scaled`` instead (the twiddles times a scale s, t = 0
    included): :class:`PointNtt` passes ``digits`` again when it folds no scale in."""
    table = np.empty((TABLE_ROWS * degree, points.shape[1]), np.uint64)
    folded = scaled is not digits
    for b in range(start, stop):
        k = b % half
        i = (b // half) * 2 * half + k
        A, B = load_point(points, i, like), load_point(points, i + half, like)
        if b < half and folded:
            T = times_endo(B, scaled, k * stride, table, E, like, F)
        else:
            T = B if k == 0 else times_endo(B, digits, k * stride, table, E, like, F)
        X, Y, ZZ, ZZZ = T
        store_point(points, i, add_xyzz(A, T, F))
        store_point(points, i + half, add_xyzz(A, (X, neg(Y, F), ZZ, ZZZ), F))


@njit(**JIT)
def scale(
    points: np.ndarray, digits: np.ndarray, start: int, stop: int, degree: int, E: Any, like: Any, F: Any
) -> None:
    """Points start … stop − 1 ← [k] of themselves, k the scalar of the digits' row 0."""
    table = np.empty((TABLE_ROWS * degree, points.shape[1]), np.uint64)
    for i in range(start, stop):
        store_point(points, i, times_endo(load_point(points, i, like), digits, 0, table, E, like, F))


@njit(**JIT)
def store_affine(points: np.ndarray, start: int, stop: int, out: np.ndarray, degree: int, like: Any, F: Any) -> None:
    """out element pairs 2i, 2i + 1 ← canonical affine coordinates of point i ((0, 0) for the identity)."""
    unit = one(like, F)
    prefix = np.empty((CHUNK * degree, points.shape[1]), np.uint64)
    for lo in range(start, stop, CHUNK):
        hi = min(stop, lo + CHUNK)
        running = unit
        for i in range(lo, hi):
            ZZ, ZZZ = load(points, 4 * i + 2, like), load(points, 4 * i + 3, like)
            if not is_zero(ZZ):
                running = mul(running, mul(ZZ, ZZZ, F), F)
            store(prefix, i - lo, running)
        inverse = inv(running, F)  # 1/Π(ZZ·ZZZ) over the chunk's finite points
        for i in range(hi - 1, lo - 1, -1):
            X, Y, ZZ, ZZZ = load_point(points, i, like)
            if is_zero(ZZ):
                store(out, 2 * i, ZZ)
                store(out, 2 * i + 1, ZZ)
                continue
            t = mul(inverse, load(prefix, i - lo - 1, like) if i > lo else unit, F)  # 1/(ZZ·ZZZ)
            inverse = mul(inverse, mul(ZZ, ZZZ, F), F)
            store(out, 2 * i, from_mont(mul(X, mul(t, ZZZ, F), F), F))
            store(out, 2 * i + 1, from_mont(mul(Y, mul(t, ZZ, F), F), F))


def run_spans(pool: Any, threads: int, kernel: Any, total: int, before: tuple, after: tuple, serial: int) -> None:
    """kernel(*before, start, stop, *after) over spans of 0 … total − 1 on ``pool``: one per thread, one below
    ``serial`` (nothing for none)."""
    parts = 1 if total < serial else threads
    bounds = [total * k // parts for k in range(parts + 1)]
    spans = [(a, b) for a, b in pairwise(bounds) if a < b]
    if len(spans) == 1:
        pool.call(kernel, *before, *spans[0], *after)
    elif spans:
        pool.map(lambda span: kernel(*before, *span, *after), spans)


def bit_reversal(n: int) -> np.ndarray:
    """The indices 0 … n − 1 with their log₂ n bits read backwards (the FFT's input order)."""
    index, reversed_index = np.arange(n, dtype=np.int64), np.zeros(n, np.int64)
    for bit in range(n.bit_length() - 1):
        reversed_index = (reversed_index << 1) | ((index >> bit) & 1)
    return reversed_index


def powers(omega: int, count: int, modulus: int) -> list[int]:
    """ω^t mod r for t < count."""
    out, w = [], 1
    for _ in range(count):
        out.append(w)
        w = w * omega % modulus
    return out


class PointNtt:
    """The driver: the passes of one transform on the pool (``pool.map`` runs a pass's spans of butterflies)."""

    def __init__(self, curve: Curve, params: CurveParams, pool: Any, threads: int) -> None:
        self.curve, self.params, self.pool, self.threads = curve, params, pool, threads
        self.F = params.fq.consts

    def _run(self, kernel: Any, total: int, before: tuple, after: tuple, serial: int = SERIAL_BUTTERFLIES) -> None:
        run_spans(self.pool, self.threads, kernel, total, before, after, serial)

    def __call__(self, group: str, points: np.ndarray, omega: int, inverse: bool) -> np.ndarray:
        """The transform of (n, 2, L) or (n, 2, 2, L) canonical affine points, as the same shape."""
        n, r, F = len(points), self.params.fr.modulus, self.F
        degree = 1 if group == "g1" else 2
        like = F.one if degree == 1 else (F.one, F.one)
        canonical = np.ascontiguousarray(points, np.uint64).reshape(2 * n * degree, points.shape[-1])
        xyzz = np.empty((4 * n * degree, points.shape[-1]), np.uint64)
        self._run(load_points, n, (canonical, bit_reversal(n)), (xyzz, like, F), serial=CHUNK)
        E = endo_consts(self.curve, self.params, group)
        twiddles = powers(pow(omega, -1, r) if inverse else omega, max(1, n // 2), r)
        digits = scaled = endo_digits(self.curve, group, twiddles)
        if inverse and n > 1:  # n⁻¹ folded into the passes: point 0 first, then the first group's twiddles
            s = pow(n, -1, r)
            scaled = endo_digits(self.curve, group, [s * w % r for w in twiddles])
            scale(xyzz, scaled, 0, 1, degree, E, like, F)
        half = 1
        while half < n:
            self._run(butterflies, n // 2, (xyzz, digits, scaled, half, n // (2 * half)), (degree, E, like, F))
            half *= 2
        out = np.empty_like(canonical)
        self._run(store_affine, n, (xyzz,), (out, degree, like, F), serial=CHUNK)
        return out.reshape(points.shape)


__all__ = [
    "PointNtt",
    "bit_reversal",
    "butterflies",
    "load_point",
    "load_points",
    "powers",
    "run_spans",
    "store_affine",
    "store_point",
]
