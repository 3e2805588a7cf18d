"""The canonical encodings: published vectors, a cross-check against py_ecc, and round trips on both curves.

Malformed inputs are in test_encoding_malformed.py.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from py_ecc import optimized_bls12_381 as py_bls
from py_ecc import optimized_bn128 as py_bn
from py_ecc.bls.point_compression import compress_G1, compress_G2

from cuzk.reference.curves import BLS12_381, BN254, Curve, Group
from cuzk.reference.encoding import (
    SCALAR_SIZE,
    decode_fq,
    decode_fq2,
    decode_point,
    decode_scalar,
    encode_fq,
    encode_fq2,
    encode_point,
    encode_scalar,
    is_lexicographically_largest,
    point_size,
)
from cuzk.reference.errors import CuzkError

GROUPS = [BLS12_381.g1, BLS12_381.g2, BN254.g1, BN254.g2]
GROUP_IDS = [g.name for g in GROUPS]

# --- published vectors ---------------------------------------------------------------------------------------

# The compressed generators of BLS12-381 in the ZCash format, as published in Cardano's CIP-0381 ("We include the
# serialisation of the generator of G1 and the generator of G2") and in the bls12_381 crate's test data; py_ecc's
# G1_to_pubkey(G1) and G2_to_signature(G2) return the same bytes.
BLS_G1_COMPRESSED = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
BLS_G2_COMPRESSED = (
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
)
# Uncompressed: x ‖ y (G2: x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0) with no flag bits, the generator coordinates of the IETF
# pairing-friendly-curves draft (§4.2.1) and of the ZCash protocol specification (§5.4.9.2).
BLS_G1_UNCOMPRESSED = (
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"
)
BLS_G2_UNCOMPRESSED = (
    "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
    "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"
    "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"
)
# EIP-196: the G1 generator is (1, 2). EIP-197 gives the G2 generator in decimal, "imaginary part first".
BN_G1_UNCOMPRESSED = "00" * 31 + "01" + "00" * 31 + "02"
BN_G2_EIP197 = (
    11559732032986387107991004021392285783925812861821192530917403151452391805634,
    10857046999023057135944570762232829481370756359578518086990519993285655852781,
    4082367875863433681332203403145435568316851327593401208105741076214120093531,
    8495653923123431417604973247489272438418190587263600148770280649306958101930,
)
BN_G2_UNCOMPRESSED = b"".join(v.to_bytes(32, "big") for v in BN_G2_EIP197).hex()


def form_id(group: Group, compressed: bool) -> str:
    return f"{group.name}-{'compressed' if compressed else 'uncompressed'}"


GENERATOR_VECTORS = [
    (BLS12_381.g1, True, BLS_G1_COMPRESSED),
    (BLS12_381.g1, False, BLS_G1_UNCOMPRESSED),
    (BLS12_381.g2, True, BLS_G2_COMPRESSED),
    (BLS12_381.g2, False, BLS_G2_UNCOMPRESSED),
    (BN254.g1, False, BN_G1_UNCOMPRESSED),
    (BN254.g2, False, BN_G2_UNCOMPRESSED),
    # cuzk's compressed BN254: x with the sign flag (0x40) clear, since y = 2 < (q − 1)/2 ...
    (BN254.g1, True, "00" * 31 + "01"),
    # ... and, for G2, y.c1 = 0x090689d0… < (q − 1)/2 as well: x.c1 ‖ x.c0 unchanged.
    (BN254.g2, True, BN_G2_UNCOMPRESSED[:128]),
]


@pytest.mark.parametrize(
    ("group", "compressed", "hexbytes"), GENERATOR_VECTORS, ids=[form_id(g, c) for g, c, _ in GENERATOR_VECTORS]
)
def test_generator_vectors(group: Group, compressed: bool, hexbytes: str) -> None:
    data = bytes.fromhex(hexbytes)
    assert encode_point(group.generator, compressed=compressed) == data
    assert decode_point(group, data) == group.generator


def test_py_ecc_agrees_on_the_bls12_381_generators() -> None:
    assert compress_G1(py_bls.G1).to_bytes(48, "big").hex() == BLS_G1_COMPRESSED
    z1, z2 = compress_G2(py_bls.G2)
    assert (z1.to_bytes(48, "big") + z2.to_bytes(48, "big")).hex() == BLS_G2_COMPRESSED


INFINITY_VECTORS = [
    (BLS12_381.g1, True, "c0" + "00" * 47),
    (BLS12_381.g1, False, "40" + "00" * 95),
    (BLS12_381.g2, True, "c0" + "00" * 95),
    (BLS12_381.g2, False, "40" + "00" * 191),
    (BN254.g1, True, "80" + "00" * 31),
    (BN254.g1, False, "00" * 64),
    (BN254.g2, True, "80" + "00" * 63),
    (BN254.g2, False, "00" * 128),
]


@pytest.mark.parametrize(
    ("group", "compressed", "hexbytes"), INFINITY_VECTORS, ids=[form_id(g, c) for g, c, _ in INFINITY_VECTORS]
)
def test_infinity(group: Group, compressed: bool, hexbytes: str) -> None:
    data = bytes.fromhex(hexbytes)
    assert encode_point(group.identity(), compressed=compressed) == data
    assert decode_point(group, data).is_identity()


@pytest.mark.parametrize(
    ("group", "sizes"),
    [(BLS12_381.g1, (48, 96)), (BLS12_381.g2, (96, 192)), (BN254.g1, (32, 64)), (BN254.g2, (64, 128))],
    ids=GROUP_IDS,
)
def test_point_size(group: Group, sizes: tuple[int, int]) -> None:
    assert (point_size(group, True), point_size(group, False)) == sizes


# --- against py_ecc, which implements the ZCash format independently ------------------------------------------


def _bls_cross_check(count: int, rng: random.Random) -> None:
    for _ in range(count):
        k = rng.randrange(1, BLS12_381.r)
        p1, p2 = BLS12_381.g1.generator * k, BLS12_381.g2.generator * k
        expected_g1 = compress_G1(py_bls.multiply(py_bls.G1, k)).to_bytes(48, "big")
        z1, z2 = compress_G2(py_bls.multiply(py_bls.G2, k))
        expected_g2 = z1.to_bytes(48, "big") + z2.to_bytes(48, "big")
        assert encode_point(p1, compressed=True) == expected_g1
        assert encode_point(p2, compressed=True) == expected_g2
        assert decode_point(BLS12_381.g1, expected_g1) == p1
        assert decode_point(BLS12_381.g2, expected_g2) == p2


def test_compressed_bls12_381_matches_py_ecc(rng: random.Random) -> None:
    _bls_cross_check(20, rng)


@pytest.mark.slow
def test_compressed_bls12_381_matches_py_ecc_many(rng: random.Random) -> None:
    _bls_cross_check(300, rng)


def test_bn254_uncompressed_matches_py_ecc_coordinates(rng: random.Random) -> None:
    """EIP-196/197 bytes are py_ecc's bn128 coordinates written big-endian, Fq2 imaginary part first."""
    for _ in range(5):
        k = rng.randrange(1, BN254.r)
        x, y = py_bn.normalize(py_bn.multiply(py_bn.G1, k))
        assert encode_point(BN254.g1.generator * k, compressed=False) == b"".join(
            int(c).to_bytes(32, "big") for c in (x, y)
        )
        x2, y2 = py_bn.normalize(py_bn.multiply(py_bn.G2, k))
        coeffs = (x2.coeffs[1], x2.coeffs[0], y2.coeffs[1], y2.coeffs[0])
        assert encode_point(BN254.g2.generator * k, compressed=False) == b"".join(
            int(c).to_bytes(32, "big") for c in coeffs
        )


# --- round trips -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("group", GROUPS, ids=GROUP_IDS)
@given(data=st.data())
def test_point_round_trip(group: Group, data: st.DataObject) -> None:
    k = data.draw(st.integers(min_value=0, max_value=group.order - 1), label="k")
    point = group.generator * k
    for compressed in (True, False):
        encoded = encode_point(point, compressed=compressed)
        assert len(encoded) == point_size(group, compressed)
        decoded = decode_point(group, encoded)
        assert decoded == point
        assert encode_point(decoded, compressed=compressed) == encoded


@pytest.mark.parametrize("group", GROUPS, ids=GROUP_IDS)
def test_the_sign_flag_selects_between_p_and_minus_p(group: Group, rng: random.Random) -> None:
    point = group.generator * rng.randrange(1, group.order)
    a, b = encode_point(point, compressed=True), encode_point(-point, compressed=True)
    sign = 0x20 if group.name.startswith("bls12_381") else 0x40
    assert a[0] ^ b[0] == sign and a[1:] == b[1:]
    assert decode_point(group, b) == -point


@pytest.mark.parametrize("group", GROUPS, ids=GROUP_IDS)
def test_uncompressed_jacobian_input_is_normalized(group: Group) -> None:
    """A point with Z ≠ 1 encodes as its affine form (X/Z², Y/Z³)."""
    p = group.generator.double() + group.generator
    assert not (p.Z - group.field.one()).is_zero()
    assert encode_point(p, compressed=False) == encode_point(p.normalize(), compressed=False)


# --- field elements and scalars --------------------------------------------------------------------------------


def test_field_elements_round_trip(curve: Curve, rng: random.Random) -> None:
    size = (curve.q.bit_length() + 7) // 8
    for _ in range(20):
        a = curve.Fq(rng.randrange(curve.q))
        b = curve.Fq2(rng.randrange(curve.q), rng.randrange(curve.q))
        assert encode_fq(a) == a.value.to_bytes(size, "big")
        assert decode_fq(curve.Fq, encode_fq(a)) == a
        assert encode_fq2(b) == b.c1.value.to_bytes(size, "big") + b.c0.value.to_bytes(size, "big")
        assert decode_fq2(curve.Fq2, encode_fq2(b)) == b


def test_lexicographic_order(curve: Curve) -> None:
    half = (curve.q - 1) // 2
    Fq, Fq2 = curve.Fq, curve.Fq2
    assert not is_lexicographically_largest(Fq(0))
    assert not is_lexicographically_largest(Fq(half))
    assert is_lexicographically_largest(Fq(half + 1))
    assert is_lexicographically_largest(Fq(-1))
    # Fq2: c1 decides; c0 only when c1 = 0.
    assert is_lexicographically_largest(Fq2(0, half + 1))
    assert not is_lexicographically_largest(Fq2(-1, half))
    assert is_lexicographically_largest(Fq2(half + 1, 0))
    assert not is_lexicographically_largest(Fq2(half, 0))
    assert not is_lexicographically_largest(Fq2(0, 0))


# Parametrized directly rather than through the ``curve`` fixture: hypothesis refuses function-scoped fixtures.
@pytest.mark.parametrize("curve", [BLS12_381, BN254], ids=lambda c: c.name)
@given(data=st.data())
def test_scalar_round_trip(curve: Curve, data: st.DataObject) -> None:
    value = data.draw(st.integers(min_value=0, max_value=curve.r - 1), label="s")
    s = curve.Fr(value)
    encoded = encode_scalar(s)
    assert len(encoded) == SCALAR_SIZE == 32
    assert encoded == value.to_bytes(32, "little")
    decoded = decode_scalar(curve.Fr, encoded)
    assert type(decoded) is curve.Fr and decoded == s


def test_scalar_edge_values(curve: Curve) -> None:
    assert encode_scalar(curve.Fr(1)) == b"\x01" + bytes(31)
    assert decode_scalar(curve.Fr, bytes(32)) == curve.Fr(0)
    top = (curve.r - 1).to_bytes(32, "little")
    assert decode_scalar(curve.Fr, top) == curve.Fr(-1)
    assert encode_scalar(curve.Fr(-1)) == top


def test_a_group_of_another_curve_has_no_format() -> None:
    toy = Group("toy.G1", BN254.Fq, BN254.Fq(3), BN254.r, 1, BN254.Fr)
    with pytest.raises(CuzkError, match=r"no canonical encoding is defined for toy\.G1"):
        decode_point(toy, bytes(64))
    with pytest.raises(CuzkError, match=r"no canonical encoding is defined for toy\.G1"):
        encode_point(toy.identity(), compressed=True)
