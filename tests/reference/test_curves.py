"""Curve data and the group law, checked against py_ecc and against the definitions."""

from __future__ import annotations

import pytest

from cuzk.reference.curves import BLS12_381, BN254, Curve, curve_by_name
from cuzk.reference.errors import CuzkError, GroupMismatchError, PointNotInSubgroupError, PointNotOnCurveError

from ._py_ecc import from_py, module, to_py

CURVES = [BLS12_381, BN254]


def test_parameters_follow_from_the_family_polynomial() -> None:
    assert BLS12_381.q.bit_length() == 381 and BLS12_381.r.bit_length() == 255
    assert BN254.q.bit_length() == 254 and BN254.r.bit_length() == 254
    py_bls, py_bn = module(BLS12_381), module(BN254)
    assert (BLS12_381.q, BLS12_381.r) == (py_bls.field_modulus, py_bls.curve_order)
    assert (BN254.q, BN254.r) == (py_bn.field_modulus, py_bn.curve_order)


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
def test_generators_match_py_ecc(curve: Curve) -> None:
    m = module(curve)
    assert curve.g1.generator == from_py(curve, m.G1, g2=False)
    assert curve.g2.generator == from_py(curve, m.G2, g2=True)
    assert curve.g2.b == from_py(curve, m.G2, g2=True).group.b


def test_group_orders(curve: Curve, rng) -> None:
    for group in (curve.g1, curve.g2):
        g = group.generator
        assert g.is_on_curve() and g.is_in_subgroup() and not g.is_identity()
        assert g.mul_unreduced(group.order).is_identity()
        # a random curve point (not necessarily in the subgroup) is killed by h·r: the cofactor is right
        point = _random_curve_point(group, rng)
        assert point.mul_unreduced(group.cofactor * group.order).is_identity()
        assert point.clear_cofactor().is_in_subgroup()


def _random_curve_point(group, rng):
    field = group.field
    while True:
        if field is group.generator.X.__class__ and hasattr(field, "MODULUS"):
            x = field(rng.randrange(field.MODULUS))
        else:
            q = group.generator.X.c0.MODULUS
            x = field(rng.randrange(q), rng.randrange(q))
        rhs = group.rhs(x)
        if rhs.legendre() == 1:
            return group.point(x, rhs.sqrt())


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
@pytest.mark.parametrize("g2", [False, True], ids=["G1", "G2"])
@pytest.mark.parametrize("count", [pytest.param(100, marks=pytest.mark.slow), 10])
def test_group_law_against_py_ecc(curve: Curve, g2: bool, count: int, rng) -> None:
    """Addition, doubling, negation and scalar multiplication equal py_ecc's on random inputs (100 in the slow run;
    py_ecc's G2 scalar multiplication takes a quarter of a second)."""
    m = module(curve)
    group = curve.g2 if g2 else curve.g1
    gen_py = m.G2 if g2 else m.G1
    for _ in range(count):
        a, b = rng.randrange(curve.r), rng.randrange(curve.r)
        p, q = group.generator * a, group.generator * b
        p_py, q_py = m.multiply(gen_py, a), m.multiply(gen_py, b)
        assert p == from_py(curve, p_py, g2)
        assert p + q == from_py(curve, m.add(p_py, q_py), g2)
        assert p.double() == from_py(curve, m.double(p_py), g2)
        assert p - q == from_py(curve, m.add(p_py, m.neg(q_py)), g2)
        assert to_py(p) is not None


def test_group_law_edge_cases(curve: Curve) -> None:
    for group in (curve.g1, curve.g2):
        g, o = group.generator, group.identity()
        assert g + o == g and o + g == g and o + o == o
        assert g - g == o and (g + g) == g.double() and (-g) + g == o
        assert g * 0 == o and g * group.order == o and g * (group.order - 1) == -g
        assert g * curve.Fr(5) == g + g + g + g + g
        assert o.double() == o and o.to_affine() is None
        assert group.field.one() == (g * 3).normalize().Z
        assert hash(g * 2) == hash(g.double())


def test_groups_refuse_to_mix() -> None:
    with pytest.raises(GroupMismatchError):
        BN254.g1.generator + BN254.g2.generator
    with pytest.raises(GroupMismatchError):
        BN254.g1.generator + BLS12_381.g1.generator
    with pytest.raises(GroupMismatchError):
        BN254.g1.generator * BLS12_381.Fr(3)


def test_point_validation(curve: Curve) -> None:
    with pytest.raises(PointNotOnCurveError, match="not on"):
        curve.g1.point(curve.Fq(1), curve.Fq(1))
    x = next(curve.Fq(v) for v in range(1, 100) if curve.g1.rhs(curve.Fq(v)).legendre() == 1)
    p = curve.g1.point(x, curve.g1.rhs(x).sqrt())
    if curve.g1.cofactor == 1:
        assert p.is_in_subgroup()  # BN254's G1 is the whole curve
    else:
        with pytest.raises(PointNotInSubgroupError):
            curve.g1.point_in_subgroup(*p.to_affine())


def test_curve_by_name() -> None:
    assert curve_by_name("bn128") is BN254 and curve_by_name("BLS12-381") is BLS12_381
    with pytest.raises(CuzkError, match="known curves"):
        curve_by_name("secp256k1")
