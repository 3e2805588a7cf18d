"""Subgroup membership: the fast test of each group (reference/curves/subgroup.py) against the definition [r]P = O,
on points of the subgroup, points of the curve outside it, points with a small-order component and the identity;
and the facts each fast test stands on (its constants on the generator, its characteristic polynomial, its degree)."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from cuzk.reference.curves import BLS12_381, BN254, Group, Point
from cuzk.reference.curves.subgroup import (
    TESTS,
    EigenvalueTest,
    frobenius_trace,
    g1_test,
    g2_test,
    in_subgroup_by_definition,
    is_in_subgroup,
    is_sound,
    non_adjacent_form,
    primitive_cube_root_of_unity,
    sigma,
    times,
)
from tests.reliability._points import base_modulus, is_g2, off_curve_point

GROUPS = [BN254.g1, BN254.g2, BLS12_381.g1, BLS12_381.g2]
WITH_COFACTOR = [g for g in GROUPS if g.cofactor > 1]


def by_name(group: Group) -> str:
    return group.name


def random_curve_point(group: Group, rng: random.Random) -> Point:
    """A random point of E(F): a random x until x³ + b is a square (in Fq2 for G2), then y = ±√(x³ + b)."""
    q = base_modulus(group)
    while True:
        x = group.field(*(rng.randrange(q) for _ in range(2 if is_g2(group) else 1)))
        rhs = group.rhs(x)
        if rhs.is_square():
            y = rhs.sqrt()
            return group.point(x, y if rng.random() < 0.5 else -y)


def small_primes(n: int, bound: int = 1 << 14) -> list[int]:
    """The primes below ``bound`` that divide n, by trial division."""
    return [p for p in range(2, bound) if n % p == 0 and all(p % d for d in range(2, math.isqrt(p) + 1))]


def prime_power_order_point(group: Group, prime: int, rng: random.Random) -> Point:
    """T ≠ O of order a power of ``prime`` (a factor of h): [r·h/ℓ^e] of a random point, ℓ^e the part of h that
    ``prime`` contributes (the whole part: with ℓ² | h, [r·h/ℓ] may kill all of E(F)[ℓ^∞])."""
    power = prime
    while group.cofactor % (power * prime) == 0:
        power *= prime
    while (point := random_curve_point(group, rng).mul_unreduced(group.order * group.cofactor // power)).is_identity():
        pass
    return point


def agree(point: Point) -> bool:
    """The fast test and the definition give the same answer; returns it."""
    fast = is_in_subgroup(point)
    assert fast == in_subgroup_by_definition(point) == point.is_in_subgroup()
    return fast


# --- the fast test agrees with the definition ---------------------------------------------------------------------


@pytest.mark.parametrize("group", GROUPS, ids=by_name)
def test_multiples_of_the_generator_are_in(group: Group, rng: random.Random) -> None:
    for k in [1, 2, group.order - 1, *(rng.randrange(group.order) for _ in range(3))]:
        assert agree(group.generator * k)


@pytest.mark.parametrize("group", GROUPS, ids=by_name)
def test_the_identity_is_in(group: Group) -> None:
    assert agree(group.identity())


@pytest.mark.parametrize("group", GROUPS, ids=by_name)
def test_random_curve_points(group: Group, rng: random.Random) -> None:
    """A random point of E(F) is in G with probability 1/h: always for BN254's G1 (h = 1), almost never otherwise."""
    for _ in range(3):
        assert agree(random_curve_point(group, rng)) == (group.cofactor == 1)


@pytest.mark.parametrize("group", WITH_COFACTOR, ids=by_name)
def test_a_small_order_component_is_caught(group: Group, rng: random.Random) -> None:
    """T of order a power of a prime ℓ | h (ℓ < 2¹⁴: 3, 11, 10177 on BLS12-381 G1; 13, 23, 2713, 11953 on its G2;
    10069 on BN254 G2) is outside G, and so is P + T for P ∈ G: the test must see a component of order ℓ."""
    primes = small_primes(group.cofactor)
    assert primes
    for prime in primes:
        torsion = prime_power_order_point(group, prime, rng)
        assert not agree(torsion)
        assert not agree(group.generator * rng.randrange(1, group.order) + torsion)


@pytest.mark.parametrize("group", GROUPS, ids=by_name)
def test_off_the_curve_is_out(group: Group) -> None:
    point = off_curve_point(group)
    assert not is_in_subgroup(point) and not in_subgroup_by_definition(point)


def test_a_group_without_a_fast_test_falls_back_to_the_definition(rng: random.Random) -> None:
    g1 = BLS12_381.g1
    twin = Group("twin.G1", g1.field, g1.b, g1.order, g1.cofactor, g1.scalar_field)
    assert twin not in TESTS
    assert agree(Point(twin, g1.generator.X, g1.generator.Y, g1.generator.Z))
    outside = random_curve_point(g1, rng)
    assert not agree(Point(twin, outside.X, outside.Y, outside.Z))


# --- what the fast tests stand on ---------------------------------------------------------------------------------


def test_every_group_with_a_cofactor_has_a_sound_fast_test() -> None:
    assert BN254.g1.cofactor == 1  # on the curve is the whole test
    assert set(TESTS) == set(WITH_COFACTOR)
    assert TESTS[BLS12_381.g1].source == "Scott, ePrint 2021/1130, §6"
    assert TESTS[BLS12_381.g2].source == "Scott, ePrint 2021/1130, §4"
    assert TESTS[BN254.g2].source == "El Housni, Guillevic, Piellard, ePrint 2022/352, §4.3"
    assert all(is_sound(test, group) for group, test in TESTS.items())


def test_beta_and_the_g1_eigenvalue_on_the_generator() -> None:
    """β is a primitive cube root of unity; σ acts on G1 as −x² with the β chosen, as x² − 1 with the other one."""
    curve, g = BLS12_381, BLS12_381.g1.generator
    beta = primitive_cube_root_of_unity(curve.Fq)
    assert beta != curve.Fq.one() and beta**3 == curve.Fq.one()
    test = TESTS[curve.g1]
    assert test.eigenvalue == -(curve.x**2) and (test.eigenvalue**2 + test.eigenvalue + 1) % curve.r == 0
    assert test.endomorphism(g) == times(g, -(curve.x**2))
    chosen = test.endomorphism(g).X / g.X
    other = chosen * chosen
    assert chosen in (beta, beta * beta) and sigma(other)(g) == times(g, curve.x**2 - 1) != times(g, -(curve.x**2))
    assert g1_test(BN254) is None


def test_the_g2_eigenvalue_on_the_generator() -> None:
    """ψ acts on G2 as q ≡ t − 1 (mod r), and t − 1 is x for BLS12 and 6u² for BN."""
    for curve in (BLS12_381, BN254):
        g, test = curve.g2.generator, TESTS[curve.g2]
        assert test.eigenvalue == frobenius_trace(curve) - 1 == (curve.x if curve.family == "bls12" else 6 * curve.x**2)
        assert (test.eigenvalue - curve.q) % curve.r == 0
        assert test.endomorphism(g) == times(g, test.eigenvalue) != g


@pytest.mark.parametrize("group", WITH_COFACTOR, ids=by_name)
def test_the_characteristic_polynomial(group: Group, rng: random.Random) -> None:
    """φ² − s·φ + n = 0 on points of E(F) outside G too: the identity the degree N = a² − s·a + n follows from."""
    test = TESTS[group]
    point = random_curve_point(group, rng)
    image = test.endomorphism(point)
    assert (test.endomorphism(image) - times(image, test.trace) + times(point, test.norm)).is_identity()


def test_the_degrees_of_the_kernels() -> None:
    """N = r for BLS12 G1 and BN G2; N = h1·r for BLS12 G2, sound because gcd(h1, h2) = 1 for BLS12-381."""
    assert TESTS[BLS12_381.g1].degree() == BLS12_381.r == BLS12_381.x**4 - BLS12_381.x**2 + 1
    assert TESTS[BN254.g2].degree() == BN254.r
    assert TESTS[BLS12_381.g2].degree() == BLS12_381.g1.cofactor * BLS12_381.r
    assert math.gcd(BLS12_381.g1.cofactor, BLS12_381.g2.cofactor) == 1


def test_soundness_is_checked() -> None:
    """is_sound refuses a test that passes points outside G (the identity map, 'eigenvalue' 1: N = 0) and one whose
    endomorphism does not act on G as its eigenvalue (σ with the wrong cube root of unity)."""
    g1 = BLS12_381.g1
    everything = EigenvalueTest(lambda p: p, 1, trace=2, norm=1, source="none")
    assert everything(g1.generator) and not is_sound(everything, g1)
    right = TESTS[g1]
    beta = right.endomorphism(g1.generator).X / g1.generator.X
    wrong = EigenvalueTest(sigma(beta * beta), right.eigenvalue, right.trace, right.norm, source="none")
    assert not is_sound(wrong, g1)
    assert is_sound(g2_test(BN254), BN254.g2)


# --- the scalar multiplication of the fast tests -----------------------------------------------------------------


def test_non_adjacent_form(rng: random.Random) -> None:
    for k in [0, 1, 2, 3, 7, abs(BLS12_381.x), 6 * BN254.x**2, *(rng.getrandbits(130) for _ in range(20))]:
        digits = non_adjacent_form(k)
        assert sum(d << i for i, d in enumerate(digits)) == k and set(digits) <= {-1, 0, 1}
        assert all(not (a and b) for a, b in itertools.pairwise(digits))


@pytest.mark.parametrize("group", [BN254.g1, BLS12_381.g2], ids=by_name)
def test_times_is_unreduced_scalar_multiplication(group: Group, rng: random.Random) -> None:
    point = random_curve_point(group, rng)
    for a in [0, 1, -1, group.order, -(group.order + 5), rng.getrandbits(70), -rng.getrandbits(70)]:
        expected = point.mul_unreduced(abs(a))
        assert times(point, a) == (expected if a >= 0 else -expected)
