"""The number-theoretic transform (NTT): the discrete Fourier transform over a prime field.

Why domains of 2^k roots of unity (bellman's domain.rs opens the same way)? Groth16 turns the constraints into
polynomials that must vanish on an evaluation domain H, and the prover needs those polynomials both as values on H
and as coefficients. If H = {1, ω, ω², …, ω^(n−1)} is the group of n-th roots of unity, with n a power of two:

- evaluating a polynomial of degree < n on all of H (and interpolating back) is a DFT, which the fast Fourier
  transform computes in O(n log n) field operations instead of O(n²), by halving the domain at every step
  (the squares of the n-th roots are the n/2-th roots);
- the vanishing polynomial of H is simply Z(X) = Π (X − ω^i) = X^n − 1, so dividing by it is cheap. On the coset
  g·H (g not in H) it is the non-zero constant g^n − 1, which is why the quotient H(X) is computed there.

Such domains exist up to 2^S points, S the 2-adicity of p − 1 (the largest S with 2^S | p − 1): 32 for
BLS12-381's Fr, 28 for BN254's, 10 for the toy field F_64513.

The definitions, for values a_0 … a_(n−1), ω = ω_n = :func:`domain_root` and g = the field's ``GENERATOR``
(the spec every backend follows bit for bit):

    forward           A_i = Σ_j a_j ω^(ij)                         (coefficients → values on H)
    inverse           a_j = n⁻¹ Σ_i A_i ω^(−ij)                    (values on H → coefficients)
    coset forward     A_i = Σ_j a_j (g ω^i)^j = NTT(a_j g^j)_i     (coefficients → values on g·H)
    coset inverse     a_j = g^(−j) · iNTT(A)_j                     (values on g·H → coefficients)

:func:`dft` computes these straight from the definitions in O(n²) (the oracle); :func:`ntt` is the textbook
iterative radix-2 Cooley–Tukey FFT. The field is the type of the values; an empty input gives an empty output.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from cuzk.reference.errors import DomainTooLargeError, FieldMismatchError, SizeMismatchError
from cuzk.reference.fields.prime_field import FftFieldElement

F = TypeVar("F", bound=FftFieldElement)


# --- domains ---------------------------------------------------------------------------------------------------


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def domain_root(field: type[F], n: int) -> F:
    """ω_n = ROOT_OF_UNITY^(2^S / n): a primitive n-th root of unity, the generator of the domain H of size n.

    ROOT_OF_UNITY has order exactly 2^S, so its 2^S/n-th power has order exactly n. Raises SizeMismatchError when
    n is not a power of two, DomainTooLargeError when n > 2^S.
    """
    if not is_power_of_two(n):
        raise SizeMismatchError(f"an evaluation domain has a power-of-two size (1, 2, 4, …), not {n}")
    max_size = 1 << field.TWO_ADICITY
    if n > max_size:
        raise DomainTooLargeError(
            f"{field.NAME} has roots of unity of order at most 2^{field.TWO_ADICITY} = {max_size}, "
            f"so no domain of {n} points exists"
        )
    return field.ROOT_OF_UNITY ** (max_size // n)


def vanishing_on_coset(field: type[F], n: int) -> F:
    """Z(g·ω^i) = (g·ω^i)^n − 1 = g^n − 1: the vanishing polynomial X^n − 1 of H is constant on the coset g·H."""
    domain_root(field, n)  # validates n
    return field.GENERATOR**n - 1


def bit_reverse_permutation(values: Sequence[F]) -> list[F]:
    """The values reordered so that index i moves to index rev(i), its log2(n) bits read backwards.

    This is the input order of the iterative FFT (CLRS, BIT-REVERSE-COPY); it is its own inverse.
    """
    n = len(values)
    if n == 0:
        return []
    if not is_power_of_two(n):
        raise SizeMismatchError(f"bit reversal needs a power-of-two length, not {n}")
    bits = n.bit_length() - 1
    return [values[_reverse_bits(i, bits)] for i in range(n)]


def _reverse_bits(i: int, bits: int) -> int:
    """The ``bits``-bit integer whose binary digits are those of i in reverse order."""
    r = 0
    for _ in range(bits):
        r = (r << 1) | (i & 1)
        i >>= 1
    return r


def _field_of(values: Sequence[F]) -> type[F]:
    """The FFT field all the values belong to (they must all be elements of the same one)."""
    field = type(values[0])
    if not issubclass(field, FftFieldElement):
        raise FieldMismatchError(f"the NTT needs elements of an FFT field (such as a curve's Fr), not {field.__name__}")
    for v in values:
        if type(v) is not field:
            raise FieldMismatchError(f"NTT values mix elements of {field.NAME} and {type(v).__name__}")
    return field


# --- the O(n²) oracle ------------------------------------------------------------------------------------------


def dft(values: Sequence[F], *, inverse: bool = False, coset: bool = False) -> list[F]:
    """The transform computed from its definition (module docstring), one sum of n terms per output: O(n²)."""
    n = len(values)
    if n == 0:
        return []
    field = _field_of(values)
    omega = domain_root(field, n)
    g = field.GENERATOR
    if not inverse:
        if coset:
            return [sum((a * (g * omega**i) ** j for j, a in enumerate(values)), field.zero()) for i in range(n)]
        return [sum((a * omega ** (i * j) for j, a in enumerate(values)), field.zero()) for i in range(n)]
    n_inv = field(n).inverse()
    out = [n_inv * sum((A * omega ** (-i * j) for i, A in enumerate(values)), field.zero()) for j in range(n)]
    if coset:
        return [g ** (-j) * a for j, a in enumerate(out)]
    return out


# --- the FFT ---------------------------------------------------------------------------------------------------


def radix2(values: Sequence[Any], omega: F) -> list[Any]:
    """Σ_j a_j ω^(ij) for every i, ω a primitive n-th root: CLRS (3rd ed.) §30.3, ITERATIVE-FFT.

    After bit reversal, pass s combines pairs of transforms of size m/2 into transforms of size m = 2^s with the
    butterfly (u, t) → (u + ω_m^k t, u − ω_m^k t), where ω_m = ω^(n/m) is a primitive m-th root. The a_j are field
    elements, or anything a field element multiplies (curve points: :mod:`cuzk.reference.point_ntt`).
    """
    a = bit_reverse_permutation(values)
    n = len(a)
    m = 2
    while m <= n:
        omega_m = omega ** (n // m)
        half = m // 2
        for start in range(0, n, m):
            w = type(omega).one()
            for k in range(half):
                t = w * a[start + k + half]
                u = a[start + k]
                a[start + k] = u + t
                a[start + k + half] = u - t
                w = w * omega_m
        m *= 2
    return a


def ntt(values: Sequence[F], *, inverse: bool = False, coset: bool = False) -> list[F]:
    """The transform of the module docstring (forward/inverse, on H or on the coset g·H) by the radix-2 FFT.

    ``values`` has a power-of-two length n ≤ 2^S (else SizeMismatchError / DomainTooLargeError); the inverse
    runs the same FFT with ω⁻¹ and scales by n⁻¹. The result is a new list; the input is not modified.
    """
    n = len(values)
    if n == 0:
        return []
    field = _field_of(values)
    omega = domain_root(field, n)
    g = field.GENERATOR
    if not inverse:
        if coset:
            values = [a * g**j for j, a in enumerate(values)]
        return radix2(values, omega)
    n_inv = field(n).inverse()
    out = [n_inv * a for a in radix2(values, omega.inverse())]
    if coset:
        g_inv = g.inverse()
        out = [a * g_inv**j for j, a in enumerate(out)]
    return out


__all__ = ["bit_reverse_permutation", "dft", "domain_root", "is_power_of_two", "ntt", "radix2", "vanishing_on_coset"]
