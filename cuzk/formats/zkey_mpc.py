"""Section 10 of a .zkey: the phase-2 ceremony's record (snarkjs's src/zkey_utils.js, readMPCParams /
writeMPCParams).

    csHash          64 bytes: blake2b-512 of the key as ``groth16 setup`` made it (:mod:`cuzk.engine.setup_hash`)
    n               u32: the contributions, then n times:
      deltaAfter    G1   [δ]₁ after this contribution
      g1_s, g1_sx   G1   the proof of knowledge of the contribution's secret x: [s]₁ and [s·x]₁ …
      g2_spx        G2   … and [s·x]₂ = x·hashToG2(transcript) (the [s]₂ it multiplies is recomputed, not stored)
      transcript    64 bytes: blake2b-512(csHash ‖ the previous contributions ‖ g1_s ‖ g1_sx)
      type          u32: 0 a contribution, 1 a beacon
      paramsLength  u32, then the parameters, ids rising: 1 name (u8 length, UTF-8, ≤ 64 characters),
                    2 numIterationsExp (u8), 3 beaconHash (u8 length, bytes); a beacon has 2 and 3

Points as in every section: affine, coordinates in Montgomery form (:class:`~cuzk.formats.points.PointDecoder`).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace

from cuzk.backends import limbs
from cuzk.formats.binfile import BinFile, Cursor
from cuzk.formats.errors import InvalidPointError
from cuzk.formats.points import PointDecoder, point_bytes
from cuzk.reference.curves import Curve, Point

HASH_BYTES = 64
MPC_SECTION = 10
CONTRIBUTION, BEACON = 0, 1
PARAM_NAME, PARAM_ITERATIONS, PARAM_BEACON_HASH = 1, 2, 3
NAME_CHARACTERS = 64


@dataclass(frozen=True)
class Contribution:
    """One phase-2 contribution's public record."""

    delta_after: Point
    g1_s: Point
    g1_sx: Point
    g2_spx: Point
    transcript: bytes
    type: int = CONTRIBUTION
    name: str | None = None
    num_iterations_exp: int | None = None
    beacon_hash: bytes | None = None


@dataclass(frozen=True)
class MpcParams:
    """The circuit hash and the contributions so far."""

    cs_hash: bytes
    contributions: tuple[Contribution, ...] = ()

    def extended(self, contribution: Contribution) -> MpcParams:
        return replace(self, contributions=(*self.contributions, contribution))


def read_mpc_params(file: BinFile, curve: Curve) -> MpcParams:
    """Section 10 of an open .zkey; FormatError (truncated, unknown or unsorted parameters) or InvalidPointError
    (a point off its curve or outside its subgroup) naming the offset."""
    cursor = file.cursor(MPC_SECTION)
    cs_hash = _bytes(cursor, HASH_BYTES, "the circuit hash")
    count = cursor.u32("the number of contributions")
    contributions = tuple(_read_contribution(file, cursor, curve, i) for i in range(count))
    cursor.finish()
    return MpcParams(cs_hash, contributions)


def _bytes(cursor: Cursor, count: int, what: str) -> bytes:
    return cursor.array(1, count, what).tobytes()


def _point(file: BinFile, cursor: Cursor, decoder: PointDecoder, what: str) -> Point:
    at = cursor.pos
    points, bad = decoder.decode_points(cursor.array(1, point_bytes(decoder.curve, decoder.group), what))
    if bad is not None:
        raise file.error(f"{what}: {bad.problem}", cursor.section, at, InvalidPointError)
    return points[0]


def _read_contribution(file: BinFile, cursor: Cursor, curve: Curve, index: int) -> Contribution:
    g1, g2 = PointDecoder(curve, "g1"), PointDecoder(curve, "g2")
    label = f"contribution {index + 1}"
    delta_after = _point(file, cursor, g1, f"{label}: deltaAfter")
    g1_s = _point(file, cursor, g1, f"{label}: g1_s")
    g1_sx = _point(file, cursor, g1, f"{label}: g1_sx")
    g2_spx = _point(file, cursor, g2, f"{label}: g2_spx")
    transcript = _bytes(cursor, HASH_BYTES, f"{label}: the transcript")
    kind = cursor.u32(f"{label}: the type")
    length = cursor.u32(f"{label}: the parameters' length")
    start = cursor.pos
    raw = _bytes(cursor, length, f"{label}: the parameters")
    params: dict[int, bytes] = {}
    pos, last = 0, 0
    while pos < length:
        param = raw[pos]
        if param <= last or param > PARAM_BEACON_HASH:
            problem = "unknown parameter" if param > PARAM_BEACON_HASH else "parameters out of order"
            raise file.error(f"{label}: {problem} {param}", cursor.section, start + pos)
        size = 1 if param == PARAM_ITERATIONS else (raw[pos + 1] if pos + 1 < length else 0) + 1
        value = raw[pos + 1 : pos + 1 + size]
        if len(value) != size:
            raise file.error(f"{label}: parameter {param} runs past the parameters' end", cursor.section, start + pos)
        params[param], pos, last = value if param == PARAM_ITERATIONS else value[1:], pos + 1 + size, param
    name = params.get(PARAM_NAME)
    iterations = params.get(PARAM_ITERATIONS)
    return Contribution(
        delta_after,
        g1_s,
        g1_sx,
        g2_spx,
        transcript,
        kind,
        name.decode("utf-8", errors="replace") if name is not None else None,
        iterations[0] if iterations is not None else None,
        params.get(PARAM_BEACON_HASH),
    )


def encode_contribution(curve: Curve, c: Contribution) -> bytes:
    """One contribution as writeContribution writes it."""
    g1, g2 = PointDecoder(curve, "g1"), PointDecoder(curve, "g2")

    def encoded(decoder: PointDecoder, point: Point) -> bytes:
        return decoder.encode(limbs.points_to_limbs(curve, decoder.group, [point])).tobytes()

    params = b""
    if c.name:
        name = c.name[:NAME_CHARACTERS].encode()
        if len(name) > 255:
            raise ValueError(f"the name {c.name!r} takes {len(name)} bytes in UTF-8; snarkjs stores at most 255")
        params += bytes([PARAM_NAME, len(name)]) + name
    if c.type == BEACON:
        if c.num_iterations_exp is None or c.beacon_hash is None:
            raise ValueError("a beacon contribution needs its numIterationsExp and beaconHash")
        params += bytes([PARAM_ITERATIONS, c.num_iterations_exp, PARAM_BEACON_HASH, len(c.beacon_hash)])
        params += c.beacon_hash
    return b"".join(
        [
            encoded(g1, c.delta_after),
            encoded(g1, c.g1_s),
            encoded(g1, c.g1_sx),
            encoded(g2, c.g2_spx),
            c.transcript,
            struct.pack("<II", c.type, len(params)),
            params,
        ]
    )


def encode_mpc_params(curve: Curve, mpc: MpcParams) -> bytes:
    """Section 10's content, as writeMPCParams writes it."""
    if len(mpc.cs_hash) != HASH_BYTES:
        raise ValueError(f"the circuit hash has {HASH_BYTES} bytes, not {len(mpc.cs_hash)}")
    body = b"".join(encode_contribution(curve, c) for c in mpc.contributions)
    return mpc.cs_hash + struct.pack("<I", len(mpc.contributions)) + body


__all__ = [
    "BEACON",
    "CONTRIBUTION",
    "HASH_BYTES",
    "MPC_SECTION",
    "Contribution",
    "MpcParams",
    "encode_contribution",
    "encode_mpc_params",
    "read_mpc_params",
]
