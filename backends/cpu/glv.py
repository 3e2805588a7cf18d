"""The GLV endomorphism of y² = x³ + b (Gallant–Lambert–Vanstone, CRYPTO 2001), for scalar multiplication by
half-length scalars: the constants computed from the reference's curve data, and the decomposition of scalars.

Over a field with a primitive cube root of unity β, φ(x, y) = (β·x, y) maps the curve to itself (β³ = 1 leaves
x³ unchanged); on a subgroup of prime order r it is a multiplication, φ(P) = [λ]P, by a cube root of unity λ of Fr.
β lies in Fq (q ≡ 1 mod 3 for BN254 and BLS12-381), so φ acts on G1 and, through Fq ⊂ Fq2, on G2, each with its own
λ (λ or λ², found by trying the generator). Then [k]P = [k₁]P + [k₂]φ(P) with k ≡ k₁ + k₂·λ (mod r) and
|k₁|, |k₂| about √r: half the doublings of a plain scalar multiplication, shared by both halves.

The split uses a short basis (a₁, b₁), (a₂, b₂) of the lattice {(x, y): x + y·λ ≡ 0 mod r}, from the extended
Euclidean algorithm on (r, λ) (Hankerson–Menezes–Vanstone, Guide to Elliptic Curve Cryptography, Algorithm 3.74):
c₁ = round(b₂·k/r), c₂ = round(−b₁·k/r), k₁ = k − c₁a₁ − c₂a₂, k₂ = −c₁b₁ − c₂b₂ (the basis oriented so that
a₁b₂ − a₂b₁ = r).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import isqrt

from cuzk.backends import limbs
from cuzk.reference.curves import Curve
from cuzk.reference.errors import ParameterError


def cube_root_of_unity(p: int) -> int:
    """A primitive cube root of unity of F_p (p ≡ 1 mod 3): g^((p−1)/3) for the smallest g ≥ 2 it is not 1 for."""
    if p % 3 != 1:
        raise ParameterError(f"F_{p:#x} has no primitive cube root of unity (p ≢ 1 mod 3)")
    g = 2
    while pow(g, (p - 1) // 3, p) == 1:
        g += 1
    return pow(g, (p - 1) // 3, p)


def short_basis(r: int, lam: int) -> tuple[int, int, int, int]:
    """(a₁, b₁, a₂, b₂): two short vectors of the lattice of (x, y) with x + y·λ ≡ 0 (mod r), Algorithm 3.74."""
    root = isqrt(r)
    rows = [(r, 0), (lam, 1)]  # (r_i, t_i) with s_i·r + t_i·λ = r_i, the extended Euclidean algorithm
    while rows[-1][0] >= root:
        (r0, t0), (r1, t1) = rows[-2], rows[-1]
        q = r0 // r1
        rows.append((r0 - q * r1, t0 - q * t1))
    (r_l, t_l), (r_next, t_next) = rows[-2], rows[-1]  # l: the last index with r_l ≥ √r
    q = r_l // r_next
    r_after, t_after = r_l - q * r_next, t_l - q * t_next
    a1, b1 = r_next, -t_next
    a2, b2 = min((r_l, -t_l), (r_after, -t_after), key=lambda v: v[0] ** 2 + v[1] ** 2)
    if a1 * b2 - a2 * b1 < 0:  # oriented so that the determinant is +r, as decompose's rounding assumes
        a2, b2 = -a2, -b2
    return a1, b1, a2, b2


@dataclass(frozen=True)
class Glv:
    """The endomorphism of one group of one curve: β (canonical, in Fq), λ (in Fr) with φ(P) = [λ]P, the basis."""

    beta: int
    lam: int
    r: int
    basis: tuple[int, int, int, int]

    def decompose(self, k: int) -> tuple[int, int]:
        """(k₁, k₂), signed, with k ≡ k₁ + k₂·λ (mod r) and both about √r in size."""
        a1, b1, a2, b2 = self.basis
        c1 = rounded(b2 * k, self.r)
        c2 = rounded(-b1 * k, self.r)
        return k - c1 * a1 - c2 * a2, -c1 * b1 - c2 * b2


def rounded(x: int, d: int) -> int:
    """round(x / d) for d > 0, halves up."""
    return (2 * x + d) // (2 * d)


@cache
def glv(curve: Curve, group: str) -> Glv:
    """β, λ and the basis for ``group`` of ``curve``, checked: φ(G) = [λ]G for the generator G, and the basis
    vectors are in the lattice and short (below 2·√r)."""
    beta, lam, r = cube_root_of_unity(curve.q), cube_root_of_unity(curve.r), curve.r
    grp = limbs.group_of(curve, group)
    G = grp.generator
    x, y = G.to_affine()  # type: ignore[misc]
    image = grp.point_unchecked(x * grp.field(beta) if group == "g1" else x * grp.field(beta, 0), y)
    for candidate in (lam, lam * lam % r):
        if image == G * candidate:
            basis = short_basis(r, candidate)
            a1, b1, a2, b2 = basis
            bound = 2 * isqrt(r)
            in_lattice = (a1 + b1 * candidate) % r == 0 and (a2 + b2 * candidate) % r == 0
            if not in_lattice or a1 * b2 - a2 * b1 != r or max(map(abs, basis)) > bound:
                raise ParameterError(f"{curve.name} {group}: the GLV basis {basis} is not short")
            return Glv(beta, candidate, r, basis)
    raise ParameterError(f"{curve.name} {group}: (β·x, y) is not [λ]P for a cube root of unity λ of Fr")


__all__ = ["Glv", "cube_root_of_unity", "glv", "rounded", "short_basis"]
