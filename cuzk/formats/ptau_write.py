"""Writing a .ptau as ``snarkjs powersoftau prepare phase2`` does (src/powersoftau_preparephase2.js): the layout of
:mod:`cuzk.formats.ptau`, streamed section by section into an open file.

snarkjs's writer (iden3/binfileutils) starts the file with magic, version 1 and the number of sections it will
write (11: sections 1–7 and 12–15), rewrites the header (``writePTauHeader``: n8q, q, power, and power again as
the ceremony power), copies sections 2–7 as they are, in that order, and appends the Lagrange sections 12–15. A
section is its id (u32), its size in bytes (u64) and its content; sizes are known before the content here, so
nothing is patched afterwards.
"""

from __future__ import annotations

import struct
from typing import BinaryIO

import numpy as np

from cuzk.formats.points import PointDecoder, field_bytes
from cuzk.formats.ptau import MAGIC, VERSION, Ptau
from cuzk.reference.curves import Curve

PREPARED_SECTIONS = 11  # 1–7 and 12–15
COPIED = (2, 3, 4, 5, 6, 7)


def header_content(curve: Curve, power: int) -> bytes:
    """Section 1 as ``writePTauHeader`` writes it: n8q u32, q (n8q bytes, little-endian), power u32, and the
    ceremony power, which snarkjs sets to ``power`` (whatever the input file said)."""
    n8q = field_bytes(curve.q)
    return struct.pack("<I", n8q) + curve.q.to_bytes(n8q, "little") + struct.pack("<II", power, power)


def write_file_header(out: BinaryIO, sections: int = PREPARED_SECTIONS) -> None:
    """magic, version and the number of sections."""
    out.write(MAGIC + struct.pack("<II", VERSION, sections))


def write_section_header(out: BinaryIO, section_id: int, size: int) -> None:
    out.write(struct.pack("<IQ", section_id, size))


def write_section(out: BinaryIO, section_id: int, content: bytes | memoryview) -> None:
    write_section_header(out, section_id, len(content))
    out.write(content)


def copy_sections(out: BinaryIO, ptau: Ptau, section_ids: tuple[int, ...] = COPIED) -> None:
    """Sections of ``ptau`` copied byte for byte, in the given order (straight from its memory map)."""
    for section_id in section_ids:
        section = ptau.file.section(section_id)
        write_section(out, section_id, memoryview(ptau.file.data[section.offset : section.offset + section.size]))


def write_points(out: BinaryIO, curve: Curve, group: str, points: np.ndarray) -> None:
    """Canonical affine limbs (n, 2, L) / (n, 2, 2, L) as the file stores them (Montgomery form, zeros for
    infinity)."""
    out.write(PointDecoder(curve, group).encode(points).tobytes())


__all__ = [
    "COPIED",
    "PREPARED_SECTIONS",
    "copy_sections",
    "header_content",
    "write_file_header",
    "write_points",
    "write_section",
    "write_section_header",
]
