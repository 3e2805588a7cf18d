"""Independent readers: what a file means according to its format's description, or why it is not valid.

Written from the format descriptions in the modules' docstrings (iden3 binfileutils, r1csfile, snarkjs's
wtns_utils/zkey_utils, ffjavascript's JSON), in plain Python — struct and integers, no numpy, no Montgomery
helpers, no code shared with the readers under test — so that a reader that accepts what it should refuse, or
reads a wrong value, disagrees with them. Each returns a summary of plain ints and tuples; the tests compute the
same summary from the reader's result.

Rules the readers adopt beyond the letter of the formats are spelled out here too: the field size n8 is the
prime's width in whole 64-bit words (as circom and snarkjs write it), a prime is odd, decimal numbers in JSON are
ASCII digits only (ffjavascript's /^[0-9]+$/), and the zkey's coefficient rows end with the public-input rows.
"""

from __future__ import annotations

import functools
import json
import re
import struct
from typing import Any

from cuzk.reference.curves import BLS12_381, BN254, Curve

from ._harness import AcceptOnly, Invalid, Valid, Verdict


class InputError(Exception):
    """The input is not valid; the message says why."""


def verdict(read: Any, raw: bytes) -> Verdict:
    try:
        return Valid(read(raw))
    except InputError as exc:
        return Invalid(str(exc))


def accept_only(summary: Any) -> Verdict:
    return AcceptOnly(summary)


# --- the iden3 container ---------------------------------------------------------------------------------------


class Sections:
    """The sections of an iden3 file, by id, as binfileutils' readBinFile finds them."""

    def __init__(self, raw: bytes, magic: bytes, versions: tuple[int, ...]) -> None:
        if len(raw) < 12:
            raise InputError("shorter than the 12-byte header")
        if raw[:4] != magic:
            raise InputError("wrong magic")
        version, count = struct.unpack_from("<II", raw, 4)
        if version not in versions:
            raise InputError(f"version {version}")
        self.found: dict[int, list[bytes]] = {}
        pos = 12
        for _ in range(count):  # a lying count ends at the end of the file: each section header is 12 bytes
            if pos + 12 > len(raw):
                raise InputError("the file ends inside the section table")
            section_id, size = struct.unpack_from("<IQ", raw, pos)
            if pos + 12 + size > len(raw):
                raise InputError(f"section {section_id} runs past the end of the file")
            self.found.setdefault(section_id, []).append(raw[pos + 12 : pos + 12 + size])
            pos += 12 + size

    def one(self, section_id: int) -> bytes:
        found = self.found.get(section_id, [])
        if len(found) != 1:
            raise InputError(f"section {section_id} appears {len(found)} times")
        return found[0]


class Reader:
    """Reads one section's content front to back; reading past its end or leaving bytes unread is InputError."""

    def __init__(self, content: bytes, what: str) -> None:
        self.content, self.pos, self.what = content, 0, what

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.content):
            raise InputError(f"{self.what} ends early")
        self.pos += n
        return self.content[self.pos - n : self.pos]

    def uint(self, n: int) -> int:
        return int.from_bytes(self.take(n), "little")

    def end(self) -> None:
        if self.pos != len(self.content):
            raise InputError(f"{self.what} has {len(self.content) - self.pos} bytes too many")


def words_bytes(modulus: int) -> int:
    """The bytes of an element of Z/modulus as iden3 files store it: whole 64-bit words."""
    return 8 * ((modulus.bit_length() + 63) // 64)


def field_header(reader: Reader) -> tuple[int, int]:
    """n8 and the prime, as .r1cs and .wtns headers start."""
    n8 = reader.uint(4)
    if n8 == 0 or n8 % 8 or n8 > 64:
        raise InputError(f"n8 = {n8}")
    prime = reader.uint(n8)
    if prime < 3 or prime % 2 == 0 or n8 != words_bytes(prime):
        raise InputError(f"prime {prime} with n8 = {n8}")
    return n8, prime


# --- .wtns -----------------------------------------------------------------------------------------------------


def read_wtns(raw: bytes) -> tuple[Any, ...]:
    sections = Sections(raw, b"wtns", (1, 2))
    header = Reader(sections.one(1), "the header")
    n8, prime = field_header(header)
    count = header.uint(4)
    header.end()
    body = sections.one(2)
    if len(body) != count * n8:
        raise InputError(f"{len(body)} bytes of witness for {count} values")
    values = tuple(int.from_bytes(body[i : i + n8], "little") for i in range(0, len(body), n8))
    if any(v >= prime for v in values):
        raise InputError("a value ≥ the prime")
    if values and values[0] != 1:
        raise InputError("z_0 ≠ 1")
    return prime, values


# --- .r1cs -----------------------------------------------------------------------------------------------------


def read_r1cs(raw: bytes) -> tuple[Any, ...]:
    sections = Sections(raw, b"r1cs", (1,))
    header = Reader(sections.one(1), "the header")
    n8, prime = field_header(header)
    wires, outputs, public, private = (header.uint(4) for _ in range(4))
    labels, m = header.uint(8), header.uint(4)
    header.end()
    if 1 + outputs + public + private > wires:
        raise InputError("the signals do not fit in the wires")
    for gates in (4, 5):
        if gates in sections.found and len(sections.one(gates)) > 4:
            raise InputError("custom gates")
    body = Reader(sections.one(2), "the constraints")
    matrices: list[list[tuple[int, int, int]]] = [[], [], []]
    for row in range(m):
        for k in range(3):
            for _ in range(body.uint(4)):
                wire, coefficient = body.uint(4), body.uint(n8)
                if wire >= wires or coefficient >= prime:
                    raise InputError(f"a term of row {row}: wire {wire}, coefficient {coefficient}")
                matrices[k].append((row, wire, coefficient))
    body.end()
    return (prime, n8, wires, outputs, public, private, labels, m, *(tuple(t) for t in matrices))


# --- .zkey -----------------------------------------------------------------------------------------------------

SNARKJS_CURVES = {BN254.q: BN254, BLS12_381.q: BLS12_381}


def _fq2_mul(a: tuple[int, int], b: tuple[int, int], q: int) -> tuple[int, int]:
    return (a[0] * b[0] - a[1] * b[1]) % q, (a[0] * b[1] + a[1] * b[0]) % q


def on_curve(curve: Curve, group: str, x: Any, y: Any) -> bool:
    """y² = x³ + b, on integers (G1) or pairs c0 + c1·u with u² = −1 (G2: both curves' Fq2)."""
    q = curve.q
    if group == "g1":
        return (y * y - x * x * x - curve.g1.b.value) % q == 0
    b = (curve.g2.b.c0.value, curve.g2.b.c1.value)
    x3 = _fq2_mul(_fq2_mul(x, x, q), x, q)
    return _fq2_mul(y, y, q) == ((x3[0] + b[0]) % q, (x3[1] + b[1]) % q)


def montgomery_point(curve: Curve, group: str, data: bytes) -> Any:
    """A stored affine point: Montgomery coordinates (x.c0, x.c1 for G2), zeros = infinity (None)."""
    n8 = words_bytes(curve.q)
    stored = [int.from_bytes(data[i : i + n8], "little") for i in range(0, len(data), n8)]
    if any(v >= curve.q for v in stored):
        raise InputError("a coordinate ≥ q")
    if not any(stored):
        return None
    r_inv = pow(1 << (8 * n8), -1, curve.q)
    c = [v * r_inv % curve.q for v in stored]
    x, y = (c[0], c[1]) if group == "g1" else ((c[0], c[1]), (c[2], c[3]))
    if not on_curve(curve, group, x, y):
        raise InputError(f"a {group} point off the curve")
    return x, y


def points(curve: Curve, group: str, content: bytes, count: int) -> tuple[Any, ...]:
    size = (2 if group == "g1" else 4) * words_bytes(curve.q)
    if len(content) != count * size:
        raise InputError(f"{len(content)} bytes for {count} points")
    return tuple(montgomery_point(curve, group, content[i * size : (i + 1) * size]) for i in range(count))


def read_zkey(raw: bytes) -> tuple[Any, ...]:
    sections = Sections(raw, b"zkey", (1, 2))
    protocol = Reader(sections.one(1), "the protocol section")
    if protocol.uint(4) != 1:
        raise InputError("not Groth16")
    protocol.end()
    header = Reader(sections.one(2), "the header")
    n8q = header.uint(4)
    if n8q == 0 or n8q % 8 or n8q > 64:
        raise InputError(f"n8q = {n8q}")
    curve = SNARKJS_CURVES.get(header.uint(n8q))
    if curve is None or n8q != words_bytes(curve.q):
        raise InputError("unknown q")
    n8r = header.uint(4)
    if n8r != words_bytes(curve.r) or header.uint(n8r) != curve.r:
        raise InputError("wrong r")
    variables, public, n = header.uint(4), header.uint(4), header.uint(4)
    if variables < public + 1 or n == 0 or n & (n - 1) or n < public + 1 or 2 * n > 1 << curve.Fr.TWO_ADICITY:
        raise InputError(f"nVars = {variables}, nPublic = {public}, domainSize = {n}")
    g1_size, g2_size = 2 * words_bytes(curve.q), 4 * words_bytes(curve.q)
    head = tuple(
        montgomery_point(curve, group, header.take(g1_size if group == "g1" else g2_size))
        for group in ("g1", "g1", "g2", "g2", "g1", "g2")
    )
    header.end()
    ic = points(curve, "g1", sections.one(3), public + 1)
    coefficients = Reader(sections.one(4), "the coefficients")
    count = coefficients.uint(4)
    record = 12 + words_bytes(curve.r)
    if len(coefficients.content) != 4 + count * record:
        raise InputError("the coefficient count does not match the section")
    entries = []
    for _ in range(count):
        matrix, row, signal = struct.unpack("<III", coefficients.take(12))
        value = coefficients.uint(words_bytes(curve.r))
        if matrix > 1 or row >= n or signal >= variables or value >= curve.r:
            raise InputError(f"coefficient ({matrix}, {row}, {signal}, {value})")
        entries.append((matrix, row, signal, value))
    if entries and max(e[1] for e in entries) < public:
        raise InputError("no room for the public-input rows")
    tables = tuple(
        points(curve, group, sections.one(section_id), count)
        for section_id, group, count in (
            (5, "g1", variables),
            (6, "g1", variables),
            (7, "g2", variables),
            (8, "g1", variables - public - 1),
            (9, "g1", n),
        )
    )
    return (curve.name, variables, public, n, head, ic, tuple(entries), tables)


# --- snarkjs JSON ----------------------------------------------------------------------------------------------

CURVE_NAMES = {
    "bn254": BN254,
    "bn128": BN254,
    "alt_bn128": BN254,
    "bls12_381": BLS12_381,
    "bls12381": BLS12_381,
    "bls12-381": BLS12_381,
}
DIGITS = re.compile(r"[0-9]+")


MAX_DEPTH = 64


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects, brackets inside strings not counted."""
    deepest = level = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            level += 1
            deepest = max(deepest, level)
        elif ch in "]}":
            level -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise InputError(f"{name} is not a number")


def load_json(raw: bytes) -> Any:
    try:
        text = raw.decode("utf-8")
    except ValueError:
        raise InputError("not UTF-8") from None
    if depth(text) > MAX_DEPTH:  # never handed to json: see snarkjs_json.nesting_depth
        raise InputError("nested too deeply")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, bad UTF-8, a number of more than 4300 digits
        raise InputError(f"not JSON: {type(exc).__name__}") from None


def number(value: Any, modulus: int) -> int:
    if isinstance(value, str) and DIGITS.fullmatch(value):
        digits = value.lstrip("0") or "0"
        if len(digits) > len(str(modulus)):
            raise InputError("a number too large")
        result = int(digits)
    else:  # JSON numbers too: snarkjs writes decimal strings, and cuzk reads nothing else
        raise InputError(f"not a decimal number: {value!r:.40}")
    if not 0 <= result < modulus:
        raise InputError("a number out of range")
    return result


def _fq2_inverse(a: tuple[int, int], q: int) -> tuple[int, int]:
    norm = pow(a[0] * a[0] + a[1] * a[1], -1, q)
    return a[0] * norm % q, -a[1] * norm % q


@functools.lru_cache(maxsize=4096)
def in_subgroup(curve_name: str, group: str, x: Any, y: Any) -> bool:
    """[r]P = O, by the reference's scalar multiplication (slow: cached, mutated files repeat their points)."""
    curve = CURVE_NAMES[curve_name]
    grp = curve.g1 if group == "g1" else curve.g2
    field = grp.field
    point = grp.point_unchecked(field(x), field(y)) if group == "g1" else grp.point_unchecked(field(*x), field(*y))
    return bool(point.mul_unreduced(curve.r).is_identity())


def json_point(curve: Curve, group: str, value: Any) -> Any:
    """ffjavascript's Jacobian triple → the affine point (None: infinity), checked on the curve and subgroup."""
    q = curve.q
    if not isinstance(value, list) or len(value) != 3:
        raise InputError("a point is not a list of 3")
    if group == "g1":
        x, y, z = (number(v, q) for v in value)
        if z == 0:
            return None
        z_inv = pow(z, -1, q)
        ax, ay = x * z_inv * z_inv % q, y * pow(z_inv, 3, q) % q
    else:
        if not all(isinstance(c, list) and len(c) == 2 for c in value):
            raise InputError("a G2 coordinate is not a pair")
        x, y, z = (tuple(number(v, q) for v in c) for c in value)
        if z == (0, 0):
            return None
        z_inv = _fq2_inverse(z, q)
        z_inv2 = _fq2_mul(z_inv, z_inv, q)
        ax, ay = _fq2_mul(x, z_inv2, q), _fq2_mul(_fq2_mul(y, z_inv2, q), z_inv, q)
    if not on_curve(curve, group, ax, ay):
        raise InputError("off the curve")
    if not in_subgroup(curve.name, group, ax, ay):
        raise InputError("outside the subgroup")
    return ax, ay


def _groth16_object(raw: bytes) -> tuple[dict[str, Any], Curve]:
    obj = load_json(raw)
    if not isinstance(obj, dict) or obj.get("protocol") != "groth16":
        raise InputError("not a groth16 object")
    name = obj.get("curve")
    if not isinstance(name, str) or name.lower() not in CURVE_NAMES:
        raise InputError("no known curve")
    return obj, CURVE_NAMES[name.lower()]


def _field(obj: dict[str, Any], key: str) -> Any:
    if key not in obj:
        raise InputError(f"{key} is missing")
    return obj[key]


def read_proof(raw: bytes) -> tuple[Any, ...]:
    obj, curve = _groth16_object(raw)
    groups = {"pi_a": "g1", "pi_b": "g2", "pi_c": "g1"}
    return (curve.name, *(json_point(curve, group, _field(obj, key)) for key, group in groups.items()))


def read_public(curve: Curve, raw: bytes) -> tuple[int, ...]:
    values = load_json(raw)
    if not isinstance(values, list):
        raise InputError("not a list")
    return tuple(number(v, curve.r) for v in values)


def read_verifying_key(raw: bytes) -> tuple[Any, ...]:
    obj, curve = _groth16_object(raw)
    head = [
        json_point(curve, group, _field(obj, key))
        for key, group in (("vk_alpha_1", "g1"), ("vk_beta_2", "g2"), ("vk_gamma_2", "g2"), ("vk_delta_2", "g2"))
    ]
    ic = _field(obj, "IC")
    if not isinstance(ic, list) or not ic:
        raise InputError("IC is not a non-empty list")
    if "nPublic" in obj:
        n_public = obj["nPublic"]
        if not isinstance(n_public, int) or isinstance(n_public, bool) or n_public != len(ic) - 1:
            raise InputError("nPublic does not match IC")
    return (curve.name, *head, tuple(json_point(curve, "g1", p) for p in ic))


# --- circom's .sym ---------------------------------------------------------------------------------------------

WIRE = re.compile(r"-?[0-9]{1,20}")


def read_sym(raw: bytes) -> tuple[tuple[int, str], ...]:
    """Lines ending in "\\n", each UTF-8 "label,wire,component,name"; the first name of each wire ≥ 0 is kept."""
    names: dict[int, str] = {}
    pieces = raw.split(b"\n")  # each piece but the last ended with "\n"; the last is a line when not empty
    for line in [p + b"\n" for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else []):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("not UTF-8") from None
        fields = text.rstrip("\r\n").split(",", 3)
        if len(fields) != 4 or not WIRE.fullmatch(fields[1]):
            raise InputError(f"not a symbol line: {text!r:.60}")
        if int(fields[1]) >= 0:
            names.setdefault(int(fields[1]), fields[3])
    return tuple(sorted(names.items()))
