"""Fixed-base multiplication equals plain scalar multiplication (its oracle) on every group, toy included."""

from __future__ import annotations

import pytest

from cuzk.reference.curves import BLS12_381, BN254
from cuzk.reference.fixed_base import FixedBaseTable
from cuzk.reference.toy import TOY

GROUPS = [BN254.g1, BN254.g2, BLS12_381.g1, BLS12_381.g2, TOY.g1]


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.name)
@pytest.mark.parametrize("window", [1, 4, 6])
def test_fixed_base_equals_scalar_multiplication(group, window: int, rng) -> None:
    table = FixedBaseTable(group.generator, window=window)
    r = group.order
    for k in [0, 1, 2, r - 1, r, r + 5, *(rng.randrange(r) for _ in range(5))]:
        assert table.mul(k) == group.generator * k
    assert table.mul(group.scalar_field(7)) == group.generator * 7
