"""The reference MSM: Pippenger with signed digits against double-and-add, for every window size and the edge cases.

Pure-Python group operations cost ~20–30 µs (G1) and ~130 µs (G2), and Pippenger's bucket sums cost about 2^(c−1)
additions per window whatever n is, so by default windows above 10 run on scalars whose large digits sit in few
windows; ``-m slow`` runs them on random scalars too.
"""

from __future__ import annotations

import functools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuzk.reference.curves import BLS12_381, BN254, Curve, Group, Point
from cuzk.reference.errors import GroupMismatchError, ParameterError, SizeMismatchError
from cuzk.reference.fields import prime_field
from cuzk.reference.msm import (
    default_window,
    double_and_add,
    msm,
    msm_naive,
    msm_pippenger,
    signed_digits,
    window_count,
)

CURVES = [BLS12_381, BN254]
curve_ids = [c.name for c in CURVES]


@functools.cache
def pool(group: Group) -> list[Point]:
    """Bases to draw from: O, G, −G, four random points and the negation of one (so P and −P meet)."""
    rng = random.Random(group.name)
    points = [group.generator * rng.randrange(1, group.order) for _ in range(4)]
    return [group.identity(), group.generator, -group.generator, *points, -points[0]]


def edge_scalars(r: int) -> list[int]:
    b = r.bit_length()
    values = [0, 1, 2, 3, r - 1, r - 2, (r - 1) // 2, (r + 1) // 2, 2 ** (b - 1), 2 ** (b - 1) - 1]
    values += [2**k for k in (7, 8, 15, 16, 63, 64, 128)] + [2**k - 1 for k in (8, 16, 64, 128)]
    return values + [r - 2**k for k in (1, 16, 128)]


def scalars_strategy(r: int) -> st.SearchStrategy[int]:
    return st.one_of(st.integers(0, r - 1), st.sampled_from(edge_scalars(r)), st.integers(0, 2**20))


def by_multiplication(group: Group, bases: list[Point], scalars: list[int]) -> Point:
    """Σ k_i·P_i with Point.__mul__: a third, independent computation."""
    result = group.identity()
    for p, k in zip(bases, scalars, strict=True):
        result = result + p * k
    return result


# --- signed digits ---------------------------------------------------------------------------------------------


@settings(max_examples=max(1000, settings().max_examples))
@given(bits=st.integers(1, 260), window=st.integers(1, 16), data=st.data())
def test_signed_digits_reconstruct(bits: int, window: int, data: st.DataObject) -> None:
    k = data.draw(st.one_of(st.integers(0, 2**bits - 1), st.sampled_from([0, 2**bits - 1, 2 ** (bits - 1)])))
    w = window_count(bits, window)
    digits = signed_digits(k, window, w)
    assert len(digits) == w
    assert sum(d << (window * t) for t, d in enumerate(digits)) == k
    assert all(-(2 ** (window - 1)) < d <= 2 ** (window - 1) for d in digits)


def test_signed_digits_by_hand() -> None:
    assert signed_digits(7, 2, 2) == [-1, 2]  # 7 = 0b1_11: 3 > 2 → −1 carry 1; 1 + 1 = 2 → 2·4 − 1
    assert signed_digits(7, 3, 2) == [-1, 1]  # all-ones window: 7 > 4 → −1 carry 1; then 0 + 1 → 8 − 1
    assert signed_digits(6, 1, 3) == [0, 1, 1]  # c = 1 is plain binary
    assert signed_digits(0b1000_1100, 4, 3) == [-4, -7, 1]  # 12 → −4 c1; 8 + 1 = 9 → −7 c1; 1: 256 − 112 − 4
    assert signed_digits(0b0111_1000, 4, 3) == [8, 7, 0]  # 8 = 2^(c−1) stays positive: no carry
    assert signed_digits(2**16 - 1, 16, 2) == [-1, 1]


def test_signed_digits_rejects() -> None:
    with pytest.raises(ParameterError, match="does not fit"):
        signed_digits(2**8, 4, 2)
    with pytest.raises(ParameterError, match="does not fit"):
        signed_digits(0b1111_1111, 4, 2)  # fits 8 bits unsigned, but the top window carries out
    with pytest.raises(ParameterError):
        signed_digits(-1, 4, 2)
    with pytest.raises(ParameterError):
        signed_digits(1, 0, 2)


@pytest.mark.parametrize("window", range(1, 17))
def test_window_count_absorbs_the_top_carry(window: int) -> None:
    for group in (BLS12_381.g1, BN254.g1):
        b = group.order.bit_length()
        w = window_count(b, window)
        assert w == -(-(b + 1) // window)
        for k in (2**b - 1, 2 ** (b - 1), group.order - 1):
            signed_digits(k, window, w)


def test_default_window() -> None:
    sizes = (0, 1, 2, 15, 16, 31, 32, 1024, 2**16, 2**20)
    assert [default_window(n) for n in sizes] == [1, 1, 1, 1, 2, 2, 3, 8, 14, 18]
    assert all(default_window(n) <= default_window(n + 1) for n in range(5000))


# --- Pippenger against double-and-add --------------------------------------------------------------------------


@pytest.mark.parametrize("curve", CURVES, ids=curve_ids)
@settings(max_examples=max(100, settings().max_examples))
@given(data=st.data())
def test_pippenger_matches_naive_g1(curve: Curve, data: st.DataObject) -> None:
    group = curve.g1
    n = data.draw(st.integers(0, 8), label="n")
    bases = data.draw(st.lists(st.sampled_from(pool(group)), min_size=n, max_size=n), label="bases")
    scalars = data.draw(st.lists(scalars_strategy(group.order), min_size=n, max_size=n), label="scalars")
    window = data.draw(st.one_of(st.none(), st.integers(1, 10)), label="window")
    assert msm(group, bases, scalars, window=window) == msm_naive(group, bases, scalars)


def window_scalars(group: Group, window: int, rng: random.Random) -> list[int]:
    """Scalars (< 2^b, not reduced mod r) that make every kind of digit in a c-bit window decomposition:

    the largest bucket 2^(c−1) with no carry, 2^(c−1) + 1 (the most negative digit and a carry), a random window,
    2^(c·t) − 1 (−1, a run of carries, +1), and 2^b − 1 (all ones: the top window's carry is absorbed). Their large
    digits sit in two windows, so each bucket sum is cheap enough for windows up to 16 by default.
    """
    b = group.order.bit_length()
    t = window_count(b, window) - 2
    half = 1 << (window - 1)
    scalars = [
        half << (window * t),
        (half + 1) << (window * t),
        rng.randrange(1 << window) << (window * t),
        (1 << (window * rng.randrange(1, t + 1))) - 1,
        2**b - 1,
    ]
    return [k for k in scalars if k < 2**b]  # for c = 1, 2^(c−1) + 1 has two bits and the second one overflows


@pytest.mark.parametrize("curve", CURVES, ids=curve_ids)
@pytest.mark.parametrize("window", range(1, 17))
def test_every_window_size(curve: Curve, window: int) -> None:
    group = curve.g1
    rng = random.Random(f"window-{curve.name}-{window}")
    points = pool(group)
    scalars = window_scalars(group, window, rng)
    if window <= 10:
        scalars += [rng.randrange(group.order) for _ in range(2)]
    bases = [points[i % len(points)] for i in range(1, len(scalars) + 1)]
    assert msm_pippenger(group, bases, scalars, window=window) == msm_naive(group, bases, scalars)


@pytest.mark.slow
@pytest.mark.parametrize("curve", CURVES, ids=curve_ids)
@pytest.mark.parametrize("window", range(11, 17))
def test_large_windows_random_scalars(curve: Curve, window: int) -> None:
    group = curve.g1
    rng = random.Random(f"large-window-{curve.name}-{window}")
    bases = pool(group)[1:5]
    scalars = [rng.randrange(group.order) for _ in bases]
    assert msm(group, bases, scalars, window=window) == msm_naive(group, bases, scalars)


@pytest.mark.parametrize("curve", CURVES, ids=curve_ids)
@pytest.mark.parametrize("window", [None, 1, 4, 7])
def test_pippenger_matches_naive_g2(curve: Curve, window: int | None) -> None:
    group = curve.g2
    rng = random.Random(f"g2-{curve.name}-{window}")
    g, p = group.generator, pool(group)[3]
    bases = [g, p, -g, group.identity()]
    scalars = [rng.randrange(group.order), group.order - 1, 2 ** (group.order.bit_length() - 1), 5]
    expected = msm_naive(group, bases, scalars)
    assert msm(group, bases, scalars, window=window) == expected
    assert expected == by_multiplication(group, bases, scalars)


@pytest.mark.slow
@pytest.mark.parametrize("curve", CURVES, ids=curve_ids)
@settings(max_examples=10)
@given(data=st.data())
def test_pippenger_matches_naive_g2_random(curve: Curve, data: st.DataObject) -> None:
    group = curve.g2
    n = data.draw(st.integers(0, 5), label="n")
    bases = data.draw(st.lists(st.sampled_from(pool(group)), min_size=n, max_size=n), label="bases")
    scalars = data.draw(st.lists(scalars_strategy(group.order), min_size=n, max_size=n), label="scalars")
    window = data.draw(st.integers(1, 10), label="window")
    assert msm(group, bases, scalars, window=window) == msm_naive(group, bases, scalars)


def test_naive_matches_point_multiplication(curve: Curve, rng: random.Random) -> None:
    group = curve.g1
    bases = pool(group)[:6]
    scalars = [rng.randrange(group.order) for _ in bases]
    assert msm_naive(group, bases, scalars) == by_multiplication(group, bases, scalars)
    assert double_and_add(group.generator, 0).is_identity()
    assert double_and_add(group.generator, group.order).is_identity()


# --- edge cases ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("window", [None, 1, 5])
def test_no_terms(curve: Curve, window: int | None) -> None:
    for group in (curve.g1, curve.g2):
        assert msm(group, [], [], window=window).is_identity()
        assert msm_pippenger(group, [], [], window=window).is_identity()
        assert msm_naive(group, [], []).is_identity()


def test_one_term(curve: Curve) -> None:
    group, r = curve.g1, curve.r
    p = pool(group)[3]
    cases = {0: group.identity(), 1: p, 2: p.double(), r - 1: -p, r: group.identity(), r + 1: p, -1: -p}
    for k, expected in cases.items():
        assert msm(group, [p], [k]) == expected, k
        assert msm(group, [p], [k], window=3) == expected, k
    assert msm(group, [p], [curve.Fr(r - 1)]) == -p
    assert msm(group, [p], [curve.Fr(7)]) == p * 7


def test_zero_scalars(curve: Curve) -> None:
    group = curve.g1
    bases = pool(group)[:5]
    assert msm(group, bases, [0] * 5).is_identity()
    assert msm(group, bases, [curve.Fr(0)] * 5, window=2).is_identity()


def test_all_equal_scalars(curve: Curve, rng: random.Random) -> None:
    group = curve.g1
    bases = pool(group)[1:7]
    k = rng.randrange(group.order)
    total = group.identity()
    for p in bases:
        total = total + p
    for window in (None, 1, 6):
        assert msm(group, bases, [k] * len(bases), window=window) == total * k


def test_repeated_bases(curve: Curve, rng: random.Random) -> None:
    """Equal bases with equal digits land in one bucket, whose addition becomes a doubling."""
    group = curve.g1
    p = pool(group)[4]
    scalars = [rng.randrange(group.order) for _ in range(3)] + [12345, 12345]
    for window in (None, 1, 4):
        assert msm(group, [p] * 5, scalars, window=window) == p * (sum(scalars) % group.order)


def test_identity_among_bases(curve: Curve) -> None:
    group = curve.g1
    o, g = group.identity(), group.generator
    assert msm(group, [o, g, o], [5, 3, group.order - 1]) == g * 3
    assert msm(group, [o, o], [1, 2]).is_identity()


def test_point_and_its_negation(curve: Curve, rng: random.Random) -> None:
    """P and −P with equal scalars share every bucket, which reaches infinity; with other scalars they don't."""
    group = curve.g1
    p = pool(group)[5]
    k = rng.randrange(group.order)
    for window in (None, 1, 3, 8):
        assert msm(group, [p, -p], [k, k], window=window).is_identity()
        assert msm(group, [p, -p], [k, 1], window=window) == p * (k - 1)
        assert msm(group, [p, -p, p], [2, 1, group.order - 1], window=window).is_identity()


def test_generic_group() -> None:
    """msm uses only the group interface: an additive group Z_101 written as a group of "points" works too."""
    zr = prime_field("z101", 101)

    class Elem:
        def __init__(self, group: ZGroup, v: int) -> None:
            self.group, self.v = group, v % 101

        def __add__(self, other: Elem) -> Elem:
            return Elem(self.group, self.v + other.v)

        def __neg__(self) -> Elem:
            return Elem(self.group, -self.v)

        def double(self) -> Elem:
            return self + self

    class ZGroup:
        name, order, scalar_field = "z101", 101, zr

        def identity(self) -> Elem:
            return Elem(self, 0)

    group = ZGroup()
    bases = [Elem(group, v) for v in (3, 50, 0, 100)]
    scalars = [7, 100, 5, zr(2)]
    expected = (3 * 7 + 50 * 100 + 0 + 100 * 2) % 101
    for window in (None, 1, 2, 5):
        assert msm(group, bases, scalars, window=window).v == expected  # type: ignore[arg-type]
    assert msm_naive(group, bases, scalars).v == expected  # type: ignore[arg-type]


# --- errors ----------------------------------------------------------------------------------------------------


def test_length_mismatch(curve: Curve) -> None:
    group = curve.g1
    with pytest.raises(SizeMismatchError, match="3 bases and 2 scalars"):
        msm(group, pool(group)[:3], [1, 2])
    with pytest.raises(SizeMismatchError, match="0 bases and 1 scalars"):
        msm_naive(group, [], [1])


def test_scalar_of_another_field(curve: Curve) -> None:
    group = curve.g1
    other = BN254 if curve is BLS12_381 else BLS12_381
    for bad in (other.Fr(1), curve.Fq(1), 1.0, "1"):
        with pytest.raises(GroupMismatchError):
            msm(group, [group.generator], [bad])


def test_base_of_another_group(curve: Curve) -> None:
    other = BN254 if curve is BLS12_381 else BLS12_381
    for bad in (curve.g2.generator, other.g1.generator, 1):
        with pytest.raises(GroupMismatchError):
            msm(curve.g1, [curve.g1.generator, bad], [1, 0])


def test_window_must_be_in_range(curve: Curve) -> None:
    with pytest.raises(ParameterError):
        msm(curve.g1, [curve.g1.generator], [1], window=0)
    with pytest.raises(ParameterError, match="1 … 32"):
        msm(curve.g1, [curve.g1.generator], [1], window=33)
