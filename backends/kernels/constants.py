"""The numbers the kernels need, computed from the reference's curve data (never typed by hand).

A field element of a modulus p lives on the device as N limbs of w bits (w = 64 on OpenCL, 32 on CUDA; N·w is
the same 64·L bits the host's uint64 limbs use, so one buffer serves both widths) in Montgomery form x·R mod p with
R = 2^(N·w). Multiplication is CIOS Montgomery multiplication (Koç, Acar, Kaliski, "Analyzing and Comparing
Montgomery Multiplication Algorithms", 1996) in the variant without the extra carry word (gnark-crypto's "no-carry"
optimisation), which is valid when the top limb of p is below 2^(w−1) − 1: :func:`field_constants` checks that.

Everything here is plain Python integers; :mod:`cuzk.backends.kernels.generate` prints them as C initialisers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from cuzk.reference.curves import Curve
from cuzk.reference.errors import CuzkError
from cuzk.reference.pairing import ate_loop_count

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


Fq2Value = tuple[int, int]  # c0 + c1·u, canonical


@dataclass(frozen=True)
class PairingConstants:
    """What the pairing kernels (pairing.c) need of one curve, canonical integers (Montgomery form is the printer's).

    ``loop_digits``: the non-adjacent form of the reference's ``ate_loop_count``, most significant first;
    ``hard_part``: the final exponentiation's hard part as exponentiation programs (:func:`hard_part_programs`)."""

    xi: Fq2Value  # ξ of Fq6 = Fq2[v]/(v³ − ξ)
    frobenius: tuple[Fq2Value, ...]  # γ_i = ξ^(i(q − 1)/6), i = 0 … 5: (g·w^i)^q = conj(g)·γ_i·w^i
    twist_b3: Fq2Value  # 3b', the constant of the doubling step
    twist_frobenius: tuple[Fq2Value, Fq2Value]  # π(x, y) = (conj(x)·c_x, conj(y)·c_y): the reference's twist_frobenius
    d_type: bool  # the twist: D (BN254) or M (BLS12-381), where a line's three coefficients sit
    conjugate: bool  # BLS12 with x < 0: f ← conj(f) after the loop
    bn: bool  # the two extra lines through π(Q) and −π²(Q)
    loop_digits: tuple[int, ...]
    hard_part: tuple[tuple[tuple[int, ...], ...], ...]  # (programs, 4 bases, width) signed digits
    hard_part_pre: int  # how many programs raise g to the factors of m, before the one for x
    hard_part_extra: int  # the result times g^extra (0 or 1)


def signed_digits(n: int) -> list[int]:
    """The non-adjacent form of n (digits −1, 0, 1, most significant first); negated digits for n < 0."""
    m, digits = abs(n), []
    while m:
        d = 2 - m % 4 if m & 1 else 0
        digits.append(d)
        m = (m - d) // 2
    sign = -1 if n < 0 else 1
    return [sign * d for d in reversed(digits)]


def hard_part_decomposition(curve: Curve) -> tuple[list[int], list[list[int]], int]:
    """(factors of m, c, extra) with (q⁴ − q² + 1)/r = Π factors · Σ_{i,j} c[i][j]·x^j·q^i + extra, x the curve
    parameter; checked on the curve's numbers (KernelConstantError if it fails).

    BN: λ_i = Σ_j c_ij x^j with λ3 = 1, λ2 = 6x² + 1, λ1 = −36x³ − 18x² − 12x + 1, λ0 = −36x³ − 30x² − 18x − 2
    (Scott, Benger, Charlemagne, Dominguez Perez, Kachisa, "On the final exponentiation for calculating pairings on
    ordinary elliptic curves", Pairing 2009). BLS12: 3e = (x − 1)²·(x + q)·(x² + q² − 1) + 3 (Hayashida, Hayasaka,
    Teruya, ePrint 2020/875), so m = ((x − 1)/3)·(x − 1), c = (x³ − x) + (x² − 1)q + x·q² + q³, extra = 1. The
    cpu backend's pairing (backends/cpu/pairing.py) uses the same decomposition."""
    x, q, r = curve.x, curve.q, curve.r
    if curve.family == "bn":
        factors: list[int] = []
        c = [[-2, -18, -30, -36], [1, -12, -18, -36], [1, 0, 6, 0], [1, 0, 0, 0]]
        extra = 0
    else:
        factors = [(x - 1) // 3, x - 1]
        c = [[0, -1, 0, 1], [-1, 0, 1, 0], [0, 1, 0, 0], [1, 0, 0, 0]]
        extra = 1
    e, rest = divmod(q**4 - q**2 + 1, r)
    total = math.prod(factors) * sum(c[i][j] * x**j * q**i for i in range(4) for j in range(4)) + extra
    if rest or (curve.family != "bn" and (x - 1) % 3) or total != e:
        raise KernelConstantError(f"{curve.name}: the hard part's decomposition does not hold")
    return factors, c, extra


def hard_part_programs(curve: Curve) -> tuple[tuple[tuple[tuple[int, ...], ...], ...], int, int]:
    """The hard part as (programs, pre, extra): program k gives base j's exponent as the signed digits of row j,
    left-padded to one width; in order one program per factor of m, one for x (one base each), then the four
    c_i = (c_i0, …, c_i3) over the bases h^(x^j)."""
    factors, c, extra = hard_part_decomposition(curve)
    programs = [[signed_digits(v), [], [], []] for v in [*factors, curve.x]]
    programs += [[signed_digits(v) for v in row] for row in c]
    width = max(len(d) for rows in programs for d in rows)
    padded = tuple(tuple(tuple([0] * (width - len(d)) + d) for d in rows) for rows in programs)
    return padded, len(factors), extra


@cache
def pairing_constants(curve: Curve) -> PairingConstants:
    """The constants of ``curve``'s pairing kernels, from the reference's curve and tower."""
    fq2: Any = curve.Fq2
    xi = fq2(*(c.value for c in fq2.XI))
    gammas = [xi ** (i * (curve.q - 1) // 6) for i in range(6)]
    gx, gy = gammas[2], gammas[3]  # γ₂ = ξ^((q−1)/3), γ₃ = ξ^((q−1)/2), as twist_frobenius takes them
    if curve.twist == "M":
        gx, gy = gx.inverse(), gy.inverse()
    programs, pre, extra = hard_part_programs(curve)

    def pair(e: Any) -> Fq2Value:
        return (e.c0.value, e.c1.value)

    return PairingConstants(
        xi=pair(xi),
        frobenius=tuple(pair(g) for g in gammas),
        twist_b3=pair(curve.g2.b * 3),
        twist_frobenius=(pair(gx), pair(gy)),
        d_type=curve.twist == "D",
        conjugate=curve.family == "bls12" and curve.x < 0,
        bn=curve.family == "bn",
        loop_digits=tuple(signed_digits(ate_loop_count(curve))),
        hard_part=programs,
        hard_part_pre=pre,
        hard_part_extra=extra,
    )


__all__ = [
    "DIGIT_BITS",
    "CurveConstants",
    "FieldConstants",
    "KernelConstantError",
    "PairingConstants",
    "curve_constants",
    "field_constants",
    "hard_part_decomposition",
    "hard_part_programs",
    "limb_words",
    "pairing_constants",
    "signed_digits",
    "words_value",
]
