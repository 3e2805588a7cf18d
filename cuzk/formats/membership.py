"""Subgroup membership of a key's few G2 points (a .zkey header's [β]₂, [γ]₂, [δ]₂) in plain integers.

The test is the reference's (:mod:`cuzk.reference.curves.subgroup`): P ∈ G2 ⇔ ψ(P) = [a]P, with ψ the
untwist-Frobenius-twist map and a = 6u² on BN curves (El Housni, Guillevic, Piellard, ePrint 2022/352, §4.3), a = x
on BLS12 (Scott, ePrint 2021/1130, §4); the reference shows there why it is sound, and the tests check that the
eigenvalue here is the one it proved. Only the arithmetic differs: [a]P by double-and-add over the non-adjacent form
of |a| on Jacobian coordinates of Fq2 = Fq[u]/(u² + 1) held as pairs of ints, instead of the reference's field and
point objects, whose per-operation cost made these checks (and building the reference's tests of every curve when
its module is first imported) a visible part of a proof's start. The reference's ``Point.is_in_subgroup`` stays the
oracle; a G1 with a cofactor (BLS12-381's) is left to it.
"""

from __future__ import annotations

from cuzk.reference.curves import Curve, Point
from cuzk.reference.pairing import twist_frobenius

Fq2 = tuple[int, int]  # c0 + c1·u, u² = −1
Jacobian = tuple[Fq2, Fq2, Fq2] | None  # (X, Y, Z) with x = X/Z², y = Y/Z³; None the point at infinity


def g2_eigenvalue(curve: Curve) -> int:
    """a of the test ψ(P) = [a]P on ``curve``'s G2: x for BLS12, 6u² for BN (the reference's g2_test)."""
    return curve.x if curve.family == "bls12" else 6 * curve.x**2


def non_adjacent_form(k: int) -> list[int]:
    """The digits d_i ∈ {−1, 0, 1} of k = Σ d_i·2^i (k ≥ 0), least significant first, no two adjacent non-zero."""
    digits: list[int] = []
    while k:
        digit = 2 - k % 4 if k % 2 else 0
        digits.append(digit)
        k = (k - digit) // 2
    return digits


class _Fq2Curve:
    """y² = x³ + b over Fq2 = Fq[u]/(u² + 1), in ints mod q: what [a]P needs."""

    def __init__(self, q: int) -> None:
        self.q = q

    def mul(self, a: Fq2, b: Fq2) -> Fq2:
        q, t0, t1 = self.q, a[0] * b[0], a[1] * b[1]
        return (t0 - t1) % q, ((a[0] + a[1]) * (b[0] + b[1]) - t0 - t1) % q

    def sqr(self, a: Fq2) -> Fq2:
        q = self.q
        return (a[0] + a[1]) * (a[0] - a[1]) % q, 2 * a[0] * a[1] % q

    def lin(self, *terms: tuple[int, Fq2]) -> Fq2:
        """Σ k·v for small integers k."""
        return sum(k * v[0] for k, v in terms) % self.q, sum(k * v[1] for k, v in terms) % self.q

    def double(self, p: Jacobian) -> Jacobian:
        """2P for a = 0 (dbl-2009-l); a point with y = 0 (order 2) doubles to infinity."""
        if p is None:
            return None
        X, Y, Z = p
        if Y == (0, 0):
            return None
        A, B = self.sqr(X), self.sqr(Y)
        C = self.sqr(B)
        D = self.lin((2, self.sqr(self.lin((1, X), (1, B)))), (-2, A), (-2, C))
        E = self.lin((3, A))
        X3 = self.lin((1, self.sqr(E)), (-2, D))
        Y3 = self.lin((1, self.mul(E, self.lin((1, D), (-1, X3)))), (-8, C))
        return X3, Y3, self.lin((2, self.mul(Y, Z)))

    def add_affine(self, p: Jacobian, x2: Fq2, y2: Fq2) -> Jacobian:
        """P + (x2, y2), the second point affine and finite (madd-2007-bl), equal and opposite points included."""
        if p is None:
            return x2, y2, (1, 0)
        X1, Y1, Z1 = p
        Z1Z1 = self.sqr(Z1)
        H = self.lin((1, self.mul(x2, Z1Z1)), (-1, X1))
        r = self.lin((2, self.mul(y2, self.mul(Z1, Z1Z1))), (-2, Y1))
        if H == (0, 0):
            return self.double(p) if r == (0, 0) else None
        HH = self.sqr(H)
        I = self.lin((4, HH))
        J, V = self.mul(H, I), self.mul(X1, I)
        X3 = self.lin((1, self.sqr(r)), (-1, J), (-2, V))
        Y3 = self.lin((1, self.mul(r, self.lin((1, V), (-1, X3)))), (-2, self.mul(Y1, J)))
        Z3 = self.lin((1, self.sqr(self.lin((1, Z1), (1, H)))), (-1, Z1Z1), (-1, HH))
        return X3, Y3, Z3

    def times(self, x: Fq2, y: Fq2, a: int) -> Jacobian:
        """[a]P for the finite affine point P = (x, y) and any integer a (not reduced modulo r)."""
        minus_y = ((-y[0]) % self.q, (-y[1]) % self.q)
        result: Jacobian = None
        for digit in reversed(non_adjacent_form(abs(a))):
            result = self.double(result)
            if digit:
                result = self.add_affine(result, x, y if digit == 1 else minus_y)
        if result is None or a >= 0:
            return result
        X, Y, Z = result
        return X, ((-Y[0]) % self.q, (-Y[1]) % self.q), Z


def g2_in_subgroup(curve: Curve, point: Point) -> bool:
    """Whether ``point``, a point of ``curve``'s G2 known to be on the curve, lies in the order-r subgroup:
    ψ(P) = [a]P (the module's test), compared on Jacobian coordinates without an inversion."""
    if point.is_identity():
        return True
    x, y = point.to_affine()
    px, py = twist_frobenius(curve, x, y)  # ψ on affine coordinates (Z = 1 is its own conjugate)
    field = _Fq2Curve(curve.q)
    multiple = field.times((x.c0.value, x.c1.value), (y.c0.value, y.c1.value), g2_eigenvalue(curve))
    if multiple is None:  # ψ maps no finite point to infinity
        return False
    X, Y, Z = multiple
    ZZ = field.sqr(Z)
    return (
        field.mul((px.c0.value, px.c1.value), ZZ) == X and field.mul((py.c0.value, py.c1.value), field.mul(ZZ, Z)) == Y
    )


__all__ = ["g2_eigenvalue", "g2_in_subgroup", "non_adjacent_form"]
