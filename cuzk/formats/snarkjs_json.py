"""snarkjs's JSON files: proof.json, public.json and verification_key.json, written as snarkjs writes them.

    proof.json   {"pi_a": [x, y, "1"], "pi_b": [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]], "pi_c": [x, y, "1"],
                  "protocol": "groth16", "curve": "bn128" | "bls12381"}
    public.json  ["z_1", …, "z_nPublic"]: the public signals (outputs first, then public inputs)
    verification_key.json  {"protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2",
                  "vk_alphabeta_12": e(α, β) ∈ Fq12 as [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]], "IC": [...]}

Numbers are decimal strings; points are ffjavascript's Jacobian triples (X, Y, Z) — affine with Z = 1 as snarkjs
writes them, the point at infinity with Z = 0 — and every point read is checked to lie on its curve and in the
order-r subgroup (a proof is attacker-controlled input). The layout matches snarkjs byte for byte (one space of
indentation, no trailing newline), so a file cuzk writes diffs clean against snarkjs's for the same key.
"""

from __future__ import annotations

import json
import os
from typing import Any

from cuzk.formats.errors import CurveMismatchError, FormatError, InvalidPointError, ValueOutOfRangeError
from cuzk.formats.zkey import snarkjs_name
from cuzk.reference.curves import CURVES, Curve, Group, Point, curve_by_name
from cuzk.reference.errors import CuzkError
from cuzk.reference.fields import Fq2Element
from cuzk.reference.groth16 import Proof, VerifyingKey

PROTOCOL = "groth16"


# --- points and numbers ----------------------------------------------------------------------------------------


def _fq2(value: Any) -> list[str]:
    return [str(value.c0.value), str(value.c1.value)]


def point_to_json(point: Point) -> list[Any]:
    """[x, y, "1"] (G1) or [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]] (G2); infinity as ffjavascript writes it."""
    g2 = issubclass(point.group.field, Fq2Element)
    affine = point.to_affine()
    if affine is None:
        return [["0", "0"], ["1", "0"], ["0", "0"]] if g2 else ["0", "1", "0"]
    x, y = affine
    if g2:
        return [_fq2(x), _fq2(y), ["1", "0"]]
    return [str(x.value), str(y.value), "1"]


def _number(value: Any, modulus: int, where: str, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise FormatError(path, f"{where}: expected a decimal string, got {json.dumps(value)}")
    try:
        number = int(value, 10) if isinstance(value, str) else value
    except ValueError:
        raise FormatError(path, f"{where}: {value!r} is not a decimal number") from None
    if not 0 <= number < modulus:
        raise ValueOutOfRangeError(path, f"{where}: {number} is not in [0, {modulus})")
    return number


def point_from_json(group: Group, value: Any, where: str, path: str) -> Point:
    """A point of ``group`` from its JSON triple, checked to be on the curve and in the subgroup."""
    g2 = issubclass(group.field, Fq2Element)
    q = group.field.BASE.MODULUS if g2 else group.field.MODULUS
    if not isinstance(value, list) or len(value) != 3:
        raise FormatError(path, f"{where}: expected a list of 3 coordinates (X, Y, Z)")
    if g2:
        if not all(isinstance(c, list) and len(c) == 2 for c in value):
            raise FormatError(path, f"{where}: each coordinate of a G2 point is a pair [c0, c1]")
        x, y, z = (group.field(*(_number(v, q, where, path) for v in c)) for c in value)
    else:
        x, y, z = (group.field(_number(v, q, where, path)) for v in value)
    point = Point(group, x, y, z)  # ffjavascript's triples are Jacobian, as the reference's points
    if z.is_zero():
        return group.identity()
    if not point.is_on_curve():
        raise InvalidPointError(path, f"{where}: the point is not on {group.name}")
    if not point.is_in_subgroup():
        raise InvalidPointError(path, f"{where}: the point is on {group.name} but not in its order-r subgroup")
    return point.normalize()


# --- files -----------------------------------------------------------------------------------------------------


def dumps(value: Any) -> str:
    """JSON as snarkjs writes it (JSON.stringify(value, null, 1))."""
    return json.dumps(value, indent=1)


def write_json(path: str | os.PathLike[str], value: Any) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write(dumps(value))


def read_json(path: str | os.PathLike[str]) -> Any:
    try:
        with open(path, encoding="utf-8") as source:
            return json.load(source)
    except OSError as exc:
        raise FormatError(path, f"cannot read: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FormatError(path, f"not valid JSON: {exc}") from None


def _curve(obj: dict[str, Any], path: str, curve: Curve | str | None) -> Curve:
    name = obj.get("curve")
    if not isinstance(name, str):
        raise FormatError(path, 'the "curve" field is missing (bn128 or bls12381)')
    try:
        found = curve_by_name(name)
    except CuzkError:
        raise CurveMismatchError(path, f"unknown curve {name!r}: expected bn128 or bls12381") from None
    if curve is not None and (curve_by_name(curve) if isinstance(curve, str) else curve) is not found:
        raise CurveMismatchError(
            path, f"the file is for {name}, not for {curve if isinstance(curve, str) else curve.name}"
        )
    return found


def _protocol(obj: Any, path: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise FormatError(path, "expected a JSON object")
    if obj.get("protocol") != PROTOCOL:
        raise FormatError(path, f'the protocol is {obj.get("protocol")!r}, not "groth16"')
    return obj


def proof_to_json(proof: Proof) -> dict[str, Any]:
    curve = next(c for c in CURVES.values() if proof.a.group is c.g1)
    return {
        "pi_a": point_to_json(proof.a),
        "pi_b": point_to_json(proof.b),
        "pi_c": point_to_json(proof.c),
        "protocol": PROTOCOL,
        "curve": snarkjs_name(curve),
    }


def write_proof(path: str | os.PathLike[str], proof: Proof) -> None:
    write_json(path, proof_to_json(proof))


def read_proof(path: str | os.PathLike[str], curve: Curve | str | None = None) -> tuple[Proof, Curve]:
    """The proof in proof.json and its curve (``curve`` given: another curve is an error)."""
    path = os.fspath(path)
    obj = _protocol(read_json(path), path)
    c = _curve(obj, path, curve)
    for key in ("pi_a", "pi_b", "pi_c"):
        if key not in obj:
            raise FormatError(path, f'the "{key}" field is missing')
    return (
        Proof(
            a=point_from_json(c.g1, obj["pi_a"], "pi_a", path),
            b=point_from_json(c.g2, obj["pi_b"], "pi_b", path),
            c=point_from_json(c.g1, obj["pi_c"], "pi_c", path),
        ),
        c,
    )


def write_public(path: str | os.PathLike[str], signals: list[int]) -> None:
    write_json(path, [str(int(v)) for v in signals])


def read_public(path: str | os.PathLike[str], curve: Curve) -> list[int]:
    """The public signals of public.json, each checked to be < r."""
    path = os.fspath(path)
    values = read_json(path)
    if not isinstance(values, list):
        raise FormatError(path, "expected a JSON list of decimal strings")
    return [_number(v, curve.r, f"public signal {i}", path) for i, v in enumerate(values)]


def ffjavascript_pairing_exponent(curve: Curve) -> int:
    """m with ffjavascript's pairing = the reference's to the power m. Both are bilinear and non-degenerate; they
    differ in the hard part of the final exponentiation, where ffjavascript uses an addition chain for a multiple
    of (q⁴ − q² + 1)/r: 2u(6u² + 3u + 1) times it on BN254 (Fuentes-Castañeda, Knapp, Rodríguez-Henríquez, 2011),
    3 times it on BLS12-381. Only vk_alphabeta_12 shows it (no verifier reads it); the interop tests check the
    exported file against snarkjs's byte for byte."""
    if curve.family == "bn":
        u = curve.x
        return 2 * u * (6 * u * u + 3 * u + 1) % curve.r
    return 3


def verifying_key_to_json(vk: VerifyingKey) -> dict[str, Any]:
    """verification_key.json as ``snarkjs zkey export verificationkey`` writes it, vk_alphabeta_12 included
    (e(α, β) as ffjavascript computes it: see :func:`ffjavascript_pairing_exponent`)."""
    curve = vk.curve
    alphabeta = curve.pairing(vk.alpha_g1, vk.beta_g2) ** ffjavascript_pairing_exponent(curve)
    return {
        "protocol": PROTOCOL,
        "curve": snarkjs_name(curve),
        "nPublic": vk.num_public_inputs,
        "vk_alpha_1": point_to_json(vk.alpha_g1),
        "vk_beta_2": point_to_json(vk.beta_g2),
        "vk_gamma_2": point_to_json(vk.gamma_g2),
        "vk_delta_2": point_to_json(vk.delta_g2),
        "vk_alphabeta_12": [[_fq2(c) for c in half.coeffs] for half in alphabeta.coeffs],
        "IC": [point_to_json(p) for p in vk.gamma_abc_g1],
    }


def write_verifying_key(path: str | os.PathLike[str], vk: VerifyingKey) -> None:
    write_json(path, verifying_key_to_json(vk))


def read_verifying_key(path: str | os.PathLike[str], curve: Curve | str | None = None) -> VerifyingKey:
    """verification_key.json → VerifyingKey (vk_alphabeta_12 is not needed and not read)."""
    path = os.fspath(path)
    obj = _protocol(read_json(path), path)
    c = _curve(obj, path, curve)
    for key in ("vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "IC"):
        if key not in obj:
            raise FormatError(path, f'the "{key}" field is missing')
    ic = obj["IC"]
    if not isinstance(ic, list) or not ic:
        raise FormatError(path, '"IC" must be a non-empty list of G1 points')
    n_public = obj.get("nPublic", len(ic) - 1)
    if n_public != len(ic) - 1:
        raise FormatError(path, f'"nPublic" is {n_public} but "IC" has {len(ic)} points (nPublic + 1 expected)')
    return VerifyingKey(
        curve=c,
        alpha_g1=point_from_json(c.g1, obj["vk_alpha_1"], "vk_alpha_1", path),
        beta_g2=point_from_json(c.g2, obj["vk_beta_2"], "vk_beta_2", path),
        gamma_g2=point_from_json(c.g2, obj["vk_gamma_2"], "vk_gamma_2", path),
        delta_g2=point_from_json(c.g2, obj["vk_delta_2"], "vk_delta_2", path),
        gamma_abc_g1=[point_from_json(c.g1, p, f"IC[{i}]", path) for i, p in enumerate(ic)],
    )


__all__ = [
    "dumps",
    "ffjavascript_pairing_exponent",
    "point_from_json",
    "point_to_json",
    "proof_to_json",
    "read_json",
    "read_proof",
    "read_public",
    "read_verifying_key",
    "verifying_key_to_json",
    "write_json",
    "write_proof",
    "write_public",
    "write_verifying_key",
]
