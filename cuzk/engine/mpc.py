"""A phase-2 contribution's secret and its public proof of knowledge, as snarkjs makes them (src/zkey_contribute.js,
src/zkey_utils.js hashPubKey, src/keypair.js).

Groth16's phase 2 (Bowe–Gabizon–Miers, "Scalable multi-party computation for zk-SNARK parameters", §4–5) lets
each participant multiply δ by a secret x: [δ]₁, [δ]₂ by x, the L and H queries (which carry 1/δ) by x⁻¹. To show
that the new [δ]₁ is the old one times an x the participant knows, without revealing it, it publishes

    [s]₁ (random), [s·x]₁,  and [s·x]₂ = x·[s]₂  with [s]₂ = hashToG2(transcript),
    transcript = blake2b-512(csHash ‖ every previous contribution's public key ‖ [s]₁ ‖ [s·x]₁),

checked by two pairing equations ("same ratio"): e([s]₁, [s·x]₂) = e([s·x]₁, [s]₂), and
e([δ_before]₁, [s·x]₂) = e([δ_after]₁, [s]₂). A public key is hashed as deltaAfter, g1_s, g1_sx (G1) and g2_spx
(G2), each uncompressed (big-endian coordinates), then its 64-byte transcript.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from cuzk.backends import limbs
from cuzk.engine.mpc_rng import ChaCha, field_from_rng, hash_to_g2, point_from_rng
from cuzk.formats.zkey_mpc import Contribution, MpcParams
from cuzk.formats.zkey_write import uncompressed
from cuzk.reference.curves import Curve, Point


def blake2b_512() -> Any:
    return hashlib.blake2b(digest_size=64)


def point_uncompressed(curve: Curve, group: str, point: Point) -> bytes:
    """ffjavascript's ``toRprUncompressed`` of one point."""
    return uncompressed(limbs.points_to_limbs(curve, group, [point]))


def hash_pub_key(hasher: Any, curve: Curve, c: Contribution) -> None:
    """snarkjs's ``hashPubKey``: a contribution's public key into ``hasher``."""
    for point in (c.delta_after, c.g1_s, c.g1_sx):
        hasher.update(point_uncompressed(curve, "g1", point))
    hasher.update(point_uncompressed(curve, "g2", c.g2_spx))
    hasher.update(c.transcript)


def contribution_hash(curve: Curve, c: Contribution) -> bytes:
    """The hash snarkjs prints for a contribution: blake2b-512 of its public key."""
    hasher = blake2b_512()
    hash_pub_key(hasher, curve, c)
    return hasher.digest()


def chain_hasher(curve: Curve, cs_hash: bytes, previous: tuple[Contribution, ...]) -> Any:
    """blake2b-512 fed csHash and the public keys of ``previous``: where every new transcript starts."""
    hasher = blake2b_512()
    hasher.update(cs_hash)
    for c in previous:
        hash_pub_key(hasher, curve, c)
    return hasher


def transcript_of(chain: Any, curve: Curve, g1_s: Point, g1_sx: Point) -> bytes:
    """A contribution's transcript: the chain so far, then its [s]₁ and [s·x]₁."""
    hasher = chain.copy()
    hasher.update(point_uncompressed(curve, "g1", g1_s))
    hasher.update(point_uncompressed(curve, "g1", g1_sx))
    return bytes(hasher.digest())


@dataclass(frozen=True)
class DeltaKey:
    """A contribution's secret x (``prvKey``) and its public record (deltaAfter still to be set)."""

    x: int
    g1_s: Point
    g1_sx: Point
    transcript: bytes
    g2_sp: Point
    g2_spx: Point


def draw_secret(curve: Curve, rng: ChaCha) -> tuple[int, Point]:
    """x = ``Fr.fromRng``, then [s]₁ = ``G1.fromRng``: the draws a contribution (or a beacon) makes, in order."""
    x = field_from_rng(curve.r, rng)
    return x, point_from_rng(curve, "g1", rng)


def new_delta_key(curve: Curve, mpc: MpcParams, rng: ChaCha) -> DeltaKey:
    """The next contribution's key, drawn from ``rng`` after ``mpc``'s contributions."""
    x, g1_s = draw_secret(curve, rng)
    g1_sx = g1_s * x
    transcript = transcript_of(chain_hasher(curve, mpc.cs_hash, mpc.contributions), curve, g1_s, g1_sx)
    g2_sp = hash_to_g2(curve, transcript)
    return DeltaKey(x, g1_s, g1_sx, transcript, g2_sp, g2_sp * x)


def format_hash(digest: bytes, title: str) -> str:
    """snarkjs's ``formatHash``: four lines of four 8-hex-digit words, under a title."""
    words = [digest[i : i + 4].hex() for i in range(0, 64, 4)]
    return "\n".join([title, *("\t\t" + " ".join(words[i : i + 4]) for i in range(0, 16, 4))])


__all__ = [
    "DeltaKey",
    "blake2b_512",
    "chain_hasher",
    "contribution_hash",
    "draw_secret",
    "format_hash",
    "hash_pub_key",
    "new_delta_key",
    "point_uncompressed",
    "transcript_of",
]
