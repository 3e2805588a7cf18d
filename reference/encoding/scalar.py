"""Scalars (elements of Fr) as 32 bytes, little-endian, canonical: the form of the bls12_381 crate's
``Scalar::to_bytes``, of arkworks' ``serialize_compressed`` for Fr and of the values in snarkjs' .wtns files.

Both scalar fields fit: r < 2^255 for BLS12-381 and r < 2^254 for BN254. Decoding rejects an integer ≥ r instead
of reducing it, so every scalar has exactly one encoding.
"""

from __future__ import annotations

from typing import TypeVar

from cuzk.reference.encoding.coordinates import as_bytes
from cuzk.reference.errors import InvalidLengthError, NonCanonicalError
from cuzk.reference.fields import PrimeFieldElement

SCALAR_SIZE = 32

S = TypeVar("S", bound=PrimeFieldElement)


def encode_scalar(s: PrimeFieldElement) -> bytes:
    """The canonical integer of ``s`` (0 ≤ s < r) in 32 bytes, least significant byte first."""
    return s.value.to_bytes(SCALAR_SIZE, "little")


def decode_scalar(field_type: type[S], data: bytes) -> S:
    """The element of ``field_type`` (a curve's Fr) whose 32-byte little-endian encoding is ``data``.

    Raises InvalidLengthError for any other length, NonCanonicalError when the integer is ≥ r, and
    EncodingError when ``data`` is not bytes-like.
    """
    data = as_bytes(data, f"a scalar of {field_type.NAME}")
    if len(data) != SCALAR_SIZE:
        raise InvalidLengthError(f"a scalar of {field_type.NAME} is {SCALAR_SIZE} bytes, got {len(data)}")
    value = int.from_bytes(data, "little")
    if value >= field_type.MODULUS:
        raise NonCanonicalError(
            f"scalar {value:#x} is not a canonical element of {field_type.NAME}: it is ≥ r = {field_type.MODULUS:#x}"
        )
    return field_type(value)
