"""A proving key's header and IC points (its verifying key) are checked to lie in the order-r subgroup when read
from a .zkey: a point on the curve with a small-order component is refused, naming it."""

from __future__ import annotations

import pytest

from cuzk.backends import limbs
from cuzk.formats.points import PointDecoder
from cuzk.reference.curves import BLS12_381, BN254, Curve

from ._points import hash_to_curve_uncleared


@pytest.mark.parametrize(("curve", "group"), [(BLS12_381, "g1"), (BLS12_381, "g2"), (BN254, "g2")])
def test_header_point_outside_the_subgroup_is_refused(curve: Curve, group: str) -> None:
    grp = limbs.group_of(curve, group)
    outside = hash_to_curve_uncleared(grp, "zkey header")
    assert outside.is_on_curve() and not outside.is_in_subgroup()
    decoder = PointDecoder(curve, group)
    good = [grp.generator * 5, grp.identity()]
    raw = decoder.encode(limbs.points_to_limbs(curve, group, [*good, outside]))
    points, bad = decoder.decode_points(raw)
    assert bad is not None and bad.index == 2 and "not in its subgroup" in bad.problem
    assert points == good
    assert decoder.decode_points(raw[:2]) == (good, None)
