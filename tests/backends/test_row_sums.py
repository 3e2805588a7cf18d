"""ROW_SUMS on every backend that offers it (one parametrized body): each row's sum the reference's MSM of its
terms, bit for bit, on both curves and groups — rows empty, of one term, of many; scalars 0, 1, −1 and any; a point
used by several rows and twice in one; the identity in the table —; and the inputs it must refuse, typed and named."""

from __future__ import annotations

import functools
import itertools
import random

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.errors import BackendInputError
from cuzk.backends.protocol import ROW_SUMS, has_capability
from cuzk.backends.registry import get_backend, registered_backends
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.msm import msm
from tests._suite_backends import usable_or_skip

CURVES = [BN254, BLS12_381]
by_curve = pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
by_backend = pytest.mark.parametrize("name", registered_backends())


def backend(name: str):
    """The backend, when it runs here and offers ROW_SUMS; else skipped with the reason."""
    usable_or_skip(name)
    b = get_backend(name)
    if not has_capability(b, ROW_SUMS):
        pytest.skip(f"the {name} backend does not offer {ROW_SUMS}")
    return b


@functools.cache
def case(curve: Curve, group: str, seed: int) -> tuple[np.ndarray, ...]:
    """(points, indptr, index, scalars, expected): a table of 12 points (the identity at 5), 9 rows of 0 … 6 terms
    whose scalars are drawn from 0, 1, r − 1 and any, row 5 taking point 2 twice; each row's sum by the reference's
    MSM. Read-only arrays, computed once per worker for every backend's test."""
    rng, grp = random.Random(seed), limbs.group_of(curve, group)
    table = [grp.identity() if i == 5 else grp.generator * rng.randrange(1, curve.r) for i in range(12)]
    sizes = [0, 1, 1, 2, 3, 6, 0, 4, 5]
    index = [rng.randrange(len(table)) for _ in range(sum(sizes))]
    index[7:9] = [2, 2]  # row 5: one point twice
    scalars = [rng.choice([0, 1, curve.r - 1, rng.randrange(curve.r)]) for _ in index]
    scalars[1] = 1  # row 2: the point itself
    indptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    expected = [msm(grp, [table[i] for i in index[lo:hi]], scalars[lo:hi]) for lo, hi in itertools.pairwise(indptr)]
    shape = limbs.point_shape(curve, group)
    arrays = (
        limbs.points_to_limbs(curve, group, table).reshape(len(table), *shape),
        indptr,
        np.array(index, np.int64),
        limbs.ints_to_limbs(scalars, limbs.FR_LIMBS),
        limbs.points_to_limbs(curve, group, expected).reshape(len(expected), *shape),
    )
    for array in arrays:
        array.flags.writeable = False
    return arrays


@by_backend
@by_curve
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_each_row_is_its_msm(name: str, curve: Curve, group: str) -> None:
    b = backend(name)
    points, indptr, index, scalars, expected = case(curve, group, 7)
    got = b.row_sums(curve, group, points, indptr, index, scalars)  # type: ignore[attr-defined]
    assert got.dtype == np.uint64 and got.shape == expected.shape
    assert np.array_equal(got, expected)


@by_backend
def test_no_rows_and_no_terms(name: str) -> None:
    b = backend(name)
    points, *_ = case(BN254, "g1", 7)
    none = b.row_sums(BN254, "g1", points, np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros((0, 4), np.uint64))  # type: ignore[attr-defined]
    assert none.shape == (0, 2, 4)
    empty = b.row_sums(BN254, "g1", points, np.zeros(3, np.int64), np.zeros(0, np.int64), np.zeros((0, 4), np.uint64))  # type: ignore[attr-defined]
    assert empty.shape == (2, 2, 4) and not empty.any(), "an empty row sums to the identity (zeros)"


@by_backend
@pytest.mark.parametrize(
    ("change", "array"),
    [
        ("index past the table", "index"),
        ("negative index", "index"),
        ("indptr falls", "indptr"),
        ("indptr ends early", "indptr"),
        ("scalar ≥ r", "scalars"),
        ("scalars short", "scalars"),
        ("point off the field", "points"),
    ],
)
def test_bad_inputs_are_refused_and_named(name: str, change: str, array: str) -> None:
    b = backend(name)
    points, indptr, index, scalars, _ = (a.copy() for a in case(BN254, "g1", 7))
    if change == "index past the table":
        index[3] = len(points)
    elif change == "negative index":
        index[0] = -1
    elif change == "indptr falls":
        indptr[2] = indptr[3] + 1
    elif change == "indptr ends early":
        indptr[-1] -= 1
    elif change == "scalar ≥ r":
        scalars[2] = limbs.int_to_limbs(BN254.r, limbs.FR_LIMBS)
    elif change == "scalars short":
        scalars = scalars[:-1]
    else:
        points[0, 0] = limbs.int_to_limbs(BN254.q, limbs.fq_limbs(BN254))
    with pytest.raises(BackendInputError) as info:
        b.row_sums(BN254, "g1", points, indptr, index, scalars)  # type: ignore[attr-defined]
    assert info.value.array == array, str(info.value)
