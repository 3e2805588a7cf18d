"""The reference NTT over points: the radix-2 FFT against the O(n²) definition, the inverse against the Lagrange basis
[L_i(τ)] computed directly (Π_(k≠i) (τ − ω^k)/(ω^i − ω^k)) for a known τ, ffjavascript's roots of unity, and the
inputs snarkjs's prepare phase2 reads for section 12's extra block."""

from __future__ import annotations

import random

import pytest

from cuzk.formats.domain import snarkjs_root_exponent
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import SizeMismatchError
from cuzk.reference.ntt import domain_root
from cuzk.reference.point_ntt import (
    ffjavascript_root,
    lagrange_block,
    lagrange_sources,
    point_dft,
    point_ntt,
)

CURVES = [BN254, BLS12_381]
by_curve = pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
by_group = pytest.mark.parametrize("group", ["g1", "g2"])


def group_of(curve: Curve, group: str):
    return curve.g1 if group == "g1" else curve.g2


def random_points(curve: Curve, group: str, n: int, seed: int) -> list:
    rng, grp = random.Random(seed), group_of(curve, group)
    return [grp.identity() if i % 5 == 2 else grp.generator * rng.randrange(1, curve.r) for i in range(n)]


# G2 at n = 8: 64 pure-Python multiples of G2 points per transform, seconds each (slow run only)
SIZES = [(g, n) for g in ("g1", "g2") for n in (1, 2, 4)] + [("g1", 8), pytest.param("g2", 8, marks=pytest.mark.slow)]


@by_curve
@pytest.mark.parametrize(("group", "n"), SIZES)
@pytest.mark.parametrize("inverse", [False, True], ids=["forward", "inverse"])
def test_radix2_matches_definition(curve: Curve, group: str, n: int, inverse: bool) -> None:
    points = random_points(curve, group, n, seed=n)
    for omega in (ffjavascript_root(curve.Fr, n), domain_root(curve.Fr, n)):
        assert point_ntt(points, omega, inverse=inverse) == point_dft(points, omega, inverse=inverse)


@by_curve
def test_inverse_undoes_forward(curve: Curve) -> None:
    points = random_points(curve, "g1", 16, seed=3)
    omega = ffjavascript_root(curve.Fr, 16)
    assert point_ntt(point_ntt(points, omega), omega, inverse=True) == points


def lagrange_at(curve: Curve, omega: int, n: int, i: int, tau: int) -> int:
    """L_i(τ) on the domain {ω^k}, from the product formula (not from the DFT)."""
    r = curve.r
    xi = pow(omega, i, r)
    value = 1
    for k in range(n):
        if k != i:
            xk = pow(omega, k, r)
            value = value * (tau - xk) * pow(xi - xk, -1, r) % r
    return value


@by_curve
@by_group
@pytest.mark.parametrize("log_n", [0, 1, 2, 3])
def test_inverse_of_powers_is_the_lagrange_basis(curve: Curve, group: str, log_n: int) -> None:
    n, tau, G = 1 << log_n, 0x5EED_1234_ABCD, group_of(curve, group).generator
    omega = ffjavascript_root(curve.Fr, n)
    powers = [G * pow(tau, j, curve.r) for j in range(n)]
    expected = [G * lagrange_at(curve, omega.value, n, i, tau) for i in range(n)]
    assert point_ntt(powers, omega, inverse=True) == expected
    assert lagrange_block(powers, log_n, power=log_n + 1, tau_g1=group == "g1") == expected


@by_curve
def test_ffjavascript_root(curve: Curve) -> None:
    """ffjavascript's root is the reference's to the power of formats.domain's exponent (1 on BN254 only)."""
    S = curve.Fr.TWO_ADICITY
    ffjs = ffjavascript_root(curve.Fr, 1 << S)
    assert ffjs == curve.Fr.ROOT_OF_UNITY ** snarkjs_root_exponent(curve.Fr)
    assert (ffjs == curve.Fr.ROOT_OF_UNITY) is (curve is BN254)
    assert ffjavascript_root(curve.Fr, 8) == ffjs ** (1 << (S - 3))
    with pytest.raises(SizeMismatchError):
        ffjavascript_root(curve.Fr, 1 << (S + 1))


def test_rejects_bad_sizes_and_roots() -> None:
    points = random_points(BN254, "g1", 4, seed=1)
    omega = ffjavascript_root(BN254.Fr, 4)
    with pytest.raises(SizeMismatchError):
        point_ntt(points[:3], omega)
    with pytest.raises(SizeMismatchError):
        point_ntt(points, BN254.Fr(-1))  # a square root of unity, not a primitive fourth root
    with pytest.raises(SizeMismatchError):
        point_dft(points, BN254.Fr(5))
    assert point_ntt([], omega) == [] and point_dft([], omega) == []


def test_lagrange_sources() -> None:
    """The first 2^p points, except section 2's block of 2^(power+1): its 2^(power+1) − 1 points and the point at
    infinity last, at every power (snarkjs 0.7.6 reads the block in one piece; below 2^16 and above it alike)."""
    assert lagrange_sources(3, 5, tau_g1=True) == list(range(8))
    assert lagrange_sources(6, 5, tau_g1=False) == list(range(64))
    assert lagrange_sources(6, 5, tau_g1=True) == [*range(63), None]
    sources = lagrange_sources(18, 17, tau_g1=True)
    assert len(sources) == 1 << 18
    assert [k for k, s in enumerate(sources) if s is None] == [(1 << 18) - 1]
    assert sources[(1 << 16) - 2 : (1 << 16) + 1] == [(1 << 16) - 2, (1 << 16) - 1, 1 << 16]
