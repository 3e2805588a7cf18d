"""Writing a Groth16 .zkey as snarkjs does (the layout is in :mod:`cuzk.formats.zkey`); the key itself is made by
:func:`cuzk.engine.setup.setup_zkey` (one party) or :func:`cuzk.engine.setup_ptau.setup_from_ptau` (from a ceremony).

``snarkjs groth16 setup`` (src/zkey_new.js) writes the sections in the order :data:`SNARKJS_SETUP_ORDER` and ends
the key with section 10 = the circuit hash (blake2b-512 of the key's points in the uncompressed form of
:func:`uncompressed`, :mod:`cuzk.engine.setup_ptau`) and no contribution; ``write_zkey(..., order=…,
circuit_hash=…)`` gives that file byte for byte.
"""

from __future__ import annotations

import os
import struct

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import Backend
from cuzk.formats.binfile import write_binfile
from cuzk.formats.points import PointDecoder, PointTable, field_bytes
from cuzk.formats.r1cs import R1cs
from cuzk.formats.zkey import GROTH16, MAGIC, VERSION, Coefficients, ZKey, curve_of_scalar_prime
from cuzk.reference.curves import Point

SECTION_ORDER = tuple(range(1, 11))
SNARKJS_SETUP_ORDER = (1, 2, 4, 3, 9, 8, 5, 6, 7, 10)  # the order zkey_new.js writes them in


def uncompressed(array: np.ndarray) -> bytes:
    """Canonical affine limbs (n, 2, L) or (n, 2, 2, L) → ffjavascript's uncompressed form, as its
    ``batchLEMtoU`` writes it: each coordinate big-endian (an Fq2 element c1 then c0: its little-endian bytes
    reversed whole), infinity all zeros."""
    n = array.shape[0]
    data = np.ascontiguousarray(array, dtype="<u8").view(np.uint8).reshape(n, 2, -1)
    return np.ascontiguousarray(data[:, :, ::-1]).tobytes()


def write_zkey(
    path: str | os.PathLike[str],
    key: ZKey,
    *,
    order: tuple[int, ...] = SECTION_ORDER,
    circuit_hash: bytes = bytes(64),
    host: Backend | None = None,
) -> None:
    """Write ``key`` as snarkjs does (tables and rows in snarkjs's domain order, as :class:`ZKey` holds them), its
    sections in ``order``, section 10 = ``circuit_hash`` and no contribution; the points put in Montgomery form by
    ``host``'s MONTGOMERY_FORM when given, else by numpy."""
    if sorted(order) != list(SECTION_ORDER) or len(circuit_hash) != 64:
        raise ValueError("order must list sections 1 … 10 once each, and circuit_hash have 64 bytes")
    curve = key.curve
    n8q, n8r = field_bytes(curve.q), field_bytes(curve.r)
    g1, g2 = PointDecoder(curve, "g1"), PointDecoder(curve, "g2")

    def points(decoder: PointDecoder, items: list[Point] | PointTable) -> bytes:
        array = items.limbs if isinstance(items, PointTable) else limbs.points_to_limbs(curve, decoder.group, items)
        return decoder.encode(array, host=host).tobytes()

    header = b"".join(
        [
            struct.pack("<I", n8q),
            curve.q.to_bytes(n8q, "little"),
            struct.pack("<I", n8r),
            curve.r.to_bytes(n8r, "little"),
            struct.pack("<III", key.num_variables, key.num_public, key.domain_size),
            points(g1, [key.alpha_g1, key.beta_g1]),
            points(g2, [key.beta_g2, key.gamma_g2]),
            points(g1, [key.delta_g1]),
            points(g2, [key.delta_g2]),
        ]
    )
    coefficients = key.coefficients
    records = np.zeros((len(coefficients), 12 + n8r), np.uint8)
    records[:, :12] = (
        np.stack([coefficients.matrix, coefficients.constraint, coefficients.signal], axis=1)
        .astype("<u4")
        .view(np.uint8)
        .reshape(-1, 12)
    )
    records[:, 12:] = coefficients.stored.astype("<u8").view(np.uint8).reshape(-1, n8r)
    sections = dict(
        [
            (1, struct.pack("<I", GROTH16)),
            (2, header),
            (3, points(g1, key.ic)),
            (4, struct.pack("<I", len(coefficients)) + records.tobytes()),
            (5, points(g1, key.a_query)),
            (6, points(g1, key.b_g1_query)),
            (7, points(g2, key.b_g2_query)),
            (8, points(g1, key.l_query)),
            (9, points(g1, key.h_query)),
            (10, circuit_hash + struct.pack("<I", 0)),  # no contribution yet
        ]
    )
    write_binfile(path, MAGIC, VERSION, [(i, sections[i]) for i in order])


def coefficients_of(r1cs: R1cs, host: Backend | None = None) -> Coefficients:
    """Section 4 of the key of ``r1cs``: A's and B's terms, then A = 1 on the row of each public signal (and the
    constant), ordered by row as snarkjs's zkey_new.js writes them; stored by ``host`` (see
    :meth:`Coefficients.from_values`)."""
    inputs = np.arange(r1cs.num_public + 1, dtype=np.int64)
    one = limbs.ints_to_limbs([1] * len(inputs), limbs.FR_LIMBS)
    matrix = np.concatenate([np.zeros_like(r1cs.a.rows), np.ones_like(r1cs.b.rows), np.zeros_like(inputs)])
    constraint = np.concatenate([r1cs.a.rows, r1cs.b.rows, r1cs.num_constraints + inputs])
    signal = np.concatenate([r1cs.a.wires, r1cs.b.wires, inputs])
    values = np.concatenate([r1cs.a.coefficients, r1cs.b.coefficients, one])
    order = np.argsort(constraint, kind="stable")
    values = limbs.take_rows(values, order)
    on = None if host is None else (host, curve_of_scalar_prime(r1cs.prime, r1cs.path))
    return Coefficients.from_values(matrix[order], constraint[order], signal[order], values, r1cs.prime, host=on)


__all__ = ["SECTION_ORDER", "SNARKJS_SETUP_ORDER", "coefficients_of", "uncompressed", "write_zkey"]
