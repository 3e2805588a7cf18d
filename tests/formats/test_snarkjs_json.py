"""proof.json, public.json and verification_key.json: round trips, snarkjs's layout, and hostile input refused."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cuzk.formats import snarkjs_json
from cuzk.formats.errors import CurveMismatchError, FormatError, InvalidPointError, ValueOutOfRangeError
from cuzk.reference.curves import BN254, Curve
from cuzk.reference.groth16 import Proof, VerifyingKey


def _proof(curve: Curve, seed: int = 1) -> Proof:
    rng = random.Random(seed)
    return Proof(
        curve.g1.generator * rng.randrange(curve.r),
        curve.g2.generator * rng.randrange(curve.r),
        curve.g1.generator * rng.randrange(curve.r),
    )


def test_proof_round_trip(curve: Curve, tmp_path: Path) -> None:
    proof = _proof(curve)
    snarkjs_json.write_proof(tmp_path / "proof.json", proof)
    text = (tmp_path / "proof.json").read_text()
    assert text.startswith('{\n "pi_a": [\n  "') and text.endswith("\n}")  # JSON.stringify(…, null, 1)
    obj = json.loads(text)
    assert obj["protocol"] == "groth16" and obj["curve"] == {"bn254": "bn128", "bls12_381": "bls12381"}[curve.name]
    assert obj["pi_b"][2] == ["1", "0"]
    assert snarkjs_json.read_proof(tmp_path / "proof.json") == (proof, curve)


def test_points_at_infinity(curve: Curve) -> None:
    """ffjavascript writes the identity as (0, 1, 0); any Jacobian triple with Z = 0 reads as the identity."""
    assert snarkjs_json.point_to_json(curve.g1.identity()) == ["0", "1", "0"]
    assert snarkjs_json.point_to_json(curve.g2.identity()) == [["0", "0"], ["1", "0"], ["0", "0"]]
    assert snarkjs_json.point_from_json(curve.g1, ["0", "1", "0"], "p", "f").is_identity()


def test_jacobian_triples_are_read(curve: Curve) -> None:
    point = curve.g1.generator * 5
    z = curve.Fq(7)
    x, y = point.to_affine()  # type: ignore[misc]
    jacobian = [str((x * z * z).value), str((y * z * z * z).value), str(z.value)]
    assert snarkjs_json.point_from_json(curve.g1, jacobian, "p", "f") == point


def test_verifying_key_round_trip(curve: Curve, tmp_path: Path) -> None:
    g1, g2 = curve.g1.generator, curve.g2.generator
    vk = VerifyingKey(curve, g1 * 2, g2 * 3, g2 * 5, g2 * 7, [g1 * 11, g1 * 13, curve.g1.identity()])
    snarkjs_json.write_verifying_key(tmp_path / "vk.json", vk)
    obj = json.loads((tmp_path / "vk.json").read_text())
    assert list(obj) == [
        "protocol",
        "curve",
        "nPublic",
        "vk_alpha_1",
        "vk_beta_2",
        "vk_gamma_2",
        "vk_delta_2",
        "vk_alphabeta_12",
        "IC",
    ]
    assert obj["nPublic"] == 2 and len(obj["vk_alphabeta_12"]) == 2 and len(obj["vk_alphabeta_12"][0]) == 3
    assert snarkjs_json.read_verifying_key(tmp_path / "vk.json") == vk


def test_alphabeta_is_ffjavascripts_pairing_power(curve: Curve) -> None:
    m = snarkjs_json.ffjavascript_pairing_exponent(curve)
    assert 0 < m < curve.r and m % curve.r != 1
    assert (
        snarkjs_json.ffjavascript_pairing_exponent(BN254) == 2 * BN254.x * (6 * BN254.x**2 + 3 * BN254.x + 1) % BN254.r
    )


def test_public_signals(curve: Curve, tmp_path: Path) -> None:
    snarkjs_json.write_public(tmp_path / "public.json", [0, 42, curve.r - 1])
    assert (tmp_path / "public.json").read_text() == f'[\n "0",\n "42",\n "{curve.r - 1}"\n]'
    assert snarkjs_json.read_public(tmp_path / "public.json", curve) == [0, 42, curve.r - 1]


@pytest.mark.parametrize(
    ("content", "error", "message"),
    [
        (
            '["1", "21888242871839275222246405745257275088548364400416034343698204186575808495617"]',
            ValueOutOfRangeError,
            r"public signal 1: 218\d+ is not in \[0, 218\d+\)",
        ),
        ('["-1"]', ValueOutOfRangeError, "public signal 0: -1 is not in"),
        ('["0x10"]', FormatError, "public signal 0: '0x10' is not a decimal number"),
        ("[1.5]", FormatError, "public signal 0: expected a decimal string, got 1.5"),
        ('{"a": 1}', FormatError, "expected a JSON list"),
        ("[", FormatError, "not valid JSON"),
    ],
)
def test_bad_public_signals(tmp_path: Path, content: str, error: type, message: str) -> None:
    (tmp_path / "public.json").write_text(content)
    with pytest.raises(error, match=message):
        snarkjs_json.read_public(tmp_path / "public.json", BN254)


def _write(path: Path, obj: object) -> Path:
    path.write_text(json.dumps(obj))
    return path


def test_bad_proofs(curve: Curve, tmp_path: Path) -> None:
    good = snarkjs_json.proof_to_json(_proof(curve))
    off = json.loads(json.dumps(good))
    off["pi_c"][0] = str((int(off["pi_c"][0]) + 1) % curve.q)
    with pytest.raises(InvalidPointError, match=r"p\.json: pi_c: the point is not on"):
        snarkjs_json.read_proof(_write(tmp_path / "p.json", off))
    big = json.loads(json.dumps(good))
    big["pi_a"][1] = str(curve.q)
    with pytest.raises(ValueOutOfRangeError, match=r"pi_a: .* is not in"):
        snarkjs_json.read_proof(_write(tmp_path / "p.json", big))
    with pytest.raises(CurveMismatchError, match="unknown curve 'bn256'"):
        snarkjs_json.read_proof(_write(tmp_path / "p.json", {**good, "curve": "bn256"}))
    with pytest.raises(FormatError, match="the protocol is 'plonk', not \"groth16\""):
        snarkjs_json.read_proof(_write(tmp_path / "p.json", {**good, "protocol": "plonk"}))
    with pytest.raises(FormatError, match='"pi_b" field is missing'):
        snarkjs_json.read_proof(_write(tmp_path / "p.json", {k: v for k, v in good.items() if k != "pi_b"}))
    with pytest.raises(FormatError, match="pi_b: each coordinate of a G2 point is a pair"):
        snarkjs_json.read_proof(_write(tmp_path / "p.json", {**good, "pi_b": good["pi_a"]}))


def test_g2_point_outside_the_subgroup(tmp_path: Path) -> None:
    """BN254's twist has points of order other than r: on the curve, yet refused (a small-subgroup attack)."""
    g2 = BN254.g2
    x = BN254.Fq2(1, 0)
    while not g2.rhs(x).is_square():
        x = x + BN254.Fq2(1, 0)
    point = g2.point(x, g2.rhs(x).sqrt())
    assert not point.is_in_subgroup()
    proof = snarkjs_json.proof_to_json(_proof(BN254))
    proof["pi_b"] = snarkjs_json.point_to_json(point)
    with pytest.raises(InvalidPointError, match=r"pi_b: the point is on bn254\.G2 but not in its order-r subgroup"):
        snarkjs_json.read_proof(_write(tmp_path / "p.json", proof))


def test_bad_verifying_keys(tmp_path: Path) -> None:
    g1, g2 = BN254.g1.generator, BN254.g2.generator
    good = snarkjs_json.verifying_key_to_json(VerifyingKey(BN254, g1, g2, g2, g2, [g1, g1]))
    with pytest.raises(FormatError, match='"nPublic" is 5 but "IC" has 2 points'):
        snarkjs_json.read_verifying_key(_write(tmp_path / "vk.json", {**good, "nPublic": 5}))
    with pytest.raises(FormatError, match='"IC" must be a non-empty list'):
        snarkjs_json.read_verifying_key(_write(tmp_path / "vk.json", {**good, "IC": []}))
    with pytest.raises(CurveMismatchError, match="the file is for bn128, not for bls12_381"):
        snarkjs_json.read_verifying_key(_write(tmp_path / "vk.json", good), "bls12_381")
    with pytest.raises(FormatError, match="cannot read"):
        snarkjs_json.read_verifying_key(tmp_path / "missing.json")
