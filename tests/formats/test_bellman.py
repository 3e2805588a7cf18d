"""bellman's bytes: the 192-byte proof and VerifyingKey::write, read back and refused when damaged."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest

from cuzk.formats import bellman
from cuzk.formats.errors import CurveMismatchError, FormatError, InvalidPointError, TruncatedFileError
from cuzk.reference.curves import BLS12_381, BN254
from cuzk.reference.encoding import encode_point
from cuzk.reference.groth16 import Proof

G1, G2 = BLS12_381.g1.generator, BLS12_381.g2.generator


def _proof(seed: int = 3) -> Proof:
    rng = random.Random(seed)
    return Proof(G1 * rng.randrange(BLS12_381.r), G2 * rng.randrange(BLS12_381.r), G1 * rng.randrange(BLS12_381.r))


def _vk(ic: int = 3) -> bellman.BellmanVerifyingKey:
    return bellman.BellmanVerifyingKey(
        G1 * 2, G1 * 3, G2 * 3, G2 * 5, G1 * 7, G2 * 7, [G1 * (11 + i) for i in range(ic)]
    )


def test_proof_bytes(tmp_path: Path) -> None:
    proof = _proof()
    data = bellman.proof_to_bytes(proof)
    assert len(data) == bellman.PROOF_BYTES == 192
    assert data == encode_point(proof.a, compressed=True) + encode_point(proof.b, compressed=True) + encode_point(
        proof.c, compressed=True
    )
    assert data == proof.to_bytes()  # the reference's own compressed form is bellman's
    assert all(data[offset] & 0x80 for offset in (0, 48, 144))  # the compression flag of each point
    bellman.write_proof(tmp_path / "proof.bin", proof)
    assert bellman.read_proof(tmp_path / "proof.bin") == proof


def test_verifying_key_bytes(tmp_path: Path) -> None:
    vk = _vk()
    data = bellman.verifying_key_to_bytes(vk)
    assert len(data) == 3 * 96 + 3 * 192 + 4 + 3 * 96
    assert struct.unpack_from(">I", data, 3 * 96 + 3 * 192) == (3,)
    bellman.write_verifying_key(tmp_path / "vk.bin", vk)
    read = bellman.read_verifying_key(tmp_path / "vk.bin")
    assert read == vk
    assert read.verifying_key().gamma_abc_g1 == vk.ic and read.verifying_key().delta_g2 == vk.delta_g2


def test_proof_refusals() -> None:
    data = bytearray(_proof().to_bytes())
    with pytest.raises(FormatError, match="a bellman proof has 192 bytes, got 191"):
        bellman.proof_from_bytes(bytes(data[:-1]))
    identity = bytes(data[:48]) + bytes(encode_point(BLS12_381.g2.identity(), compressed=True)) + bytes(data[144:])
    with pytest.raises(InvalidPointError, match="B is the point at infinity"):
        bellman.proof_from_bytes(identity, "p.bin")
    broken = bytes(data[:150]) + bytes([data[150] ^ 0xFF]) + bytes(data[151:])
    with pytest.raises(InvalidPointError, match=r"p.bin: offset 144 .*C: "):
        bellman.proof_from_bytes(broken, "p.bin")


def test_verifying_key_refusals() -> None:
    data = bellman.verifying_key_to_bytes(_vk(2))
    with pytest.raises(TruncatedFileError, match="inside delta_g2"):
        bellman.verifying_key_from_bytes(data[:700])
    with pytest.raises(TruncatedFileError, match=r"the IC count is 2 \(192 bytes\), but 191 bytes follow"):
        bellman.verifying_key_from_bytes(data[:-1])
    lying = bytearray(data)
    struct.pack_into(">I", lying, 3 * 96 + 3 * 192, 1000)
    with pytest.raises(TruncatedFileError, match="the IC count is 1000"):
        bellman.verifying_key_from_bytes(bytes(lying))
    off = bytearray(data)
    off[-1] ^= 0x01  # y of the last IC point
    with pytest.raises(InvalidPointError, match=r"IC\[1\]"):
        bellman.verifying_key_from_bytes(bytes(off), "vk.bin")
    with_identity = bellman.verifying_key_to_bytes(
        bellman.BellmanVerifyingKey(G1, G1, G2, G2, G1, G2, [BLS12_381.g1.identity()])
    )
    with pytest.raises(InvalidPointError, match=r"IC\[0\] is the point at infinity"):
        bellman.verifying_key_from_bytes(with_identity)


def test_bn254_is_refused() -> None:
    bn = Proof(BN254.g1.generator, BN254.g2.generator, BN254.g1.generator)
    with pytest.raises(CurveMismatchError, match="bellman's formats are for BLS12-381, not bn254"):
        bellman.proof_to_bytes(bn)
