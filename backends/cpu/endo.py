"""Scalar multiplication of single points by their group's endomorphisms: GLV on G1 (two halves), GLV with GLS on G2
(four quarters), width-5 wNAF digits, the chain in Jacobian coordinates. For the point NTT's twiddles and the
setup's row sums, where every point is multiplied once (no precomputation outlives a multiplication).

- G1: k ≡ k₀ + k₁λ (mod r) (:mod:`.glv`), [k]P = [k₀]P + [k₁]φ(P), φ(x, y) = (β·x, y): ~128 doublings.
- G2: k ≡ k₀ + k₁λ + k₂μ + k₃λμ (mod r) (:mod:`.gls`), with ψ(x, y) = (conj(x)·γx, conj(y)·γy) as [μ]: ~64
  doublings, a quarter of a plain chain's.
- Each component in width-5 NAF (Solinas): odd digits |d| < 16 with at least four zeros after each, so about one
  addition per six bits, from the odd multiples P, 3P, …, 15P and their images (an image is a multiplication by β,
  and for ψ a conjugation and two multiplications: Z only conjugated).
- The chain is Jacobian: a doubling costs 2M + 5S there against 6M + 3S in XYZZ form; the table's points keep
  their Z² and Z³ for the additions (11M + 3S). The point comes and goes in XYZZ form.

:func:`endo_digits` makes the digits of many scalars at once (a row each); :func:`times_endo` multiplies one point
by one row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cuzk.backends import limbs
from cuzk.backends.cpu.curve import add_cached, cached, double_jacobian, jacobian_from_xyzz, xyzz_from_jacobian
from cuzk.backends.cpu.field import conjugate, load, mul, neg, store, zero
from cuzk.backends.cpu.gls import gls
from cuzk.backends.cpu.glv import glv
from cuzk.backends.cpu.jit import JIT
from cuzk.backends.cpu.params import CurveParams, limb_tuple
from cuzk.reference.curves import Curve

WNAF_WIDTH = 5
ODD_MULTIPLES = 1 << (WNAF_WIDTH - 2)  # P, 3P, …, 15P
CACHED = 5  # elements of a table point: Jacobian X, Y, Z and Z², Z³
TABLE_ROWS = 4 * ODD_MULTIPLES * CACHED  # elements of times_endo's scratch table (rows: times the degree)


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
def store_cached(arr: np.ndarray, i: int, P: Any) -> None:
    for c in range(CACHED):
        store(arr, CACHED * i + c, P[c])


@njit(**JIT)
def load_cached(arr: np.ndarray, i: int, like: Any) -> Any:
    k = CACHED * i
    return (load(arr, k, like), load(arr, k + 1, like), load(arr, k + 2, like), load(arr, k + 3, like),
            load(arr, k + 4, like))  # fmt: skip


@njit(**JIT)
def times_endo(P: Any, digits: np.ndarray, row: int, table: np.ndarray, E: Any, like: Any, F: Any) -> Any:
    """[k]P for the scalar of ``digits[row]`` ((components, width) signed wNAF digits: 2 on G1, 4 on G2), P and the
    result in XYZZ form; ``E`` = (β, γx, γy) (:func:`endo_consts`); ``table`` (TABLE_ROWS elements) is scratch for
    P, 3P, …, 15P and their images under φ (and ψ, φψ)."""
    beta, gx, gy = E
    components = digits.shape[1]
    J = jacobian_from_xyzz(P, F)
    twice = cached(double_jacobian(J, F), F)
    acc = J
    for m in range(ODD_MULTIPLES):
        if m > 0:
            acc = add_cached(acc, twice, F)
        X, Y, Z, ZZ, ZZZ = cached(acc, F)
        store_cached(table, m, (X, Y, Z, ZZ, ZZZ))
        store_cached(table, ODD_MULTIPLES + m, (mul(X, beta, F), Y, Z, ZZ, ZZZ))
        if components == 4:
            Xp, Yp = mul(conjugate(X, F), gx, F), mul(conjugate(Y, F), gy, F)
            Zp, ZZp, ZZZp = conjugate(Z, F), conjugate(ZZ, F), conjugate(ZZZ, F)
            store_cached(table, 2 * ODD_MULTIPLES + m, (Xp, Yp, Zp, ZZp, ZZZp))
            store_cached(table, 3 * ODD_MULTIPLES + m, (mul(Xp, beta, F), Yp, Zp, ZZp, ZZZp))
    top = digits.shape[2] - 1
    while top >= 0:
        nonzero = False
        for c in range(components):
            nonzero = nonzero or digits[row, c, top] != 0
        if nonzero:
            break
        top -= 1
    z = zero(like)
    result = (z, z, z)
    for j in range(top, -1, -1):
        if j < top:
            result = double_jacobian(result, F)
        for c in range(components):
            d = np.int64(digits[row, c, j])
            if d != 0:
                X, Y, Z, ZZ, ZZZ = load_cached(table, c * ODD_MULTIPLES + ((abs(d) - 1) >> 1), like)
                result = add_cached(result, (X, neg(Y, F) if d < 0 else Y, Z, ZZ, ZZZ), F)
    return xyzz_from_jacobian(result, F)


def decompose(curve: Curve, group: str, scalars: list[int]) -> list[tuple[int, ...]]:
    """Each scalar's components: GLV's two halves on G1, GLS's four quarters on G2."""
    split = glv(curve, "g1") if group == "g1" else gls(curve)
    return [split.decompose(k) for k in scalars]


def endo_digits(curve: Curve, group: str, scalars: list[int]) -> np.ndarray:
    """(len(scalars), components, width) int8: the signed width-5 NAF digits of each scalar's components, width
    one past the longest component's digits (a NAF has at most one digit more than its number's bits)."""
    parts = decompose(curve, group, scalars)
    components = 2 if group == "g1" else 4
    flat = [v for p in parts for v in p]
    width = max((abs(v).bit_length() for v in flat), default=0) + 2
    digits = np.zeros((len(flat), width), np.int8)
    wnaf_digits(np.ascontiguousarray(limbs.ints_to_limbs([abs(v) for v in flat], limbs.FR_LIMBS)), digits)
    signs = np.array([-1 if v < 0 else 1 for v in flat], np.int8)
    return (digits * signs[:, None]).reshape(len(parts), components, width)


def endo_consts(curve: Curve, params: CurveParams, group: str) -> tuple[Any, Any, Any]:
    """(β, γx, γy) in Montgomery form, typed as the group's elements (on G1, γx and γy are unused copies of β)."""
    fq = params.fq
    beta = fq.mont_tuple(glv(curve, group).beta)
    if group == "g1":
        return beta, beta, beta
    split, zero_limbs = gls(curve), limb_tuple(0, len(beta))
    gx, gy = (tuple(fq.mont_tuple(c) for c in pair) for pair in (split.gamma_x, split.gamma_y))
    return (beta, zero_limbs), gx, gy


__all__ = [
    "CACHED",
    "ODD_MULTIPLES",
    "TABLE_ROWS",
    "decompose",
    "endo_consts",
    "endo_digits",
    "load_cached",
    "store_cached",
    "times_endo",
    "wnaf_digits",
]
