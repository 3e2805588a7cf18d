"""A pairing-friendly curve as data: its fields, its two groups, its twist and the parameter it grows from.

BLS12 and BN curves are families: q, r and the group orders are polynomials in one integer parameter (called x
for BLS12, u for BN). The curve modules compute them from that parameter, and :class:`Curve` gathers the result so
the rest of the reference (pairing, NTT, Groth16) reads everything it needs from one object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from cuzk.reference import pairing
from cuzk.reference.curves.group import Group, Point
from cuzk.reference.fields import FftFieldElement, Fq2Element, Fq6Element, Fq12Element, PrimeFieldElement


@dataclass(frozen=True, eq=False)
class Curve:
    """A BLS12 or BN curve E: y² = x³ + b over Fq with its sextic twist E': y² = x³ + b' over Fq2."""

    name: str
    family: Literal["bls12", "bn"]
    x: int  # the family parameter (BLS12: x, negative for BLS12-381; BN: u)
    Fq: type[PrimeFieldElement]
    Fr: type[FftFieldElement]
    Fq2: type[Fq2Element]
    Fq6: type[Fq6Element]
    Fq12: type[Fq12Element]
    g1: Group
    g2: Group
    twist: Literal["M", "D"]  # b' = b·ξ (M-type) or b' = b/ξ (D-type)

    @property
    def q(self) -> int:
        return self.Fq.MODULUS

    @property
    def r(self) -> int:
        return self.Fr.MODULUS

    def pairing(self, p: Point, q: Point) -> Fq12Element:
        """e(P, Q) for P in G1 and Q in G2: the optimal ate pairing (see :mod:`cuzk.reference.pairing`)."""
        return pairing.pairing(self, p, q)

    def pairing_check(self, pairs: list[tuple[Point, Point]]) -> bool:
        """Whether Π e(P_i, Q_i) = 1, with one shared final exponentiation."""
        return pairing.pairing_check(self, pairs)

    def __repr__(self) -> str:
        return f"Curve({self.name})"


def sextic_twist_b(curve_b: Any, xi: Fq2Element, twist: Literal["M", "D"]) -> Fq2Element:
    """b' of the twist E': y² = x³ + b' that carries G2: b·ξ for an M-type twist, b/ξ for a D-type twist."""
    b = type(xi).from_base(curve_b) if not isinstance(curve_b, Fq2Element) else curve_b
    return b * xi if twist == "M" else b / xi


__all__ = ["Curve", "sextic_twist_b"]
