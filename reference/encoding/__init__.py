"""Canonical bytes for points and scalars, one format per curve (DESIGN.md, "encoding").

- BLS12-381: the ZCash format (:mod:`~cuzk.reference.encoding.zcash`): 48/96-byte compressed and 96/192-byte
  uncompressed G1/G2 points, big-endian, flags in the top three bits.
- BN254: the EIP-196/197 form of Ethereum's precompiles, 64/128 bytes uncompressed, infinity = all zeros, and a
  32/64-byte compressed form documented in :mod:`~cuzk.reference.encoding.eip196`.
- Scalars of either curve: 32 bytes little-endian (:mod:`~cuzk.reference.encoding.scalar`).

Every decoder is strict: it accepts exactly the bytes the encoder produces for a valid point or scalar, and raises
a subclass of :class:`~cuzk.reference.errors.EncodingError` that says what is wrong for anything else.
"""

from __future__ import annotations

from types import ModuleType

from cuzk.reference.curves.group import Group, Point
from cuzk.reference.encoding import eip196, zcash
from cuzk.reference.encoding.coordinates import (
    decode_fq,
    decode_fq2,
    encode_fq,
    encode_fq2,
    is_lexicographically_largest,
)
from cuzk.reference.encoding.scalar import SCALAR_SIZE, decode_scalar, encode_scalar
from cuzk.reference.errors import CuzkError

# The format of each curve, found from the prefix of its groups' names ("bls12_381.G1", "bn254.G2").
_FORMATS: dict[str, ModuleType] = {"bls12_381": zcash, "bn254": eip196}


def _format(group: Group) -> ModuleType:
    curve = group.name.split(".", 1)[0]
    if curve not in _FORMATS:
        raise CuzkError(f"no canonical encoding is defined for {group.name}; known curves: {', '.join(_FORMATS)}")
    return _FORMATS[curve]


def point_size(group: Group, compressed: bool) -> int:
    """Bytes of an encoded point of ``group``: 48/96 (BLS12-381 G1), 96/192 (G2), 32/64 (BN254 G1), 64/128 (G2)."""
    return _format(group).point_size(group, compressed)


def encode_point(point: Point, *, compressed: bool) -> bytes:
    """The canonical encoding of ``point`` in its curve's format (ZCash or EIP-196/197)."""
    return _format(point.group).encode(point, compressed=compressed)


def decode_point(group: Group, data: bytes, *, subgroup_check: bool = True) -> Point:
    """The point of ``group`` encoded by ``data``; the length says whether it is compressed.

    Raises InvalidLengthError, InvalidFlagsError, NonCanonicalError, PointNotOnCurveError or
    PointNotInSubgroupError (all EncodingError). ``subgroup_check=False`` skips the costly [r]P = O check, for
    callers that check membership themselves or read trusted bytes; an unchecked point may lie outside the
    order-r subgroup, which breaks the soundness of anything built on it.
    """
    return _format(group).decode(group, data, subgroup_check=subgroup_check)


__all__ = [
    "SCALAR_SIZE",
    "decode_fq",
    "decode_fq2",
    "decode_point",
    "decode_scalar",
    "eip196",
    "encode_fq",
    "encode_fq2",
    "encode_point",
    "encode_scalar",
    "is_lexicographically_largest",
    "point_size",
    "zcash",
]
