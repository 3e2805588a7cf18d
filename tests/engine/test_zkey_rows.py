"""csr_order: a .zkey's terms regrouped by the reference's domain order (BLS12-381 moves snarkjs's rows) equal a
stable sort by the new row, whether the key's rows come in order (whole blocks moved, snarkjs's layout) or not."""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.engine.zkey import csr_order
from cuzk.formats import domain
from cuzk.reference.curves import BLS12_381


@pytest.mark.parametrize("n", [1, 2, 8, 64, 1 << 12])
@pytest.mark.parametrize("in_order", [True, False])
@pytest.mark.parametrize("moved", ["kept", "random", "bls12_381"])
def test_the_order_is_a_stable_sort_by_the_new_row(n: int, in_order: bool, moved: str) -> None:
    rng = np.random.default_rng(n)
    positions = {
        "kept": None,
        "random": rng.permutation(n),
        "bls12_381": domain.row_positions(BLS12_381.Fr, n) if n > 1 else None,
    }[moved]
    for terms in (0, 1, n, 5 * n):  # with empty rows, rows of many terms, and none at all
        rows = np.sort(rng.integers(0, n, terms))
        if not in_order:
            rows = rng.permutation(rows)
        indptr, order = csr_order(rows, positions, n)
        target = rows if positions is None else positions[rows]
        expected = np.argsort(target, kind="stable")
        assert np.array_equal(np.arange(terms) if order is None else order, expected)
        assert np.array_equal(indptr, np.concatenate([[0], np.cumsum(np.bincount(target, minlength=n))]))
