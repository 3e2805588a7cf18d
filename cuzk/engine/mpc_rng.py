"""The randomness of a snarkjs phase-2 contribution, reproduced bit for bit: ffjavascript's ChaCha stream and the
``fromRng`` draws snarkjs makes from it (src/misc.js, src/keypair.js; ffjavascript's chacha.js, wasm_field1.js,
wasm_curve.js).

A contribution draws, from one stream, its secret δ (``Fr.fromRng``) and a random point [s]₁ (``G1.fromRng``); the
point [s·x]₂'s base [s]₂ is ``hashToG2(transcript)``: ``G2.fromRng`` from a stream seeded by the transcript. A beacon
contribution seeds its stream with the iterated SHA-256 of a public value, so anyone can redraw δ and [s]₁.

- ChaCha: ffjavascript's, the ChaCha20 block function (RFC 8439's 10 double rounds) over the constants, an 8-word
  key (the seed) and a 4-word block counter in words 12–15 (no nonce); words are taken in order.
- ``F.fromRng``: ⌈bits/64⌉ words of 64 bits (each the high 32 bits first), little-endian, masked to the modulus's
  bit length, redrawn while ≥ p. Those words become the element's *stored* form, i.e. its Montgomery form: the
  element is v·R⁻¹ with R = 2^(8·n8).
- ``G.fromRng``: x = F.fromRng (Fq2: c0 then c1), a sign bit, redrawn until x³ + b is a square; y = ±√(x³ + b)
  with "y is negative" (y > (q − 1)/2; in Fq2 that of c1, or of c0 when c1 = 0) equal to the bit; then the cofactor
  cleared by [h]P.
"""

from __future__ import annotations

import hashlib
import secrets
import struct
from typing import Any

from cuzk.formats.points import field_bytes
from cuzk.reference.curves import Curve, Point

CONSTANTS = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)  # "expand 32-byte k"
MASK32 = 0xFFFFFFFF
SEED_WORDS = 8


def _rotl(v: int, bits: int) -> int:
    return ((v << bits) | (v >> (32 - bits))) & MASK32


def _quarter_round(s: list[int], a: int, b: int, c: int, d: int) -> None:
    s[a] = (s[a] + s[b]) & MASK32
    s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK32
    s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK32
    s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK32
    s[b] = _rotl(s[b] ^ s[c], 7)


class ChaCha:
    """ffjavascript's ChaCha random stream of 32-bit words, from 8 seed words."""

    def __init__(self, seed: list[int]) -> None:
        if len(seed) != SEED_WORDS:
            raise ValueError(f"a ChaCha seed has {SEED_WORDS} words, got {len(seed)}")
        self.state = [*CONSTANTS, *(w & MASK32 for w in seed), 0, 0, 0, 0]
        self.block: list[int] = []

    @classmethod
    def from_digest(cls, digest: bytes) -> ChaCha:
        """Seeded by a digest's first 32 bytes read as 8 big-endian words (snarkjs's every seed)."""
        return cls(list(struct.unpack(">8I", digest[:32])))

    def _next_block(self) -> None:
        work = list(self.state)
        for _ in range(10):
            for a, b, c, d in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15)):
                _quarter_round(work, a, b, c, d)
            for a, b, c, d in ((0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)):
                _quarter_round(work, a, b, c, d)
        self.block = [(w + s) & MASK32 for w, s in zip(work, self.state, strict=True)]
        for i in range(12, 16):  # the counter: a 128-bit little-endian word count
            self.state[i] = (self.state[i] + 1) & MASK32
            if self.state[i]:
                break

    def next_u32(self) -> int:
        if not self.block:
            self._next_block()
            self.block.reverse()
        return self.block.pop()

    def next_u64(self) -> int:
        high = self.next_u32()
        return (high << 32) | self.next_u32()

    def next_bool(self) -> bool:
        return bool(self.next_u32() & 1)


def field_from_rng(modulus: int, rng: ChaCha) -> int:
    """``F.fromRng``: the element (an int below ``modulus``) whose Montgomery form the stream's words give."""
    n8 = field_bytes(modulus)
    mask = (1 << modulus.bit_length()) - 1
    while True:
        v = 0
        for i in range(n8 // 8):
            v += rng.next_u64() << (64 * i)
        v &= mask
        if v < modulus:
            return v * pow(1 << (8 * n8), -1, modulus) % modulus


def _is_negative(value: int, modulus: int) -> bool:
    return value > (modulus - 1) // 2


def point_from_rng(curve: Curve, group: str, rng: ChaCha) -> Point:
    """``G1.fromRng`` / ``G2.fromRng``: a point of the order-r subgroup of ``group`` drawn from the stream."""
    grp = curve.g1 if group == "g1" else curve.g2
    q = curve.q
    while True:
        if group == "g1":
            x: Any = curve.Fq(field_from_rng(q, rng))
        else:
            c0 = field_from_rng(q, rng)
            x = curve.Fq2(c0, field_from_rng(q, rng))
        greatest = rng.next_bool()
        rhs = grp.rhs(x)
        if rhs.is_square():
            break
    y = rhs.sqrt()
    sign = y if group == "g1" else (y.c1 if y.c1.value else y.c0)
    if greatest != _is_negative(sign.value, q):
        y = -y
    return grp.point_unchecked(x, y).mul_unreduced(grp.cofactor)


def hash_to_g2(curve: Curve, transcript: bytes) -> Point:
    """snarkjs's ``hashToG2``: [s]₂ drawn from the stream seeded by a 64-byte transcript."""
    return point_from_rng(curve, "g2", ChaCha.from_digest(transcript))


def rng_from_entropy(entropy: str, random_bytes: bytes | None = None) -> ChaCha:
    """``getRandomRng``: seeded by blake2b-512(64 bytes from the OS ‖ the entropy text in UTF-8); ``random_bytes``
    replaces the OS's bytes (tests only: the contribution becomes reproducible, hence worthless)."""
    noise = secrets.token_bytes(64) if random_bytes is None else random_bytes
    return ChaCha.from_digest(hashlib.blake2b(noise + entropy.encode(), digest_size=64).digest())


def beacon_digest(beacon_hash: bytes, num_iterations_exp: int) -> bytes:
    """SHA-256 applied 2^num_iterations_exp times to the beacon's value (``rngFromBeaconParams``)."""
    digest = beacon_hash
    for _ in range(1 << num_iterations_exp):
        digest = hashlib.sha256(digest).digest()
    return digest


def rng_from_beacon(beacon_hash: bytes, num_iterations_exp: int) -> ChaCha:
    """``rngFromBeaconParams``: the stream seeded by the iterated hash of a public beacon."""
    return ChaCha.from_digest(beacon_digest(beacon_hash, num_iterations_exp))


__all__ = [
    "ChaCha",
    "beacon_digest",
    "field_from_rng",
    "hash_to_g2",
    "point_from_rng",
    "rng_from_beacon",
    "rng_from_entropy",
]
