"""The extension tower Fq2 → Fq6 → Fq12 used by the pairing of a BLS12 or BN curve.

    Fq2  = Fq[u]  / (u² + 1)          (−1 is a non-residue because q ≡ 3 mod 4 on both curves)
    Fq6  = Fq2[v] / (v³ − ξ)          (ξ = u + 1 for BLS12-381, ξ = u + 9 for BN254)
    Fq12 = Fq6[w] / (w² − v)          (so w⁶ = ξ: the sextic twist lives here)

This is the tower of the IETF pairing-friendly-curves draft and of arkworks; each level is a quadratic or cubic
extension whose arithmetic is schoolbook or Karatsuba, written out so it can be checked against the formulas in
Beuchat et al., "High-Speed Software Implementation of the Optimal Ate Pairing over Barreto–Naehrig Curves" (2010).

:func:`tower` makes the three types for one base field; elements of two towers (two curves) never mix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from cuzk.reference.errors import FieldMismatchError, NotASquareError, NotInvertibleError
from cuzk.reference.fields.prime_field import PrimeFieldElement

T = TypeVar("T", bound="_Extension")


class _Extension:
    """Shared plumbing of the three levels: coercion, equality, repr. Coefficients are in ``coeffs``."""

    __slots__ = ()
    NAME: ClassVar[str]
    BASE: ClassVar[Any]  # the type of the coefficients
    DEGREE: ClassVar[int]

    @property
    def coeffs(self) -> tuple[Any, ...]:
        raise NotImplementedError

    @classmethod
    def zero(cls: type[T]) -> T:
        return cls(*([cls.BASE.zero()] * cls.DEGREE))

    @classmethod
    def one(cls: type[T]) -> T:
        return cls(cls.BASE.one(), *([cls.BASE.zero()] * (cls.DEGREE - 1)))

    @classmethod
    def from_base(cls: type[T], element: Any) -> T:
        return cls(element, *([cls.BASE.zero()] * (cls.DEGREE - 1)))

    def _check(self, other: object) -> Any:
        if type(other) is type(self):
            return other
        if isinstance(other, (_Extension, PrimeFieldElement)):
            name = getattr(other, "NAME", type(other).__name__)
            raise FieldMismatchError(f"cannot combine an element of {self.NAME} with an element of {name}")
        return NotImplemented

    def __add__(self: T, other: object) -> T:
        o = self._check(other)
        if o is NotImplemented:
            return NotImplemented
        return type(self)(*(a + b for a, b in zip(self.coeffs, o.coeffs, strict=True)))

    def __sub__(self: T, other: object) -> T:
        o = self._check(other)
        if o is NotImplemented:
            return NotImplemented
        return type(self)(*(a - b for a, b in zip(self.coeffs, o.coeffs, strict=True)))

    def __neg__(self: T) -> T:
        return type(self)(*(-a for a in self.coeffs))

    def double(self: T) -> T:
        return self + self

    def scale(self: T, k: Any) -> T:
        """Multiply by an element k of the base field (or of any field below it in the tower)."""
        return type(self)(*(a * k for a in self.coeffs))

    def __truediv__(self: T, other: object) -> T:
        o = self._check(other)
        if o is NotImplemented:
            return NotImplemented
        return self * o.inverse()  # type: ignore[operator, attr-defined]

    def __pow__(self: T, exponent: int) -> T:
        """Square-and-multiply, most significant bit first; negative exponents invert first."""
        base = self.inverse() if exponent < 0 else self  # type: ignore[attr-defined]
        result = type(self).one()
        for bit in bin(abs(exponent))[2:]:
            result = result.square()  # type: ignore[attr-defined]
            if bit == "1":
                result = result * base  # type: ignore[operator]
        return result

    def __eq__(self, other: object) -> bool:
        o = self._check(other)
        if o is NotImplemented:
            return NotImplemented
        return all(a == b for a, b in zip(self.coeffs, o.coeffs, strict=True))

    def __hash__(self) -> int:
        return hash((self.NAME, self.coeffs))

    def is_zero(self) -> bool:
        return all(c.is_zero() for c in self.coeffs)

    def __bool__(self) -> bool:
        return not self.is_zero()

    def __repr__(self) -> str:
        return f"{self.NAME}({', '.join(repr(c) for c in self.coeffs)})"


class Fq2Element(_Extension):
    """c0 + c1·u with u² = −1."""

    __slots__ = ("c0", "c1")
    DEGREE = 2

    def __init__(self, c0: Any, c1: Any) -> None:
        self.c0 = c0 if type(c0) is self.BASE else self.BASE(c0)
        self.c1 = c1 if type(c1) is self.BASE else self.BASE(c1)

    @property
    def coeffs(self) -> tuple[Any, Any]:
        return (self.c0, self.c1)

    def __mul__(self, other: object) -> Fq2Element:
        if isinstance(other, (int, PrimeFieldElement)):
            return self.scale(other)
        o = self._check(other)
        if o is NotImplemented:
            return NotImplemented
        # Karatsuba: (a0 + a1 u)(b0 + b1 u) = (a0 b0 − a1 b1) + ((a0 + a1)(b0 + b1) − a0 b0 − a1 b1) u
        v0, v1 = self.c0 * o.c0, self.c1 * o.c1
        return type(self)(v0 - v1, (self.c0 + self.c1) * (o.c0 + o.c1) - v0 - v1)

    __rmul__ = __mul__

    def square(self) -> Fq2Element:
        # complex squaring: (a0 + a1 u)² = (a0 + a1)(a0 − a1) + 2 a0 a1 u
        return type(self)((self.c0 + self.c1) * (self.c0 - self.c1), (self.c0 * self.c1).double())

    def conjugate(self) -> Fq2Element:
        """a0 − a1 u, which equals the Frobenius image (a0 + a1 u)^q since u^q = −u."""
        return type(self)(self.c0, -self.c1)

    def norm(self) -> Any:
        """N(a) = a · conj(a) = a0² + a1² ∈ Fq."""
        return self.c0.square() + self.c1.square()

    def inverse(self) -> Fq2Element:
        """a⁻¹ = conj(a) / N(a)."""
        n = self.norm()
        if n.is_zero():
            raise NotInvertibleError(f"0 has no inverse in {self.NAME}")
        return self.conjugate().scale(n.inverse())

    def frobenius(self, power: int = 1) -> Fq2Element:
        return self.conjugate() if power % 2 else self

    def mul_by_nonresidue(self) -> Fq2Element:
        """Multiply by ξ, the cubic non-residue defining Fq6 (ξ = XI[0] + XI[1]·u)."""
        x0, x1 = self.XI  # type: ignore[attr-defined]
        return type(self)(self.c0 * x0 - self.c1 * x1, self.c0 * x1 + self.c1 * x0)

    def legendre(self) -> int:
        """a is a square in Fq2 exactly when its norm is a square in Fq."""
        return self.norm().legendre()

    def is_square(self) -> bool:
        return self.legendre() != -1

    def sqrt(self) -> Fq2Element:
        """A square root by the "complex method" for u² = −1 (Scott, "Implementing cryptographic pairings", §5).

        With t = √(a0² + a1²): x0 = √((a0 + t)/2) (or with −t when that is not a square) and x1 = a1/(2 x0).
        Raises NotASquareError for a non-square.
        """
        if self.is_zero():
            return self
        if self.legendre() != 1:
            raise NotASquareError(f"{self!r} is not a square in {self.NAME}")
        a0, a1 = self.c0, self.c1
        if a1.is_zero():
            if a0.is_square():
                return type(self)(a0.sqrt(), a0.zero())
            return type(self)(a0.zero(), (-a0).sqrt())
        t = self.norm().sqrt()
        half = a0.one() / 2
        x0_sq = (a0 + t) * half
        if not x0_sq.is_square():
            x0_sq = (a0 - t) * half
        x0 = x0_sq.sqrt()
        return type(self)(x0, a1 / x0.double())


class Fq6Element(_Extension):
    """c0 + c1·v + c2·v² with v³ = ξ, coefficients in Fq2."""

    __slots__ = ("c0", "c1", "c2")
    DEGREE = 3

    def __init__(self, c0: Any, c1: Any, c2: Any) -> None:
        self.c0, self.c1, self.c2 = c0, c1, c2

    @property
    def coeffs(self) -> tuple[Any, Any, Any]:
        return (self.c0, self.c1, self.c2)

    def __mul__(self, other: object) -> Fq6Element:
        if isinstance(other, (int, PrimeFieldElement, Fq2Element)):
            return self.scale(other)
        o = self._check(other)
        if o is NotImplemented:
            return NotImplemented
        # Karatsuba for a cubic extension (Devegili et al., "Multiplication and Squaring on Pairing-Friendly
        # Fields", 2006, §4): six Fq2 products instead of nine.
        a0, a1, a2 = self.coeffs
        b0, b1, b2 = o.coeffs
        v0, v1, v2 = a0 * b0, a1 * b1, a2 * b2
        c0 = ((a1 + a2) * (b1 + b2) - v1 - v2).mul_by_nonresidue() + v0
        c1 = (a0 + a1) * (b0 + b1) - v0 - v1 + v2.mul_by_nonresidue()
        c2 = (a0 + a2) * (b0 + b2) - v0 - v2 + v1
        return type(self)(c0, c1, c2)

    __rmul__ = __mul__

    def square(self) -> Fq6Element:
        return self * self

    def mul_by_nonresidue(self) -> Fq6Element:
        """Multiply by v (the non-residue defining Fq12): (c0, c1, c2)·v = (ξ c2, c0, c1)."""
        return type(self)(self.c2.mul_by_nonresidue(), self.c0, self.c1)

    def inverse(self) -> Fq6Element:
        """The inverse through the norm to Fq2 (Scott, "Implementing cryptographic pairings", §4)."""
        a0, a1, a2 = self.coeffs
        t0 = a0.square() - (a1 * a2).mul_by_nonresidue()
        t1 = a2.square().mul_by_nonresidue() - a0 * a1
        t2 = a1.square() - a0 * a2
        denominator = a0 * t0 + (a2 * t1 + a1 * t2).mul_by_nonresidue()
        if denominator.is_zero():
            raise NotInvertibleError(f"0 has no inverse in {self.NAME}")
        d = denominator.inverse()
        return type(self)(t0 * d, t1 * d, t2 * d)


class Fq12Element(_Extension):
    """c0 + c1·w with w² = v, coefficients in Fq6."""

    __slots__ = ("c0", "c1")
    DEGREE = 2

    def __init__(self, c0: Any, c1: Any) -> None:
        self.c0, self.c1 = c0, c1

    @property
    def coeffs(self) -> tuple[Any, Any]:
        return (self.c0, self.c1)

    def __mul__(self, other: object) -> Fq12Element:
        if isinstance(other, (int, PrimeFieldElement, Fq2Element, Fq6Element)):
            return self.scale(other)
        o = self._check(other)
        if o is NotImplemented:
            return NotImplemented
        v0, v1 = self.c0 * o.c0, self.c1 * o.c1
        c1 = (self.c0 + self.c1) * (o.c0 + o.c1) - v0 - v1
        return type(self)(v0 + v1.mul_by_nonresidue(), c1)

    __rmul__ = __mul__

    def square(self) -> Fq12Element:
        # (a0 + a1 w)² = a0² + a1² v + 2 a0 a1 w, with the complex-squaring trick
        a0, a1 = self.c0, self.c1
        ab = a0 * a1
        c0 = (a0 + a1) * (a0 + a1.mul_by_nonresidue()) - ab - ab.mul_by_nonresidue()
        return type(self)(c0, ab.double())

    def conjugate(self) -> Fq12Element:
        """a0 − a1 w, which equals a^(q⁶): the Frobenius of Fq12 over Fq6."""
        return type(self)(self.c0, -self.c1)

    def inverse(self) -> Fq12Element:
        """a⁻¹ = conj(a) / (a0² − a1² v)."""
        denominator = self.c0.square() - self.c1.square().mul_by_nonresidue()
        if denominator.is_zero():
            raise NotInvertibleError(f"0 has no inverse in {self.NAME}")
        d = denominator.inverse()
        return type(self)(self.c0 * d, -(self.c1 * d))

    def w_coefficients(self) -> list[Any]:
        """The six Fq2 coefficients g_i of a = Σ g_i w^i (w² = v, so w^(2j) = v^j and w^(2j+1) = v^j w)."""
        return [self.c0.c0, self.c1.c0, self.c0.c1, self.c1.c1, self.c0.c2, self.c1.c2]

    @classmethod
    def from_w_coefficients(cls, g: list[Any]) -> Fq12Element:
        six = cls.BASE
        return cls(six(g[0], g[2], g[4]), six(g[1], g[3], g[5]))

    def frobenius(self, power: int = 1) -> Fq12Element:
        """a^(q^power), computed on the w-basis: (g w^i)^q = g^q · w^i · γ_i with γ_i = ξ^(i(q−1)/6)."""
        result = self
        for _ in range(power % 12):
            gammas = self.FROBENIUS_GAMMAS  # type: ignore[attr-defined]
            g = result.w_coefficients()
            result = self.from_w_coefficients([g[i].conjugate() * gammas[i] for i in range(6)])
        return result


@dataclass(frozen=True)
class Tower:
    """The three extension types built on one base field Fq."""

    Fq2: type[Fq2Element]
    Fq6: type[Fq6Element]
    Fq12: type[Fq12Element]


def tower(fq: type[PrimeFieldElement], xi: tuple[int, int], prefix: str) -> Tower:
    """Build Fq2, Fq6, Fq12 over ``fq`` with the cubic/sextic non-residue ξ = xi[0] + xi[1]·u.

    The Frobenius constants γ_i = ξ^(i(q−1)/6) are computed here from q and ξ, never pasted.
    """
    fq2 = type(f"{prefix}Fq2", (Fq2Element,), {"__slots__": (), "NAME": f"{prefix}.Fq2", "BASE": fq})
    fq2.XI = (fq(xi[0]), fq(xi[1]))  # type: ignore[attr-defined]
    fq6 = type(f"{prefix}Fq6", (Fq6Element,), {"__slots__": (), "NAME": f"{prefix}.Fq6", "BASE": fq2})
    fq12 = type(f"{prefix}Fq12", (Fq12Element,), {"__slots__": (), "NAME": f"{prefix}.Fq12", "BASE": fq6})
    q = fq.MODULUS
    if (q - 1) % 6:
        raise ValueError(f"q − 1 must be divisible by 6 for a sextic twist tower (q = {q:#x})")
    xi2 = fq2(*xi)
    gamma1 = xi2 ** ((q - 1) // 6)
    fq12.FROBENIUS_GAMMAS = [gamma1**i for i in range(6)]  # type: ignore[attr-defined]
    return Tower(fq2, fq6, fq12)
