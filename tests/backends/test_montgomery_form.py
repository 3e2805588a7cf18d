"""MONTGOMERY_FORM against its oracle, the numpy decoder of cuzk.formats (the one .zkey reading used before): the same
canonical limbs, the same first bad point and problem, on both curves and groups, with points at infinity and with
points off the curve or not reduced; a .zkey's coefficients (stored c·R²) back to c; and values into the stored
form, as numpy's writer puts them."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.protocol import MONTGOMERY_FORM, has_capability
from cuzk.backends.registry import get_backend
from cuzk.formats.montgomery import MontgomeryField, from_montgomery, to_montgomery
from cuzk.formats.points import PointDecoder
from cuzk.reference.curves import BLS12_381, BN254, Curve
from tests._suite_backends import usable_or_skip

CURVES = [BN254, BLS12_381]
BACKENDS = ["cpu"]  # every backend of the project that declares MONTGOMERY_FORM (checked below)
by_curve = pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
by_group = pytest.mark.parametrize("group", ["g1", "g2"])
by_backend = pytest.mark.parametrize("name", BACKENDS)


def backend(name: str):
    usable_or_skip(name)
    b = get_backend(name)
    assert has_capability(b, MONTGOMERY_FORM)
    return b


@cache
def _stored_points(curve: Curve, group: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`stored_points`, made once per run and arguments: the points P + i·S for random P and S (two scalar
    multiplications, then an addition a point: random G2 multiples took seconds a test in pure Python)."""
    rng = random.Random(seed)
    grp = limbs.group_of(curve, group)
    point, step = (grp.generator * rng.randrange(1, curve.r) for _ in range(2))
    points = []
    for i in range(n):
        points.append(grp.identity() if i % 5 == 3 else point)
        point = point + step
    canonical = limbs.points_to_limbs(curve, group, points)
    raw = PointDecoder(curve, group).encode(canonical)
    return canonical, raw.view("<u8").reshape(canonical.shape).astype(np.uint64)


def stored_points(curve: Curve, group: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(the canonical limbs, the stored words) of n distinct points of ``group``, every fifth at infinity (the words
    as a uint64 view, to edit; ``as_bytes`` gives them as a file holds them): copies, the tests edit them."""
    canonical, words = _stored_points(curve, group, n, seed)
    return canonical.copy(), words.copy()


def as_bytes(words: np.ndarray) -> np.ndarray:
    return words.view(np.uint8).reshape(len(words), -1)


@by_backend
@by_curve
@by_group
def test_points_match_the_numpy_decoder(name: str, curve: Curve, group: str) -> None:
    canonical, words = stored_points(curve, group, 37, seed=7)
    out, bad, problem = backend(name).points_from_montgomery(curve, group, as_bytes(words))
    assert (bad, problem) == (-1, "")
    assert np.array_equal(out, canonical)
    oracle, none = PointDecoder(curve, group).decode(as_bytes(words))
    assert none is None and np.array_equal(out, oracle)


@by_backend
@by_curve
@by_group
@pytest.mark.parametrize("fault", ["off_curve", "unreduced"])
def test_the_first_bad_point_is_named_as_the_oracle_names_it(name: str, curve: Curve, group: str, fault: str) -> None:
    _, words = stored_points(curve, group, 40, seed=11)
    for index in (29, 17):  # two bad points: the first one is reported
        if fault == "off_curve":
            words[index].reshape(-1, words.shape[-1])[1, 0] ^= np.uint64(1)  # y's (or y.c0's) low word
        else:
            words[index].reshape(-1, words.shape[-1])[0] = limbs.ints_to_limbs([curve.q], words.shape[-1])[0]
    _, bad, problem = backend(name).points_from_montgomery(curve, group, as_bytes(words))
    _, expected = PointDecoder(curve, group).decode(as_bytes(words))
    assert expected is not None and (bad, problem) == (expected.index, expected.problem) and bad == 17


@by_backend
@by_curve
@by_group
def test_unchecked_points_are_converted_without_the_curve_equation(name: str, curve: Curve, group: str) -> None:
    canonical, words = stored_points(curve, group, 9, seed=3)
    words[4].reshape(-1, words.shape[-1])[1, 0] ^= np.uint64(1)
    out, bad, _ = backend(name).points_from_montgomery(curve, group, as_bytes(words), check=False)
    assert bad == -1
    keep = np.arange(9) != 4
    assert np.array_equal(out[keep], canonical[keep])


@by_backend
@by_curve
def test_coefficients_come_back_from_c_r_squared(name: str, curve: Curve) -> None:
    rng = random.Random(5)
    values = [0, 1, curve.r - 1, *(rng.randrange(curve.r) for _ in range(50))]
    canonical = limbs.ints_to_limbs(values, limbs.FR_LIMBS)
    fr = MontgomeryField(curve.r, 8 * limbs.FR_LIMBS)
    once = to_montgomery(fr, canonical).view("<u8").reshape(canonical.shape).astype(np.uint64)
    twice = to_montgomery(fr, once).view("<u8").reshape(canonical.shape).astype(np.uint64)
    b = backend(name)
    for stored, reductions in ((canonical, 0), (once, 1), (twice, 2)):
        out, bad = b.scalars_from_montgomery(curve, stored, reductions)
        assert bad == -1 and np.array_equal(out, canonical)
    oracle = from_montgomery(fr, once.view(np.uint8).reshape(len(once), -1))
    assert np.array_equal(oracle, canonical)
    twice[33] = limbs.ints_to_limbs([curve.r + 5], limbs.FR_LIMBS)[0]
    assert b.scalars_from_montgomery(curve, twice, 2)[1] == 33


@by_backend
@by_curve
@pytest.mark.parametrize("field", ["fr", "fq"])
def test_values_go_back_into_the_stored_form_as_numpy_puts_them(name: str, curve: Curve, field: str) -> None:
    """field_to_montgomery, for writing a .zkey: v·R^powers as numpy's writer makes it, zero staying zero; values
    not below p and powers outside 0 … 4 refused."""
    from cuzk.backends.errors import BackendInputError

    modulus = curve.r if field == "fr" else curve.q
    width, rng = limbs.limb_count(modulus), random.Random(9)
    canonical = limbs.ints_to_limbs([0, 1, modulus - 1, *(rng.randrange(modulus) for _ in range(60))], width)
    numpy_field = MontgomeryField(modulus, 8 * width)
    once = to_montgomery(numpy_field, canonical).view("<u8").reshape(canonical.shape).astype(np.uint64)
    twice = to_montgomery(numpy_field, once).view("<u8").reshape(canonical.shape).astype(np.uint64)
    b = backend(name)
    for expected, powers in ((canonical, 0), (once, 1), (twice, 2)):
        assert np.array_equal(b.field_to_montgomery(curve, field, canonical, powers), expected)
    with pytest.raises(BackendInputError):
        b.field_to_montgomery(curve, field, limbs.ints_to_limbs([modulus], width))
    with pytest.raises(BackendInputError):
        b.field_to_montgomery(curve, field, canonical, 5)


def test_the_input_shape_is_checked() -> None:
    from cuzk.backends.errors import InputTypeError

    b = backend("cpu")
    with pytest.raises(InputTypeError):
        b.points_from_montgomery(BN254, "g1", np.zeros((3, 2, 4), np.uint64))
    with pytest.raises(InputTypeError):
        b.points_from_montgomery(BN254, "g1", np.zeros((3, 96), np.uint8))
    with pytest.raises(InputTypeError):
        b.scalars_from_montgomery(BN254, np.zeros((3, 4), np.int64), 1)


@by_backend
@pytest.mark.parametrize("first", ["off_curve", "unreduced"])
def test_the_lowest_index_wins_whatever_its_problem(name: str, first: str) -> None:
    curve, group = BLS12_381, "g2"
    _, words = stored_points(curve, group, 30, seed=13)
    off, unreduced = (12, 20) if first == "off_curve" else (20, 12)
    words[off].reshape(-1, words.shape[-1])[2, 0] ^= np.uint64(1)
    words[unreduced].reshape(-1, words.shape[-1])[3] = limbs.ints_to_limbs([curve.q + 1], words.shape[-1])[0]
    _, bad, problem = backend(name).points_from_montgomery(curve, group, as_bytes(words))
    assert bad == 12 and ("not on" in problem) == (first == "off_curve")


STORED_BACKENDS = ["cpu", "opencl", "cuda"]  # every backend of the project that declares STORED_BASES (checked below)


def stored_backend(name: str):
    from cuzk.backends.protocol import STORED_BASES

    usable_or_skip(name)
    b = get_backend(name)
    assert has_capability(b, STORED_BASES)
    return b


@pytest.mark.parametrize("name", STORED_BACKENDS)
@by_curve
@by_group
def test_stored_bases_are_the_decoded_bases(name: str, curve: Curve, group: str) -> None:
    """STORED_BASES: the words as a .zkey holds them, prepared as they are, give the MSM of the decoded bases (the
    numpy oracle's limbs prepared as usual), points at infinity included."""
    b = stored_backend(name)
    canonical, words = stored_points(curve, group, 45, seed=13)
    handle, bad = b.prepare_stored_bases(curve, group, as_bytes(words))
    assert bad == -1 and handle is not None and handle.n == 45
    rng = random.Random(2)
    scalars = limbs.ints_to_limbs([rng.randrange(curve.r) for _ in range(45)], limbs.FR_LIMBS)
    expected = b.msm_prepared(b.prepare_bases(curve, group, canonical), scalars)
    assert np.array_equal(b.msm_prepared(handle, scalars), expected)


@pytest.mark.parametrize("name", STORED_BACKENDS)
@by_curve
@by_group
@pytest.mark.parametrize("fault", ["off_curve", "unreduced"])
def test_stored_bases_name_the_oracles_first_bad_point(name: str, curve: Curve, group: str, fault: str) -> None:
    """A bad point (off the curve, or a coordinate equal to q) is found on the device: the index is the oracle's
    first bad point; without the check the words are taken as they are."""
    b = stored_backend(name)
    _, words = stored_points(curve, group, 40, seed=17)
    for index in (31, 22):
        if fault == "off_curve":
            words[index].reshape(-1, words.shape[-1])[1, 0] ^= np.uint64(1)
        else:
            words[index].reshape(-1, words.shape[-1])[0] = limbs.ints_to_limbs([curve.q], words.shape[-1])[0]
    _, expected = PointDecoder(curve, group).decode(as_bytes(words))
    assert expected is not None and b.prepare_stored_bases(curve, group, as_bytes(words)) == (None, expected.index)
    handle, bad = b.prepare_stored_bases(curve, group, as_bytes(words), check=False)
    if name == "cpu" and fault == "unreduced":  # its field arithmetic needs reduced words: refused even then
        assert (handle, bad) == (None, expected.index)
    else:
        assert bad == -1 and handle is not None
