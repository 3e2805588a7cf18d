"""The numbers the kernels need, computed from the reference's curve data (never typed by hand).

A field element of a modulus p lives on the device as N limbs of w bits (w = 64 on OpenCL, 32 on CUDA; N·w is
the same 64·L bits the host's uint64 limbs use, so one buffer serves both widths) in Montgomery form x·R mod p with
R = 2^(N·w). Multiplication is CIOS Montgomery multiplication (Koç, Acar, Kaliski, "Analyzing and Comparing
Montgomery Multiplication Algorithms", 1996) in the variant without the extra carry word (gnark-crypto's "no-carry"
optimisation), which is valid when the top limb of p is below 2^(w−1) − 1: :func:`field_constants` checks that.

Everything here is plain Python integers; :mod:`cuzk.backends.kernels.generate` prints them as C initialisers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from cuzk.reference.curves import Curve
from cuzk.reference.errors import CuzkError

DIGIT_BITS = 51  # digits of the FP64 multiplication: a product below 2^102 splits exactly in two doubles (field_f64.c)


class KernelConstantError(CuzkError, ValueError):
    """A modulus does not meet an assumption the kernels are written under (e.g. the no-carry CIOS bound)."""


def limb_words(value: int, limb_bits: int, count: int) -> list[int]:
    """``value`` as ``count`` little-endian words of ``limb_bits`` bits (value < 2^(limb_bits·count))."""
    if not 0 <= value < 1 << (limb_bits * count):
        raise KernelConstantError(f"{value:#x} does not fit in {count} limbs of {limb_bits} bits")
    mask = (1 << limb_bits) - 1
    return [(value >> (limb_bits * i)) & mask for i in range(count)]


def words_value(words: list[int], limb_bits: int) -> int:
    """The integer held by little-endian ``words`` of ``limb_bits`` bits (the inverse of :func:`limb_words`)."""
    return sum(w << (limb_bits * i) for i, w in enumerate(words))


@dataclass(frozen=True)
class FieldConstants:
    """One prime field as the kernels see it, for one limb width.

    ``limbs`` N = 64·⌈bits/64⌉ / w; ``r`` = R mod p (the Montgomery form of 1); ``r2`` = R² mod p (to_mont
    multiplies by it); ``inv`` = −p⁻¹ mod 2^w (the CIOS reduction factor).
    """

    name: str
    modulus: int
    limb_bits: int
    limbs: int
    r: int
    r2: int
    inv: int

    @property
    def bits(self) -> int:
        return self.modulus.bit_length()

    @property
    def radix(self) -> int:
        """R = 2^(N·w), the Montgomery radix."""
        return 1 << (self.limb_bits * self.limbs)

    def to_montgomery(self, x: int) -> int:
        """x·R mod p: how the kernels hold the field element x."""
        return x * self.radix % self.modulus

    def from_montgomery(self, x: int) -> int:
        """x·R⁻¹ mod p: the field element held as x."""
        return x * pow(self.radix, -1, self.modulus) % self.modulus

    def words(self, value: int) -> list[int]:
        """``value`` as this field's N limbs."""
        return limb_words(value, self.limb_bits, self.limbs)

    # The multiplication on the FP64 pipe (field_f64.c) holds integers as digits of DIGIT_BITS bits, each a double.
    @property
    def digits(self) -> int:
        """D = ⌈(log₂R − 1) / 51⌉: the digits that hold any value below R/2 (p, and every operand, is)."""
        return -(-(self.limb_bits * self.limbs - 1) // DIGIT_BITS)

    @property
    def digit_shift(self) -> int:
        """s = 51·D − log₂R (−1 or more): the FP64 multiplication's radix is R' = 2^(51·D) = R·2^s, so it takes one
        operand times 2^s (s ≥ 0), or halves its result (s = −1), to give the integer one's x·y·R⁻¹."""
        return DIGIT_BITS * self.digits - self.limb_bits * self.limbs

    @property
    def digit_inv(self) -> int:
        """−p⁻¹ mod 2^51: the reduction factor of one digit."""
        return -pow(self.modulus, -1, 1 << DIGIT_BITS) % (1 << DIGIT_BITS)

    def digit_words(self, value: int) -> list[int]:
        """``value`` as D digits of 51 bits."""
        return limb_words(value, DIGIT_BITS, self.digits)


def field_constants(name: str, modulus: int, limb_bits: int) -> FieldConstants:
    """The Montgomery constants of Z/modulus for limbs of ``limb_bits`` bits (see the module docstring)."""
    limbs64 = -(-modulus.bit_length() // 64)
    limbs = limbs64 * 64 // limb_bits
    radix = 1 << (limb_bits * limbs)
    top = limb_words(modulus, limb_bits, limbs)[-1]
    if top >= (1 << (limb_bits - 1)) - 1:
        raise KernelConstantError(
            f"{name}: the top limb {top:#x} of the modulus is too large for the no-carry CIOS multiplication "
            f"with {limb_bits}-bit limbs (it needs < 2^{limb_bits - 1} − 1)"
        )
    inv = -pow(modulus, -1, 1 << limb_bits) % (1 << limb_bits)
    return FieldConstants(name, modulus, limb_bits, limbs, radix % modulus, radix * radix % modulus, inv)


@dataclass(frozen=True)
class CurveConstants:
    """Everything one curve's kernels need for one limb width."""

    curve: Curve
    limb_bits: int
    fq: FieldConstants
    fr: FieldConstants
    g1_b: int  # b of E: y² = x³ + b, canonical
    g2_b: tuple[int, int]  # b' of the twist, (c0, c1), canonical
    fr_two_adicity: int
    fr_generator: int  # g: the coset generator
    fr_roots: tuple[int, ...]  # fr_roots[k] = ω_(2^k), a primitive 2^k-th root of unity, k = 0 … S
    fr_roots_inv: tuple[int, ...]  # their inverses

    @property
    def scalar_bits(self) -> int:
        """b = r.bit_length(): the bits of a scalar, as the reference's Pippenger counts them."""
        return self.fr.bits


@cache
def curve_constants(curve: Curve, limb_bits: int) -> CurveConstants:
    """The constants of ``curve`` for ``limb_bits``-bit limbs, read off the reference's curve data; made once per
    curve and width: they take dozens of exponentiations and inversions in Python, host time that every proof's
    compute_h would otherwise pay."""
    Fr = curve.Fr
    s = Fr.TWO_ADICITY
    roots = [Fr.ROOT_OF_UNITY ** (1 << (s - k)) for k in range(s + 1)]
    b2: Any = curve.g2.b
    return CurveConstants(
        curve=curve,
        limb_bits=limb_bits,
        fq=field_constants(f"{curve.name}.Fq", curve.q, limb_bits),
        fr=field_constants(f"{curve.name}.Fr", curve.r, limb_bits),
        g1_b=curve.g1.b.value,
        g2_b=(b2.c0.value, b2.c1.value),
        fr_two_adicity=s,
        fr_generator=Fr.GENERATOR.value,
        fr_roots=tuple(w.value for w in roots),
        fr_roots_inv=tuple(w.inverse().value for w in roots),
    )


__all__ = [
    "DIGIT_BITS",
    "CurveConstants",
    "FieldConstants",
    "KernelConstantError",
    "curve_constants",
    "field_constants",
    "limb_words",
    "words_value",
]
