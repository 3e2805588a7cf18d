"""Four-dimensional scalar decomposition on G2 (Galbraith–Lin–Scott, EUROCRYPT 2009, with GLV's φ): G2 scalar
multiplications by quarter-length scalars, so with a quarter of the doublings of a plain one.

On G2 two endomorphisms act as multiplications by integers:

- φ(x, y) = (β·x, y), β a cube root of unity of Fq, as [λ] (:mod:`.glv`);
- ψ, the untwist-Frobenius-twist map, ψ(x, y) = (conj(x)·γx, conj(y)·γy) with the constants of the reference's
  :func:`~cuzk.reference.pairing.twist_frobenius`, as [μ], μ ≡ q (mod r) (:mod:`cuzk.reference.curves.subgroup`).

So [k]P = [k₀]P + [k₁]φ(P) + [k₂]ψ(P) + [k₃]φψ(P) whenever k ≡ k₀ + k₁λ + k₂μ + k₃λμ (mod r). The components come
from a reduced basis of the lattice {v ∈ Z⁴ : v₀ + v₁λ + v₂μ + v₃λμ ≡ 0 (mod r)} (LLL, Lenstra–Lenstra–Lovász 1982,
computed here from the curve's data, never pasted) by Babai's rounding: v = (k, 0, 0, 0) − Σ round(k·c_i)·b_i,
c the first row of the basis's inverse; each |v_j| is at most half the sum of the basis's column j, about r^(1/4).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from cuzk.backends.cpu.glv import glv, rounded
from cuzk.reference.curves import Curve
from cuzk.reference.errors import ParameterError

Vector = list[int]


def _dot(u: list[Fraction], v: list[Fraction]) -> Fraction:
    return sum((a * b for a, b in zip(u, v, strict=True)), Fraction(0))


def _gram_schmidt(basis: list[Vector]) -> tuple[list[list[Fraction]], list[list[Fraction]]]:
    """(b*, μ): the orthogonalised rows and the coefficients μ_ij = ⟨b_i, b*_j⟩ / ⟨b*_j, b*_j⟩."""
    star: list[list[Fraction]] = []
    mu = [[Fraction(0)] * len(basis) for _ in basis]
    for i, row in enumerate(basis):
        v = [Fraction(x) for x in row]
        for j in range(i):
            mu[i][j] = _dot([Fraction(x) for x in row], star[j]) / _dot(star[j], star[j])
            v = [a - mu[i][j] * b for a, b in zip(v, star[j], strict=True)]
        star.append(v)
    return star, mu


def lll(basis: list[Vector], delta: Fraction = Fraction(3, 4)) -> list[Vector]:
    """The LLL-reduced form of integer row vectors (the textbook algorithm in exact rationals: the lattices here
    have four rows, so clarity wins over speed)."""
    b = [list(v) for v in basis]
    k = 1
    while k < len(b):
        for j in range(k - 1, -1, -1):  # size reduction of b_k
            q = round(_gram_schmidt(b)[1][k][j])
            if q:
                b[k] = [x - q * y for x, y in zip(b[k], b[j], strict=True)]
        star, mu = _gram_schmidt(b)
        if _dot(star[k], star[k]) >= (delta - mu[k][k - 1] ** 2) * _dot(star[k - 1], star[k - 1]):
            k += 1
        else:  # Lovász's condition fails: swap and step back
            b[k], b[k - 1] = b[k - 1], b[k]
            k = max(k - 1, 1)
    return b


def _first_row_of_inverse(basis: list[Vector]) -> list[Fraction]:
    """Row 0 of basis⁻¹, by Gauss–Jordan elimination in rationals: (k, 0, 0, 0) = Σ (k·c_i)·b_i."""
    n = len(basis)
    rows = [[Fraction(x) for x in basis[i]] + [Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        rows[col] = [x / rows[col][col] for x in rows[col]]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                rows[r] = [a - rows[r][col] * b for a, b in zip(rows[r], rows[col], strict=True)]
    return rows[0][n:]


@dataclass(frozen=True)
class Gls:
    """The endomorphisms of one curve's G2: β, λ (φ), the constants γx, γy of ψ and μ, the reduced basis, and
    ``bound``: every component of :meth:`decompose` is below it in absolute value."""

    beta: int
    lam: int
    gamma_x: tuple[int, int]
    gamma_y: tuple[int, int]
    mu: int
    r: int
    basis: tuple[tuple[int, ...], ...]
    bound: int

    def decompose(self, k: int) -> tuple[int, int, int, int]:
        """(k₀, k₁, k₂, k₃) with k ≡ k₀ + k₁λ + k₂μ + k₃λμ (mod r), each of about r^(1/4)."""
        v0, v1, v2, v3 = k, 0, 0, 0
        for (numerator, denominator), (b0, b1, b2, b3) in zip(_coefficients(self), self.basis, strict=True):
            m = rounded(k * numerator, denominator)
            v0, v1, v2, v3 = v0 - m * b0, v1 - m * b1, v2 - m * b2, v3 - m * b3
        return v0, v1, v2, v3


@cache
def _coefficients(split: Gls) -> tuple[tuple[int, int], ...]:
    """Row 0 of the basis's inverse as (numerator, denominator > 0) pairs."""
    return tuple((c.numerator, c.denominator) for c in _first_row_of_inverse([list(row) for row in split.basis]))


def _ints(e: object) -> tuple[int, int]:
    """An Fq2 element's coefficients (c0, c1) as ints."""
    return e.c0.value, e.c1.value  # type: ignore[attr-defined]


def psi_constants(curve: Curve) -> tuple[object, object]:
    """(γx, γy) of ψ(x, y) = (conj(x)·γx, conj(y)·γy): ξ^((q−1)/3) and ξ^((q−1)/2), inverted for an M-type twist,
    as the reference's twist_frobenius takes them from the tower."""
    gammas = curve.Fq12.FROBENIUS_GAMMAS  # type: ignore[attr-defined]
    gx, gy = gammas[2], gammas[3]
    return (gx.inverse(), gy.inverse()) if curve.twist == "M" else (gx, gy)


@cache
def gls(curve: Curve) -> Gls:
    """The decomposition of ``curve``'s G2, checked: ψ(G) = [μ]G on the generator (φ is checked by :func:`glv`), the
    reduced vectors in the lattice, and the decomposition and its bound on edge and random scalars."""
    r, split = curve.r, glv(curve, "g2")
    mu = curve.q % r
    gx, gy = psi_constants(curve)
    G = curve.g2.generator
    x, y = G.to_affine()  # type: ignore[misc]
    if curve.g2.point_unchecked(x.conjugate() * gx, y.conjugate() * gy) != G * mu:
        raise ParameterError(f"{curve.name} G2: ψ is not [q mod r] on the generator")
    start = [[r, 0, 0, 0], [-split.lam % r, 1, 0, 0], [-mu % r, 0, 1, 0], [-(split.lam * mu) % r, 0, 0, 1]]
    basis = lll(start)
    if any((v[0] + v[1] * split.lam + v[2] * mu + v[3] * split.lam * mu) % r for v in basis):
        raise ParameterError(f"{curve.name} G2: a reduced vector left the lattice")
    bound = max(sum(abs(x) for x in column) for column in zip(*basis, strict=True)) // 2 + 1  # Babai's error
    result = Gls(split.beta, split.lam, _ints(gx), _ints(gy), mu, r, tuple(tuple(v) for v in basis), bound)
    rng = random.Random(r)
    for k in [0, 1, r - 1, *(rng.randrange(r) for _ in range(64))]:
        k0, k1, k2, k3 = result.decompose(k)
        if (k0 + k1 * split.lam + (k2 + k3 * split.lam) * mu - k) % r or max(map(abs, (k0, k1, k2, k3))) >= bound:
            raise ParameterError(f"{curve.name} G2: the decomposition of {k} failed its check")
    return result


__all__ = ["Gls", "gls", "lll", "psi_constants"]
