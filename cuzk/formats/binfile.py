"""The iden3 binary container shared by .r1cs, .wtns, .zkey and .ptau (iden3/binfileutils):

    magic      4 bytes     b"r1cs", b"wtns", b"zkey", …
    version    u32
    n          u32         number of sections
    n times:   id u32, size u64, then ``size`` bytes of content

All integers little-endian. Sections may come in any order; a reader looks them up by id. The file is opened as a
read-only numpy memmap: sections are views into it, nothing is copied until converted. Every length the file
states is checked against the file's real size before anything is read or allocated, so a truncated file or a
lying length gives a :class:`~cuzk.formats.errors.FormatError` naming the file, the section and the offset.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from cuzk.formats.errors import FormatError, TruncatedFileError

HEADER_BYTES = 12
SECTION_HEADER_BYTES = 12


@dataclass(frozen=True)
class Section:
    """One section: its id, where its content starts in the file and how many bytes it has."""

    id: int
    offset: int
    size: int
    name: str

    @property
    def label(self) -> str:
        return f"section {self.id} ({self.name})" if self.name else f"section {self.id}"


class BinFile:
    """An iden3 binary file, memory-mapped read-only, with its section table parsed and checked."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        magic: bytes,
        versions: tuple[int, ...],
        section_names: dict[int, str] | None = None,
        content: bytes | None = None,
    ) -> None:
        """``content``: the file's bytes, already in memory (a request's body), read in place of the file ``path``,
        which then only names them in messages."""
        self.path = os.fspath(path)
        self.kind = magic.decode()
        self.section_names = section_names or {}
        if content is not None:
            data, size = np.frombuffer(content, dtype=np.uint8), len(content)
        else:
            data, size = self._map()
        self.data: np.ndarray = data
        # the mapping's length, not os.stat's: a file shortened in between must not make reads run past the end
        self.size = size = len(data) if size >= HEADER_BYTES else size
        if size < HEADER_BYTES:
            raise TruncatedFileError(
                self.path,
                f"the file has {size} bytes; a .{self.kind} file starts with a {HEADER_BYTES}-byte header "
                "(magic, version, number of sections)",
            )
        found = bytes(self.data[:4])
        if found != magic:
            raise FormatError(
                self.path, f"not a .{self.kind} file: the magic bytes are {found!r}, expected {magic!r}", offset=0
            )
        self.version, count = struct.unpack_from("<II", self.data, 4)
        if self.version not in versions:
            raise FormatError(
                self.path,
                f"version {self.version} of the .{self.kind} format is not supported (supported: "
                f"{', '.join(map(str, versions))})",
                offset=4,
            )
        self.sections: dict[int, list[Section]] = {}
        pos = HEADER_BYTES
        for i in range(count):
            if pos + SECTION_HEADER_BYTES > size:
                raise TruncatedFileError(
                    self.path,
                    f"the header announces {count} sections but the file ends ({size} bytes) inside section header {i}",
                    offset=pos,
                )
            section_id, length = struct.unpack_from("<IQ", self.data, pos)
            section = Section(section_id, pos + SECTION_HEADER_BYTES, length, self.section_names.get(section_id, ""))
            if section.offset + length > size:
                raise TruncatedFileError(
                    self.path,
                    f"the section announces {length} bytes but only {size - section.offset} remain in the file",
                    section=section.label,
                    offset=pos,
                )
            self.sections.setdefault(section_id, []).append(section)
            pos = section.offset + length

    def _map(self) -> tuple[np.ndarray, int]:
        try:
            size = os.stat(self.path).st_size
            # mmap refuses an empty file: only a file that can hold the header is mapped
            data = np.memmap(self.path, dtype=np.uint8, mode="r") if size >= HEADER_BYTES else np.zeros(0, np.uint8)
        except (OSError, ValueError) as exc:  # missing, a directory, not readable; emptied since os.stat
            reason = exc.strerror if isinstance(exc, OSError) else "it was emptied while being opened"
            raise FormatError(self.path, f"cannot open the {self.kind} file: {reason}") from None
        return data, size

    def section(self, section_id: int) -> Section:
        """The one section with this id (missing or duplicated: FormatError)."""
        found = self.sections.get(section_id, [])
        label = Section(section_id, 0, 0, self.section_names.get(section_id, "")).label
        if not found:
            raise FormatError(self.path, f"{label} is missing")
        if len(found) > 1:
            raise FormatError(self.path, f"{label} appears {len(found)} times")
        return found[0]

    def has(self, section_id: int) -> bool:
        return section_id in self.sections

    def cursor(self, section_id: int) -> Cursor:
        """A reader over one section's content, checking that every read stays inside it."""
        return Cursor(self, self.section(section_id))

    def error(
        self,
        problem: str,
        section: Section | None = None,
        offset: int | None = None,
        cls: type[FormatError] = FormatError,
    ) -> FormatError:
        return cls(self.path, problem, section=section.label if section else None, offset=offset)


class Cursor:
    """Sequential reads inside one section (as binfileutils' startReadUniqueSection … endReadSection)."""

    def __init__(self, file: BinFile, section: Section) -> None:
        self.file, self.section = file, section
        self.pos, self.end = section.offset, section.offset + section.size

    def _need(self, nbytes: int, what: str) -> int:
        if nbytes < 0 or self.pos + nbytes > self.end:
            raise self.file.error(
                f"{what} needs {nbytes} bytes but the section has only {self.end - self.pos} left "
                f"(section size {self.section.size})",
                self.section,
                self.pos,
                TruncatedFileError,
            )
        start = self.pos
        self.pos += nbytes
        return start

    def u32(self, what: str) -> int:
        return int(struct.unpack_from("<I", self.file.data, self._need(4, what))[0])

    def u64(self, what: str) -> int:
        return int(struct.unpack_from("<Q", self.file.data, self._need(8, what))[0])

    def integer(self, nbytes: int, what: str) -> int:
        """An unsigned little-endian integer of ``nbytes`` bytes."""
        start = self._need(nbytes, what)
        return int.from_bytes(bytes(self.file.data[start : start + nbytes]), "little")

    def array(self, count: int, item_bytes: int, what: str) -> np.ndarray:
        """A (count, item_bytes) uint8 view of the next count·item_bytes bytes (checked before anything is made)."""
        start = self._need(count * item_bytes, f"{what} ({count} × {item_bytes} bytes)")
        return self.file.data[start : start + count * item_bytes].reshape(count, item_bytes)

    def rest(self) -> np.ndarray:
        """The section's remaining bytes, as a view."""
        start = self._need(self.end - self.pos, "the rest")
        return self.file.data[start : self.end]

    def finish(self) -> None:
        """The section must be consumed exactly (binfileutils' endReadSection)."""
        if self.pos != self.end:
            raise self.file.error(
                f"{self.end - self.pos} unexpected bytes at the end of the section (size {self.section.size})",
                self.section,
                self.pos,
            )


def write_binfile(
    path: str | os.PathLike[str], magic: bytes, version: int, sections: Iterable[tuple[int, bytes | np.ndarray]]
) -> None:
    """Write an iden3 binary file: the header, then each (id, content) section in the given order; atomically (a
    temporary beside ``path``, renamed when whole: :func:`cuzk.formats.outputs.atomic_outputs`)."""
    from cuzk.formats.outputs import atomic_outputs

    sections = list(sections)
    with atomic_outputs([path]) as (temporary,), open(temporary, "wb") as out:
        out.write(magic + struct.pack("<II", version, len(sections)))
        for section_id, content in sections:
            # an array is written from its own memory (a witness of 2^27 values is 4.3 GB: no copy of it)
            data = memoryview(np.ascontiguousarray(content)).cast("B") if isinstance(content, np.ndarray) else content
            out.write(struct.pack("<IQ", section_id, len(data)))
            out.write(data)


__all__ = ["BinFile", "Cursor", "Section", "write_binfile"]
