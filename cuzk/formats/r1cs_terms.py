"""Section 2 of a .r1cs file (:mod:`cuzk.formats.r1cs`), the constraints, read into one :class:`Terms` a matrix.

Each linear combination is its count of terms (u32) then the terms (wire u32, coefficient n8 bytes), so where a
combination starts follows from the one before: the section is walked once, a u32 read per combination, in a loop
over the mapped file's 32-bit words (checked afterwards in numpy; a section that is not as announced is walked again
one checked step at a time, which names the first bad combination). The terms are then gathered from the mapped
file by numpy, a row of words per term, 2^16 terms at a time, so the scratch stays a few MB and the reader's peak is
the mapped section plus its result.
"""

from __future__ import annotations

import struct
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.formats.binfile import BinFile, Section
from cuzk.formats.errors import FormatError, ValueOutOfRangeError

MATRICES = ("A", "B", "C")
GATHER_CHUNK = 1 << 16  # terms gathered at a time: their indices take 0.5 MB


@dataclass(frozen=True)
class Terms:
    """One matrix of the R1CS as coordinates: term t is coefficients[t] at (rows[t], wires[t])."""

    rows: np.ndarray  # int64 (T,)
    wires: np.ndarray  # int64 (T,)
    coefficients: np.ndarray  # uint64 (T, n8/8), canonical

    def entries(self) -> Iterator[tuple[int, int, int]]:
        """(row, wire, coefficient) of every term, as Python integers."""
        return zip(self.rows.tolist(), self.wires.tolist(), limbs.limbs_to_ints(self.coefficients), strict=True)

    def row_sums(self, z: list[int], num_rows: int, prime: int) -> list[int]:
        """⟨row, z⟩ mod prime for every row."""
        acc = [0] * num_rows
        for row, wire, coeff in self.entries():
            acc[row] += coeff * z[wire]
        return [v % prime for v in acc]

    def matrix(self, field: Any, num_rows: int) -> list[list[tuple[int, Any]]]:
        """The sparse rows of the reference's :class:`~cuzk.reference.r1cs.Matrices` (column, coefficient); ``field``
        makes each coefficient (a field's elements, or ``int`` for the integers themselves)."""
        rows: list[list[tuple[int, Any]]] = [[] for _ in range(num_rows)]
        for row, wire, coeff in self.entries():
            rows[row].append((wire, field(coeff)))
        return rows


def read_constraints(file: BinFile, n8: int, prime: int, m: int, num_wires: int) -> tuple[Terms, Terms, Terms]:
    section = file.section(2)
    data = file.data[section.offset : section.offset + section.size]  # the mapped bytes: nothing copied
    starts, counts = _combination_starts(file, section, data, n8, m)
    return tuple(  # type: ignore[return-value]
        _gather(file, section, data, n8, prime, m, num_wires, k, starts[k], counts[k]) for k in range(3)
    )


def _combination_starts(
    file: BinFile, section: Section, data: np.ndarray, n8: int, m: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Where each of the 3·m linear combinations' terms start, and how many each has (int64 arrays per matrix):
    by :func:`_walk`, or where the section is not as announced, :func:`_combination_starts_checked`'s error."""
    walked = _walk(data, n8, m)
    if walked is not None:
        return walked
    return _combination_starts_checked(file, section, data, n8, m)


def _walk(data: np.ndarray, n8: int, m: int) -> tuple[list[np.ndarray], list[np.ndarray]] | None:
    """The 3·m combinations' (starts, counts) per matrix, each place following from the one before (a loop over
    the section's 32-bit words, nothing checked on the way); None where the section is not as announced (a count
    running past the end, bytes left over) or cannot be walked so (an odd field size, a big-endian host)."""
    term_bytes, size = 4 + n8, len(data)
    if term_bytes % 4 or sys.byteorder != "little":
        return None
    aligned = np.ascontiguousarray(data[: size - size % 4])
    words = memoryview(aligned).cast("I")  # a view of the mapped bytes (little-endian words)
    positions = array("q", bytes(8 * 3 * m))
    pos = 0
    try:
        for j in range(3 * m):
            positions[j] = pos
            pos += 4 + words[pos >> 2] * term_bytes
    except IndexError:  # a combination past the end
        return None
    if pos != size:
        return None
    at = np.frombuffer(positions, np.int64)
    counts = aligned.view("<u4")[at >> 2].astype(np.int64)
    return [at[k::3] + 4 for k in range(3)], [counts[k::3] for k in range(3)]


def _combination_starts_checked(
    file: BinFile, section: Section, data: np.ndarray, n8: int, m: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """:func:`_combination_starts` one combination at a time, each checked before the next: the oracle, and the
    error that names the first bad one."""
    term_bytes = 4 + n8
    starts = [array("q") for _ in range(3)]
    counts = [array("q") for _ in range(3)]
    pos, size = 0, len(data)
    for i in range(m):
        for k in range(3):
            if pos + 4 > size:
                raise file.error(
                    f"constraint {i} ({MATRICES[k]}) runs past the end of the section",
                    section,
                    section.offset + pos,
                    FormatError,
                )
            (count,) = struct.unpack_from("<I", data, pos)
            if pos + 4 + count * term_bytes > size:
                raise file.error(
                    f"constraint {i} ({MATRICES[k]}) announces {count} terms, more than the section holds",
                    section,
                    section.offset + pos,
                )
            starts[k].append(pos + 4)
            counts[k].append(count)
            pos += 4 + count * term_bytes
    if pos != size:
        raise file.error(
            f"{size - pos} bytes are left after the {m} constraints the header announces", section, section.offset + pos
        )
    return [np.frombuffer(a, dtype=np.int64) for a in starts], [np.frombuffer(a, dtype=np.int64) for a in counts]


def _gather(
    file: BinFile,
    section: Section,
    data: np.ndarray,
    n8: int,
    prime: int,
    m: int,
    num_wires: int,
    k: int,
    starts: np.ndarray,
    count: np.ndarray,
) -> Terms:
    """The terms of matrix k, gathered a chunk at a time (the byte indices of a chunk are its only scratch)."""
    term_bytes, total = 4 + n8, int(count.sum())
    first = np.repeat(np.cumsum(count) - count, count)  # index of each term's first sibling
    offsets = np.repeat(starts, count) + (np.arange(total) - first) * term_bytes
    del first
    wires = np.empty(total, np.int64)
    coefficients = np.empty((total, n8 // 8), np.uint64)
    fetch = _records(data, term_bytes)
    for lo in range(0, total, GATHER_CHUNK):
        hi = min(total, lo + GATHER_CHUNK)
        records = fetch(offsets[lo:hi])
        wires[lo:hi] = np.ascontiguousarray(records[:, :4]).view("<u4").reshape(hi - lo)
        coefficients[lo:hi] = np.ascontiguousarray(records[:, 4:]).view("<u8").reshape(hi - lo, n8 // 8)
    if total and int(wires.max()) >= num_wires:
        t = int(np.argmax(wires >= num_wires))
        raise file.error(
            f"a term of {MATRICES[k]} refers to wire {int(wires[t])}, but the circuit has {num_wires} wires",
            section,
            section.offset + int(offsets[t]),
        )
    bad = limbs.first_noncanonical(coefficients, prime)
    if bad is not None:
        raise file.error(
            f"a coefficient of {MATRICES[k]} is not reduced modulo the prime",
            section,
            section.offset + int(offsets[bad[0]]) + 4,
            ValueOutOfRangeError,
        )
    return Terms(np.repeat(np.arange(m, dtype=np.int64), count), wires, coefficients)


def _records(data: np.ndarray, term_bytes: int) -> Any:
    """A function from term offsets in ``data`` to their records, (k, term_bytes) uint8: a row of 32-bit words per
    term, from a strided view of the mapped words (an index a term), where the records are whole words (the walk's
    offsets are); else by bytes (an index a byte)."""
    size = len(data)
    if term_bytes % 4 or sys.byteorder != "little":
        return lambda offsets: data[offsets[:, None] + np.arange(term_bytes)]
    words = np.ascontiguousarray(data[: size - size % 4]).view("<u4")
    per_term = term_bytes // 4
    rows = np.lib.stride_tricks.as_strided(
        words, shape=(max(0, len(words) - per_term + 1), per_term), strides=(4, 4), writeable=False
    )

    def fetch(offsets: np.ndarray) -> np.ndarray:
        if len(offsets) and (offsets % 4).any():  # not whole words: by bytes
            return data[offsets[:, None] + np.arange(term_bytes)]
        return rows[offsets >> 2].view(np.uint8)

    return fetch


__all__ = ["GATHER_CHUNK", "MATRICES", "Terms", "read_constraints"]
