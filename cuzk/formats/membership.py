"""Subgroup membership of a key's few header points ([α]₁, [β]₁,₂, [γ]₂, [δ]₁,₂ of a .zkey) in plain integers.

The tests are the reference's (:mod:`cuzk.reference.curves.subgroup`), each an endomorphism φ acting on the group as
multiplication by an integer a: P ∈ G ⇔ φ(P) = [a]P.

- G2: φ = ψ, the untwist-Frobenius-twist map, a = 6u² on BN curves (El Housni, Guillevic, Piellard, ePrint
  2022/352, §4.3), a = x on BLS12 (Scott, ePrint 2021/1130, §4);
- G1 of BLS12 (BN254's G1 has cofactor 1): φ = σ, (x, y) ↦ (βx, y) for the cube root of unity β on which σ acts as
  a = −x² (Scott, ePrint 2021/1130, §6).

The reference shows there why each test is sound, and the tests check that the eigenvalues (and β) here are the ones
it proved. Only the arithmetic differs: [a]P by double-and-add over the non-adjacent form of |a| on Jacobian
coordinates, with Fq as ints and Fq2 = Fq[u]/(u² + 1) as pairs of ints, instead of the reference's field and point
objects, whose per-operation cost made these checks (and building the reference's tests of every curve when its
module is first imported) a visible part of a proof's start. The reference's ``Point.is_in_subgroup`` stays the
oracle.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from cuzk.reference.curves import Curve, Point
from cuzk.reference.curves.naf import non_adjacent_form
from cuzk.reference.pairing import twist_frobenius

Element = Any  # an int (Fq) or a pair of ints (Fq2: c0 + c1·u, u² = −1)
Jacobian = tuple[Element, Element, Element] | None  # (X, Y, Z) with x = X/Z², y = Y/Z³; None the point at infinity


def g2_eigenvalue(curve: Curve) -> int:
    """a of the test ψ(P) = [a]P on ``curve``'s G2: x for BLS12, 6u² for BN (the reference's g2_test)."""
    return curve.x if curve.family == "bls12" else 6 * curve.x**2


def g1_eigenvalue(curve: Curve) -> int:
    """a of the test σ(P) = [a]P on a BLS12 curve's G1: −x² (the reference's g1_test)."""
    return -(curve.x**2)


class Fq:
    """Fq on ints mod q: what a Jacobian curve needs."""

    def __init__(self, q: int) -> None:
        self.q = q
        self.zero, self.one = 0, 1

    def is_zero(self, a: int) -> bool:
        return a == 0

    def mul(self, a: int, b: int) -> int:
        return a * b % self.q

    def sqr(self, a: int) -> int:
        return a * a % self.q

    def lin(self, *terms: tuple[int, int]) -> int:
        """Σ k·v for small integers k."""
        return sum(k * v for k, v in terms) % self.q


class Fq2:
    """Fq2 = Fq[u]/(u² + 1) on pairs of ints mod q."""

    def __init__(self, q: int) -> None:
        self.q = q
        self.zero, self.one = (0, 0), (1, 0)

    def is_zero(self, a: tuple[int, int]) -> bool:
        return a == (0, 0)

    def mul(self, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
        q, t0, t1 = self.q, a[0] * b[0], a[1] * b[1]
        return (t0 - t1) % q, ((a[0] + a[1]) * (b[0] + b[1]) - t0 - t1) % q

    def sqr(self, a: tuple[int, int]) -> tuple[int, int]:
        q = self.q
        return (a[0] + a[1]) * (a[0] - a[1]) % q, 2 * a[0] * a[1] % q

    def lin(self, *terms: tuple[int, tuple[int, int]]) -> tuple[int, int]:
        """Σ k·v for small integers k."""
        return sum(k * v[0] for k, v in terms) % self.q, sum(k * v[1] for k, v in terms) % self.q


class ShortWeierstrass:
    """y² = x³ + b (a = 0) over ``field`` (:class:`Fq` or :class:`Fq2`), on Jacobian coordinates."""

    def __init__(self, field: Fq | Fq2) -> None:
        self.f = field

    def double(self, p: Jacobian) -> Jacobian:
        """2P (dbl-2009-l); a point with y = 0 (order 2) doubles to infinity."""
        if p is None:
            return None
        f, (X, Y, Z) = self.f, p
        if f.is_zero(Y):
            return None
        A, B = f.sqr(X), f.sqr(Y)
        C = f.sqr(B)
        D = f.lin((2, f.sqr(f.lin((1, X), (1, B)))), (-2, A), (-2, C))
        E = f.lin((3, A))
        X3 = f.lin((1, f.sqr(E)), (-2, D))
        Y3 = f.lin((1, f.mul(E, f.lin((1, D), (-1, X3)))), (-8, C))
        return X3, Y3, f.lin((2, f.mul(Y, Z)))

    def add_affine(self, p: Jacobian, x2: Element, y2: Element) -> Jacobian:
        """P + (x2, y2), the second point affine and finite (madd-2007-bl), equal and opposite points included."""
        f = self.f
        if p is None:
            return x2, y2, f.one
        X1, Y1, Z1 = p
        Z1Z1 = f.sqr(Z1)
        H = f.lin((1, f.mul(x2, Z1Z1)), (-1, X1))
        r = f.lin((2, f.mul(y2, f.mul(Z1, Z1Z1))), (-2, Y1))
        if f.is_zero(H):
            return self.double(p) if f.is_zero(r) else None
        HH = f.sqr(H)
        I = f.lin((4, HH))
        J, V = f.mul(H, I), f.mul(X1, I)
        X3 = f.lin((1, f.sqr(r)), (-1, J), (-2, V))
        Y3 = f.lin((1, f.mul(r, f.lin((1, V), (-1, X3)))), (-2, f.mul(Y1, J)))
        Z3 = f.lin((1, f.sqr(f.lin((1, Z1), (1, H)))), (-1, Z1Z1), (-1, HH))
        return X3, Y3, Z3

    def times(self, x: Element, y: Element, a: int) -> Jacobian:
        """[a]P for the finite affine point P = (x, y) and any integer a (not reduced modulo r)."""
        f = self.f
        minus_y = f.lin((-1, y))
        result: Jacobian = None
        for digit in reversed(non_adjacent_form(abs(a))):
            result = self.double(result)
            if digit:
                result = self.add_affine(result, x, y if digit == 1 else minus_y)
        if result is None or a >= 0:
            return result
        X, Y, Z = result
        return X, f.lin((-1, Y)), Z

    def equals_affine(self, p: Jacobian, x: Element, y: Element) -> bool:
        """Whether the Jacobian P is the finite affine point (x, y), without an inversion."""
        if p is None:
            return False
        f, (X, Y, Z) = self.f, p
        ZZ = f.sqr(Z)
        return f.mul(x, ZZ) == X and f.mul(y, f.mul(ZZ, Z)) == Y


@cache
def bls12_beta(curve: Curve) -> int:
    """The cube root of unity β in Fq on which σ(x, y) = (βx, y) acts on G1 as [−x²] (the reference's g1_test picks
    the same one of β, β² by the generator)."""
    q, g1 = curve.q, ShortWeierstrass(Fq(curve.q))
    g = 2
    while (root := pow(g, (q - 1) // 3, q)) == 1:
        g += 1
    x, y = (c.value for c in curve.g1.generator.to_affine())
    multiple = g1.times(x, y, g1_eigenvalue(curve))
    for beta in (root, root * root % q):
        if g1.equals_affine(multiple, beta * x % q, y):
            return beta
    raise ValueError(f"{curve.name}: no cube root of unity acts on G1 as −x²")


def g1_in_subgroup(curve: Curve, point: Point) -> bool:
    """Whether ``point``, a point of a BLS12 ``curve``'s G1 known to be on the curve, lies in the order-r subgroup:
    σ(P) = [−x²]P."""
    if point.is_identity():
        return True
    x, y = (c.value for c in point.to_affine())
    g1 = ShortWeierstrass(Fq(curve.q))
    return g1.equals_affine(g1.times(x, y, g1_eigenvalue(curve)), bls12_beta(curve) * x % curve.q, y)


def g2_in_subgroup(curve: Curve, point: Point) -> bool:
    """Whether ``point``, a point of ``curve``'s G2 known to be on the curve, lies in the order-r subgroup:
    ψ(P) = [a]P (the module's test)."""
    if point.is_identity():
        return True
    x, y = point.to_affine()
    px, py = twist_frobenius(curve, x, y)  # ψ on affine coordinates (Z = 1 is its own conjugate)
    g2 = ShortWeierstrass(Fq2(curve.q))
    multiple = g2.times((x.c0.value, x.c1.value), (y.c0.value, y.c1.value), g2_eigenvalue(curve))
    return g2.equals_affine(multiple, (px.c0.value, px.c1.value), (py.c0.value, py.c1.value))


__all__ = [
    "Fq",
    "Fq2",
    "ShortWeierstrass",
    "bls12_beta",
    "g1_eigenvalue",
    "g1_in_subgroup",
    "g2_eigenvalue",
    "g2_in_subgroup",
]
