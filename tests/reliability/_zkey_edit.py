"""Editing the bytes of a committed .zkey, as a careless copy or an attacker would: the sections by id, the header's
points by name, a coefficient record or a point of a bulk section by index (layout: cuzk/formats/zkey.py)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from cuzk.formats.binfile import BinFile, write_binfile
from cuzk.formats.zkey import MAGIC, SECTIONS, VERSION

HEADER_POINTS = ("alpha1", "beta1", "beta2", "gamma2", "delta1", "delta2")


@dataclass
class ZkeyBytes:
    """A .zkey as its sections' contents (bytearrays, in file order), editable and written back with :meth:`save`."""

    sections: dict[int, bytearray]
    n8q: int

    @classmethod
    def load(cls, path: Path) -> ZkeyBytes:
        file = BinFile(path, MAGIC, (VERSION,), SECTIONS)
        contents = {}
        for section_id, (section,) in file.sections.items():
            contents[section_id] = bytearray(file.data[section.offset : section.offset + section.size].tobytes())
        return cls(contents, struct.unpack_from("<I", contents[2], 0)[0])

    def save(self, path: Path) -> Path:
        write_binfile(path, MAGIC, VERSION, ((i, bytes(c)) for i, c in self.sections.items()))
        return path

    # --- the header ---------------------------------------------------------------------------------------------

    @property
    def counts_at(self) -> int:
        """Where nVars, nPublic, domainSize start in section 2."""
        return 4 + self.n8q + 4 + 32

    def count(self, index: int) -> int:
        return int(struct.unpack_from("<I", self.sections[2], self.counts_at + 4 * index)[0])

    def set_count(self, index: int, value: int) -> None:
        """0 = nVars, 1 = nPublic, 2 = domainSize."""
        struct.pack_into("<I", self.sections[2], self.counts_at + 4 * index, value)

    def header_point(self, name: str) -> slice:
        """The bytes of one header point (alpha1, beta1, beta2, gamma2, delta1, delta2) in section 2."""
        sizes = [2 * self.n8q if n.endswith("1") else 4 * self.n8q for n in HEADER_POINTS]
        start = self.counts_at + 12 + sum(sizes[: HEADER_POINTS.index(name)])
        return slice(start, start + sizes[HEADER_POINTS.index(name)])

    # --- coefficients and points ----------------------------------------------------------------------------------

    def coefficient(self, i: int) -> tuple[int, int, int]:
        """(matrix, constraint, signal) of coefficient i."""
        return struct.unpack_from("<III", self.sections[4], 4 + i * 44)  # type: ignore[return-value]

    def coefficient_value(self, i: int) -> slice:
        """The 32 stored bytes (c·R² mod r) of coefficient i in section 4."""
        start = 4 + i * 44 + 12
        return slice(start, start + 32)

    @property
    def coefficient_count(self) -> int:
        return int(struct.unpack_from("<I", self.sections[4], 0)[0])

    def point(self, section_id: int, i: int) -> slice:
        """The bytes of point i of a point section (3, 5–9)."""
        size = (4 if section_id == 7 else 2) * self.n8q
        return slice(i * size, (i + 1) * size)

    def zero(self, section_id: int, where: slice) -> None:
        self.sections[section_id][where] = bytes(where.stop - where.start)

    def copy(self, section_id: int, source: slice, target: slice) -> None:
        self.sections[section_id][target] = self.sections[section_id][source]

    def swap(self, section_id: int, a: slice, b: slice) -> None:
        content = self.sections[section_id]
        content[a], content[b] = content[b], content[a]
