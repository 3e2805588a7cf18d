"""Malformed encodings: each is rejected with its own typed error and a message that names the problem.

One table of cases (wrong lengths, bad flags, non-canonical coordinates, points off the curve or outside the
subgroup) for each group of each curve, then hypothesis: random bytes and single-bit corruptions of valid encodings
either decode to a point whose encoding is exactly those bytes, or raise an EncodingError, never anything else.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cuzk.reference.curves import BLS12_381, BN254, Curve, Group, Point
from cuzk.reference.encoding import decode_fq, decode_fq2, decode_point, decode_scalar, encode_point, point_size
from cuzk.reference.errors import (
    EncodingError,
    InvalidFlagsError,
    InvalidLengthError,
    NonCanonicalError,
    PointNotInSubgroupError,
    PointNotOnCurveError,
)
from cuzk.reference.fields import Fq2Element

GROUPS = [BLS12_381.g1, BLS12_381.g2, BN254.g1, BN254.g2]
GROUP_IDS = [g.name for g in GROUPS]
P = functools.partial

# --- building blocks -------------------------------------------------------------------------------------------


def curve_of(group: Group) -> Curve:
    return BLS12_381 if group.name.startswith("bls12_381.") else BN254


def is_g2(group: Group) -> bool:
    return issubclass(group.field, Fq2Element)


def fq_size(group: Group) -> int:
    return (curve_of(group).q.bit_length() + 7) // 8


def candidates(group: Group) -> Iterator[Any]:
    """x = 0, 1, 2, … (G1) or k + u (G2): a deterministic walk over x coordinates."""
    k = 0
    while True:
        yield group.field(k, 1) if is_g2(group) else group.field(k)
        k += 1


@functools.cache
def outside_subgroup(group: Group) -> Point:
    """A point on the curve but outside the order-r subgroup.

    BN254 G1 has none: its cofactor is 1 (E(Fq) has prime order r), so every point of the curve is in the
    subgroup and its decoder has no subgroup check to fail. The other three groups have cofactors > 1.
    """
    for x in candidates(group):
        rhs = group.rhs(x)
        if rhs.is_square():
            point = group.point(x, rhs.sqrt())
            # A point of E is in the subgroup with probability 1/h (h ≥ 3 here); the first one found is not
            # (for BLS12-381 G1 it is (0, 2), of order 3), and the assertion makes sure of it.
            assert not point.is_in_subgroup()
            return point
    raise AssertionError("unreachable: candidates() never ends")


@functools.cache
def x_off_curve(group: Group) -> Any:
    """The first candidate x with x³ + b a non-square: no point of the curve has it."""
    return next(x for x in candidates(group) if not group.rhs(x).is_square())


def gen_bytes(group: Group, compressed: bool, *, set0: int = 0, clear0: int = 0) -> bytes:
    """The generator's encoding with the bits ``set0`` set and ``clear0`` cleared in byte 0."""
    data = bytearray(encode_point(group.generator, compressed=compressed))
    data[0] = (data[0] | set0) & ~clear0
    return bytes(data)


def flagged(group: Group, compressed: bool, byte0: int, last: int = 0) -> bytes:
    """``byte0``, zeros, and ``last`` as the final byte: infinity encodings, valid or with garbage."""
    return bytes([byte0]) + bytes(point_size(group, compressed) - 2) + bytes([last])


def generator_words(group: Group) -> list[int]:
    """The generator as Fq-sized integers in encoding order: [x, y] or [x.c1, x.c0, y.c1, y.c0]."""
    data, n = encode_point(group.generator, compressed=False), fq_size(group)
    return [int.from_bytes(data[i : i + n], "big") for i in range(0, len(data), n)]


def replaced(group: Group, index: int, value: int, *, compressed: bool = False, set0: int = 0) -> bytes:
    """The generator's encoding with the Fq word ``index`` replaced by ``value`` (which may be ≥ q)."""
    ws = generator_words(group)
    ws[index] = value
    ws = ws[: len(ws) // 2] if compressed else ws
    data = bytearray(b"".join(w.to_bytes(fq_size(group), "big") for w in ws))
    data[0] |= set0
    return bytes(data)


def off_curve_compressed(group: Group, set0: int) -> bytes:
    """x_off_curve(group) as a compressed encoding with the flag bits ``set0``."""
    x = x_off_curve(group)
    data = bytearray(encode_point(group.point_unchecked(x, x), compressed=False)[: point_size(group, True)])
    data[0] |= set0
    return bytes(data)


def generator_with_y(group: Group, y_of: Callable[[Any], Any]) -> bytes:
    """The generator's uncompressed encoding with y replaced by y_of(y)."""
    x, y = group.generator.to_affine()
    return encode_point(group.point_unchecked(x, y_of(y)), compressed=False)


@functools.cache
def five_times_generator(group: Group) -> Point:
    return group.generator * 5


def outside_bytes(group: Group, compressed: bool) -> bytes:
    return encode_point(outside_subgroup(group), compressed=compressed)


# --- the table -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    group: Group
    name: str
    build: Callable[[], bytes]  # called inside the test, so costly constructions do not slow collection
    error: type[EncodingError]
    match: str  # a regex the message must contain: what is wrong and where


def length_cases(group: Group, foreign: tuple[int, ...]) -> list[Case]:
    """Every length next to the two valid ones, and the sizes of the other groups and formats."""
    n = point_size(group, True)
    lengths = sorted({0, 1, n - 1, n + 1, 2 * n - 1, 2 * n + 1, 3 * n, *foreign} - {n, 2 * n})
    return [Case(group, f"length-{k}", P(bytes, k), InvalidLengthError, f"got {k}$") for k in lengths]


def coordinate_cases(group: Group, compressed_flag: int, flags_in_x: bool) -> list[Case]:
    """Coordinates ≥ q, and points off the curve.

    ``compressed_flag`` is what byte 0 of every compressed point carries (ZCash: 0x80); ``flags_in_x`` says whether
    the top bits of x are flags even in the uncompressed form (ZCash), which makes x + q a flag case there.
    """
    case = P(Case, group)
    q = curve_of(group).q
    names = ["x.c1", "x.c0", "y.c1", "y.c0"] if is_g2(group) else ["x", "y"]
    top_bit = 1 << (8 * fq_size(group) - 1)
    cases = []
    for i, name in enumerate(names):
        word, where = generator_words(group)[i], f"uncompressed {re.escape(name)} = "
        cases.append(case(f"uncompressed-{name}=q", P(replaced, group, i, q), NonCanonicalError, f"{where}{q:#x} is"))
        if i > 0 or not flags_in_x:
            same_residue = word + q
            cases += [
                case(f"uncompressed-{name}+q", P(replaced, group, i, same_residue), NonCanonicalError, where),
                case(f"uncompressed-{name}-top-bit", P(replaced, group, i, word | top_bit), NonCanonicalError, where),
            ]
        if i < len(names) // 2:
            build = P(replaced, group, i, q, compressed=True, set0=compressed_flag)
            cases.append(
                case(f"compressed-{name}=q", build, NonCanonicalError, f"compressed {re.escape(name)} = {q:#x}")
            )
    all_ones = P(replaced, group, 0, (1 << q.bit_length()) - 1, compressed=True, set0=compressed_flag)
    off_curve = P(off_curve_compressed, group, compressed_flag)
    not_a_square = r"no point of .* has x = .*: x³ \+ b is not a square"
    not_on_curve = r"is not on .*: y² ≠ x³ \+ b"
    return [
        *cases,
        case("compressed-x-all-ones", all_ones, NonCanonicalError, r"compressed x(\.c1)? = 0x[0-9a-f]+ is not a canon"),
        case("compressed-x-off-curve", off_curve, PointNotOnCurveError, not_a_square),
        case("uncompressed-y+1", P(generator_with_y, group, lambda y: y + y.one()), PointNotOnCurveError, not_on_curve),
        case("uncompressed-y=0", P(generator_with_y, group, lambda y: y.zero()), PointNotOnCurveError, not_on_curve),
    ]


def zcash_flag_cases(group: Group) -> list[Case]:
    case = P(Case, group)
    n = point_size(group, True)
    clear, is_set = r"compression flag \(bit 7 of byte 0\) is clear", r"compression flag \(bit 7 of byte 0\) is set"
    sign_inf = r"sign flag \(bit 5 of byte 0\) is set on the point at infinity"
    sign_unc = r"sign flag \(bit 5 of byte 0\) is set on an uncompressed point"
    garbage = r"infinity flag \(bit 6 of byte 0\) is set but the rest of the encoding is not zero"
    other, other_flag = (BLS12_381.g2, is_set) if group is BLS12_381.g1 else (BLS12_381.g1, clear)
    x0 = (PointNotInSubgroupError, "not in its subgroup") if group is BLS12_381.g1 else (PointNotOnCurveError, "x³")
    return [
        case("compressed-without-compression-flag", P(gen_bytes, group, True, clear0=0x80), InvalidFlagsError, clear),
        case("compressed-all-zeros", P(bytes, n), InvalidFlagsError, clear),
        case("uncompressed-with-compression-flag", P(gen_bytes, group, False, set0=0x80), InvalidFlagsError, is_set),
        case("uncompressed-with-sign-flag", P(gen_bytes, group, False, set0=0x20), InvalidFlagsError, sign_unc),
        case("uncompressed-compression-and-sign", P(gen_bytes, group, False, set0=0xA0), InvalidFlagsError, is_set),
        case("compressed-infinity-with-sign", P(flagged, group, True, 0xE0), InvalidFlagsError, sign_inf),
        case("uncompressed-infinity-with-sign", P(flagged, group, False, 0x60), InvalidFlagsError, sign_inf),
        case("compressed-infinity-last-byte", P(flagged, group, True, 0xC0, 1), InvalidFlagsError, garbage),
        case("compressed-infinity-low-bits", P(flagged, group, True, 0xC1), InvalidFlagsError, garbage),
        case("uncompressed-infinity-y", P(flagged, group, False, 0x40, 1), InvalidFlagsError, garbage),
        case("compressed-generator-infinity", P(gen_bytes, group, True, set0=0x40), InvalidFlagsError, garbage),
        case("uncompressed-generator-infinity", P(gen_bytes, group, False, set0=0x40), InvalidFlagsError, garbage),
        # EIP-196's infinity (all zeros) is not ZCash's (0x40, then zeros): here it is the point (0, 0).
        case("uncompressed-all-zeros", P(bytes, 2 * n), PointNotOnCurveError, "is not on"),
        # x = 0: on BLS12-381 G1 it gives (0, ±2), of order 3; on G2, 0³ + b' is not a square.
        case("compressed-x=0", P(flagged, group, True, 0x80), *x0),
        # G1 uncompressed and G2 compressed are both 96 bytes: the compression flag tells them apart.
        case(f"{other.name}-generator", P(gen_bytes, other, other is BLS12_381.g2), InvalidFlagsError, other_flag),
    ]


def eip196_flag_cases(group: Group) -> list[Case]:
    case = P(Case, group)
    n = point_size(group, True)
    sign_inf = r"sign flag \(bit 6 of byte 0\) is set on the point at infinity"
    garbage = r"infinity flag \(bit 7 of byte 0\) is set but the rest of the encoding is not zero"
    cases = [
        case("compressed-infinity-with-sign", P(flagged, group, True, 0xC0), InvalidFlagsError, sign_inf),
        case("compressed-infinity-last-byte", P(flagged, group, True, 0x80, 1), InvalidFlagsError, garbage),
        case("compressed-infinity-low-bits", P(flagged, group, True, 0x81), InvalidFlagsError, garbage),
        case("compressed-generator-infinity", P(gen_bytes, group, True, set0=0x80), InvalidFlagsError, garbage),
        # The uncompressed form has no flags: bits set above q make x non-canonical, whatever they were meant as.
        case("uncompressed-compressed-infinity", P(flagged, group, False, 0x80), NonCanonicalError, "uncompressed x"),
        case("uncompressed-zcash-infinity", P(flagged, group, False, 0x40), NonCanonicalError, "uncompressed x"),
        # EIP-196's infinity is all zeros; any other byte makes it a point (0, …), which is not on the curve.
        case("uncompressed-infinity-last-byte", P(flagged, group, False, 0x00, 1), PointNotOnCurveError, "is not on"),
        # x = 0: 3 is not a square in Fq (E(Fq) has odd prime order: no point (0, ±√3) of order 3), nor b' in Fq2.
        case("compressed-all-zeros", P(bytes, n), PointNotOnCurveError, r"x³ \+ b is not a square"),
    ]
    if group is BN254.g1:
        # G1 uncompressed and G2 compressed are both 64 bytes; without flags, only the curve equation tells.
        cases.append(case("bn254.G2-generator", P(gen_bytes, BN254.g2, True), PointNotOnCurveError, "is not on"))
    return cases


def subgroup_cases(group: Group) -> list[Case]:
    message = f"is on {re.escape(group.name)} but not in its subgroup of order r"
    return [
        Case(group, f"{form}-outside-subgroup", P(outside_bytes, group, compressed), PointNotInSubgroupError, message)
        for form, compressed in (("compressed", True), ("uncompressed", False))
    ]


CASES = [
    *length_cases(BLS12_381.g1, (32, 64, 192)),
    *coordinate_cases(BLS12_381.g1, 0x80, flags_in_x=True),
    *zcash_flag_cases(BLS12_381.g1),
    *subgroup_cases(BLS12_381.g1),
    *length_cases(BLS12_381.g2, (48, 64, 128)),
    *coordinate_cases(BLS12_381.g2, 0x80, flags_in_x=True),
    *zcash_flag_cases(BLS12_381.g2),
    *subgroup_cases(BLS12_381.g2),
    *length_cases(BN254.g1, (48, 96, 128)),
    *coordinate_cases(BN254.g1, 0x00, flags_in_x=False),
    *eip196_flag_cases(BN254.g1),
    # No subgroup cases for BN254 G1: its cofactor is 1, so no point of the curve lies outside the subgroup.
    *length_cases(BN254.g2, (32, 48, 96, 192)),
    *coordinate_cases(BN254.g2, 0x00, flags_in_x=False),
    *eip196_flag_cases(BN254.g2),
    *subgroup_cases(BN254.g2),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.group.name}-{c.name}" for c in CASES])
def test_malformed_point_is_rejected(case: Case) -> None:
    data = case.build()
    with pytest.raises(EncodingError) as caught:
        decode_point(case.group, data)
    assert type(caught.value) is case.error, f"{type(caught.value).__name__}: {caught.value}"
    assert re.search(case.match, str(caught.value)), str(caught.value)


def test_case_names_are_unique() -> None:
    names = [f"{c.group.name}-{c.name}" for c in CASES]
    assert len(names) == len(set(names))


# --- the subgroup check can be skipped, the other checks cannot ------------------------------------------------


@pytest.mark.parametrize("group", [BLS12_381.g1, BLS12_381.g2, BN254.g2], ids=lambda g: g.name)
@pytest.mark.parametrize("compressed", [True, False], ids=["compressed", "uncompressed"])
def test_subgroup_check_can_be_skipped(group: Group, compressed: bool) -> None:
    point = outside_subgroup(group)
    assert decode_point(group, outside_bytes(group, compressed), subgroup_check=False) == point
    with pytest.raises(PointNotOnCurveError):
        decode_point(group, generator_with_y(group, lambda y: y + y.one()), subgroup_check=False)


def test_bn254_g1_has_cofactor_one() -> None:
    """Why BN254 G1 has no outside-the-subgroup case: #E(Fq) = r."""
    assert BN254.g1.cofactor == 1


# --- scalars and field elements --------------------------------------------------------------------------------


@pytest.mark.parametrize("length", [0, 1, 31, 33, 48, 64])
def test_scalar_of_wrong_length(curve: Curve, length: int) -> None:
    with pytest.raises(InvalidLengthError, match=f"is 32 bytes, got {length}$"):
        decode_scalar(curve.Fr, bytes(length))


@pytest.mark.parametrize("offset", [0, 1, 2**254, 2**255], ids=["r", "r+1", "r+2^254", "r+2^255"])
def test_scalar_at_least_r(curve: Curve, offset: int) -> None:
    value = curve.r + offset  # < 2^256 on both curves
    with pytest.raises(NonCanonicalError, match=f"scalar {value:#x} is not a canonical element of .*≥ r"):
        decode_scalar(curve.Fr, value.to_bytes(32, "little"))


def test_scalar_all_ones(curve: Curve) -> None:
    with pytest.raises(NonCanonicalError):
        decode_scalar(curve.Fr, b"\xff" * 32)


def test_field_elements_are_checked(curve: Curve) -> None:
    n = (curve.q.bit_length() + 7) // 8
    q, one = curve.q.to_bytes(n, "big"), (1).to_bytes(n, "big")
    with pytest.raises(NonCanonicalError, match=f"= {curve.q:#x} is not a canonical"):
        decode_fq(curve.Fq, q)
    with pytest.raises(InvalidLengthError, match=f"is {n} bytes, got {n + 1}"):
        decode_fq(curve.Fq, q + b"\x00")
    with pytest.raises(NonCanonicalError, match=r"a\.c1 = "):
        decode_fq2(curve.Fq2, q + one, what="a")
    with pytest.raises(NonCanonicalError, match=r"a\.c0 = "):
        decode_fq2(curve.Fq2, one + q, what="a")
    with pytest.raises(InvalidLengthError, match=f"is {2 * n} bytes, got {n}"):
        decode_fq2(curve.Fq2, q)


# --- fuzzing: nothing but a canonical encoding is accepted, and nothing but EncodingError is raised -------------


def decode_or_reject(group: Group, data: bytes, compressed: bool) -> None:
    """Either ``data`` is rejected with an EncodingError, or it is exactly the encoding of the point it gives."""
    try:
        point = decode_point(group, data)
    except EncodingError:
        return
    assert encode_point(point, compressed=compressed) == data


@pytest.mark.parametrize("group", GROUPS, ids=GROUP_IDS)
@pytest.mark.parametrize("compressed", [True, False], ids=["compressed", "uncompressed"])
@given(data=st.data())
def test_random_bytes(group: Group, compressed: bool, data: st.DataObject) -> None:
    n = point_size(group, compressed)
    decode_or_reject(group, data.draw(st.binary(min_size=n, max_size=n), label="bytes"), compressed)


@pytest.mark.parametrize("group", GROUPS, ids=GROUP_IDS)
@pytest.mark.parametrize("compressed", [True, False], ids=["compressed", "uncompressed"])
@given(data=st.data())
def test_one_flipped_bit(group: Group, compressed: bool, data: st.DataObject) -> None:
    valid = bytearray(encode_point(five_times_generator(group), compressed=compressed))
    bit = data.draw(st.integers(min_value=0, max_value=8 * len(valid) - 1), label="bit")
    valid[bit // 8] ^= 0x80 >> (bit % 8)
    decode_or_reject(group, bytes(valid), compressed)
