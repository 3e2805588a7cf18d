"""snarkjs's JSON files: proof.json, public.json and verification_key.json, written as snarkjs writes them.

    proof.json   {"pi_a": [x, y, "1"], "pi_b": [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]], "pi_c": [x, y, "1"],
                  "protocol": "groth16", "curve": "bn128" | "bls12381"}
    public.json  ["z_1", …, "z_nPublic"]: the public signals (outputs first, then public inputs)
    verification_key.json  {"protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2",
                  "vk_alphabeta_12": e(α, β) ∈ Fq12 as [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]], "IC": [...]}

Numbers are decimal strings of ASCII digits (ffjavascript's /^[0-9]+$/; JSON numbers are refused); points are
ffjavascript's Jacobian triples (X, Y, Z) — affine with Z = 1 as snarkjs writes them, the point at infinity with
Z = 0 — and every point read is checked to lie on its curve and in the order-r subgroup (a proof is
attacker-controlled input). The layout matches snarkjs byte for byte (one space of
indentation, no trailing newline), so a file cuzk writes diffs clean against snarkjs's for the same key.
"""

from __future__ import annotations

import json
import os
from typing import Any

from cuzk.formats import json_bounded
from cuzk.formats.errors import (
    CurveMismatchError,
    FormatError,
    InvalidPointError,
    ValueOutOfRangeError,
    WitnessMismatchError,
)
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


def _shown(value: Any, limit: int = 40) -> str:
    """``value`` as an error message shows it (a string quoted, anything else as JSON), cut short: a file can hold
    megabytes of it."""
    try:
        text = repr(value) if isinstance(value, str) else json.dumps(value)
    except (ValueError, RecursionError):  # an int of more digits than Python prints, or a deep nesting
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _integer_text(number: int) -> str:
    """A number for a message: its digits, or how many there are when they are too many to show."""
    digits = len(str(number)) if number.bit_length() < 10_000 else None
    if digits is not None and digits <= 120:
        return str(number)
    return f"a number of {digits} digits" if digits is not None else f"a number of {number.bit_length()} bits"


def _number(value: Any, modulus: int, where: str, path: str) -> int:
    """A decimal string (ASCII digits, as ffjavascript's /^[0-9]+$/; a leading "-" reads as a negative number),
    checked to be in [0, modulus).

    Python's int() would also take "1_000", " 1", "+1" and Unicode digits: each is refused here, so a file means
    the same number to cuzk as to snarkjs. A JSON number is refused too: snarkjs never writes one, and reads one
    through a double, so that its meaning would depend on its size (exact below 2^53, rounded above). Leading
    zeros are read, as ffjavascript reads them (the file's budget bounds them); the significant digits are
    counted before converting, so no more than the modulus's are ever converted.
    """
    if not isinstance(value, str):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        why = " (a JSON number: snarkjs's files hold numbers as strings)" if number else ""
        raise FormatError(path, f"{where}: expected a decimal string, got {_shown(value)}{why}")
    negative = value.startswith("-")
    digits = value[1:] if negative else value
    if not (digits.isascii() and digits.isdigit()):
        raise FormatError(path, f"{where}: {_shown(value)} is not a decimal number")
    significant = digits.lstrip("0") or "0"
    shown = significant if len(significant) <= 120 else f"a number of {len(significant)} digits"
    if negative or len(significant) > len(str(modulus)):
        raise ValueOutOfRangeError(path, f"{where}: {'-' if negative else ''}{shown} is not in [0, {modulus})")
    number = int(significant)
    if not 0 <= number < modulus:
        raise ValueOutOfRangeError(path, f"{where}: {_integer_text(number)} is not in [0, {modulus})")
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
    """Write ``value`` as snarkjs does, atomically: a failure leaves the previous file whole (and no temporary)."""
    from cuzk.formats.outputs import write_atomic

    write_atomic(path, dumps(value))


# What each file can need, so that a reader never holds more (see cuzk.formats.json_bounded): measured on the files
# snarkjs writes (tests/fixtures/snarkjs), with room for any other indentation and a few extra fields.
MAX_DEPTH = json_bounded.MAX_DEPTH
nesting_depth = json_bounded.nesting_depth
PROOF_BUDGET = 64 << 10  # a proof.json is 805 bytes on BN254, 1115 on BLS12-381
MAX_PUBLIC = 1 << 16  # public inputs a verification_key.json may have: its budget grows with them
IC_POINT_BYTES = 512  # an IC point takes 181 bytes on BN254, 257 on BLS12-381
SIGNAL_BYTES = 128  # a public signal takes at most 82 bytes: 77 digits, quotes, comma, newline, indentation
SLACK = 64 << 10  # the rest of a verification_key.json is under 4 KiB; public.json's brackets a few bytes
VK_BUDGET = SLACK + (MAX_PUBLIC + 1) * IC_POINT_BYTES


def public_budget(n_public: int | None = None) -> int:
    """The most bytes a public.json of ``n_public`` signals can need (of :data:`MAX_PUBLIC`, for no key)."""
    return SLACK + (MAX_PUBLIC if n_public is None else max(n_public, 0)) * SIGNAL_BYTES


def read_json(path: str | os.PathLike[str], budget: int = VK_BUDGET, what: str = "a snarkjs JSON file") -> Any:
    """The JSON value in the file; FormatError when it is larger than ``budget`` bytes (``what`` names what the
    budget is for), cannot be read, is not UTF-8 JSON as ``JSON.parse`` reads it (no NaN, no Infinity), or nests
    more than :data:`MAX_DEPTH` deep. Memory and time stay proportional to the budget whatever the file holds."""
    path = os.fspath(path)
    return json_bounded.load(path, budget, what)


def _curve(obj: dict[str, Any], path: str, curve: Curve | str | None) -> Curve:
    if "curve" not in obj:
        raise FormatError(path, 'the "curve" field is missing (bn128 or bls12381)')
    name = obj["curve"]
    if not isinstance(name, str):
        raise FormatError(path, f'the "curve" field is {_shown(name)}, not a name (bn128 or bls12381)')
    try:
        found = curve_by_name(name)
    except CuzkError:
        raise CurveMismatchError(path, f"unknown curve {_shown(name)}: expected bn128 or bls12381") from None
    if curve is not None and (curve_by_name(curve) if isinstance(curve, str) else curve) is not found:
        raise CurveMismatchError(
            path, f"the file is for {name}, not for {curve if isinstance(curve, str) else curve.name}"
        )
    return found


def _protocol(obj: Any, path: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise FormatError(path, "expected a JSON object")
    if obj.get("protocol") != PROTOCOL:
        raise FormatError(path, f'the protocol is {_shown(obj.get("protocol"))}, not "groth16"')
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
    """The proof in proof.json and its curve (``curve`` given: another curve is an error); at most
    :data:`PROOF_BUDGET` bytes are read."""
    path = os.fspath(path)
    obj = _protocol(read_json(path, PROOF_BUDGET, "a proof.json"), path)
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


def read_public(path: str | os.PathLike[str], curve: Curve, n_public: int | None = None) -> list[int]:
    """The public signals of public.json, each checked to be < r.

    With ``n_public`` (the key's nPublic) the file may take only what that many signals can need
    (:func:`public_budget`), and their count is checked on the raw bytes before any is parsed or converted
    (WitnessMismatchError when it differs): a file of millions of "1" against a key of 3 costs what reading 3
    signals' budget costs. The signals are then parsed and converted one at a time, so the text and the numbers
    are all that is ever held.
    """
    path = os.fspath(path)
    what = "a public.json" if n_public is None else f"a public.json of {n_public} signals"
    data, structure = json_bounded.read_checked(path, public_budget(n_public), what)
    if not json_bounded.is_array(data):
        json_bounded.parse(json_bounded.decode_text(data, path), path)  # not JSON: say so as json does
        raise FormatError(path, "expected a JSON list of decimal strings")
    if n_public is not None and structure.top_level_commas + 1 != max(n_public, 1):  # [] and [x] have no comma
        raise WitnessMismatchError(
            path, f"has {structure.top_level_commas + 1} public signals, but the key expects {n_public} (nPublic)"
        )
    text = json_bounded.decode_text(data, path)
    signals = [
        _number(v, curve.r, f"public signal {i}", path) for i, v in enumerate(json_bounded.array_items(text, path))
    ]
    if n_public is not None and len(signals) != n_public:
        raise WitnessMismatchError(path, f"has {len(signals)} public signals, but the key expects {n_public} (nPublic)")
    return signals


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
    """verification_key.json → VerifyingKey (vk_alphabeta_12 is not needed and not read, but must be JSON as
    ``JSON.parse`` reads it: no NaN). At most :data:`VK_BUDGET` bytes are read; "IC" is counted against
    "nPublic" before any point is converted."""
    path = os.fspath(path)
    obj = _protocol(read_json(path, VK_BUDGET, f"a verification_key.json (nPublic at most {MAX_PUBLIC})"), path)
    c = _curve(obj, path, curve)
    for key in ("vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "IC"):
        if key not in obj:
            raise FormatError(path, f'the "{key}" field is missing')
    ic = obj["IC"]
    if not isinstance(ic, list) or not ic:
        raise FormatError(path, '"IC" must be a non-empty list of G1 points')
    n_public = obj.get("nPublic", len(ic) - 1)
    if isinstance(n_public, bool) or not isinstance(n_public, int):
        raise FormatError(path, f'"nPublic" must be an integer, got {_shown(n_public)}')
    if n_public != len(ic) - 1:
        raise FormatError(
            path, f'"nPublic" is {_integer_text(n_public)} but "IC" has {len(ic)} points (nPublic + 1 expected)'
        )
    if n_public > MAX_PUBLIC:  # each point costs milliseconds to check: refused before the first is converted
        raise FormatError(path, f'"nPublic" is {n_public}, more than the {MAX_PUBLIC} public inputs cuzk reads')
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
