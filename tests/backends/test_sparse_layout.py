"""The GPU sparse matrices' host-side layout (numpy only): the chunk layout
(:func:`cuzk.backends.gpu.sparse.chunk_layout`) against a row-by-row oracle (rows empty, shorter than a chunk, of
exactly one, and of many chunks, on both of its paths), and the coefficients' table
(:func:`cuzk.backends.indexed.palette`) against the coefficients it stands for."""

from __future__ import annotations

import numpy as np
import pytest

from cuzk.backends import indexed
from cuzk.backends.gpu.sparse import chunk_layout
from cuzk.backends.indexed import classify, palette
from cuzk.backends.limbs import ints_to_limbs
from cuzk.reference.curves import BLS12_381, BN254, Curve


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


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
@pytest.mark.parametrize("reductions", [0, 1, 2])
@pytest.mark.parametrize("piece", [7, 1 << 18])  # terms per piece on the threads: many pieces, and one
def test_palette_stands_for_every_coefficient(
    curve: Curve, reductions: int, piece: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """table[index] gives back every term's coefficient (as stored, c·R^reductions); 1 and −1 in that form are the
    table's first two rows and every term holding one of them names that row; each other term has a row of its own,
    in the terms' order, however the terms are cut into pieces; a value that shares 1's low word is not taken for 1."""
    monkeypatch.setattr(indexed, "PALETTE_ROWS", piece)
    r, scale = curve.r, pow(2, 256 * reductions, curve.r)
    rng = np.random.default_rng(reductions)
    one = scale % r
    choices = [1, r - 1, 0, 2, int.from_bytes(rng.bytes(32)) % r, (one + (5 << 64)) * pow(scale, -1, r) % r]
    coefficients = [choices[k] for k in rng.integers(0, len(choices), size=300)]
    stored = ints_to_limbs([c * scale % r for c in coefficients], 4)
    made = palette(curve, stored, reductions)
    table, index = made.table, made.index
    assert index.dtype == np.uint32 and np.array_equal(table[index], stored)
    common = ints_to_limbs([scale % r, (r - 1) * scale % r], 4)
    assert np.array_equal(table[:2], common)
    ones = [k for k, c in enumerate(coefficients) if c == 1]
    minus = [k for k, c in enumerate(coefficients) if c == r - 1]
    assert set(index[ones]) <= {0} and set(index[minus]) <= {1}
    others = sum(c not in (1, r - 1) for c in coefficients)
    assert (
        len(table) == 2 + others and len(set(index.tolist())) == len(set(index[ones])) + len(set(index[minus])) + others
    )
    own = [int(i) for i, c in zip(index, coefficients, strict=True) if c not in (1, r - 1)]
    assert own == list(range(2, 2 + others)), "each other value its own row, in the terms' order"


def test_palette_of_no_terms() -> None:
    made = palette(BN254, np.zeros((0, 4), dtype=np.uint64), 0)
    table, index = made.table, made.index
    assert len(index) == 0 and len(table) == 2


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
def test_a_palette_of_some_terms_holds_only_their_values(curve: Curve) -> None:
    """A .zkey's A and B: the terms classified once, each matrix's table (a slice of the terms, or their indices)
    stands for its own terms and holds the values of no other term."""
    r, scale = curve.r, pow(2, 512, curve.r)
    rng = np.random.default_rng(5)
    coefficients = [[1, r - 1, 3, int.from_bytes(rng.bytes(32)) % r][k] for k in rng.integers(0, 4, size=200)]
    stored = ints_to_limbs([c * scale % r for c in coefficients], 4)
    codes = classify(curve, stored, 2)
    assert codes.tolist() == [0 if c == 1 else 1 if c == r - 1 else 2 for c in coefficients]
    for terms in (slice(40, 130), np.flatnonzero(rng.integers(0, 2, size=200))):
        made = palette(curve, stored, 2, terms=terms, codes=codes)
        assert np.array_equal(made.table[made.index], stored[terms])
        wanted = [c for c in np.asarray(coefficients, dtype=object)[terms] if c not in (1, r - 1)]
        assert len(made.table) == 2 + len(wanted)
        assert made.expanded().tolist() == stored[terms].tolist()
