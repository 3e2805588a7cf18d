"""bellman's byte formats for Groth16 on BLS12-381 (zkcrypto/bellman, src/groth16/mod.rs), as Filecoin and Zcash
store them. Points use the ZCash encoding (:mod:`cuzk.reference.encoding.zcash`).

    proof (192 bytes)     A ‖ B ‖ C compressed: 48 + 96 + 48 bytes          (Proof::write)
    verifying key         α₁, β₁, β₂, γ₂, δ₁, δ₂ uncompressed (96/192 bytes each), then the IC count as a u32
                          big-endian and the IC points uncompressed        (VerifyingKey::write)

Readers check every point to be on the curve and in the order-r subgroup, and refuse the point at infinity where
bellman's readers do (the proof's three points and the IC points). A file is read within a budget (a proof up to
4 KiB, to say how long it is; a key of at most :data:`MAX_IC` IC points), so ``/dev/zero`` or an endless pipe costs
no more than the largest valid file (:func:`cuzk.formats.json_bounded.read_bounded`).
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from typing import Any

from cuzk.formats.errors import CurveMismatchError, FormatError, InvalidPointError, TruncatedFileError
from cuzk.formats.json_bounded import read_bounded
from cuzk.formats.outputs import write_atomic
from cuzk.reference.curves import BLS12_381, Curve, Point
from cuzk.reference.encoding import decode_point, encode_point, point_size
from cuzk.reference.errors import EncodingError
from cuzk.reference.groth16 import Proof, ProvingKey, VerifyingKey

PROOF_BYTES = 48 + 96 + 48
PROOF_READ_BUDGET = 4096  # a proof file is read up to this, so that one a little too long is said to be
MAX_IC = (1 << 16) + 1  # IC points of a verifying key read from a file: 2^16 public inputs, as verification_key.json
VK_FIXED_BYTES = 3 * 96 + 3 * 192 + 4  # α₁, β₁, δ₁ and β₂, γ₂, δ₂ uncompressed, the IC count


@dataclass(frozen=True)
class BellmanVerifyingKey:
    """bellman's VerifyingKey: the reference's, plus [β]₁ and [δ]₁ (which bellman keeps for its batch verifier)."""

    alpha_g1: Point
    beta_g1: Point
    beta_g2: Point
    gamma_g2: Point
    delta_g1: Point
    delta_g2: Point
    ic: list[Point]

    @classmethod
    def from_proving_key(cls, pk: ProvingKey) -> BellmanVerifyingKey:
        vk = pk.vk
        return cls(vk.alpha_g1, pk.beta_g1, vk.beta_g2, vk.gamma_g2, pk.delta_g1, vk.delta_g2, list(vk.gamma_abc_g1))

    def verifying_key(self) -> VerifyingKey:
        return VerifyingKey(BLS12_381, self.alpha_g1, self.beta_g2, self.gamma_g2, self.delta_g2, list(self.ic))


def _require_bls(curve: Curve, what: str) -> None:
    if curve is not BLS12_381:
        raise CurveMismatchError(what, f"bellman's formats are for BLS12-381, not {curve.name}")


def proof_to_bytes(proof: Proof) -> bytes:
    """The 192-byte bellman proof."""
    _require_bls(_curve_of(proof.a), "proof")
    return b"".join(encode_point(p, compressed=True) for p in (proof.a, proof.b, proof.c))


def proof_from_bytes(data: bytes, source: str = "proof") -> Proof:
    """A proof from its 192 bytes; ``source`` names the bytes in errors (a file name)."""
    if len(data) != PROOF_BYTES:
        raise FormatError(source, f"a bellman proof has {PROOF_BYTES} bytes, got {len(data)}")
    a = _decode(BLS12_381.g1, data[:48], source, "A", 0, allow_identity=False)
    b = _decode(BLS12_381.g2, data[48:144], source, "B", 48, allow_identity=False)
    c = _decode(BLS12_381.g1, data[144:], source, "C", 144, allow_identity=False)
    return Proof(a, b, c)


def verifying_key_to_bytes(vk: BellmanVerifyingKey) -> bytes:
    """VerifyingKey::write."""
    head = [vk.alpha_g1, vk.beta_g1, vk.beta_g2, vk.gamma_g2, vk.delta_g1, vk.delta_g2]
    for p in head:
        _require_bls(_curve_of(p), "verifying key")
    return (
        b"".join(encode_point(p, compressed=False) for p in head)
        + struct.pack(">I", len(vk.ic))
        + b"".join(encode_point(p, compressed=False) for p in vk.ic)
    )


def verifying_key_from_bytes(data: bytes, source: str = "verifying key") -> BellmanVerifyingKey:
    """VerifyingKey::read: every point checked, the IC count checked against the bytes before reading them."""
    g1, g2 = BLS12_381.g1, BLS12_381.g2
    layout = [("alpha_g1", g1), ("beta_g1", g1), ("beta_g2", g2), ("gamma_g2", g2), ("delta_g1", g1), ("delta_g2", g2)]
    points: dict[str, Point] = {}
    pos = 0
    for name, group in layout:
        size = point_size(group, compressed=False)
        if pos + size > len(data):
            raise TruncatedFileError(source, f"the key ends ({len(data)} bytes) inside {name}", offset=pos)
        points[name] = _decode(group, data[pos : pos + size], source, name, pos, allow_identity=True)
        pos += size
    if pos + 4 > len(data):
        raise TruncatedFileError(source, f"the key ends ({len(data)} bytes) before the IC count", offset=pos)
    (count,) = struct.unpack_from(">I", data, pos)
    pos += 4
    size = point_size(g1, compressed=False)
    if len(data) - pos != count * size:
        raise TruncatedFileError(
            source,
            f"the IC count is {count} ({count * size} bytes), but {len(data) - pos} bytes follow",
            offset=pos - 4,
        )
    ic = [
        _decode(
            g1, data[pos + i * size : pos + (i + 1) * size], source, f"IC[{i}]", pos + i * size, allow_identity=False
        )
        for i in range(count)
    ]
    return BellmanVerifyingKey(ic=ic, **points)


def _decode(group: Any, data: bytes, source: str, name: str, offset: int, *, allow_identity: bool) -> Point:
    try:
        point = decode_point(group, data)
    except EncodingError as exc:
        raise InvalidPointError(source, f"{name}: {exc}", offset=offset) from None
    if point.is_identity() and not allow_identity:
        raise InvalidPointError(source, f"{name} is the point at infinity, which bellman refuses", offset=offset)
    return point


def _curve_of(point: Point) -> Curve:
    from cuzk.reference.curves import CURVES

    return next(c for c in CURVES.values() if point.group in (c.g1, c.g2))


def write_proof(path: str | os.PathLike[str], proof: Proof) -> None:
    """The 192 bytes, made first (a BN254 proof is refused before any file is touched), written atomically."""
    write_atomic(path, proof_to_bytes(proof))


def read_proof(path: str | os.PathLike[str]) -> Proof:
    return proof_from_bytes(_read(path, PROOF_READ_BUDGET, "a bellman proof"), os.fspath(path))


def write_verifying_key(path: str | os.PathLike[str], vk: BellmanVerifyingKey) -> None:
    """VerifyingKey::write's bytes, written atomically: a failure leaves the previous file whole."""
    write_atomic(path, verifying_key_to_bytes(vk))


def read_verifying_key(path: str | os.PathLike[str]) -> BellmanVerifyingKey:
    budget = VK_FIXED_BYTES + MAX_IC * 96
    return verifying_key_from_bytes(
        _read(path, budget, f"a bellman verifying key of {MAX_IC} IC points"), os.fspath(path)
    )


def _read(path: str | os.PathLike[str], budget: int, what: str) -> bytes:
    """The file's bytes, at most ``budget`` of them (InputTooLargeError beyond: a device or a pipe is never read
    without bound), FormatError when it cannot be read."""
    return bytes(read_bounded(os.fspath(path), budget, what))


__all__ = [
    "PROOF_BYTES",
    "BellmanVerifyingKey",
    "proof_from_bytes",
    "proof_to_bytes",
    "read_proof",
    "read_verifying_key",
    "verifying_key_from_bytes",
    "verifying_key_to_bytes",
    "write_proof",
    "write_verifying_key",
]
