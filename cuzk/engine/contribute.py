"""``cuzk zkey contribute`` and ``cuzk zkey beacon``: a phase-2 contribution to a .zkey, written as snarkjs's
``zkey contribute`` / ``zkey beacon`` write it (src/zkey_contribute.js, src/zkey_beacon.js).

With the contribution's secret x (:mod:`cuzk.engine.mpc`):

    [δ]₁ ← x·[δ]₁,  [δ]₂ ← x·[δ]₂          (section 2, the header)
    L_j ← x⁻¹·L_j,  H_i ← x⁻¹·H_i          (sections 8 and 9: they carry 1/δ)
    section 10 ← its contributions and this one's record

Sections 1 and 3–7 are copied as they are, every section in the order 1 … 10. A beacon draws x from the iterated
SHA-256 of a public value instead of the OS, so its output is a function of its inputs: byte for byte snarkjs's.
The bulk work, one scalar multiplication per point of L and H, runs on the backend as one-point MSMs
(:func:`~cuzk.engine.setup_ptau.combine`). The output is checked before any work (writable, not the input) and
written atomically.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import Backend
from cuzk.backends.registry import resolve_backend
from cuzk.engine.decoding import montgomery_host
from cuzk.engine.mpc import contribution_hash, new_delta_key
from cuzk.engine.mpc_rng import ChaCha, rng_from_beacon, rng_from_entropy
from cuzk.engine.setup_ptau import combine
from cuzk.engine.small_rows import Sums
from cuzk.formats.binfile import BinFile, write_binfile
from cuzk.formats.outputs import check_outputs
from cuzk.formats.points import PointDecoder, PointTable, point_bytes
from cuzk.formats.zkey import MAGIC, SECTIONS, VERSION, read_zkey
from cuzk.formats.zkey_mpc import BEACON, CONTRIBUTION, MPC_SECTION, Contribution, encode_mpc_params, read_mpc_params
from cuzk.reference.curves import Curve, Point
from cuzk.reference.errors import CuzkError

PathLike = str | os.PathLike[str]
ITERATIONS_EXP = (10, 63)  # the numIterationsExp snarkjs accepts
MAX_BEACON_BYTES = 255


class BeaconError(CuzkError, ValueError):
    """A beacon's value or iteration count that snarkjs would refuse."""


@dataclass(frozen=True)
class Contributed:
    """What a contribution did: the curve, its number in the chain, the hashes snarkjs prints, the backend and the
    seconds."""

    curve: str
    index: int
    cs_hash: bytes
    contribution_hash: bytes
    backend: str
    seconds: float


@dataclass(frozen=True)
class RecordFields:
    """A contribution record's fields other than its points."""

    name: str | None
    type: int = CONTRIBUTION
    num_iterations_exp: int | None = None
    beacon_hash: bytes | None = None


def contribute(
    source: PathLike,
    target: PathLike,
    *,
    entropy: str = "",
    name: str | None = None,
    backend: Backend | str | None = None,
    random_bytes: bytes | None = None,
) -> Contributed:
    """A new random contribution: x drawn from 64 bytes of the OS (``random_bytes`` in tests) and ``entropy``,
    mixed as snarkjs's ``getRandomRng``."""
    check_outputs([target], [source])
    return _apply(source, target, rng_from_entropy(entropy, random_bytes), RecordFields(name), backend)


def beacon(
    source: PathLike,
    target: PathLike,
    beacon_hash: bytes,
    num_iterations_exp: int,
    *,
    name: str | None = None,
    backend: Backend | str | None = None,
) -> Contributed:
    """The beacon contribution of ``beacon_hash`` (1–255 bytes) hashed 2^num_iterations_exp times (10 … 63)."""
    check_beacon(beacon_hash, num_iterations_exp)
    check_outputs([target], [source])
    fields = RecordFields(name, BEACON, num_iterations_exp, beacon_hash)
    return _apply(source, target, rng_from_beacon(beacon_hash, num_iterations_exp), fields, backend)


def check_beacon(beacon_hash: bytes, num_iterations_exp: int) -> None:
    if not 0 < len(beacon_hash) <= MAX_BEACON_BYTES:
        raise BeaconError(f"the beacon hash has {len(beacon_hash)} bytes; snarkjs takes 1 … {MAX_BEACON_BYTES}")
    low, high = ITERATIONS_EXP
    if not low <= num_iterations_exp <= high:
        raise BeaconError(f"numIterationsExp = {num_iterations_exp}: it must lie in {low} … {high}, as for snarkjs")


def scale_points(backend: Backend, curve: Curve, table: PointTable, k: int) -> np.ndarray:
    """[k]·P for every point of ``table`` (canonical limbs; infinity stays infinity), as one-point MSMs."""
    n = len(table)
    scalars = np.tile(limbs.int_to_limbs(k % curve.r, limbs.FR_LIMBS), (n, 1))
    return combine(backend, curve, table, Sums(np.arange(n + 1), np.arange(n), scalars))


def _apply(
    source: PathLike, target: PathLike, rng: ChaCha, fields: RecordFields, backend: Backend | str | None
) -> Contributed:
    started = time.perf_counter()
    chosen = resolve_backend(backend)
    host = montgomery_host(chosen)
    key = read_zkey(source, host=host)
    curve = key.curve
    file = BinFile(source, MAGIC, (1, 2), SECTIONS)
    mpc = read_mpc_params(file, curve)
    delta = new_delta_key(curve, mpc, rng)
    delta_g1, delta_g2 = key.delta_g1 * delta.x, key.delta_g2 * delta.x
    record = Contribution(
        delta_g1,
        delta.g1_s,
        delta.g1_sx,
        delta.g2_spx,
        delta.transcript,
        type=fields.type,
        name=fields.name,
        num_iterations_exp=fields.num_iterations_exp,
        beacon_hash=fields.beacon_hash,
    )
    g1, g2 = PointDecoder(curve, "g1"), PointDecoder(curve, "g2")

    def encoded(decoder: PointDecoder, point: Point) -> bytes:
        return decoder.encode(limbs.points_to_limbs(curve, decoder.group, [point])).tobytes()

    tail = point_bytes(curve, "g1") + point_bytes(curve, "g2")  # the header ends with [δ]₁, [δ]₂
    header = _raw(file, 2)[:-tail].tobytes() + encoded(g1, delta_g1) + encoded(g2, delta_g2)
    inverse = pow(delta.x, -1, curve.r)
    sections: list[tuple[int, bytes | np.ndarray]] = [
        (1, _raw(file, 1)),
        (2, header),
        *((i, _raw(file, i)) for i in range(3, 8)),  # IC, coefficients, A, B1, B2: as they are
        (8, g1.encode(scale_points(chosen, curve, key.l_query, inverse), host=host)),
        (9, g1.encode(scale_points(chosen, curve, key.h_query, inverse), host=host)),
        (MPC_SECTION, encode_mpc_params(curve, mpc.extended(record))),
    ]
    write_binfile(target, MAGIC, VERSION, sections)
    return Contributed(
        curve.name,
        len(mpc.contributions) + 1,
        mpc.cs_hash,
        contribution_hash(curve, record),
        chosen.name,
        time.perf_counter() - started,
    )


def _raw(file: BinFile, section_id: int) -> np.ndarray:
    section = file.section(section_id)
    return file.data[section.offset : section.offset + section.size]


__all__ = ["BeaconError", "Contributed", "beacon", "check_beacon", "contribute", "scale_points"]
