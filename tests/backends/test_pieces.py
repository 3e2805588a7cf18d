"""Passes over an array's rows in pieces on threads (:func:`cuzk.backends.pieces.over_pieces`): every row is given
to exactly one call, in pieces of the size asked (the last one shorter), whether they run here or on threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from cuzk.backends.pieces import over_pieces


@pytest.mark.parametrize(("n", "piece"), [(0, 7), (1, 7), (7, 7), (20, 7), (1000, 3)])
def test_every_row_is_given_once_in_pieces(n: int, piece: int) -> None:
    visits = np.zeros(n, dtype=np.int64)
    bounds: list[tuple[int, int]] = []
    lock = threading.Lock()

    def work(start: int, stop: int) -> None:
        visits[start:stop] += 1
        with lock:
            bounds.append((start, stop))

    over_pieces(n, piece, work)
    assert visits.tolist() == [1] * n
    assert sorted(bounds) == [(s, min(n, s + piece)) for s in range(0, n, piece)]
