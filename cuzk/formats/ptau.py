"""The powers-of-tau file of snarkjs (.ptau, src/powersoftau_new.js and powersoftau_preparephase2.js), read through a
memory map: a section's points are decoded only when asked for, and only the prefix asked for.

    magic b"ptau", version 1
    section 1   header: n8q u32, q (n8q bytes), power u32, ceremonyPower u32
    section 2   tauG1:       [τ^i]₁ for i < 2^(power+1) − 1
    section 3   tauG2:       [τ^i]₂ for i < 2^power
    section 4   alphaTauG1:  [α·τ^i]₁ for i < 2^power
    section 5   betaTauG1:   [β·τ^i]₁ for i < 2^power
    section 6   betaG2:      [β]₂
    section 7   contributions: count u32, then per contribution [τ]₁ [τ]₂ [α]₁ [β]₁ [β]₂ of its secrets, its public
                key (6 G1 and 3 G2 points), a 216-byte partial hash, the next challenge (64 bytes), type u32
                (0, or 1 for a beacon), then a parameter block: length u32, entries 1 name (len u8, UTF-8),
                2 numIterationsExp (u8), 3 beacon hash (len u8, bytes)
    sections 12–15 (written by ``prepare phase2``): the Lagrange bases of sections 2–5 for every domain
                2^p, p = 0 … power (and power + 1 for section 12), one block after the other: the block of 2^k
                starts at point 2^k − 1 and holds [L_i(τ)]₁ (…₂, [α·L_i(τ)]₁, [β·L_i(τ)]₁), i < 2^k, in
                ffjavascript's order of the domain

Points are affine, coordinates in Montgomery form, all zeros for infinity (as a .zkey's: :mod:`cuzk.formats.points`).
The header's prime names the curve; every section's size is checked against ``power`` before anything is read.
Bulk points are checked on their curve when decoded (numpy, or a host backend with MONTGOMERY_FORM), the few
points of sections 4–6 and of the contributions also in their subgroup; a bad point is an InvalidPointError
naming the section and its offset.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from cuzk.backends.protocol import Backend
from cuzk.formats.binfile import BinFile, Cursor
from cuzk.formats.errors import CurveMismatchError, FormatError, InvalidPointError
from cuzk.formats.points import PointDecoder, PointTable, decode_table, point_bytes
from cuzk.formats.zkey import read_base_curve
from cuzk.reference.curves import Curve, Point

MAGIC = b"ptau"
VERSION = 1
SECTIONS = {
    1: "header",
    2: "tauG1",
    3: "tauG2",
    4: "alphaTauG1",
    5: "betaTauG1",
    6: "betaG2",
    7: "contributions",
    12: "Lagrange tauG1",
    13: "Lagrange tauG2",
    14: "Lagrange alphaTauG1",
    15: "Lagrange betaTauG1",
}
GROUPS = {2: "g1", 3: "g2", 4: "g1", 5: "g1", 6: "g2", 12: "g1", 13: "g2", 14: "g1", 15: "g1"}
LAGRANGE = (12, 13, 14, 15)
MAX_POWER = 30  # a file announcing more rows than this cannot be real (BN254's Fr has 2^28-th roots)
CONTRIBUTION_POINTS = (("g1", "[τ]₁"), ("g2", "[τ]₂"), ("g1", "[α]₁"), ("g1", "[β]₁"), ("g2", "[β]₂"))
PUBLIC_KEY_POINTS = tuple(("g1", f"public key G1 {i}") for i in range(6)) + tuple(
    ("g2", f"public key G2 {i}") for i in range(3)
)


def section_points(section_id: int, power: int) -> int:
    """The points snarkjs writes in a section of a ptau of 2^power."""
    return {
        2: (1 << (power + 1)) - 1,
        3: 1 << power,
        4: 1 << power,
        5: 1 << power,
        6: 1,
        12: (1 << (power + 2)) - 1,
        13: (1 << (power + 1)) - 1,
        14: (1 << (power + 1)) - 1,
        15: (1 << (power + 1)) - 1,
    }[section_id]


@dataclass(frozen=True)
class Contribution:
    """One contribution of section 7: its points as stored (checked by :meth:`Ptau.contribution_points`)."""

    index: int
    offset: int  # where it starts in the file
    points: np.ndarray  # uint8: the 5 points [τ]₁ [τ]₂ [α]₁ [β]₁ [β]₂ then the 9 of the public key, concatenated
    partial_hash: bytes
    next_challenge: bytes
    type: int  # 0 a contribution, 1 a beacon
    name: str | None
    num_iterations_exp: int | None
    beacon_hash: bytes | None


class Ptau:
    """A .ptau file: its header and contributions read, its point sections decoded on demand."""

    def __init__(self, path: str | os.PathLike[str], curve: Curve | None = None) -> None:
        self.file = file = BinFile(path, MAGIC, (VERSION,), SECTIONS)
        self.path = file.path
        header = file.cursor(1)
        self.curve = _read_curve(file, header, curve)
        self.power = header.u32("power")
        self.ceremony_power = header.u32("ceremonyPower")
        header.finish()
        if self.power > MAX_POWER:
            raise file.error(f"power = {self.power} is beyond any ceremony (at most {MAX_POWER})", header.section)
        for section_id in (2, 3, 4, 5, 6, *(LAGRANGE if self.prepared else ())):
            self._check_size(section_id)
        self.contributions = _read_contributions(file, self.curve)

    @property
    def prepared(self) -> bool:
        """Whether ``prepare phase2`` wrote the Lagrange sections 12–15 (a ``groth16 setup`` needs them)."""
        return self.file.has(12)

    def _check_size(self, section_id: int) -> None:
        section = self.file.section(section_id)
        count = section_points(section_id, self.power)
        expected = count * point_bytes(self.curve, GROUPS[section_id])
        if section.size != expected:
            raise self.file.error(
                f"the section has {section.size} bytes, but {count} points of a ptau of 2^{self.power} take {expected}",
                section,
                section.offset - 8,
            )

    def raw(self, section_id: int, start: int, count: int) -> np.ndarray:
        """Points start … start + count − 1 of a section as stored, a (count, point bytes) view of the map."""
        section = self.file.section(section_id)
        size = point_bytes(self.curve, GROUPS[section_id])
        if start < 0 or count < 0 or (start + count) * size > section.size:
            raise self.file.error(f"points {start} … {start + count - 1} are not in the section", section)
        begin = section.offset + start * size
        return self.file.data[begin : begin + count * size].reshape(count, size)

    def points(
        self, section_id: int, start: int, count: int, *, host: Backend | None = None, check: bool = True
    ) -> PointTable:
        """Points start … start + count − 1 of a section as canonical limbs, checked on the curve (``check``) on
        ``host`` (a backend with MONTGOMERY_FORM) or numpy; a bad point is an InvalidPointError at its offset."""
        group = GROUPS[section_id]
        raw = self.raw(section_id, start, count)
        array, bad = decode_table(PointDecoder(self.curve, group), raw, check=check, host=host)
        if bad is not None:
            raise self.point_error(section_id, start + bad.index, bad.problem)
        return PointTable(self.curve, group, array)

    def point_error(self, section_id: int, index: int, problem: str | None = None) -> FormatError:
        """The error of point ``index`` of a section, at its offset: ``problem``, or what the decoder finds wrong
        with it when None (a point a device's check rejected)."""
        if problem is None:
            problem = PointDecoder(self.curve, GROUPS[section_id]).problem(self.raw(section_id, index, 1))
        section = self.file.section(section_id)
        offset = section.offset + index * point_bytes(self.curve, GROUPS[section_id])
        return self.file.error(f"point {index}: {problem}", section, offset, InvalidPointError)

    def lagrange(self, section_id: int, log_n: int, *, host: Backend | None = None) -> PointTable:
        """The block of domain 2^log_n of a Lagrange section (12–15): its 2^log_n points."""
        top = self.power + 1 if section_id == 12 else self.power
        if section_id not in LAGRANGE or not self.prepared or not 0 <= log_n <= top:
            raise self.file.error(f"no Lagrange block of 2^{log_n} in section {section_id} (power {self.power})")
        return self.points(section_id, (1 << log_n) - 1, 1 << log_n, host=host)

    def point(self, section_id: int, index: int = 0) -> Point:
        """One point, checked on its curve and in its subgroup (sections 4–6: [α]₁, [β]₁, [β]₂)."""
        raw = self.raw(section_id, index, 1)
        points, bad = PointDecoder(self.curve, GROUPS[section_id]).decode_points(raw)
        if bad is not None:
            raise self.point_error(section_id, index, bad.problem)
        return points[0]

    def contribution_points(self, contribution: Contribution) -> list[Point]:
        """A contribution's 14 points, each checked on its curve and in its subgroup."""
        decoders = {group: PointDecoder(self.curve, group) for group in ("g1", "g2")}
        out, pos = [], 0
        for group, name in CONTRIBUTION_POINTS + PUBLIC_KEY_POINTS:
            size = point_bytes(self.curve, group)
            points, bad = decoders[group].decode_points(contribution.points[pos : pos + size].reshape(1, size))
            if bad is not None:
                section = self.file.section(7)
                problem = f"contribution {contribution.index}, {name}: {bad.problem}"
                raise self.file.error(problem, section, contribution.offset + pos, InvalidPointError)
            out.extend(points)
            pos += size
        return out


def read_ptau(path: str | os.PathLike[str], curve: Curve | None = None) -> Ptau:
    """Open and check a .ptau (header, section sizes, contributions); ``curve`` makes another curve an error."""
    return Ptau(path, curve)


def _read_curve(file: BinFile, header: Cursor, wanted: Curve | None) -> Curve:
    curve, start = read_base_curve(file, header, "ptau files")
    if wanted is not None and wanted is not curve:
        raise file.error(f"the ptau is for {curve.name}, not {wanted.name}", header.section, start, CurveMismatchError)
    return curve


def _read_contributions(file: BinFile, curve: Curve) -> list[Contribution]:
    cursor = file.cursor(7)
    count = cursor.u32("the number of contributions")
    points = sum(point_bytes(curve, group) for group, _ in CONTRIBUTION_POINTS + PUBLIC_KEY_POINTS)
    if count * (points + 216 + 64 + 8) > cursor.end - cursor.pos:
        raise file.error(f"{count} contributions do not fit in the section", cursor.section, cursor.section.offset)
    contributions = []
    for index in range(1, count + 1):
        start = cursor.pos
        stored = cursor.array(1, points, f"contribution {index}'s points")[0]
        partial_hash = cursor.array(1, 216, "the partial hash")[0].tobytes()
        next_challenge = cursor.array(1, 64, "the next challenge")[0].tobytes()
        kind = cursor.u32("the contribution type")
        params = _read_parameters(file, cursor, index)
        contributions.append(Contribution(index, start, stored, partial_hash, next_challenge, kind, *params))
    cursor.finish()
    return contributions


def _read_parameters(file: BinFile, cursor: Cursor, index: int) -> tuple[str | None, int | None, bytes | None]:
    """A contribution's parameter block (sorted entries: 1 name, 2 numIterationsExp, 3 beacon hash)."""
    length = cursor.u32("the parameters' length")
    end = cursor.pos + length
    if end > cursor.end:
        raise file.error(f"contribution {index}: {length} bytes of parameters overrun the section", cursor.section)
    name, exponent, beacon, last, at = None, None, None, 0, cursor.pos
    while cursor.pos < end:
        at = cursor.pos
        kind = cursor.integer(1, "a parameter's type")
        if kind <= last or kind > 3:
            problem = f"contribution {index}: parameter type {kind} (types are 1, 2, 3, sorted)"
            raise file.error(problem, cursor.section, at)
        last = kind
        if kind == 2:
            exponent = cursor.integer(1, "numIterationsExp")
            continue
        value = cursor.array(1, cursor.integer(1, "a parameter's length"), "a parameter")[0].tobytes()
        if kind == 1:
            name = value.decode("utf-8", errors="replace")
        else:
            beacon = value
    if cursor.pos != end:
        raise file.error(f"contribution {index}: the parameters overrun their length {length}", cursor.section, at)
    return name, exponent, beacon


__all__ = [
    "GROUPS",
    "LAGRANGE",
    "MAGIC",
    "SECTIONS",
    "Contribution",
    "Ptau",
    "read_ptau",
    "section_points",
]
