"""Point arithmetic on y² = x³ + b (a = 0) for numba, written once for G1 (over Fq) and G2 (over Fq2).

Two representations; no formula here needs b, so one body serves every curve and both groups:

- affine (x, y): the bases, and the bucket contents of the MSM's batch-affine sums (:mod:`.msm`);
- XYZZ (X, Y, ZZ, ZZZ) standing for (X/ZZ, Y/ZZZ) with ZZ³ = ZZZ² (Explicit-Formulas Database,
  "g1p/shortw-xyzz"): mixed addition madd-2008-s costs 8M + 2S, addition add-2008-s 12M + 2S, doubling
  dbl-2008-s-1 6M + 3S. ZZ = 0 is the identity;
- Jacobian (X, Y, Z) standing for (X/Z², Y/Z³), for chains of doublings (scalar multiplication): doubling
  dbl-2009-l 2M + 5S, addition of a point with Z², Z³ kept ("cached") 11M + 3S. Z = 0 is the identity.

The exceptional cases of the formulas (P + P, P + (−P), the identity) are detected and handled, so adding a point
to itself doubles it, as the reference does.
"""

from __future__ import annotations

from typing import Any

from numba import njit

from cuzk.backends.cpu.field import add, dbl, inv, is_zero, mul, one, sqr, sub, zero
from cuzk.backends.cpu.jit import JIT

Element = Any  # an Fp or Fq2 element: tuples of uint64 limbs
Xyzz = Any  # (X, Y, ZZ, ZZZ)
Jacobian = Any  # (X, Y, Z) standing for (X/Z², Y/Z³)
Cached = Any  # (X, Y, Z, Z², Z³)


@njit(**JIT)
def identity(like: Element) -> Xyzz:
    """The identity in XYZZ form: ZZ = ZZZ = 0."""
    z = zero(like)
    return (z, z, z, z)


@njit(**JIT)
def is_identity(P: Xyzz) -> bool:
    return is_zero(P[2])


@njit(**JIT)
def from_affine(x: Element, y: Element, F: Any) -> Xyzz:
    """(x, y) as (x, y, 1, 1)."""
    u = one(x, F)
    return (x, y, u, u)


@njit(**JIT)
def double_affine(x: Element, y: Element, F: Any) -> Xyzz:
    """2·(x, y) by mdbl-2008-s-1 (ZZ1 = ZZZ1 = 1); the identity when y = 0."""
    if is_zero(y):
        return identity(x)
    U = dbl(y, F)
    V = sqr(U, F)
    W = mul(U, V, F)
    S = mul(x, V, F)
    xx = sqr(x, F)
    M = add(dbl(xx, F), xx, F)
    X3 = sub(sqr(M, F), dbl(S, F), F)
    Y3 = sub(mul(M, sub(S, X3, F), F), mul(W, y, F), F)
    return (X3, Y3, V, W)


@njit(**JIT)
def double(P: Xyzz, F: Any) -> Xyzz:
    """2P by dbl-2008-s-1; the identity for the identity and for y = 0."""
    X1, Y1, ZZ1, ZZZ1 = P
    if is_zero(ZZ1) or is_zero(Y1):
        return identity(X1)
    U = dbl(Y1, F)
    V = sqr(U, F)
    W = mul(U, V, F)
    S = mul(X1, V, F)
    xx = sqr(X1, F)
    M = add(dbl(xx, F), xx, F)
    X3 = sub(sqr(M, F), dbl(S, F), F)
    Y3 = sub(mul(M, sub(S, X3, F), F), mul(W, Y1, F), F)
    return (X3, Y3, mul(V, ZZ1, F), mul(W, ZZZ1, F))


@njit(**JIT)
def add_affine(P: Xyzz, x2: Element, y2: Element, F: Any) -> Xyzz:
    """P + (x2, y2) by madd-2008-s (the affine point is not the identity)."""
    X1, Y1, ZZ1, ZZZ1 = P
    if is_zero(ZZ1):
        return from_affine(x2, y2, F)
    Pd = sub(mul(x2, ZZ1, F), X1, F)  # U2 − X1
    R = sub(mul(y2, ZZZ1, F), Y1, F)  # S2 − Y1
    if is_zero(Pd):
        return double_affine(x2, y2, F) if is_zero(R) else identity(X1)
    PP = sqr(Pd, F)
    PPP = mul(Pd, PP, F)
    Q = mul(X1, PP, F)
    X3 = sub(sub(sqr(R, F), PPP, F), dbl(Q, F), F)
    Y3 = sub(mul(R, sub(Q, X3, F), F), mul(Y1, PPP, F), F)
    return (X3, Y3, mul(ZZ1, PP, F), mul(ZZZ1, PPP, F))


@njit(**JIT)
def add_xyzz(P: Xyzz, Q: Xyzz, F: Any) -> Xyzz:
    """P + Q by add-2008-s."""
    X1, Y1, ZZ1, ZZZ1 = P
    X2, Y2, ZZ2, ZZZ2 = Q
    if is_zero(ZZ1):
        return Q
    if is_zero(ZZ2):
        return P
    U1 = mul(X1, ZZ2, F)
    S1 = mul(Y1, ZZZ2, F)
    Pd = sub(mul(X2, ZZ1, F), U1, F)
    R = sub(mul(Y2, ZZZ1, F), S1, F)
    if is_zero(Pd):
        return double(P, F) if is_zero(R) else identity(X1)
    PP = sqr(Pd, F)
    PPP = mul(Pd, PP, F)
    Qv = mul(U1, PP, F)
    X3 = sub(sub(sqr(R, F), PPP, F), dbl(Qv, F), F)
    Y3 = sub(mul(R, sub(Qv, X3, F), F), mul(S1, PPP, F), F)
    return (X3, Y3, mul(mul(ZZ1, ZZ2, F), PP, F), mul(mul(ZZZ1, ZZZ2, F), PPP, F))


@njit(**JIT)
def jacobian_from_xyzz(P: Xyzz, F: Any) -> Jacobian:
    """(X, Y, ZZ, ZZZ) as Jacobian (X·ZZ², Y·ZZZ², ZZZ): with Z = ZZZ, Z² = ZZZ² = ZZ³ keeps x = X/ZZ and y = Y/ZZZ."""
    X, Y, ZZ, ZZZ = P
    return (mul(X, sqr(ZZ, F), F), mul(Y, sqr(ZZZ, F), F), ZZZ)


@njit(**JIT)
def xyzz_from_jacobian(P: Jacobian, F: Any) -> Xyzz:
    """(X, Y, Z) as (X, Y, Z², Z³); Z = 0, the identity, gives ZZ = 0."""
    X, Y, Z = P
    ZZ = sqr(Z, F)
    return (X, Y, ZZ, mul(ZZ, Z, F))


@njit(**JIT)
def double_jacobian(P: Jacobian, F: Any) -> Jacobian:
    """2P by dbl-2009-l (a = 0): 2M + 5S, against XYZZ's 6M + 3S. Z = 0 (the identity) stays 0."""
    X1, Y1, Z1 = P
    A = sqr(X1, F)
    B = sqr(Y1, F)
    C = sqr(B, F)
    D = dbl(sub(sub(sqr(add(X1, B, F), F), A, F), C, F), F)
    E = add(dbl(A, F), A, F)
    X3 = sub(sqr(E, F), dbl(D, F), F)
    Y3 = sub(mul(E, sub(D, X3, F), F), dbl(dbl(dbl(C, F), F), F), F)
    return (X3, Y3, dbl(mul(Y1, Z1, F), F))


@njit(**JIT)
def add_cached(P: Jacobian, Q: Cached, F: Any) -> Jacobian:
    """P + Q for Jacobian P and Q = (X, Y, Z, Z², Z³) (add-2007-bl with Q's powers of Z kept): 11M + 3S."""
    X1, Y1, Z1 = P
    X2, Y2, Z2, ZZ2, ZZZ2 = Q
    if is_zero(Z1):
        return (X2, Y2, Z2)
    if is_zero(Z2):
        return P
    ZZ1 = sqr(Z1, F)
    U1, S1 = mul(X1, ZZ2, F), mul(Y1, ZZZ2, F)
    H = sub(mul(X2, ZZ1, F), U1, F)
    R = sub(mul(Y2, mul(Z1, ZZ1, F), F), S1, F)
    if is_zero(H):
        if is_zero(R):
            return double_jacobian(P, F)
        z = zero(X1)
        return (z, z, z)
    HH = sqr(H, F)
    HHH = mul(H, HH, F)
    V = mul(U1, HH, F)
    X3 = sub(sub(sqr(R, F), HHH, F), dbl(V, F), F)
    Y3 = sub(mul(R, sub(V, X3, F), F), mul(S1, HHH, F), F)
    return (X3, Y3, mul(mul(Z1, Z2, F), H, F))


@njit(**JIT)
def cached(P: Jacobian, F: Any) -> Cached:
    """(X, Y, Z, Z², Z³): a Jacobian point as an operand of :func:`add_cached`."""
    X, Y, Z = P
    ZZ = sqr(Z, F)
    return (X, Y, Z, ZZ, mul(ZZ, Z, F))


@njit(**JIT)
def times(P: Xyzz, k: int, F: Any) -> Xyzz:
    """[k]P for 1 ≤ k < 2^63 by double-and-add from the top bit (for the gaps between non-empty buckets)."""
    bit = 62
    while not (k >> bit) & 1:
        bit -= 1
    result = P
    for b in range(bit - 1, -1, -1):
        result = double(result, F)
        if (k >> b) & 1:
            result = add_xyzz(result, P, F)
    return result


@njit(**JIT)
def to_affine(P: Xyzz, F: Any) -> tuple[Element, Element]:
    """(X/ZZ, Y/ZZZ) with one inversion, of ZZ·ZZZ; (0, 0) for the identity (the protocol's encoding)."""
    X, Y, ZZ, ZZZ = P
    if is_zero(ZZ):
        z = zero(X)
        return (z, z)
    t = inv(mul(ZZ, ZZZ, F), F)
    return (mul(X, mul(t, ZZZ, F), F), mul(Y, mul(t, ZZ, F), F))
