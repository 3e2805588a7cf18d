"""Limb conversions: reference objects ↔ uint64 limb arrays round-trip on both curves; canonicity checks agree
with plain integer comparison."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cuzk.backends import limbs
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import CuzkError, NonCanonicalError, PointNotOnCurveError

CURVES = [BLS12_381, BN254]


def test_limb_counts() -> None:
    assert limbs.fq_limbs(BLS12_381) == 6 and limbs.fq_limbs(BN254) == 4
    assert limbs.limb_count(BLS12_381.r) == limbs.limb_count(BN254.r) == limbs.FR_LIMBS == 4
    assert limbs.point_shape(BLS12_381, "g1") == (2, 6) and limbs.point_shape(BN254, "g2") == (2, 2, 4)


def test_little_endian_limbs_of_canonical_integers() -> None:
    value = (3 << 192) | (2 << 128) | (1 << 64) | 0xFFFF_FFFF_FFFF_FFFF
    row = limbs.int_to_limbs(value, 4)
    assert row.dtype == np.uint64 and row.tolist() == [0xFFFF_FFFF_FFFF_FFFF, 1, 2, 3]
    assert limbs.limbs_to_int(row) == value


@given(st.lists(st.integers(min_value=0, max_value=2**384 - 1), max_size=20))
def test_ints_round_trip(values: list[int]) -> None:
    array = limbs.ints_to_limbs(values, 6)
    assert array.shape == (len(values), 6) and array.dtype == np.uint64
    assert limbs.limbs_to_ints(array) == values


@pytest.mark.parametrize("bad", [-1, 2**256])
def test_ints_that_do_not_fit_are_refused(bad: int) -> None:
    with pytest.raises(NonCanonicalError):
        limbs.ints_to_limbs([bad], 4)


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
@given(data=st.data())
def test_scalars_round_trip(curve: Curve, data: st.DataObject) -> None:
    values = data.draw(st.lists(st.integers(min_value=0, max_value=curve.r - 1), max_size=20))
    array = limbs.fr_to_limbs(curve, [curve.Fr(v) for v in values])
    assert array.shape == (len(values), 4)
    assert [x.value for x in limbs.limbs_to_fr(curve, array)] == values
    assert np.array_equal(limbs.fr_to_limbs(curve, values), array)  # ints and Fr elements give the same limbs


def test_int_scalars_are_read_modulo_r() -> None:
    assert limbs.limbs_to_ints(limbs.fr_to_limbs(BN254, [-1, BN254.r + 5])) == [BN254.r - 1, 5]


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
@pytest.mark.parametrize("group", ["g1", "g2"])
@given(data=st.data())
def test_points_round_trip(curve: Curve, group: str, data: st.DataObject) -> None:
    grp = limbs.group_of(curve, group)
    ks = data.draw(st.lists(st.integers(min_value=0, max_value=2**64), min_size=0, max_size=3))
    points = [grp.generator * k for k in ks]  # k = 0 gives the identity
    array = limbs.points_to_limbs(curve, group, points)
    assert array.shape == (len(points), *limbs.point_shape(curve, group))
    back = limbs.limbs_to_points(curve, group, array, check=True)
    assert back == points
    for p, row in zip(points, array, strict=True):
        assert (not row.any()) == p.is_identity()


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
def test_point_layout(curve: Curve) -> None:
    """G1 (x, y); G2 ((x.c0, x.c1), (y.c0, y.c1)); the identity all zeros."""
    x, y = curve.g2.generator.to_affine()
    row = limbs.point_to_limbs(curve, "g2", curve.g2.generator)
    assert limbs.limbs_to_ints(row) == [x.c0.value, x.c1.value, y.c0.value, y.c1.value]
    x1, y1 = curve.g1.generator.to_affine()
    assert limbs.limbs_to_ints(limbs.point_to_limbs(curve, "g1", curve.g1.generator)) == [x1.value, y1.value]
    assert not limbs.point_to_limbs(curve, "g1", curve.g1.identity()).any()
    assert limbs.limbs_to_point(curve, "g2", np.zeros((2, 2, limbs.fq_limbs(curve)), np.uint64)).is_identity()


def test_points_off_the_curve_are_refused_only_when_checked() -> None:
    array = limbs.ints_to_limbs([1, 1], 4).reshape(1, 2, 4)
    assert len(limbs.limbs_to_points(BN254, "g1", array)) == 1
    with pytest.raises(PointNotOnCurveError):
        limbs.limbs_to_points(BN254, "g1", array, check=True)


def test_non_canonical_coordinates_are_refused() -> None:
    array = limbs.ints_to_limbs([1, BN254.q], 4).reshape(1, 2, 4)
    with pytest.raises(NonCanonicalError):
        limbs.limbs_to_points(BN254, "g1", array)
    with pytest.raises(NonCanonicalError):
        limbs.limbs_to_fr(BN254, limbs.ints_to_limbs([BN254.r], 4))


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
@given(data=st.data())
def test_noncanonical_mask_matches_integer_comparison(curve: Curve, data: st.DataObject) -> None:
    p = curve.q
    L = limbs.limb_count(p)
    near = st.integers(min_value=-(2**70), max_value=2**70).map(lambda d: (p + d) % 2 ** (64 * L))
    values = data.draw(st.lists(st.one_of(near, st.integers(min_value=0, max_value=2 ** (64 * L) - 1)), max_size=30))
    mask = limbs.noncanonical_mask(limbs.ints_to_limbs(values, L), p)
    assert mask.tolist() == [v >= p for v in values]
    first = next((i for i, v in enumerate(values) if v >= p), None)
    assert limbs.first_noncanonical(limbs.ints_to_limbs(values, L), p) == (None if first is None else (first,))
    if len(values) % 2 == 0:  # as points: (n, 2, L), the first bad coordinate by (row, coordinate)
        pairs = limbs.ints_to_limbs(values, L).reshape(-1, 2, L)
        assert limbs.first_noncanonical(pairs, p) == (None if first is None else divmod(first, 2))


@pytest.mark.parametrize("row", [0, 99, 100, 399])
def test_the_threaded_check_finds_the_first_bad_row_in_any_piece(monkeypatch: pytest.MonkeyPatch, row: int) -> None:
    """From PARALLEL_CHECK_ROWS rows the first pass runs in pieces on threads: r (and r + 1 later on) planted in
    any piece is found at its row, and rows whose top limb equals r's but are below r are not refused."""
    monkeypatch.setattr(limbs, "PARALLEL_CHECK_ROWS", 16)
    r = BN254.r
    values = [(r - 1 - 7 * i) if i % 3 else i for i in range(400)]
    values[row] = r
    values[-1] = r + 1
    assert limbs.first_noncanonical(limbs.ints_to_limbs(values, 4), r) == (row,)
    values[row] = values[-1] = r - 1
    assert limbs.first_noncanonical(limbs.ints_to_limbs(values, 4), r) is None


def test_canonicity_at_the_boundary() -> None:
    for p in (BN254.r, BN254.q, BLS12_381.q):
        L = limbs.limb_count(p)
        assert limbs.is_canonical(limbs.ints_to_limbs([0, 1, p - 1], L), p)
        assert limbs.noncanonical_mask(limbs.ints_to_limbs([p, p + 1, 2 ** (64 * L) - 1], L), p).all()


def test_wrong_group_name() -> None:
    with pytest.raises(CuzkError, match="unknown group"):
        limbs.point_shape(BN254, "g3")


@pytest.mark.parametrize("columns", [0, 1, 4, 12])
def test_nonzero_rows_is_any_word_nonzero(columns: int) -> None:
    rng = np.random.default_rng(columns)
    words = rng.integers(0, 3, size=(200, columns), dtype=np.uint64) * np.uint64(1 << 63)
    words[::7] = 0
    assert np.array_equal(limbs.nonzero_rows(words), np.any(words != 0, axis=1))


def test_rows_taken_and_scattered_as_fancy_indexing_would() -> None:
    """take_rows and scatter_rows (np.take, whole rows) against numpy's fancy indexing, the oracle."""
    rng = np.random.default_rng(7)
    for shape in [(0, 4), (1, 4), (1000, 4), (513, 12), (64,)]:
        array = rng.integers(0, 2**63, size=shape, dtype=np.uint64)
        positions = rng.permutation(len(array))
        assert np.array_equal(limbs.take_rows(array, positions), array[positions])
        expected = np.empty_like(array)
        expected[positions] = array
        assert np.array_equal(limbs.scatter_rows(array, positions), expected)
