"""Points a verifier must refuse, built deterministically: on the curve but outside the subgroup (hashed to the
curve without clearing the cofactor), of small order, off the curve; and the byte surgery on encoded proofs."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator
from typing import Any

from cuzk.reference.curves import BLS12_381, BN254, Curve, Group, Point
from cuzk.reference.encoding import point_size
from cuzk.reference.fields import Fq2Element

# the flag bits of the first byte of a compressed point (see reference/encoding/eip196.py and zcash.py)
FLAG_BITS = {BN254.name: 2, BLS12_381.name: 3}


def is_g2(group: Group) -> bool:
    return issubclass(group.field, Fq2Element)


def base_modulus(group: Group) -> int:
    return group.field.BASE.MODULUS if is_g2(group) else group.field.MODULUS


def _field_element(group: Group, tag: str, counter: int) -> Any:
    """An element of the group's coordinate field from SHA-256 (64 bytes per Fq element: the bias is negligible)."""
    q = base_modulus(group)

    def fq(i: int) -> int:
        seed = f"cuzk reliability/{group.name}/{tag}/{counter}/{i}".encode()
        return int.from_bytes(hashlib.sha512(seed).digest(), "big") % q

    return group.field(fq(0), fq(1)) if is_g2(group) else group.field(fq(0))


def hash_to_curve_uncleared(group: Group, tag: str) -> Point:
    """Try-and-increment hashing to E (no cofactor clearing): the first x = H(tag, k) with x³ + b a square.

    The point is uniform on E(F), so it lies in the order-r subgroup with probability 1/h only.
    """
    counter = 0
    while True:
        x = _field_element(group, tag, counter)
        rhs = group.rhs(x)
        if rhs.is_square():
            return group.point(x, rhs.sqrt())
        counter += 1


@functools.cache
def small_order_point(group: Group, prime: int) -> Point:
    """A point T ≠ O with [prime]T = O, prime a factor of the cofactor: [r·h/prime] of a hashed point."""
    assert group.cofactor % prime == 0
    for k in range(64):
        point = hash_to_curve_uncleared(group, f"torsion-{prime}-{k}").mul_unreduced(
            group.order * group.cofactor // prime
        )
        if not point.is_identity():
            assert point.mul_unreduced(prime).is_identity()
            return point
    raise AssertionError(f"no point of order {prime} found on {group.name}")


def x_coordinates(group: Group) -> Iterator[Any]:
    """x = 1, 2, 3, … (G1) or k + u (G2)."""
    k = 1
    while True:
        yield group.field(k, 1) if is_g2(group) else group.field(k)
        k += 1


@functools.cache
def x_off_curve(group: Group) -> Any:
    """An x with x³ + b not a square: no point of E has it."""
    return next(x for x in x_coordinates(group) if not group.rhs(x).is_square())


def off_curve_point(group: Group) -> Point:
    """(x, y) with y² ≠ x³ + b, as an unchecked point object."""
    x = x_off_curve(group)
    return group.point_unchecked(x, x + group.field.one())


# --- proof bytes -------------------------------------------------------------------------------------------------


def slots(curve: Curve) -> dict[str, tuple[Group, int, int]]:
    """A, B, C → (group, first byte, size) in the compressed proof A‖B‖C."""
    out: dict[str, tuple[Group, int, int]] = {}
    start = 0
    for name, group in (("A", curve.g1), ("B", curve.g2), ("C", curve.g1)):
        size = point_size(group, compressed=True)
        out[name] = (group, start, size)
        start += size
    return out


def replace_slot(curve: Curve, data: bytes, name: str, encoding: bytes) -> bytes:
    _, start, size = slots(curve)[name]
    assert len(encoding) == size
    return data[:start] + encoding + data[start + size :]


def with_x(curve: Curve, data: bytes, name: str, x_value: int, *, half: int = 0) -> bytes:
    """The proof with the x integer of point ``name`` (for G2: half 0 = x.c1, which carries the flags, half 1 =
    x.c0) replaced by ``x_value``, the flag bits kept."""
    group, start, size = slots(curve)[name]
    width = size // 2 if is_g2(group) else size
    offset = start + half * width
    field = bytearray(x_value.to_bytes(width, "big"))
    if half == 0:
        mask = (0xFF << (8 - FLAG_BITS[curve.name])) & 0xFF
        assert field[0] & mask == 0, "the value does not fit below the flag bits"
        field[0] |= data[offset] & mask
    return data[:offset] + bytes(field) + data[offset + width :]


def flip(data: bytes, bit: int) -> bytes:
    """``data`` with bit ``bit`` changed; bits are numbered from the most significant bit of byte 0 (flags first)."""
    out = bytearray(data)
    out[bit // 8] ^= 0x80 >> (bit % 8)
    return bytes(out)
