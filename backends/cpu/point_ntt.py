"""The NTT over G1/G2 points (capability POINT_NTT): a ptau's Lagrange bases, for ``prepare phase2``.

The transform of :func:`cuzk.reference.point_ntt.point_ntt`, compiled: bit reversal, then log₂ n passes of
butterflies (A, B) → (A + [w]B, A − [w]B) over points in XYZZ form (:mod:`.curve`); the inverse runs the passes
with ω⁻¹ and multiplies every output by n⁻¹ (the same points as the reference's order, which reads the forward
transform backwards). A butterfly's cost is its scalar multiplication by a 254-bit twiddle, made cheap three times:

- GLV (:mod:`.glv`): w = w₁ + w₂·λ with |w₁|, |w₂| < 2^128 and [w]B = [w₁]B + [w₂]φ(B), φ(x, y) = (β·x, y): one
  chain of ~128 doublings for both halves instead of ~254;
- width-5 wNAF (Solinas) of each half: odd digits |d| < 16 with at least 4 zeros after each, so ~26 additions per
  half, from the odd multiples B, 3B, …, 15B (φ of one is one multiplication by β);
- the chain in Jacobian coordinates: a doubling costs 2M + 5S there against 6M + 3S in XYZZ form, and the table's
  points keep their Z² and Z³ for the additions.

The inverse's n⁻¹ costs log₂ n + 1 multiplications instead of n: s·DFT(x) = s·DFT(x_even) ± (s·w)·DFT(x_odd), so
the scale rides on the first group of every pass (the butterflies whose A half holds point 0, already scaled): they
multiply by s·w (s·1 too) instead of w, after point 0 alone is multiplied by s. The twiddles' halves and digits
are computed once per transform for the n/2 distinct twiddles ω^t (and s·ω^t). A pass's butterflies are
independent: spread over the pool's threads, a span each. The results leave XYZZ form a chunk at a time through
one inversion (Montgomery's trick).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
from numba import njit

from cuzk.backends import limbs
from cuzk.backends.cpu.curve import (
    add_cached,
    add_xyzz,
    cached,
    double_jacobian,
    from_affine,
    identity,
    jacobian_from_xyzz,
    xyzz_from_jacobian,
)
from cuzk.backends.cpu.field import from_mont, inv, is_zero, load, mul, neg, one, store, to_mont, zero
from cuzk.backends.cpu.glv import Glv, glv
from cuzk.backends.cpu.jit import JIT
from cuzk.backends.cpu.params import CurveParams, limb_tuple
from cuzk.reference.curves import Curve

WNAF_WIDTH = 5
GLV_DIGITS = 136  # a GLV half below 2^128 has at most 129 wNAF digits
ODD_MULTIPLES = 1 << (WNAF_WIDTH - 2)  # P, 3P, …, 15P
CACHED = 5  # elements of a point in times_glv's table: Jacobian X, Y, Z and Z², Z³
TABLE_ROWS = 2 * ODD_MULTIPLES * CACHED  # elements of times_glv's scratch table (rows: times the degree)
CHUNK = 1024  # points brought to affine form by one inversion
SERIAL_BUTTERFLIES = 64  # passes with fewer butterflies run on the calling thread


@njit(**JIT)
def wnaf_digits(scalars: np.ndarray, out: np.ndarray) -> None:
    """out[i, j] ← digit j (weight 2^j) of the width-5 NAF of scalar i (4 little-endian uint64 limbs, < 2^255)."""
    one64 = np.uint64(1)
    mask = np.uint64((1 << WNAF_WIDTH) - 1)
    for i in range(scalars.shape[0]):
        w0, w1, w2, w3 = scalars[i, 0], scalars[i, 1], scalars[i, 2], scalars[i, 3]
        j = 0
        while (w0 | w1 | w2 | w3) != 0:
            d = 0
            if w0 & one64:
                d = np.int64(w0 & mask)
                if d >= 1 << (WNAF_WIDTH - 1):
                    d -= 1 << WNAF_WIDTH
                if d > 0:  # k − d: borrow through the limbs
                    s = np.uint64(d)
                    b0 = w0 < s
                    w0 = w0 - s
                    b1 = b0 and w1 == 0
                    w1 = w1 - np.uint64(b0)
                    b2 = b1 and w2 == 0
                    w2 = w2 - np.uint64(b1)
                    w3 = w3 - np.uint64(b2)
                else:  # k + |d|: carry through the limbs
                    s = np.uint64(-d)
                    w0 = w0 + s
                    c0 = w0 < s
                    w1 = w1 + np.uint64(c0)
                    c1 = c0 and w1 == 0
                    w2 = w2 + np.uint64(c1)
                    c2 = c1 and w2 == 0
                    w3 = w3 + np.uint64(c2)
            out[i, j] = d
            w0 = (w0 >> one64) | (w1 << np.uint64(63))
            w1 = (w1 >> one64) | (w2 << np.uint64(63))
            w2 = (w2 >> one64) | (w3 << np.uint64(63))
            w3 = w3 >> one64
            j += 1


@njit(**JIT)
def store_point(arr: np.ndarray, i: int, P: Any) -> None:
    for c in range(4):
        store(arr, 4 * i + c, P[c])


@njit(**JIT)
def load_point(arr: np.ndarray, i: int, like: Any) -> Any:
    return (load(arr, 4 * i, like), load(arr, 4 * i + 1, like), load(arr, 4 * i + 2, like), load(arr, 4 * i + 3, like))


@njit(**JIT)
def store_cached(arr: np.ndarray, i: int, P: Any) -> None:
    for c in range(CACHED):
        store(arr, CACHED * i + c, P[c])


@njit(**JIT)
def load_cached(arr: np.ndarray, i: int, like: Any) -> Any:
    k = CACHED * i
    return (load(arr, k, like), load(arr, k + 1, like), load(arr, k + 2, like), load(arr, k + 3, like),
            load(arr, k + 4, like))  # fmt: skip


@njit(**JIT)
def times_glv(P: Any, d1: np.ndarray, d2: np.ndarray, row: int, table: np.ndarray, beta: Any, like: Any, F: Any) -> Any:
    """[k]P = [k₁]P + [k₂]φ(P) for the GLV halves of ``d1[row]``, ``d2[row]`` (signed width-5 NAF digits), P and
    the result in XYZZ form, the chain in Jacobian (cheaper doublings); ``table`` (TABLE_ROWS elements) is scratch
    for P, 3P, …, 15P and their images φ(P), φ(3P), …, φ(15P), with their Z², Z³."""
    J = jacobian_from_xyzz(P, F)
    twice = cached(double_jacobian(J, F), F)
    acc = J
    for m in range(ODD_MULTIPLES):
        if m > 0:
            acc = add_cached(acc, twice, F)
        X, Y, Z, ZZ, ZZZ = cached(acc, F)
        store_cached(table, m, (X, Y, Z, ZZ, ZZZ))
        store_cached(table, ODD_MULTIPLES + m, (mul(X, beta, F), Y, Z, ZZ, ZZZ))
    top = d1.shape[1] - 1
    while top >= 0 and d1[row, top] == 0 and d2[row, top] == 0:
        top -= 1
    z = zero(like)
    result = (z, z, z)
    for j in range(top, -1, -1):
        if j < top:
            result = double_jacobian(result, F)
        for half in range(2):
            d = np.int64(d1[row, j]) if half == 0 else np.int64(d2[row, j])
            if d != 0:
                X, Y, Z, ZZ, ZZZ = load_cached(table, half * ODD_MULTIPLES + ((abs(d) - 1) >> 1), like)
                result = add_cached(result, (X, neg(Y, F) if d < 0 else Y, Z, ZZ, ZZZ), F)
    return xyzz_from_jacobian(result, F)


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
    d1: np.ndarray,
    d2: np.ndarray,
    s1: np.ndarray,
    s2: np.ndarray,
    half: int,
    stride: int,
    start: int,
    stop: int,
    degree: int,
    beta: Any,
    like: Any,
    F: Any,
) -> None:
    """Butterflies start … stop − 1 of the pass combining halves of ``half`` points: butterfly b pairs points
    i = (b // half)·2·half + b % half and i + half with twiddle ω^(t), t = (b % half)·stride (row t of the digits).
    The first group's butterflies (b < half) read row t of ``s1``, ``s2`` instead (the twiddles times a scale s,
    t = 0 included): :class:`PointNtt` passes d1, d2 again when it folds no scale in."""
    table = np.empty((TABLE_ROWS * degree, points.shape[1]), np.uint64)
    folded = s1 is not d1
    for b in range(start, stop):
        k = b % half
        i = (b // half) * 2 * half + k
        A, B = load_point(points, i, like), load_point(points, i + half, like)
        if b < half and folded:
            T = times_glv(B, s1, s2, k * stride, table, beta, like, F)
        else:
            T = B if k == 0 else times_glv(B, d1, d2, k * stride, table, beta, like, F)
        X, Y, ZZ, ZZZ = T
        store_point(points, i, add_xyzz(A, T, F))
        store_point(points, i + half, add_xyzz(A, (X, neg(Y, F), ZZ, ZZZ), F))


@njit(**JIT)
def scale(
    points: np.ndarray, d1: np.ndarray, d2: np.ndarray, start: int, stop: int, degree: int, beta: Any, like: Any, F: Any
) -> None:
    """Points start … stop − 1 ← [k] of themselves, k the scalar of the digits' row 0."""
    table = np.empty((TABLE_ROWS * degree, points.shape[1]), np.uint64)
    for i in range(start, stop):
        store_point(points, i, times_glv(load_point(points, i, like), d1, d2, 0, table, beta, like, F))


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


def glv_digits(split: Glv, scalars: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The signed width-5 NAF digits (len(scalars), 136) int8 of the GLV halves k₁, k₂ of each scalar."""
    halves = [split.decompose(k) for k in scalars]
    out = []
    for part in (0, 1):
        values = [h[part] for h in halves]
        digits = np.zeros((len(values), GLV_DIGITS), np.int8)
        wnaf_digits(np.ascontiguousarray(limbs.ints_to_limbs([abs(v) for v in values], limbs.FR_LIMBS)), digits)
        out.append(digits * np.array([-1 if v < 0 else 1 for v in values], np.int8)[:, None])
    return out[0], out[1]


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
        split, beta = glv(self.curve, group), self.params.fq.mont_tuple(glv(self.curve, group).beta)
        beta_like = beta if degree == 1 else (beta, limb_tuple(0, len(beta)))
        twiddles = powers(pow(omega, -1, r) if inverse else omega, max(1, n // 2), r)
        d1, d2 = glv_digits(split, twiddles)
        s1, s2 = d1, d2
        if inverse and n > 1:  # n⁻¹ folded into the passes: point 0 first, then the first group's twiddles
            s = pow(n, -1, r)
            s1, s2 = glv_digits(split, [s * w % r for w in twiddles])
            scale(xyzz, s1, s2, 0, 1, degree, beta_like, like, F)
        half = 1
        while half < n:
            self._run(butterflies, n // 2, (xyzz, d1, d2, s1, s2, half, n // (2 * half)), (degree, beta_like, like, F))
            half *= 2
        out = np.empty_like(canonical)
        self._run(store_affine, n, (xyzz,), (out, degree, like, F), serial=CHUNK)
        return out.reshape(points.shape)


__all__ = [
    "PointNtt",
    "bit_reversal",
    "butterflies",
    "glv_digits",
    "load_point",
    "load_points",
    "powers",
    "run_spans",
    "store_affine",
    "store_point",
    "times_glv",
    "wnaf_digits",
]
