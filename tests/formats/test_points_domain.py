"""Point sections (bulk decode with curve checks) and snarkjs's domain order against the reference's."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.formats import domain
from cuzk.formats.points import PointDecoder, PointTable, point_bytes
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.ntt import domain_root


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_encode_decode_round_trip(curve: Curve, group: str) -> None:
    grp = limbs.group_of(curve, group)
    rng = random.Random(group)
    points = [grp.generator * rng.randrange(curve.r) for _ in range(6)] + [grp.identity(), grp.generator]
    array = limbs.points_to_limbs(curve, group, points)
    decoder = PointDecoder(curve, group)
    raw = decoder.encode(array)
    assert raw.shape == (len(points), point_bytes(curve, group))
    assert not raw[6].any()  # infinity is all zeros, as ffjavascript writes it
    decoded, bad = decoder.decode(raw)
    assert bad is None and np.array_equal(decoded, array)
    assert list(PointTable(curve, group, decoded)) == points


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_every_broken_point_is_found(curve: Curve, group: str) -> None:
    grp = limbs.group_of(curve, group)
    decoder = PointDecoder(curve, group)
    raw = decoder.encode(limbs.points_to_limbs(curve, group, [grp.generator * (i + 1) for i in range(5)]))
    for index in range(5):
        broken = raw.copy()
        broken[index, -1] ^= 0x01  # the top byte of y (y.c1 for G2)
        _, bad = decoder.decode(broken)
        assert bad is not None and bad.index == index and "not on" in bad.problem
        assert decoder.decode(broken, check=False)[1] is None


def test_unreduced_coordinate(curve: Curve) -> None:
    decoder = PointDecoder(curve, "g1")
    raw = decoder.encode(limbs.points_to_limbs(curve, "g1", [curve.g1.generator]))
    n8 = raw.shape[1] // 2
    raw[0, :n8] = np.frombuffer(curve.q.to_bytes(n8, "little"), np.uint8)
    _, bad = decoder.decode(raw)
    assert bad is not None and "not reduced" in bad.problem


def test_table_is_a_sequence_of_points(curve: Curve) -> None:
    points = [curve.g1.generator * k for k in (1, 2, 3)]
    table = PointTable(curve, "g1", limbs.points_to_limbs(curve, "g1", points))
    assert len(table) == 3 and table[1] == points[1] and list(table[1:]) == points[1:]
    moved = table.scattered(np.array([2, 0, 1]))
    assert list(moved) == [points[1], points[2], points[0]]
    with pytest.raises(ValueError):
        PointTable(curve, "g2", table.limbs)


def test_snarkjs_roots_of_unity() -> None:
    """ffjavascript's 2^S-th root is (smallest non-residue)^t; on BN254 it is the reference's, on BLS12-381 a power."""
    for curve, nqr in ((BN254, 5), (BLS12_381, 5)):
        fr = curve.Fr
        assert domain.smallest_non_residue(curve.r) == nqr
        k = domain.snarkjs_root_exponent(fr)
        assert k % 2 == 1
        assert pow(fr.ROOT_OF_UNITY.value, k, curve.r) == pow(nqr, (curve.r - 1) >> fr.TWO_ADICITY, curve.r)
    assert domain.is_identity(BN254.Fr) and not domain.is_identity(BLS12_381.Fr)


@pytest.mark.parametrize("n", [1, 2, 16, 256])
def test_positions_are_the_snarkjs_points(curve: Curve, n: int) -> None:
    fr = curve.Fr
    k = domain.snarkjs_root_exponent(fr)
    omega, omega_2n = domain_root(fr, n), domain_root(fr, 2 * n)
    rows, odd = domain.row_positions(fr, n), domain.h_positions(fr, n)
    assert sorted(rows.tolist()) == list(range(n)) and sorted(odd.tolist()) == list(range(n))
    for i in range(min(n, 8)):
        assert omega ** int(rows[i]) == (omega**k) ** i
        assert omega_2n ** (2 * int(odd[i]) + 1) == (omega_2n**k) ** (2 * i + 1)
