"""BN254 points in the form of Ethereum's precompiles (EIP-196 for G1, EIP-197 for G2), plus a compressed form.

Uncompressed (EIP-196/197), coordinates big-endian in 32 bytes each:

=============  =====================================================================================
G1 (Fq)        64 bytes: x ‖ y
G2 (Fq2)       128 bytes: x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0 (EIP-197: "imaginary part first")
=============  =====================================================================================

There are no flags: the point at infinity is all zeros (unambiguous, since (0, 0) is not on either curve), and a
coordinate ≥ q, including one with any of the top two bits set, is non-canonical. The generator of G1 is
``00…01 ‖ 00…02``.

Compressed (cuzk's own design; EIP-196/197 define none): the x coordinate alone, 32 bytes for G1 and 64 bytes
(x.c1 ‖ x.c0) for G2. q < 2^254, so the top two bits of the first byte are free and carry flags, as in ZCash:

- bit 7 (0x80), infinity: the point at infinity, encoded ``80 00…``; every other bit must be zero;
- bit 6 (0x40), sign: y is the lexicographically largest of {y, −y}, by the ZCash rule (in Fq2, compare c1
  first and c0 only when c1 = 0; :func:`~cuzk.reference.encoding.coordinates.is_lexicographically_largest`).

No compression flag is needed: the length says which form it is. This is not the compressed form of gnark-crypto
(the same two bits, but 0x80 = smaller y, 0xc0 = larger y, 0x40 = infinity) nor that of arkworks (little-endian,
other bits): it is for exchange between cuzk components; converting means rewriting the flags (and byte order).
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

INFINITY = 0x80
SIGN = 0x40
FLAGS = INFINITY | SIGN


def point_size(group: Group, compressed: bool) -> int:
    """32/64 bytes for G1, 64/128 for G2 (compressed/uncompressed)."""
    size = coordinate_size(group.field)
    return size if compressed else 2 * size


def encode(point: Point, *, compressed: bool) -> bytes:
    """The EIP-196/197 encoding of ``point``, or cuzk's compressed form (the point is not checked to be on E)."""
    size = point_size(point.group, compressed)
    affine = point.to_affine()
    if affine is None:
        return bytes([INFINITY]) + bytes(size - 1) if compressed else bytes(size)
    x, y = affine
    if compressed:
        out = bytearray(encode_coordinate(x))
        out[0] |= SIGN if is_lexicographically_largest(y) else 0
        return bytes(out)
    return encode_coordinate(x) + encode_coordinate(y)


def decode(group: Group, data: bytes, *, subgroup_check: bool = True) -> Point:
    """The point of ``group`` (a BN254 group) encoded by ``data``, compressed or not according to its length.

    Raises InvalidLengthError, InvalidFlagsError (compressed form only: infinity with the sign bit or a non-zero
    payload), NonCanonicalError (a coordinate ≥ q), PointNotOnCurveError and, unless ``subgroup_check`` is false,
    PointNotInSubgroupError (G2 only: G1 has cofactor 1). ``subgroup_check=False`` is for callers that check
    subgroup membership themselves or trust the bytes.
    """
    data = as_bytes(data, f"a {group.name} point")
    size = coordinate_size(group.field)
    if len(data) not in (size, 2 * size):
        raise InvalidLengthError(
            f"a {group.name} point is {size} bytes (compressed) or {2 * size} bytes (uncompressed, EIP-196/197), "
            f"got {len(data)}"
        )
    if len(data) == 2 * size:
        if not any(data):
            return group.identity()
        x = decode_coordinate(group.field, data[:size], what=f"{group.name} uncompressed x")
        y = decode_coordinate(group.field, data[size:], what=f"{group.name} uncompressed y")
        return checked_point(group, x, y, on_curve=False, subgroup_check=subgroup_check)
    flags = data[0] & FLAGS
    payload = bytes([data[0] & ~FLAGS & 0xFF]) + data[1:]
    if flags & INFINITY:
        if flags & SIGN:
            raise InvalidFlagsError(f"{group.name}: the sign flag (bit 6 of byte 0) is set on the point at infinity")
        if any(payload):
            raise InvalidFlagsError(
                f"{group.name}: the infinity flag (bit 7 of byte 0) is set but the rest of the encoding is not zero"
            )
        return group.identity()
    x = decode_coordinate(group.field, payload, what=f"{group.name} compressed x")
    y = recover_y(group, x, largest=bool(flags & SIGN))
    return checked_point(group, x, y, on_curve=True, subgroup_check=subgroup_check)
