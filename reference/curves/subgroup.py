"""Subgroup membership: whether a point P of E(F) lies in the order-r subgroup G that the pairing uses.

The definition is [r]P = O (:func:`in_subgroup_by_definition`): a scalar multiplication by r (254 or 255 bits).
:func:`is_in_subgroup` decides the same question, for every point of the curve, by the cheapest test known to be
sound for the point's group, and falls back to the definition for a group it knows no such test for:

- cofactor 1 (BN254's G1): #E(F) = r, so by Lagrange every point of the curve has an order dividing r.
  Being on the curve is the whole test.
- an endomorphism φ of E that acts on G as multiplication by an integer a (its eigenvalue on G):

      P ∈ G  ⇔  φ(P) = [a]P,                      for P ∈ E(F).

  BLS12 G1: σ(x, y) = (βx, y), β a cube root of unity, a = −x² (x the BLS12 parameter). Scott, "A note on group
  membership tests for G1, G2 and GT on BLS pairing-friendly curves", ePrint 2021/1130, §6.
  BLS12 G2: ψ, the untwist-Frobenius-twist map of the twist E', a = x. Scott, ePrint 2021/1130, §4.
  BN G2: ψ, a = 6u² (u the BN parameter). El Housni, Guillevic, Piellard, "Co-factor clearing and subgroup
  membership testing on pairing-friendly curves", AFRICACRYPT 2022, ePrint 2022/352, §4.3; that paper also
  revisits the proofs of Scott's two tests.

Why an eigenvalue test is sound (a self-contained argument for any such φ; the papers give the published proofs
for their curves). φ satisfies φ² − s·φ + n = 0 in End(E): for σ, s = −1 and n = 1 (1 + σ + σ² = 0); for ψ, s = t,
the trace of Frobenius of E over Fq, and n = q (ψ is the q-power Frobenius of E seen through the twisting
isomorphism). The points with φ(P) = [a]P form the kernel of the endomorphism a − φ, of degree
N = (a − φ)(a − φ̂) = a² − s·a + n (φ̂ = s − φ, the dual); the kernel's size divides N. So a point of E(F) that
passes has an order dividing both N and #E(F) = h·r, and when

    gcd(N, h·r) = r                                                                               (soundness)

[r]P = O: P is in G by the definition. Conversely, when r² ∤ #E(F) (r ∤ h) the points of order r form the cyclic
group ⟨G⟩ of the generator G, which φ maps to itself, so φ(G) = [a]G makes φ(P) = [a]P hold on all of G.
:func:`is_sound` checks these three conditions from the curve data; a test that fails one of them is not used.
For BLS12 G1, N = x⁴ − x² + 1 = r; for BN G2, N = q + 1 − t = #E(Fq) = r (both sound with no condition); for
BLS12 G2, N = q − x = h1·r, so that test is sound exactly when gcd(h1, h2) = 1, which holds for BLS12-381.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from cuzk.reference.curves import CURVES
from cuzk.reference.curves.curve import Curve
from cuzk.reference.curves.group import Group, Point
from cuzk.reference.curves.naf import non_adjacent_form
from cuzk.reference.fields import PrimeFieldElement
from cuzk.reference.pairing import twist_frobenius


def in_subgroup_by_definition(p: Point) -> bool:
    """P on the curve and [r]P = O: the definition, by a plain scalar multiplication (slow and obviously right)."""
    return p.is_on_curve() and p.mul_unreduced(p.group.order).is_identity()


def times(p: Point, a: int) -> Point:
    """[a]P for any integer a, not reduced modulo r (P may lie outside the subgroup), by double-and-add over the
    non-adjacent form of |a|: negation is free, and a third of the digits are non-zero instead of half the bits."""
    result, minus_p = p.group.identity(), -p
    for digit in reversed(non_adjacent_form(abs(a))):
        result = result.double()
        if digit:
            result = result + (p if digit == 1 else minus_p)
    return result if a >= 0 else -result


@dataclass(frozen=True)
class EigenvalueTest:
    """P ∈ G ⇔ φ(P) = [a]P: an endomorphism φ with φ² − s·φ + n = 0 and eigenvalue a on G (module docstring)."""

    endomorphism: Callable[[Point], Point]  # φ
    eigenvalue: int  # a, an integer: not reduced modulo r, since the degree of a − φ depends on it
    trace: int  # s
    norm: int  # n = deg φ
    source: str  # where the test is published

    def degree(self) -> int:
        """N = deg(a − φ) = a² − s·a + n: the number of points (at most) with φ(P) = [a]P."""
        return self.eigenvalue**2 - self.trace * self.eigenvalue + self.norm

    def __call__(self, p: Point) -> bool:
        """φ(P) = [a]P, for P on the curve."""
        return self.endomorphism(p) == times(p, self.eigenvalue)


def is_sound(test: EigenvalueTest, group: Group) -> bool:
    """Whether ``test`` decides membership in ``group``: gcd(N, h·r) = r (a passing point has order dividing r),
    r ∤ h (the points of order r are the multiples of the generator) and φ(G) = [a]G (φ acts on them as a)."""
    r, h = group.order, group.cofactor
    return math.gcd(test.degree(), h * r) == r and h % r != 0 and test(group.generator)


# --- the endomorphisms -------------------------------------------------------------------------------------------


def primitive_cube_root_of_unity(field: type[PrimeFieldElement]) -> PrimeFieldElement:
    """β ≠ 1 with β³ = 1 in Fq (q ≡ 1 mod 3): g^((q−1)/3) for the first g = 2, 3, … that is not a cube."""
    g = 2
    while (beta := field(g) ** ((field.MODULUS - 1) // 3)) == field.one():
        g += 1
    return beta


def sigma(beta: PrimeFieldElement) -> Callable[[Point], Point]:
    """σ(x, y) = (βx, y), an automorphism of y² = x³ + b since (βx)³ = x³; on Jacobian coordinates (βX : Y : Z)."""

    def apply(p: Point) -> Point:
        return Point(p.group, p.X * beta, p.Y, p.Z)

    return apply


def psi(curve: Curve) -> Callable[[Point], Point]:
    """ψ = untwist ∘ Frobenius ∘ twist on E'(Fq2), from the pairing's :func:`~cuzk.reference.pairing.twist_frobenius`:
    the q-power map on the coordinates times constants of the tower; on Jacobian coordinates Z is conjugated too."""

    def apply(p: Point) -> Point:
        x, y = twist_frobenius(curve, p.X, p.Y)
        return Point(p.group, x, y, p.Z.conjugate())

    return apply


# --- the tests of each curve -------------------------------------------------------------------------------------


def frobenius_trace(curve: Curve) -> int:
    """t = q + 1 − #E(Fq), with #E(Fq) = h1·r."""
    return curve.q + 1 - curve.g1.cofactor * curve.r


def g1_test(curve: Curve) -> EigenvalueTest | None:
    """BLS12: σ(P) = [−x²]P (Scott, ePrint 2021/1130, §6), with the one of β, β² for which σ acts on G1 as −x²
    (the other acts as x² − 1, the other root of a² + a + 1 ≡ 0 mod r). None for other families."""
    if curve.family != "bls12":
        return None
    beta = primitive_cube_root_of_unity(curve.Fq)
    source = "Scott, ePrint 2021/1130, §6"
    for b in (beta, beta * beta):
        test = EigenvalueTest(sigma(b), -(curve.x**2), trace=-1, norm=1, source=source)
        if test(curve.g1.generator):
            return test
    return None


def g2_test(curve: Curve) -> EigenvalueTest:
    """ψ(P) = [x]P for BLS12 (Scott, ePrint 2021/1130, §4), ψ(P) = [6u²]P for BN (El Housni, Guillevic, Piellard,
    ePrint 2022/352, §4.3). Both eigenvalues are t − 1 ≡ q (mod r), the eigenvalue of ψ on G2."""
    if curve.family == "bls12":
        a, source = curve.x, "Scott, ePrint 2021/1130, §4"
    else:
        a, source = 6 * curve.x**2, "El Housni, Guillevic, Piellard, ePrint 2022/352, §4.3"
    return EigenvalueTest(psi(curve), a, trace=frobenius_trace(curve), norm=curve.q, source=source)


def sound_tests(curves: list[Curve]) -> dict[Group, EigenvalueTest]:
    """The eigenvalue tests of the groups with a cofactor > 1 that pass :func:`is_sound`."""
    tests: dict[Group, EigenvalueTest] = {}
    for curve in curves:
        for group, test in ((curve.g1, g1_test(curve)), (curve.g2, g2_test(curve))):
            if group.cofactor != 1 and test is not None and is_sound(test, group):
                tests[group] = test
    return tests


TESTS: dict[Group, EigenvalueTest] = sound_tests(list(CURVES.values()))


def is_in_subgroup(p: Point) -> bool:
    """P ∈ G, decided by the cheapest sound test for its group (module docstring); the definition otherwise."""
    if not p.is_on_curve():
        return False
    if p.group.cofactor == 1:
        return True
    test = TESTS.get(p.group)
    return test(p) if test is not None else in_subgroup_by_definition(p)


__all__ = [
    "TESTS",
    "EigenvalueTest",
    "in_subgroup_by_definition",
    "is_in_subgroup",
    "is_sound",
    "non_adjacent_form",
    "times",
]
