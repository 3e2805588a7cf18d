"""The ZCash encoding of BLS12-381 points (zkcrypto/pairing and the bls12_381 crate, "Serialization" notes;
also the IETF pairing-friendly-curves draft, appendix on ZCash serialization). It is what bellman, Filecoin,
Ethereum's consensus layer and blst read and write.

=============  ===========  ==========================================================================
group          compressed   uncompressed
=============  ===========  ==========================================================================
G1 (Fq)        48 bytes: x  96 bytes: x ‖ y
G2 (Fq2)       96 bytes: x  192 bytes: x ‖ y, each coordinate c1 ‖ c0
=============  ===========  ==========================================================================

Coordinates are big-endian (:mod:`cuzk.reference.encoding.coordinates`). q < 2^381, so the three most significant
bits of the first byte are free and carry flags:

- bit 7 (0x80), compression: set exactly in the compressed form;
- bit 6 (0x40), infinity: the point at infinity; every other bit of the encoding is then zero, so infinity is
  ``c0 00…`` compressed and ``40 00…`` uncompressed;
- bit 5 (0x20), sign: set only in the compressed form of a finite point, when y is the lexicographically largest
  of {y, −y} (:func:`~cuzk.reference.encoding.coordinates.is_lexicographically_largest`).

Decoding accepts exactly the bytes :func:`encode` produces for a point of the subgroup and nothing else.
"""

from __future__ import annotations

from cuzk.reference.curves.group import Group, Point
from cuzk.reference.encoding.coordinates import (
    as_bytes,
    checked_point,
    coordinate_size,
    decode_coordinate,
    encode_coordinate,
    is_lexicographically_largest,
    recover_y,
)
from cuzk.reference.errors import InvalidFlagsError, InvalidLengthError

COMPRESSION = 0x80
INFINITY = 0x40
SIGN = 0x20
FLAGS = COMPRESSION | INFINITY | SIGN


def point_size(group: Group, compressed: bool) -> int:
    """48/96 bytes for G1, 96/192 for G2 (compressed/uncompressed)."""
    size = coordinate_size(group.field)
    return size if compressed else 2 * size


def encode(point: Point, *, compressed: bool) -> bytes:
    """The ZCash encoding of ``point`` (which is not checked to be on the curve)."""
    size = point_size(point.group, compressed)
    compression = COMPRESSION if compressed else 0
    affine = point.to_affine()
    if affine is None:
        return bytes([compression | INFINITY]) + bytes(size - 1)
    x, y = affine
    if compressed:
        out = bytearray(encode_coordinate(x))
        out[0] |= compression | (SIGN if is_lexicographically_largest(y) else 0)
        return bytes(out)
    return encode_coordinate(x) + encode_coordinate(y)


def decode(group: Group, data: bytes, *, subgroup_check: bool = True) -> Point:
    """The point of ``group`` (a BLS12-381 group) encoded by ``data``, compressed or not according to its length.

    Raises, in this order of checks: InvalidLengthError (a length other than the two sizes), InvalidFlagsError
    (flags that contradict the length or each other, infinity with a non-zero payload), NonCanonicalError (a
    coordinate ≥ q), PointNotOnCurveError and, unless ``subgroup_check`` is false, PointNotInSubgroupError.
    ``subgroup_check=False`` is for callers that check subgroup membership themselves or trust the bytes.
    """
    data = as_bytes(data, f"a {group.name} point")
    compressed = _form(group, data)
    flags = data[0] & FLAGS
    _check_flags(group, flags, compressed)
    payload = bytes([data[0] & ~FLAGS & 0xFF]) + data[1:]
    if flags & INFINITY:
        if any(payload):
            raise InvalidFlagsError(
                f"{group.name}: the infinity flag (bit 6 of byte 0) is set but the rest of the encoding is not zero"
            )
        return group.identity()
    size = coordinate_size(group.field)
    form = "compressed" if compressed else "uncompressed"
    x = decode_coordinate(group.field, payload[:size], what=f"{group.name} {form} x")
    if compressed:
        y = recover_y(group, x, largest=bool(flags & SIGN))
        return checked_point(group, x, y, on_curve=True, subgroup_check=subgroup_check)
    y = decode_coordinate(group.field, payload[size:], what=f"{group.name} {form} y")
    return checked_point(group, x, y, on_curve=False, subgroup_check=subgroup_check)


def _form(group: Group, data: bytes) -> bool:
    """Whether ``data`` has the compressed length (True) or the uncompressed one (False); anything else raises."""
    small, large = point_size(group, True), point_size(group, False)
    if len(data) not in (small, large):
        raise InvalidLengthError(
            f"a {group.name} point is {small} bytes (compressed) or {large} bytes (uncompressed) in the ZCash "
            f"format, got {len(data)}"
        )
    return len(data) == small


def _check_flags(group: Group, flags: int, compressed: bool) -> None:
    """The flag combinations the format forbids, each with its own message."""
    if compressed and not flags & COMPRESSION:
        raise InvalidFlagsError(
            f"{group.name}: the compression flag (bit 7 of byte 0) is clear, but the length "
            f"{point_size(group, True)} is that of the compressed form"
        )
    if not compressed and flags & COMPRESSION:
        raise InvalidFlagsError(
            f"{group.name}: the compression flag (bit 7 of byte 0) is set, but the length "
            f"{point_size(group, False)} is that of the uncompressed form"
        )
    if flags & SIGN and flags & INFINITY:
        raise InvalidFlagsError(f"{group.name}: the sign flag (bit 5 of byte 0) is set on the point at infinity")
    if flags & SIGN and not compressed:
        raise InvalidFlagsError(
            f"{group.name}: the sign flag (bit 5 of byte 0) is set on an uncompressed point; it must be clear"
        )
