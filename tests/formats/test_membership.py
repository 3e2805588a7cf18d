"""G2 subgroup membership in plain integers (:mod:`cuzk.formats.membership`) against the reference's test."""

from __future__ import annotations

import random

import pytest

from cuzk.backends import limbs
from cuzk.formats.membership import (
    bls12_beta,
    g1_eigenvalue,
    g1_in_subgroup,
    g2_eigenvalue,
    g2_in_subgroup,
)
from cuzk.formats.points import PointDecoder, in_subgroup, point_bytes
from cuzk.reference.curves import Curve, Point
from cuzk.reference.curves import subgroup as oracle


def _outside(curve: Curve, start: int) -> list[Point]:
    """Points of the twist (on the curve) from x = start, start + 1, …: most are not in G2 (the cofactor is large)."""
    g2, found, x = curve.g2, [], curve.Fq2(start, 1)
    while len(found) < 4:
        if g2.rhs(x).is_square():
            found.append(g2.point(x, g2.rhs(x).sqrt()))
        x = x + curve.Fq2(1, 0)
    return found


def test_eigenvalue_is_the_references_sound_one(curve: Curve) -> None:
    """Soundness is the reference's (is_sound, checked when its tests are built): the same a is used here."""
    assert oracle.TESTS[curve.g2].eigenvalue == g2_eigenvalue(curve)


def _outside_g1(curve: Curve, start: int) -> list[Point]:
    """Points of E(Fq) from x = start, start + 1, …: most are not in G1 when the cofactor is large (BLS12)."""
    g1, found, x = curve.g1, [], curve.Fq(start)
    while len(found) < 4:
        if g1.rhs(x).is_square():
            found.append(g1.point(x, g1.rhs(x).sqrt()))
        x = x + curve.Fq(1)
    return found


def test_g1_eigenvalue_and_beta_are_the_references(curve: Curve) -> None:
    """BLS12's G1 test: the eigenvalue is the reference's sound one, and σ with β is its endomorphism."""
    if curve.family != "bls12":
        pytest.skip(f"{curve.name}'s G1 has cofactor 1: no test is needed")
    test = oracle.TESTS[curve.g1]
    assert test.eigenvalue == g1_eigenvalue(curve)
    beta = curve.Fq(bls12_beta(curve))
    assert beta**3 == curve.Fq(1) and beta != curve.Fq(1)
    for point in [curve.g1.generator * 5, *_outside_g1(curve, 11)]:
        assert test.endomorphism(point) == oracle.sigma(beta)(point)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_agrees_with_the_reference(curve: Curve, group: str) -> None:
    if group == "g1" and curve.family != "bls12":
        pytest.skip(f"{curve.name}'s G1 has cofactor 1: no test is needed")
    in_group, outside_of = (g1_in_subgroup, _outside_g1) if group == "g1" else (g2_in_subgroup, _outside)
    rng = random.Random(curve.name)
    grp = curve.g1 if group == "g1" else curve.g2
    inside = [grp.generator * rng.randrange(1, curve.r) for _ in range(4)] + [grp.generator, grp.identity()]
    outside = outside_of(curve, rng.randrange(curve.q))
    for point in inside + outside:
        assert in_group(curve, point) == point.is_in_subgroup() == oracle.in_subgroup_by_definition(point)
        assert in_subgroup(curve, group, point) == point.is_in_subgroup()
        assert in_group(curve, -point) == point.is_in_subgroup()
    assert all(in_group(curve, p) for p in inside) and not any(in_group(curve, p) for p in outside)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_header_decoding_refuses_points_outside(curve: Curve, group: str) -> None:
    """decode_points (a .zkey header's points) still refuses a point on the curve but outside the subgroup."""
    if group == "g1" and curve.g1.cofactor == 1:
        pytest.skip(f"{curve.name}'s G1 has cofactor 1: every point of the curve is in it")
    decoder = PointDecoder(curve, group)
    if group == "g2":
        bad = _outside(curve, 5)[0]
    else:
        x = curve.Fq(5)
        while not curve.g1.rhs(x).is_square() or curve.g1.point(x, curve.g1.rhs(x).sqrt()).is_in_subgroup():
            x = x + curve.Fq(1)
        bad = curve.g1.point(x, curve.g1.rhs(x).sqrt())
    good = (curve.g1 if group == "g1" else curve.g2).generator * 7
    raw = decoder.encode(limbs.points_to_limbs(curve, group, [good, bad]))
    assert raw.shape[1] == point_bytes(curve, group)
    points, problem = decoder.decode_points(raw)
    assert points == [good] and problem is not None and problem.index == 1 and "not in its subgroup" in problem.problem
