"""Big-endian coordinates and the checks every point codec shares.

Both point formats of cuzk (ZCash for BLS12-381, EIP-196/197 for BN254) write a coordinate the same way:

- an Fq element as its canonical integer, big-endian, in ⌈log₂ q / 8⌉ bytes (48 for BLS12-381, 32 for BN254);
- an Fq2 element c0 + c1·u as c1 ‖ c0 ("imaginary part first": ZCash serialization notes, EIP-197).

Decoding is strict: an integer ≥ q is rejected (NonCanonicalError) rather than reduced, so every element has
exactly one encoding. The helpers below also pick y from x for compressed forms and run the final point checks.
"""

from __future__ import annotations

from typing import Any

from cuzk.reference.curves.group import Group, Point
from cuzk.reference.errors import (
    EncodingError,
    InvalidLengthError,
    NonCanonicalError,
    PointNotInSubgroupError,
    PointNotOnCurveError,
)
from cuzk.reference.fields import Fq2Element, PrimeFieldElement


def fq_size(field: type[PrimeFieldElement]) -> int:
    """Bytes of one encoded Fq element: the modulus width rounded up to whole bytes."""
    return (field.bit_length() + 7) // 8


def coordinate_size(field: type[Any]) -> int:
    """Bytes of one encoded coordinate: an Fq element, or two of them for Fq2."""
    if issubclass(field, Fq2Element):
        return 2 * fq_size(field.BASE)
    return fq_size(field)


def as_bytes(data: Any, what: str) -> bytes:
    """``data`` as bytes when it is bytes-like (bytes, bytearray, memoryview, a numpy byte array); anything else
    is an EncodingError. ``bytes(64)`` would make 64 zero bytes of an int, which decode as the point at infinity."""
    if isinstance(data, bytes):
        return data
    try:
        return bytes(memoryview(data))
    except TypeError:
        raise EncodingError(f"{what}: expected bytes, got {type(data).__name__}") from None


# --- Fq and Fq2 ----------------------------------------------------------------------------------------------


def encode_fq(element: PrimeFieldElement) -> bytes:
    """The canonical integer of ``element``, big-endian, in :func:`fq_size` bytes."""
    return element.value.to_bytes(fq_size(type(element)), "big")


def decode_fq(field: type[PrimeFieldElement], data: bytes, *, what: str = "field element") -> PrimeFieldElement:
    """The element of ``field`` whose big-endian encoding is ``data``; ``what`` names it in error messages.

    Raises InvalidLengthError when ``data`` is not :func:`fq_size` bytes and NonCanonicalError when the integer is
    ≥ q (reducing it would give one element several encodings).
    """
    size = fq_size(field)
    data = as_bytes(data, what)
    if len(data) != size:
        raise InvalidLengthError(f"{what}: an element of {field.NAME} is {size} bytes, got {len(data)}")
    value = int.from_bytes(data, "big")
    if value >= field.MODULUS:
        raise NonCanonicalError(
            f"{what} = {value:#x} is not a canonical element of {field.NAME}: it is ≥ q = {field.MODULUS:#x}"
        )
    return field(value)


def encode_fq2(element: Fq2Element) -> bytes:
    """c0 + c1·u as c1 ‖ c0, each big-endian (the order of ZCash and of EIP-197)."""
    return encode_fq(element.c1) + encode_fq(element.c0)


def decode_fq2(field: type[Fq2Element], data: bytes, *, what: str = "field element") -> Fq2Element:
    """The Fq2 element encoded as c1 ‖ c0; each half is checked by :func:`decode_fq` (named ``what.c1``/``.c0``)."""
    size = coordinate_size(field)
    data = as_bytes(data, what)
    if len(data) != size:
        raise InvalidLengthError(f"{what}: an element of {field.NAME} is {size} bytes, got {len(data)}")
    half = size // 2
    c1 = decode_fq(field.BASE, data[:half], what=f"{what}.c1")
    c0 = decode_fq(field.BASE, data[half:], what=f"{what}.c0")
    return field(c0, c1)


def encode_coordinate(element: Any) -> bytes:
    """An Fq or Fq2 coordinate, by its type."""
    return encode_fq2(element) if isinstance(element, Fq2Element) else encode_fq(element)


def decode_coordinate(field: type[Any], data: bytes, *, what: str) -> Any:
    """An Fq or Fq2 coordinate of the type ``field``."""
    if issubclass(field, Fq2Element):
        return decode_fq2(field, data, what=what)
    return decode_fq(field, data, what=what)


# --- the sign of y -------------------------------------------------------------------------------------------


def is_lexicographically_largest(y: Any) -> bool:
    """Whether y is the larger of {y, −y} in the order used by the sign flag (ZCash; cuzk's compressed BN254).

    In Fq, y > −y as integers exactly when y > (q − 1)/2. In Fq2 the order compares c1 first and c0 only when
    c1 = 0 (the bls12_381 crate's ``lexicographically_largest``); y = 0 is never the largest.
    """
    if isinstance(y, Fq2Element):
        return is_lexicographically_largest(y.c1) if not y.c1.is_zero() else is_lexicographically_largest(y.c0)
    return y.value > (y.MODULUS - 1) // 2


def recover_y(group: Group, x: Any, largest: bool) -> Any:
    """The y with y² = x³ + b and the given sign; raises PointNotOnCurveError when x³ + b is not a square.

    y = 0 would make the sign ambiguous, but it cannot occur: a point with y = 0 has order 2, and all four groups
    have odd order (odd cofactors, odd r).
    """
    rhs = group.rhs(x)
    if not rhs.is_square():
        raise PointNotOnCurveError(f"no point of {group.name} has x = {x!r}: x³ + b is not a square")
    y = rhs.sqrt()
    return y if is_lexicographically_largest(y) == largest else -y


def checked_point(group: Group, x: Any, y: Any, *, on_curve: bool, subgroup_check: bool) -> Point:
    """The point (x, y) after the checks a decoder owes its caller.

    ``on_curve``: whether y² = x³ + b is already known (true for a y from :func:`recover_y`).
    ``subgroup_check``: whether to verify [r]P = O. Skipping it is for callers that check elsewhere (e.g. a batch
    check) or read trusted data; a point outside the order-r subgroup breaks the security of Groth16. When the
    cofactor is 1 (BN254 G1) every point on the curve is in the subgroup, so there is nothing to check.
    """
    point = group.point_unchecked(x, y)
    if not on_curve and not point.is_on_curve():
        raise PointNotOnCurveError(f"({x!r}, {y!r}) is not on {group.name}: y² ≠ x³ + b")
    if subgroup_check and group.cofactor != 1 and not point.is_in_subgroup():
        raise PointNotInSubgroupError(
            f"({x!r}, {y!r}) is on {group.name} but not in its subgroup of order r (the cofactor is not cleared)"
        )
    return point
