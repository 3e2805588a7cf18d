"""The .wtns witness file of circom/snarkjs (snarkjs src/wtns_utils.js): the full assignment z of a circuit.

    magic b"wtns", version 2 (1 is read too: same layout)
    section 1 (header)    n8 u32, prime (n8 bytes LE: the scalar field r), count u32
    section 2 (witness)   count × n8 bytes: z_0 = 1, the public signals (outputs, then public inputs), the rest

Values are canonical little-endian integers (not Montgomery form), each checked to be < prime.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.formats.binfile import BinFile, Cursor, write_binfile
from cuzk.formats.errors import FormatError, ValueOutOfRangeError

MAGIC = b"wtns"
VERSION = 2
SECTIONS = {1: "header", 2: "witness"}


@dataclass(frozen=True)
class Witness:
    """A witness read from a file: its prime and its values as (count, n8/8) uint64 canonical limbs."""

    path: str
    prime: int
    values: np.ndarray

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def ints(self) -> list[int]:
        return limbs.limbs_to_ints(self.values)

    def field_elements(self, field: Any) -> list[Any]:
        """The values as elements of ``field`` (whose modulus must be the witness's prime)."""
        if self.prime != field.MODULUS:
            raise FormatError(self.path, f"the witness is over the prime {self.prime}, not over {field.NAME}")
        return [field(v) for v in self.ints()]


def field_name(prime: int) -> str:
    """How messages name a prime: the curve whose scalar field it is, when it is one."""
    from cuzk.reference.curves import CURVES

    for curve in CURVES.values():
        if curve.r == prime:
            return f"the scalar field of {curve.name} (r = {prime})"
    return f"the prime {prime}"


def read_field(file: BinFile, header: Cursor) -> tuple[int, int]:
    """n8 and the prime, as the headers of .wtns and .r1cs start: n8 u32, then the prime in n8 bytes.

    n8 must be the prime's width in whole 64-bit words (what circom and snarkjs write): every value of the file is
    read as n8/8 limbs, and any other width would hand the engine limbs of the wrong shape.
    """
    start = header.pos
    n8 = header.u32("the field size n8")
    if n8 == 0 or n8 % 8 or n8 > 64:
        raise file.error(
            f"the field size n8 = {n8} is not a positive multiple of 8 (at most 64)", header.section, start
        )
    prime = header.integer(n8, "the prime")
    if prime < 3 or prime % 2 == 0:
        raise file.error(f"the prime {prime} is not an odd prime", header.section, start + 4)
    if n8 != 8 * limbs.limb_count(prime):
        raise file.error(
            f"the field size n8 = {n8} does not match the prime {prime}, whose elements take "
            f"{8 * limbs.limb_count(prime)} bytes",
            header.section,
            start,
        )
    return n8, prime


def read_header(file: BinFile) -> tuple[int, int, int]:
    """(n8, prime, count) from section 1."""
    header = file.cursor(1)
    n8, prime = read_field(file, header)
    count = header.u32("the number of witness values")
    header.finish()
    return n8, prime, count


def check_wtns_layout(path: str | os.PathLike[str], content: bytes | None = None) -> tuple[int, int]:
    """The checks of read_wtns that need no values: the header, the sections' table and the witness section's
    size (cheap: the file is mapped, not read; ``content``: its bytes, already in memory); the witness's prime
    and number of values."""
    file = BinFile(path, MAGIC, (1, 2), SECTIONS, content=content)
    n8, prime, count = read_header(file)
    body = file.cursor(2)
    body.array(count, n8, "the witness values")
    body.finish()
    return prime, count


def read_wtns(
    path: str | os.PathLike[str],
    content: bytes | bytearray | memoryview | None = None,
    *,
    empty: Callable[..., np.ndarray] = np.empty,
    in_place: bool = False,
) -> Witness:
    """Read and check a .wtns file (``content``: its bytes, already in memory; ``path`` then names them). The values
    are copied once, into ``empty(shape, dtype)``: e.g. a device backend's ``host_array``, which its upload reads
    at the bus's speed. With ``in_place`` and ``content`` already in such memory (writable), the values are read
    where they lie (no copy) when they start on an 8-byte boundary, else copied as without."""
    file = BinFile(path, MAGIC, (1, 2), SECTIONS, content=content)
    n8, prime, count = read_header(file)
    body = file.cursor(2)
    raw = body.array(count, n8, "the witness values")
    body.finish()
    if in_place and content is not None and raw.flags.c_contiguous and raw.flags.writeable and raw.ctypes.data % 8 == 0:
        values = raw.view("<u8").reshape(count, n8 // 8)
    else:
        values = empty((count, n8 // 8), np.uint64)
        values[...] = np.ascontiguousarray(raw).view("<u8").reshape(count, n8 // 8)
    bad = limbs.first_noncanonical(values, prime)
    if bad is not None:
        raise file.error(
            f"witness value {bad[0]} is not reduced: it is ≥ the prime {prime}",
            body.section,
            body.section.offset + bad[0] * n8,
            ValueOutOfRangeError,
        )
    if count and limbs.limbs_to_int(values[0]) != 1:
        raise file.error("witness value 0 must be the constant 1", body.section, body.section.offset)
    return Witness(os.fspath(path), prime, values)


def write_wtns(path: str | os.PathLike[str], prime: int, values: Sequence[int] | np.ndarray) -> None:
    """Write a .wtns file (version 2) holding ``values``: ints (each reduced modulo ``prime``), or an (n, n8/8)
    uint64 array of canonical limbs, written from its own memory (ValueError for a value ≥ prime)."""
    n8 = 8 * limbs.limb_count(prime)
    header = n8.to_bytes(4, "little") + prime.to_bytes(n8, "little") + len(values).to_bytes(4, "little")
    if isinstance(values, np.ndarray):
        body: bytes | np.ndarray = limbs.check_limb_array(
            values, name="values", inner=(), modulus=prime, what=f"a value mod {prime}", modulus_name="the prime"
        )
    else:
        body = b"".join((v % prime).to_bytes(n8, "little") for v in values)
    write_binfile(path, MAGIC, VERSION, [(1, header), (2, body)])


__all__ = [
    "MAGIC",
    "Witness",
    "check_wtns_layout",
    "field_name",
    "read_field",
    "read_header",
    "read_wtns",
    "write_wtns",
]
