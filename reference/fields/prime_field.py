"""Prime fields F_p: integers modulo a prime p.

Every field is its own Python type, made by :func:`prime_field`. Two fields never mix: ``Fr(1) + Fq(1)`` raises
:class:`~cuzk.reference.errors.FieldMismatchError`, because the scalar field Fr of a curve (exponents) and its base
field Fq (coordinates) are different mathematical objects even when, as for small test fields, their moduli agree.
A plain ``int`` is accepted on either side of an operation and read modulo p, so ``3 * x + 1`` reads as on paper.

Elements hold their canonical integer in ``value`` (0 ≤ value < p); the reference never uses Montgomery form.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from cuzk.reference.errors import FieldMismatchError, NotASquareError, NotInvertibleError

F = TypeVar("F", bound="PrimeFieldElement")


def two_adicity(n: int) -> int:
    """The largest S with 2^S dividing n (n > 0)."""
    return (n & -n).bit_length() - 1


class PrimeFieldElement:
    """An element of F_p. Subclasses (one per field) set ``MODULUS`` and ``NAME``; see :func:`prime_field`."""

    __slots__ = ("value",)
    MODULUS: ClassVar[int]
    NAME: ClassVar[str]
    value: int

    def __init__(self, value: int | PrimeFieldElement) -> None:
        if isinstance(value, PrimeFieldElement) and type(value) is not type(self):
            raise FieldMismatchError(f"an element of {value.NAME} cannot become an element of {self.NAME}")
        self.value = int(value) % self.MODULUS

    # --- construction ------------------------------------------------------------------------------------------

    @classmethod
    def _wrap(cls: type[F], value: int) -> F:
        """Wrap an integer already in [0, p) without reducing it again (the hot path of every operation)."""
        element = object.__new__(cls)
        element.value = value
        return element

    @classmethod
    def zero(cls: type[F]) -> F:
        return cls._wrap(0)

    @classmethod
    def one(cls: type[F]) -> F:
        return cls._wrap(1)

    @classmethod
    def bit_length(cls) -> int:
        """Bits of the modulus: the width of a canonical element."""
        return cls.MODULUS.bit_length()

    def _coerce(self: F, other: object) -> F:
        if type(other) is type(self):
            return other  # type: ignore[return-value]
        if isinstance(other, int):
            return type(self)(other)
        if isinstance(other, PrimeFieldElement):
            raise FieldMismatchError(f"cannot combine an element of {self.NAME} with an element of {other.NAME}")
        return NotImplemented  # type: ignore[return-value]

    # --- arithmetic --------------------------------------------------------------------------------------------

    def __add__(self: F, other: object) -> F:
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        s = self.value + o.value
        return self._wrap(s - self.MODULUS if s >= self.MODULUS else s)

    __radd__ = __add__

    def __sub__(self: F, other: object) -> F:
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        d = self.value - o.value
        return self._wrap(d + self.MODULUS if d < 0 else d)

    def __rsub__(self: F, other: object) -> F:
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        return o - self

    def __neg__(self: F) -> F:
        return self._wrap((-self.value) % self.MODULUS)

    def __mul__(self: F, other: object) -> F:
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        return self._wrap(self.value * o.value % self.MODULUS)

    __rmul__ = __mul__

    def square(self: F) -> F:
        return self._wrap(self.value * self.value % self.MODULUS)

    def double(self: F) -> F:
        return self + self

    def inverse(self: F) -> F:
        """x⁻¹ with x · x⁻¹ = 1 (by Fermat, x^(p−2); Python's pow computes it by the extended Euclid algorithm)."""
        if self.value == 0:
            raise NotInvertibleError(f"0 has no inverse in {self.NAME}")
        return self._wrap(pow(self.value, -1, self.MODULUS))

    def __truediv__(self: F, other: object) -> F:
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        return self * o.inverse()

    def __rtruediv__(self: F, other: object) -> F:
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        return o * self.inverse()

    def __pow__(self: F, exponent: int) -> F:
        if exponent < 0:
            return self._wrap(pow(self.inverse().value, -exponent, self.MODULUS))
        return self._wrap(pow(self.value, exponent, self.MODULUS))

    # --- comparisons and predicates ----------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return self.value == other.value  # type: ignore[attr-defined]
        if isinstance(other, int):
            return self.value == other % self.MODULUS
        if isinstance(other, PrimeFieldElement):
            raise FieldMismatchError(f"cannot compare an element of {self.NAME} with an element of {other.NAME}")
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)  # equal to hash(int) because x == int compares the value

    def __int__(self) -> int:
        return self.value

    def __bool__(self) -> bool:
        return self.value != 0

    def is_zero(self) -> bool:
        return self.value == 0

    def __repr__(self) -> str:
        return f"{self.NAME}({self.value:#x})"

    # --- square roots ------------------------------------------------------------------------------------------

    def legendre(self) -> int:
        """The Legendre symbol (x | p) ∈ {0, 1, −1}, by Euler's criterion x^((p−1)/2)."""
        symbol = pow(self.value, (self.MODULUS - 1) // 2, self.MODULUS)
        return -1 if symbol == self.MODULUS - 1 else symbol

    def is_square(self) -> bool:
        return self.legendre() != -1

    def sqrt(self: F) -> F:
        """A square root of x by Tonelli–Shanks (Cohen, *A Course in Computational Algebraic Number Theory*, 1.5.1).

        Returns the root whose integer value is the smaller of the two (r ≤ (p−1)/2), so the result is canonical;
        the encodings choose the sign they need from it. Raises NotASquareError when x is a non-residue.
        """
        p = self.MODULUS
        if self.value == 0:
            return self
        if self.legendre() != 1:
            raise NotASquareError(f"{self!r} is not a square in {self.NAME}")
        s = two_adicity(p - 1)
        t = (p - 1) >> s
        z = 2
        while pow(z, (p - 1) // 2, p) != p - 1:
            z += 1
        m, c, r, u = s, pow(z, t, p), pow(self.value, (t + 1) // 2, p), pow(self.value, t, p)
        while u != 1:
            i, u2 = 0, u
            while u2 != 1:
                u2 = u2 * u2 % p
                i += 1
            b = pow(c, 1 << (m - i - 1), p)
            m, c = i, b * b % p
            r, u = r * b % p, u * c % p
        return self._wrap(min(r, p - r))


class FftFieldElement(PrimeFieldElement):
    """An element of a prime field with a large power-of-two subgroup: a scalar field Fr. See :func:`fft_field`."""

    __slots__ = ()
    TWO_ADICITY: ClassVar[int]
    GENERATOR: ClassVar[FftFieldElement]
    ROOT_OF_UNITY: ClassVar[FftFieldElement]


def prime_field(name: str, modulus: int, base: type[PrimeFieldElement] = PrimeFieldElement) -> type[PrimeFieldElement]:
    """Make the type of F_modulus, named ``name`` (the name appears in reprs and error messages)."""
    return type(name, (base,), {"__slots__": (), "MODULUS": modulus, "NAME": name})


def fft_field(name: str, modulus: int, generator: int) -> type[FftFieldElement]:
    """Make a prime field that carries what the NTT needs, computed from ``modulus`` and ``generator``:

    - ``TWO_ADICITY`` S: the largest S with 2^S | p − 1 (domains up to 2^S points exist);
    - ``GENERATOR`` g: the conventional multiplicative generator of F_p^* (the value arkworks, blst and snarkjs use),
      which shifts evaluation domains onto the coset g·H; checked here to be a non-square, which is what the
      coset and the root below need (a full generator check would need the factorisation of p − 1);
    - ``ROOT_OF_UNITY`` ω = g^((p−1)/2^S): a primitive 2^S-th root of unity (primitive because g is a non-square).
    """
    field: type[FftFieldElement] = prime_field(name, modulus, FftFieldElement)  # type: ignore[assignment]
    g = field(generator)
    if g.legendre() != -1:
        raise ValueError(
            f"{generator} is a square mod {modulus:#x}; it cannot generate F_p^* nor give a primitive root"
        )
    s = two_adicity(modulus - 1)
    field.TWO_ADICITY = s
    field.GENERATOR = g
    field.ROOT_OF_UNITY = g ** ((modulus - 1) >> s)
    return field
