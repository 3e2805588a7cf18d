"""StoredTable: a point section left as stored decodes (on first use) to what an eager read gives, moved and sliced
as a PointTable is, and a bad point is named by its index in the file whatever rows were moved or cut."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.formats.points import PointDecoder, PointTable
from cuzk.formats.stored import StoredTable
from cuzk.reference.curves import BLS12_381, BN254, Curve


def stored_rows(curve: Curve, group: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(n)
    grp = limbs.group_of(curve, group)
    points = [grp.identity() if i % 4 == 1 else grp.generator * rng.randrange(1, curve.r) for i in range(n)]
    canonical = limbs.points_to_limbs(curve, group, points)
    return canonical, PointDecoder(curve, group).encode(canonical)


def locate(index: int, problem: str) -> Exception:
    return ValueError(f"point {index}: {problem}")


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_a_stored_table_is_the_decoded_table(curve: Curve, group: str) -> None:
    canonical, raw = stored_rows(curve, group, 12)
    table = StoredTable(curve, group, raw, locate)
    assert "stored" in repr(table) and len(table) == 12
    assert np.array_equal(table.infinity_mask(), PointTable(curve, group, canonical).infinity_mask())
    positions = np.array(random.Random(1).sample(range(12), 12))
    moved = table.scattered(positions)
    assert np.array_equal(moved.limbs, PointTable(curve, group, canonical).scattered(positions).limbs)
    assert np.array_equal(table[3:7].limbs, canonical[3:7]) and table[5] == limbs.limbs_to_point(
        curve, group, canonical[5]
    )
    assert table.scattered(np.arange(12)) is table


def test_a_bad_point_keeps_its_index_in_the_file() -> None:
    _, raw = stored_rows(BLS12_381, "g1", 10)
    raw = raw.copy()
    raw[6, 0] ^= 1  # x of point 6 changes: off the curve
    table = StoredTable(BLS12_381, "g1", raw, locate)
    positions = np.array([9, 3, 0, 8, 1, 7, 2, 6, 4, 5])
    for view in (table, table.scattered(positions), table[4:], table.scattered(positions)[1:]):
        with pytest.raises(ValueError, match="point 6: the point is not on"):
            _ = view.limbs
    moved_row = int(positions[6])  # point 6 went there
    assert str(table.scattered(positions).bad_point(moved_row)).startswith("point 6: the point is not on")
    unchecked = StoredTable(BLS12_381, "g1", raw, locate, check=False)
    assert len(unchecked.limbs) == 10
