"""The NTT over curve points, and the Lagrange bases of a powers-of-tau file that ``snarkjs powersoftau prepare
phase2`` computes with it.

Elements are points of G1 or G2, twiddles scalars of Fr: for points P_0 … P_(n−1) and ω a primitive n-th root of
unity of Fr (the definitions of :mod:`cuzk.reference.ntt`, written additively)

    forward     Q_i = Σ_j [ω^(ij)] P_j
    inverse     P_j = [n⁻¹] Σ_i [ω^(−ij)] Q_i

Why a ptau needs it: phase 1 publishes [τ^j]₁ (and [τ^j]₂, [α·τ^j]₁, [β·τ^j]₁), but a Groth16 key is a sum over
the constraints' rows, i.e. over the Lagrange basis L_i(X) = n⁻¹ Σ_j (ω^(−i)·X)^j of the domain {ω^i}. Since
[L_i(τ)] = [n⁻¹] Σ_j [ω^(−ij)] [τ^j], the inverse NTT of the powers is the basis, computed without knowing τ.

snarkjs (src/powersoftau_preparephase2.js) runs ffjavascript's FFT over points (wasmcurves' build_fft.js:
``fftMix``, ``fftJoin``, ``fftFinal``): the input in bit-reversed order, radix-2 decimation-in-time butterflies
with ω, then ``fftFinal`` multiplies by n⁻¹ and writes output m at position (n − m) mod n. That is the forward
transform read backwards, i.e. the inverse above: :func:`point_ntt` does the same steps. ω is ffjavascript's
(:func:`ffjavascript_root`), not the reference's domain root (they differ on BLS12-381).

:func:`point_dft` is the O(n²) oracle, :func:`point_ntt` the radix-2 FFT ((n/2)·log₂ n scalar multiplications).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cuzk.reference.curves import Point
from cuzk.reference.errors import SizeMismatchError
from cuzk.reference.fields.prime_field import FftFieldElement
from cuzk.reference.ntt import is_power_of_two, radix2


def check_root(omega: FftFieldElement, n: int) -> None:
    """SizeMismatchError unless n is a power of two and ω a primitive n-th root of unity (ω^n = 1, ω^(n/2) ≠ 1)."""
    if not is_power_of_two(n):
        raise SizeMismatchError(f"a point NTT has a power-of-two length (1, 2, 4, …), not {n}")
    one = type(omega).one()
    if omega**n != one or (n > 1 and omega ** (n // 2) == one):
        raise SizeMismatchError(f"ω = {omega!r} is not a primitive {n}-th root of unity")


def ffjavascript_root(field: type[FftFieldElement], n: int) -> FftFieldElement:
    """ffjavascript's ω_n (F1Field's ``w[log₂ n]``): g^t squared down to order n, where g is the smallest quadratic
    non-residue and r − 1 = 2^S·t. BN254: the reference's own root; BLS12-381: 5^t where the reference has 7^t."""
    p, s = field.MODULUS, field.TWO_ADICITY
    g = 2
    while pow(g, (p - 1) // 2, p) != p - 1:
        g += 1
    if not is_power_of_two(n) or n > 1 << s:
        raise SizeMismatchError(f"{field.NAME} has no domain of {n} points (powers of two up to 2^{s})")
    return field(g) ** (((p - 1) >> s) * ((1 << s) // n))


def point_dft(points: Sequence[Point], omega: FftFieldElement, *, inverse: bool = False) -> list[Point]:
    """The transform from its definition (module docstring): n sums of n scalar multiples, O(n²)."""
    n = len(points)
    if n == 0:
        return []
    check_root(omega, n)
    identity = points[0].group.identity()
    if not inverse:
        return [_sum(((omega ** (i * j)) * P for j, P in enumerate(points)), identity) for i in range(n)]
    n_inv = type(omega)(n).inverse()
    return [n_inv * _sum(((omega ** (-i * j)) * Q for i, Q in enumerate(points)), identity) for j in range(n)]


def _sum(terms: Iterable[Point], identity: Point) -> Point:
    total = identity
    for term in terms:
        total = total + term
    return total


def point_ntt(points: Sequence[Point], omega: FftFieldElement, *, inverse: bool = False) -> list[Point]:
    """The transform by the radix-2 FFT. The inverse is ffjavascript's: the forward FFT with ω, each output
    multiplied by n⁻¹, output m taken from position (n − m) mod n (Σ_j ω^(−mj) = Σ_j ω^((n−m)j))."""
    n = len(points)
    if n == 0:
        return []
    check_root(omega, n)
    forward = radix2(points, omega)  # the reference NTT's butterflies, over points
    if not inverse:
        return forward
    n_inv = type(omega)(n).inverse()
    return [n_inv * forward[(n - m) % n] for m in range(n)]


# --- prepare phase2 ---------------------------------------------------------------------------------------------


def lagrange_sources(log_n: int, power: int, tau_g1: bool) -> list[int | None]:
    """For each input of the block of 2^log_n, the index of the section's point it is (None: the point at
    infinity), as snarkjs reads them: the first 2^log_n points, except for section 2's extra block of 2^(power+1),
    where the section holds one point too few: [τ^0 … τ^(n−2), O] (snarkjs 0.7.6, powersoftau_preparephase2.js,
    ``processSectionPower``: it reads n − 1 points and sets the last to zeroAffine; checked against its output at
    power 17, where that block has 2^18 inputs)."""
    n = 1 << log_n
    if not (tau_g1 and log_n == power + 1):
        return list(range(n))
    return [*range(n - 1), None]


def lagrange_block(section: Sequence[Point], log_n: int, power: int, *, tau_g1: bool) -> list[Point]:
    """The block of 2^log_n of a Lagrange section (12–15) from the points of its section (2–5): the inverse NTT,
    over ffjavascript's ω, of the inputs :func:`lagrange_sources` names; [L_i(τ)] for the powers [τ^j]."""
    identity = section[0].group.identity()
    inputs = [identity if k is None else section[k] for k in lagrange_sources(log_n, power, tau_g1)]
    return point_ntt(inputs, ffjavascript_root(section[0].group.scalar_field, 1 << log_n), inverse=True)


__all__ = [
    "check_root",
    "ffjavascript_root",
    "lagrange_block",
    "lagrange_sources",
    "point_dft",
    "point_ntt",
]
