"""The group law of a short Weierstrass curve y² = x³ + b (a = 0), written once for every curve and both groups.

A :class:`Group` is data: the coordinate field (Fq for G1, Fq2 for G2), b, the prime order r of the subgroup used
for pairings and the cofactor h (#E = h·r). A :class:`Point` holds Jacobian coordinates (X : Y : Z), standing for
the affine point (X/Z², Y/Z³); Z = 0 is the point at infinity O. Jacobian coordinates avoid a field inversion per
addition; :meth:`Point.to_affine` pays the one inversion when affine coordinates are needed (encodings, backends).

Formulas: the Explicit-Formulas Database (hyperelliptic.org/EFD), "g1p/auto-shortw-jacobian-0":
add-2007-bl for addition, dbl-2009-l for doubling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cuzk.reference.errors import GroupMismatchError, PointNotInSubgroupError, PointNotOnCurveError
from cuzk.reference.fields.prime_field import PrimeFieldElement


@dataclass(eq=False)
class Group:
    """An elliptic-curve group E(F): y² = x³ + b over the field ``field``, with a subgroup of prime order r."""

    name: str
    field: Any  # the coordinate field type: Fq or Fq2
    b: Any  # an element of ``field``
    order: int  # r, the prime order of the pairing subgroup
    cofactor: int  # h, with #E(F) = h·r
    scalar_field: Any  # Fr: the type of scalars accepted besides int
    generator: Point = field(init=False, repr=False)

    def set_generator(self, x: Any, y: Any) -> None:
        self.generator = self.point(x, y)

    # --- points ------------------------------------------------------------------------------------------------

    def identity(self) -> Point:
        """The point at infinity O, the neutral element."""
        one = self.field.one()
        return Point(self, one, one, self.field.zero())

    def point_unchecked(self, x: Any, y: Any) -> Point:
        """The affine point (x, y), with no check that it lies on the curve."""
        return Point(self, x, y, self.field.one())

    def point(self, x: Any, y: Any) -> Point:
        """The affine point (x, y); raises PointNotOnCurveError when y² ≠ x³ + b."""
        p = self.point_unchecked(x, y)
        if not p.is_on_curve():
            raise PointNotOnCurveError(f"({x!r}, {y!r}) is not on {self.name}: y² ≠ x³ + b")
        return p

    def point_in_subgroup(self, x: Any, y: Any) -> Point:
        """The affine point (x, y), checked to be on the curve and in the subgroup of order r."""
        p = self.point(x, y)
        if not p.is_in_subgroup():
            raise PointNotInSubgroupError(f"({x!r}, {y!r}) is on {self.name} but not in its order-r subgroup")
        return p

    def rhs(self, x: Any) -> Any:
        """x³ + b, the right-hand side of the curve equation."""
        return x.square() * x + self.b

    def __repr__(self) -> str:
        return f"Group({self.name})"


class Point:
    """A point of a :class:`Group` in Jacobian coordinates; immutable, compared as a group element."""

    __slots__ = ("X", "Y", "Z", "group")

    def __init__(self, group: Group, X: Any, Y: Any, Z: Any) -> None:
        self.group, self.X, self.Y, self.Z = group, X, Y, Z

    # --- predicates --------------------------------------------------------------------------------------------

    def is_identity(self) -> bool:
        return self.Z.is_zero()

    def is_on_curve(self) -> bool:
        """Y² = X³ + b·Z⁶ (the curve equation multiplied through by Z⁶); O is on the curve."""
        if self.is_identity():
            return True
        z2 = self.Z.square()
        return self.Y.square() == self.X.square() * self.X + self.group.b * z2.square() * z2

    def is_in_subgroup(self) -> bool:
        """Whether P is on the curve and in the order-r subgroup, whose definition is [r]P = O
        (:func:`~cuzk.reference.curves.subgroup.in_subgroup_by_definition`, the oracle of the tests).

        Decided by the cheapest test that is sound for the point's group: on the curve for a cofactor of 1, an
        endomorphism eigenvalue test (Scott, ePrint 2021/1130; El Housni, Guillevic, Piellard, ePrint 2022/352)
        for the other groups of BLS12-381 and BN254 — see :mod:`cuzk.reference.curves.subgroup`.
        """
        # imported here: the subgroup module reads the curves, which are built from this module
        from cuzk.reference.curves.subgroup import is_in_subgroup

        return is_in_subgroup(self)

    def _check_group(self, other: Point) -> None:
        if other.group is not self.group:
            raise GroupMismatchError(f"cannot combine a point of {self.group.name} with a point of {other.group.name}")

    # --- coordinates -------------------------------------------------------------------------------------------

    def to_affine(self) -> tuple[Any, Any] | None:
        """(x, y) = (X/Z², Y/Z³), or None for the point at infinity."""
        if self.is_identity():
            return None
        z_inv = self.Z.inverse()
        z_inv2 = z_inv.square()
        return self.X * z_inv2, self.Y * z_inv2 * z_inv

    def normalize(self) -> Point:
        """The same point with Z = 1 (or the canonical identity)."""
        affine = self.to_affine()
        return self.group.identity() if affine is None else self.group.point_unchecked(*affine)

    # --- the group law -----------------------------------------------------------------------------------------

    def double(self) -> Point:
        """2P by dbl-2009-l (a = 0): 2M + 5S."""
        if self.is_identity() or self.Y.is_zero():
            return self.group.identity()
        X1, Y1, Z1 = self.X, self.Y, self.Z
        A = X1.square()
        B = Y1.square()
        C = B.square()
        D = ((X1 + B).square() - A - C).double()
        E = A.double() + A
        F = E.square()
        X3 = F - D.double()
        Y3 = E * (D - X3) - C.double().double().double()
        Z3 = (Y1 * Z1).double()
        return Point(self.group, X3, Y3, Z3)

    def __add__(self, other: Point) -> Point:
        """P + Q by add-2007-bl: 11M + 5S, falling back to doubling when P = Q."""
        if not isinstance(other, Point):
            return NotImplemented
        self._check_group(other)
        if self.is_identity():
            return other
        if other.is_identity():
            return self
        X1, Y1, Z1, X2, Y2, Z2 = self.X, self.Y, self.Z, other.X, other.Y, other.Z
        Z1Z1 = Z1.square()
        Z2Z2 = Z2.square()
        U1 = X1 * Z2Z2
        U2 = X2 * Z1Z1
        S1 = Y1 * Z2 * Z2Z2
        S2 = Y2 * Z1 * Z1Z1
        H = U2 - U1
        r = (S2 - S1).double()
        if H.is_zero():
            return self.double() if r.is_zero() else self.group.identity()
        I = H.double().square()
        J = H * I
        V = U1 * I
        X3 = r.square() - J - V.double()
        Y3 = r * (V - X3) - (S1 * J).double()
        Z3 = ((Z1 + Z2).square() - Z1Z1 - Z2Z2) * H
        return Point(self.group, X3, Y3, Z3)

    def __neg__(self) -> Point:
        return Point(self.group, self.X, -self.Y, self.Z)

    def __sub__(self, other: Point) -> Point:
        if not isinstance(other, Point):
            return NotImplemented
        return self + (-other)

    def mul_unreduced(self, k: int) -> Point:
        """[k]P for k ≥ 0 by double-and-add from the most significant bit, without reducing k mod r: the right
        multiplication for points that may lie outside the order-r subgroup (subgroup checks, cofactor clearing)."""
        result = self.group.identity()
        for bit in bin(k)[2:]:
            result = result.double()
            if bit == "1":
                result = result + self
        return result

    def clear_cofactor(self) -> Point:
        """[h]P: a point of the order-r subgroup from any point of the curve."""
        return self.mul_unreduced(self.group.cofactor)

    def __mul__(self, k: object) -> Point:
        """[k]P for an int or a scalar of the group's Fr. k is read modulo r, which is right only for P in the
        order-r subgroup; for other points use :meth:`mul_unreduced` (BLS12-381's G2 cofactor exceeds r)."""
        if isinstance(k, PrimeFieldElement):
            if type(k) is not self.group.scalar_field:
                raise GroupMismatchError(f"a scalar of {k.NAME} cannot multiply a point of {self.group.name}")
            k = k.value
        if not isinstance(k, int):
            return NotImplemented
        k %= self.group.order
        return self.mul_unreduced(k)

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        """Projective equality: X1·Z2² = X2·Z1² and Y1·Z2³ = Y2·Z1³."""
        if not isinstance(other, Point):
            return NotImplemented
        self._check_group(other)
        if self.is_identity() or other.is_identity():
            return self.is_identity() and other.is_identity()
        Z1Z1, Z2Z2 = self.Z.square(), other.Z.square()
        return self.X * Z2Z2 == other.X * Z1Z1 and self.Y * Z2Z2 * other.Z == other.Y * Z1Z1 * self.Z

    def __hash__(self) -> int:
        return hash((self.group.name, self.to_affine()))

    def __repr__(self) -> str:
        affine = self.to_affine()
        if affine is None:
            return f"{self.group.name}(infinity)"
        return f"{self.group.name}(x={affine[0]!r}, y={affine[1]!r})"
