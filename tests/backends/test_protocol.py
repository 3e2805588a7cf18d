"""The backend protocol: shared validation at the boundary, capabilities, and the reference backend behind it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.errors import (
    BackendInputError,
    BackendOutputError,
    BackendUnavailableError,
    CapabilityMissingError,
    InputDomainTooLargeError,
    InputShapeError,
    InputSizeMismatchError,
    InputTypeError,
    LimbCountError,
    NonCanonicalInputError,
    NotPowerOfTwoError,
)
from cuzk.backends.protocol import (
    CAPABILITIES,
    Backend,
    BackendBase,
    PreparedBases,
    SupportsComputeH,
    SupportsFieldOps,
    SupportsMsmBatch,
    SupportsPreparedBases,
    check_domain,
    has_capability,
    rows_within,
)
from cuzk.backends.reference import ReferenceBackend
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import CuzkError, NonCanonicalError, NotInvertibleError, SizeMismatchError
from cuzk.reference.msm import msm
from cuzk.reference.ntt import ntt
from cuzk.reference.qap import Reduction, witness_map

CURVES = [BLS12_381, BN254]
REF = ReferenceBackend()


def _points(curve: Curve, group: str, n: int, rng: random.Random) -> list:
    grp = limbs.group_of(curve, group)
    return [grp.generator * rng.randrange(1, 2**32) for _ in range(n)]


def _msm_inputs(curve: Curve, group: str, n: int, rng: random.Random) -> tuple[list, list[int], np.ndarray, np.ndarray]:
    points = _points(curve, group, n, rng)
    scalars = [rng.randrange(curve.r) for _ in range(n)]
    return points, scalars, limbs.points_to_limbs(curve, group, points), limbs.fr_to_limbs(curve, scalars)


# --- the reference backend is the reference -----------------------------------------------------------------------


def test_reference_backend_implements_the_protocol() -> None:
    assert isinstance(REF, Backend)
    for protocol in (SupportsPreparedBases, SupportsMsmBatch, SupportsComputeH, SupportsFieldOps):
        assert isinstance(REF, protocol)
    assert REF.name == "reference" and REF.is_available() and REF.unavailable_reason() is None
    assert REF.capabilities <= CAPABILITIES
    description = REF.describe()
    assert "device" in description and "numpy" in description["versions"]


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_msm_equals_the_reference(curve: Curve, group: str, rng: random.Random) -> None:
    for n in (0, 1, 5):
        points, scalars, bases, scalar_limbs = _msm_inputs(curve, group, n, rng)
        expected = limbs.point_to_limbs(curve, group, msm(limbs.group_of(curve, group), points, scalars))
        for window in (None, 1, 3):
            got = REF.msm(curve, group, bases, scalar_limbs, window=window)
            assert got.dtype == np.uint64 and np.array_equal(got, expected)
        assert np.array_equal(REF.msm(curve.name, group, bases, scalar_limbs), expected)  # a curve name works too


def test_prepared_and_batched_msms(curve: Curve, rng: random.Random) -> None:
    p1, s1, b1, k1 = _msm_inputs(curve, "g1", 4, rng)
    p2, s2, b2, k2 = _msm_inputs(curve, "g1", 2, rng)
    e1 = limbs.point_to_limbs(curve, "g1", msm(curve.g1, p1, s1))
    e2 = limbs.point_to_limbs(curve, "g1", msm(curve.g1, p2, s2))
    handle = REF.prepare_bases(curve, "g1", b1)
    assert isinstance(handle, PreparedBases) and len(handle) == 4
    assert np.array_equal(REF.msm_prepared(handle, k1), e1)
    batch = REF.msm_batch(curve, "g1", [handle, b2], [k1, k2], windows=[2, None])
    assert batch.shape == (2, 2, limbs.fq_limbs(curve)) and np.array_equal(batch, np.stack([e1, e2]))
    assert REF.msm_batch(curve, "g2", [], []).shape == (0, 2, 2, limbs.fq_limbs(curve))


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("coset", [False, True])
def test_ntt_equals_the_reference(curve: Curve, rng: random.Random, inverse: bool, coset: bool) -> None:
    for n in (0, 1, 2, 16):
        values = [curve.Fr(rng.randrange(curve.r)) for _ in range(n)]
        expected = limbs.fr_to_limbs(curve, ntt(values, inverse=inverse, coset=coset))
        got = REF.ntt(curve, limbs.fr_to_limbs(curve, values), inverse=inverse, coset=coset)
        assert np.array_equal(got, expected)


@pytest.mark.parametrize("reduction", ["libsnark", "circom"])
def test_compute_h_is_the_reference_witness_map(curve: Curve, rng: random.Random, reduction: str) -> None:
    n = 8
    a = [curve.Fr(rng.randrange(curve.r)) for _ in range(n)]
    b = [curve.Fr(rng.randrange(curve.r)) for _ in range(n)]
    c = [x * y for x, y in zip(a, b, strict=True)]  # satisfied: A·B − C vanishes on the domain
    expected = limbs.fr_to_limbs(curve, witness_map(a, b, c, Reduction(reduction)))
    got = REF.compute_h(curve, *(limbs.fr_to_limbs(curve, v) for v in (a, b, c)), reduction=reduction)
    assert got.shape == (n - 1 if reduction == "libsnark" else n, 4)
    assert np.array_equal(got, expected)


def test_field_ops(curve: Curve, rng: random.Random) -> None:
    for name, field in (("fr", curve.Fr), ("fq", curve.Fq)):
        xs = [field(rng.randrange(1, field.MODULUS)) for _ in range(5)]
        ys = [field(rng.randrange(field.MODULUS)) for _ in range(5)]
        a, b = limbs.field_to_limbs(field, xs), limbs.field_to_limbs(field, ys)
        mul = REF.field_op(curve, name, "mul", a, b)
        assert limbs.limbs_to_field(field, mul) == [x * y for x, y in zip(xs, ys, strict=True)]
        assert limbs.limbs_to_field(field, REF.field_op(curve, name, "inverse", a)) == [x.inverse() for x in xs]
        with pytest.raises(NotInvertibleError):
            REF.field_op(curve, name, "inverse", limbs.field_to_limbs(field, [0]))


# --- validation: typed errors that name the array and the row -----------------------------------------------------


def _valid(curve: Curve = BLS12_381, n: int = 3) -> tuple[np.ndarray, np.ndarray]:
    _, _, bases, scalars = _msm_inputs(curve, "g1", n, random.Random(1))
    return bases, scalars


def test_not_an_array() -> None:
    bases, scalars = _valid()
    with pytest.raises(InputTypeError, match=r"^bases: expected a numpy.ndarray of uint64 \(n, 2, 6\), got list"):
        REF.msm(BLS12_381, "g1", bases.tolist(), scalars)


def test_wrong_dtype() -> None:
    bases, scalars = _valid()
    with pytest.raises(InputTypeError, match=r"^scalars: dtype int64, expected uint64") as err:
        REF.msm(BLS12_381, "g1", bases, scalars.astype(np.int64))
    assert err.value.array == "scalars" and err.value.row is None
    with pytest.raises(InputTypeError, match=r"dtype >u8"):
        REF.ntt(BN254, scalars.astype(">u8"))


def test_wrong_shape() -> None:
    bases, scalars = _valid()
    with pytest.raises(InputShapeError, match=r"^bases: shape \(3, 6\), expected \(n, 2, 6\) for affine G1"):
        REF.msm(BLS12_381, "g1", bases[:, 0, :], scalars)
    with pytest.raises(InputShapeError, match=r"expected \(n, 2, 2, 6\) for affine G2"):
        REF.msm(BLS12_381, "g2", bases, scalars)


def test_wrong_limb_count() -> None:
    bases, scalars = _valid(BN254)  # 4-limb coordinates handed to BLS12-381, which needs 6
    with pytest.raises(LimbCountError, match=r"^bases: 4 limbs per element, expected 6") as err:
        REF.msm(BLS12_381, "g1", bases, scalars)
    assert isinstance(err.value, InputShapeError) and err.value.array == "bases"


def test_non_canonical_scalar_names_the_row() -> None:
    bases, scalars = _valid()
    scalars[2] = limbs.int_to_limbs(BLS12_381.r, 4)
    with pytest.raises(NonCanonicalInputError) as err:
        REF.msm(BLS12_381, "g1", bases, scalars)
    assert err.value.array == "scalars" and err.value.row == 2
    message = str(err.value)
    assert message.startswith("scalars[2]: ") and "≥ r" in message and "Montgomery" in message
    assert isinstance(err.value, NonCanonicalError) and isinstance(err.value, BackendInputError)


def test_non_canonical_coordinate_names_row_and_coordinate() -> None:
    bases, scalars = _valid()
    bases[1, 1] = limbs.int_to_limbs(BLS12_381.q, 6)
    with pytest.raises(NonCanonicalInputError, match=r"^bases\[1\]: 0x[0-9a-f]+ \(y\) is not canonical: ≥ q"):
        REF.msm(BLS12_381, "g1", bases, scalars)
    _, _, g2, k2 = _msm_inputs(BN254, "g2", 2, random.Random(2))
    g2[0, 0, 1] = np.uint64(2**64 - 1)
    with pytest.raises(NonCanonicalInputError, match=r"^bases\[0\]: 0x[0-9a-f]+ \(x\.c1\)"):
        REF.msm(BN254, "g2", g2, k2)


def test_lengths_must_agree() -> None:
    bases, scalars = _valid()
    with pytest.raises(InputSizeMismatchError, match=r"^scalars: 2 rows but bases has 3") as err:
        REF.msm(BLS12_381, "g1", bases, scalars[:2])
    assert isinstance(err.value, SizeMismatchError)


def test_ntt_length() -> None:
    with pytest.raises(NotPowerOfTwoError, match=r"^values: length 3 is not a power of two"):
        REF.ntt(BN254, limbs.fr_to_limbs(BN254, [1, 2, 3]))
    with pytest.raises(InputDomainTooLargeError, match=r"exceeds 2\^28"):
        check_domain(BN254, 1 << 29)  # an array that large is not needed to test the bound
    check_domain(BLS12_381, 1 << 29)
    assert REF.ntt(BN254, np.zeros((0, 4), np.uint64)).shape == (0, 4)  # empty in, empty out, as the reference


@pytest.mark.parametrize("window", [0, -1, 33, 2.0, True])
def test_window_is_validated(window: object) -> None:
    bases, scalars = _valid()
    with pytest.raises(BackendInputError, match=r"^window: "):
        REF.msm(BLS12_381, "g1", bases, scalars, window=window)  # type: ignore[arg-type]


def test_group_is_validated() -> None:
    bases, scalars = _valid()
    with pytest.raises(BackendInputError, match=r"^group: 'g3' is not a group"):
        REF.msm(BLS12_381, "g3", bases, scalars)


def test_field_op_arguments() -> None:
    a = limbs.fr_to_limbs(BN254, [1, 2])
    with pytest.raises(BackendInputError, match=r"^op: unknown operation 'div'"):
        REF.field_op(BN254, "fr", "div", a, a)
    with pytest.raises(BackendInputError, match=r"^b: mul needs a second operand"):
        REF.field_op(BN254, "fr", "mul", a)
    with pytest.raises(NonCanonicalInputError, match=r"^a\[0\]: .* ≥ q"):
        REF.field_op(BN254, "fq", "square", limbs.ints_to_limbs([BN254.q], 4))


def test_compute_h_arguments() -> None:
    a = limbs.fr_to_limbs(BN254, [1, 2, 3, 4])
    with pytest.raises(BackendInputError, match=r"unknown reduction 'coset'"):
        REF.compute_h(BN254, a, a, a, reduction="coset")  # type: ignore[arg-type]
    with pytest.raises(InputSizeMismatchError, match=r"^c: "):
        REF.compute_h(BN254, a, a, a[:2], reduction="circom")


def test_prepared_handle_of_another_backend() -> None:
    class Other(ReferenceBackend):
        name = "other"

    bases, scalars = _valid()
    handle = Other().prepare_bases(BLS12_381, "g1", bases)
    with pytest.raises(BackendInputError, match=r"prepared by backend 'other'"):
        REF.msm_prepared(handle, scalars)
    with pytest.raises(InputSizeMismatchError):
        REF.msm_prepared(REF.prepare_bases(BLS12_381, "g1", bases), scalars[:1])


def test_every_boundary_error_is_a_cuzk_error() -> None:
    for error in (InputTypeError, InputShapeError, LimbCountError, NonCanonicalInputError, NotPowerOfTwoError):
        assert issubclass(error, BackendInputError) and issubclass(error, CuzkError)


# --- capabilities, availability, outputs --------------------------------------------------------------------------


class Minimal(BackendBase):
    """Only the required operations, returning garbage shapes on request."""

    name = "minimal"

    def __init__(self, *, device: int | None = None, reason: str | None = None, bad_output: bool = False) -> None:
        super().__init__(device=device)
        self.reason, self.bad_output = reason, bad_output

    def unavailable_reason(self) -> str | None:
        return self.reason

    def _msm(self, curve, group, bases, scalars, window):  # type: ignore[no-untyped-def]
        return np.zeros((3,), np.uint64) if self.bad_output else REF._msm(curve, group, bases, scalars, window)

    def _ntt(self, curve, values, inverse, coset):  # type: ignore[no-untyped-def]
        return values.astype(np.int64) if self.bad_output else values


def test_missing_capability_is_a_typed_error() -> None:
    backend = Minimal()
    bases, scalars = _valid()
    assert not has_capability(backend, "prepared_bases") and has_capability(REF, "prepared_bases")
    with pytest.raises(CapabilityMissingError, match=r"'minimal' does not offer 'prepared_bases'"):
        backend.prepare_bases(BLS12_381, "g1", bases)
    with pytest.raises(CapabilityMissingError):
        backend.msm_batch(BLS12_381, "g1", [bases], [scalars])
    with pytest.raises(CapabilityMissingError):
        backend.field_op(BLS12_381, "fr", "add", scalars, scalars)
    assert np.array_equal(backend.msm(BLS12_381, "g1", bases, scalars), REF.msm(BLS12_381, "g1", bases, scalars))


def test_unavailable_backend_refuses_to_run() -> None:
    backend = Minimal(reason="no device 7")
    assert not backend.is_available()
    bases, scalars = _valid()
    with pytest.raises(BackendUnavailableError, match=r"no device 7"):
        backend.msm(BLS12_381, "g1", bases, scalars)


def test_malformed_output_is_the_backends_fault() -> None:
    backend = Minimal(bad_output=True)
    bases, scalars = _valid()
    with pytest.raises(BackendOutputError, match=r"'minimal': msm returned uint64 \(3,\), expected uint64 \(2, 6\)"):
        backend.msm(BLS12_381, "g1", bases, scalars)
    with pytest.raises(BackendOutputError, match=r"ntt returned int64"):
        backend.ntt(BN254, limbs.fr_to_limbs(BN254, [1, 2]))


def test_rows_within_knows_a_slice_of_rows_from_other_arrays() -> None:
    """A batch checks z once and z[k:] not again; a copy, a strided view, another dtype, or rows beyond the array
    are not taken for checked."""
    z = limbs.ints_to_limbs(list(range(10)), limbs.FR_LIMBS)
    assert rows_within(z, z) and rows_within(z[3:], z) and rows_within(z[2:5], z)
    assert not rows_within(z.copy(), z)
    assert not rows_within(z[::2], z)
    assert not rows_within(z[:, :2], z)
    assert not rows_within(z.view(np.int64), z)
    assert not rows_within(z, z[3:])
    assert not rows_within(z[:0], z)


def test_msm_batch_still_rejects_a_bad_array_beside_a_checked_one() -> None:
    """The skipped check is only for rows already checked: a separate non-canonical array still fails, named."""
    curve = BN254
    bases = limbs.points_to_limbs(curve, "g1", [curve.g1.generator] * 3)
    good = limbs.ints_to_limbs([1, 2, 3], limbs.FR_LIMBS)
    bad = good.copy()
    bad[1] = limbs.int_to_limbs(curve.r, limbs.FR_LIMBS)
    got = REF.msm_batch(curve, "g1", [bases, bases[1:]], [good, good[1:]])
    assert got.shape == (2, *limbs.point_shape(curve, "g1"))
    with pytest.raises(NonCanonicalInputError, match=r"^scalars\[1\]"):
        REF.msm_batch(curve, "g1", [bases, bases], [good, bad])


@pytest.mark.parametrize("fault", ["scalar", "point", "shape"])
def test_msm_batch_of_many_arrays_checks_them_together_and_names_the_bad_one(fault: str) -> None:
    """A batch of many small MSMs (a setup's rows) is checked in one pass over all its rows; when that pass fails,
    the error names the array at fault as the per-array checks do."""
    curve, count = BN254, 40
    bases = [limbs.points_to_limbs(curve, "g1", [curve.g1.generator * (k + 1)]) for k in range(count)]
    scalars = [limbs.ints_to_limbs([k + 2], limbs.FR_LIMBS) for k in range(count)]
    got = REF.msm_batch(curve, "g1", bases, scalars)
    assert [limbs.limbs_to_points(curve, "g1", got[k : k + 1])[0] for k in (0, 39)] == [
        curve.g1.generator * 2,
        curve.g1.generator * (40 * 41),
    ]
    if fault == "scalar":
        scalars[23] = limbs.ints_to_limbs([curve.r], limbs.FR_LIMBS)
        error, name = NonCanonicalInputError, r"^scalars\[23\]"
    elif fault == "point":
        bases[31] = bases[31].copy()
        bases[31][0, 0] = limbs.int_to_limbs(curve.q, limbs.fq_limbs(curve))
        error, name = NonCanonicalInputError, r"^bases\[31\]"
    else:
        bases[7] = np.zeros((1, 2, 6), np.uint64)
        error, name = LimbCountError, r"^bases\[7\]"
    with pytest.raises(error, match=name):
        REF.msm_batch(curve, "g1", bases, scalars)
