"""The GPU sparse matrices' chunk layout (:func:`cuzk.backends.gpu.sparse.chunk_layout`, host numpy only) against a
row-by-row oracle: rows empty, shorter than a chunk, of exactly one, and of many chunks, on both of its paths (every
row within a chunk, and the general one)."""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.backends.gpu.sparse import chunk_layout


def naive_layout(indptr: list[int], chunk: int) -> tuple[np.ndarray, np.ndarray]:
    starts, row_chunk = [], [0]
    for k in range(len(indptr) - 1):
        starts.extend(range(indptr[k], indptr[k + 1], chunk))
        row_chunk.append(len(starts))
    return np.array([*starts, indptr[-1]], dtype=np.uint32), np.array(row_chunk, dtype=np.uint32)


@pytest.mark.parametrize("longest", [1, 4, 5, 17])
def test_chunk_layout_matches_the_row_by_row_cut(longest: int) -> None:
    rng = np.random.default_rng(longest)
    for _ in range(50):
        chunk = int(rng.integers(1, 6))
        lengths = rng.integers(0, longest + 1, size=int(rng.integers(0, 40)))
        indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        got = chunk_layout(indptr, chunk)
        want = naive_layout(indptr.tolist(), chunk)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == np.uint32 and np.array_equal(g, w), (indptr, chunk, got, want)
