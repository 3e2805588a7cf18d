"""The Groth16 .zkey proving key of snarkjs (src/zkey_utils.js), read into cuzk's keys (written back by
:mod:`cuzk.formats.zkey_write`).

    magic b"zkey", version 1
    section 1   protocol u32 (1 = Groth16; PLONK and FFLONK keys are refused)
    section 2   n8q u32, q, n8r u32, r, nVars u32, nPublic u32, domainSize u32,
                [α]₁, [β]₁, [β]₂, [γ]₂, [δ]₁, [δ]₂
    section 3   IC = gamma_abc_g1: nPublic + 1 G1 points
    section 4   nCoef u32, then nCoef × (matrix u32 (0 = A, 1 = B), constraint u32, signal u32, value n8r bytes)
    section 5   A = a_query (nVars G1)        section 6  B1 = b_g1_query (nVars G1)
    section 7   B2 = b_g2_query (nVars G2)    section 8  C = l_query (nVars − nPublic − 1 G1: the private signals)
    section 9   H = h_query (domainSize G1: [L_(2i+1)(τ)/δ]₁ on the odd 2n-th roots, the circom reduction)
    section 10  the ceremony's contributions (not needed to prove)

Points are affine, coordinates in Montgomery form (all zeros: infinity). A coefficient c is stored as c·R² mod r:
snarkjs multiplies it by a witness value in Montgomery arithmetic (c·R²·w·R⁻¹ = (c·w)·R), which lands the
product in Montgomery form. The key has only A and B: snarkjs computes C's evaluations as A·B (zkey_new.js drops C).
The matrix rows are the constraints, then one row per public signal and the constant (A = that signal).

Rows and H points are in snarkjs's domain order; :meth:`ZKey.proving_key` returns a key in the reference's
(see :mod:`cuzk.formats.domain`). Every section's size is checked against what the header implies, every point
of the header and IC against its curve, and (unless ``check_points=False``) every point of the bulk sections.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import Backend
from cuzk.formats import domain
from cuzk.formats.binfile import BinFile, Cursor
from cuzk.formats.coefficients import FR_BYTES, Coefficients, split_records
from cuzk.formats.errors import CurveMismatchError, InvalidPointError, ValueOutOfRangeError
from cuzk.formats.points import PointDecoder, PointTable, decode_table, field_bytes, point_bytes
from cuzk.formats.stored import StoredTable
from cuzk.reference.curves import CURVES, Curve, Point, curve_by_name
from cuzk.reference.groth16 import ProvingKey, VerifyingKey
from cuzk.reference.qap import Reduction

MAGIC = b"zkey"
VERSION = 1
GROTH16 = 1
PROTOCOLS = {1: "Groth16", 2: "PLONK", 10: "FFLONK"}
SECTIONS = {
    1: "protocol",
    2: "Groth16 header",
    3: "IC",
    4: "coefficients",
    5: "A points",
    6: "B1 points",
    7: "B2 points",
    8: "C points",
    9: "H points",
    10: "contributions",
}
SNARKJS_NAMES = {"bn254": "bn128", "bls12_381": "bls12381"}


def snarkjs_name(curve: Curve) -> str:
    """The curve's name in snarkjs's files (bn128, bls12381)."""
    return SNARKJS_NAMES[curve.name]


@dataclass(frozen=True)
class ZKey:
    """A Groth16 .zkey: the header's points, the coefficients and the point tables, all in snarkjs's order."""

    path: str
    curve: Curve
    num_variables: int
    num_public: int  # public signals, not counting the constant 1
    domain_size: int
    alpha_g1: Point
    beta_g1: Point
    beta_g2: Point
    gamma_g2: Point
    delta_g1: Point
    delta_g2: Point
    ic: list[Point]
    coefficients: Coefficients
    a_query: PointTable
    b_g1_query: PointTable
    b_g2_query: PointTable
    l_query: PointTable
    h_query: PointTable

    @property
    def num_constraints(self) -> int:
        """The circuit's constraints: rows end with one per public signal and one for the constant."""
        return int(self.coefficients.constraint.max()) - self.num_public if len(self.coefficients) else 0

    def verifying_key(self) -> VerifyingKey:
        return VerifyingKey(
            curve=self.curve,
            alpha_g1=self.alpha_g1,
            beta_g2=self.beta_g2,
            gamma_g2=self.gamma_g2,
            delta_g2=self.delta_g2,
            gamma_abc_g1=list(self.ic),
        )

    def proving_key(self) -> ProvingKey:
        """The key in the reference's domain order (H permuted), with the circom reduction."""
        return ProvingKey(
            vk=self.verifying_key(),
            beta_g1=self.beta_g1,
            delta_g1=self.delta_g1,
            a_query=self.a_query,  # type: ignore[arg-type]
            b_g1_query=self.b_g1_query,  # type: ignore[arg-type]
            b_g2_query=self.b_g2_query,  # type: ignore[arg-type]
            h_query=self.h_query.scattered(domain.h_positions(self.curve.Fr, self.domain_size)),  # type: ignore[arg-type]
            l_query=self.l_query,  # type: ignore[arg-type]
            reduction=Reduction.CIRCOM,
            num_constraints=self.num_constraints,
        )


def curve_of_base_prime(q: int) -> Curve | None:
    return next((c for c in CURVES.values() if c.q == q), None)


def curve_of_scalar_prime(prime: int, what: str) -> Curve:
    """The curve whose Fr has modulus ``prime`` (a circuit's field), or CurveMismatchError naming ``what``."""
    for curve in CURVES.values():
        if curve.r == prime:
            return curve
    raise CurveMismatchError(what, f"the field prime {prime} is the scalar field of neither bn128 nor bls12381")


def read_zkey_header(path: str | os.PathLike[str]) -> tuple[Curve, int]:
    """The curve and the number of variables of a Groth16 .zkey, from its header alone (the sections' table is
    checked as by read_zkey)."""
    file = BinFile(path, MAGIC, (1, 2), SECTIONS)
    _check_protocol(file)
    header = file.cursor(2)
    return _read_curve(file, header, None), header.u32("nVars")


def read_zkey_curve(path: str | os.PathLike[str]) -> Curve:
    """The curve of a Groth16 .zkey, from its header alone."""
    return read_zkey_header(path)[0]


def read_zkey(
    path: str | os.PathLike[str],
    curve: Curve | str | None = None,
    *,
    check_points: bool = True,
    host: Backend | None = None,
    stored: bool = False,
) -> ZKey:
    """Read a Groth16 .zkey; ``curve`` (a Curve or a name such as bn128) makes a key for another curve an error.
    ``host``: a backend with MONTGOMERY_FORM that decodes the bulk sections (else numpy does, slower). ``stored``:
    the point sections are left as stored (:class:`~cuzk.formats.stored.StoredTable`), to be checked and decoded
    when first used, or taken as they are by a device with STORED_BASES."""
    file = BinFile(path, MAGIC, (1, 2), SECTIONS)
    _check_protocol(file)
    header = file.cursor(2)
    key_curve = _read_curve(file, header, curve)
    counts_at = header.pos
    num_variables = header.u32("nVars")
    num_public = header.u32("nPublic")
    domain_size = header.u32("domainSize")
    _check_sizes(file, header, counts_at, key_curve, num_variables, num_public, domain_size)
    g1, g2 = PointDecoder(key_curve, "g1"), PointDecoder(key_curve, "g2")
    alpha_g1, beta_g1 = (_header_point(file, header, g1, name) for name in ("[α]₁", "[β]₁"))
    beta_g2, gamma_g2 = (_header_point(file, header, g2, name) for name in ("[β]₂", "[γ]₂"))
    delta_g1 = _header_point(file, header, g1, "[δ]₁")
    delta_g2 = _header_point(file, header, g2, "[δ]₂")
    header.finish()

    ic = _read_ic(file, g1, num_public)
    coefficients = _read_coefficients(file, key_curve, num_variables, num_public, domain_size)
    if host is not None:
        coefficients = coefficients.decoded_on(host, key_curve)
    queries = _read_queries(file, key_curve, (num_variables, num_public, domain_size), check_points, host, stored)
    a_query, b_g1_query, b_g2_query, l_query, h_query = queries
    return ZKey(
        path=os.fspath(path),
        curve=key_curve,
        num_variables=num_variables,
        num_public=num_public,
        domain_size=domain_size,
        alpha_g1=alpha_g1,
        beta_g1=beta_g1,
        beta_g2=beta_g2,
        gamma_g2=gamma_g2,
        delta_g1=delta_g1,
        delta_g2=delta_g2,
        ic=ic,
        coefficients=coefficients,
        a_query=a_query,
        b_g1_query=b_g1_query,
        b_g2_query=b_g2_query,
        l_query=l_query,
        h_query=h_query,
    )


def _check_protocol(file: BinFile) -> None:
    protocol = file.cursor(1)
    protocol_id = protocol.u32("the protocol id")
    protocol.finish()
    if protocol_id != GROTH16:
        name = PROTOCOLS.get(protocol_id, f"unknown protocol {protocol_id}")
        raise file.error(f"the key is for {name}; cuzk proves Groth16 only", protocol.section, protocol.section.offset)


def _read_queries(
    file: BinFile, curve: Curve, sizes: tuple[int, int, int], check_points: bool, host: Backend | None, stored: bool
) -> tuple[PointTable, ...]:
    """Sections 5–9: a_query, b_g1_query, b_g2_query, l_query, h_query, decoded (and checked on the curve and in
    the subgroup with ``check_points``) into limb tables; InvalidPointError names the first bad point's offset."""
    num_variables, num_public, domain_size = sizes
    g1, g2 = PointDecoder(curve, "g1"), PointDecoder(curve, "g2")
    private = num_variables - num_public - 1
    layout = [(5, g1, num_variables), (6, g1, num_variables), (7, g2, num_variables), (8, g1, private)]
    layout.append((9, g1, domain_size))
    sections = [_point_section(file, section_id, decoder, count) for section_id, decoder, count in layout]

    def table(section: tuple[Cursor, np.ndarray], decoder: PointDecoder) -> PointTable:
        cursor, raw = section

        def locate(index: int, problem: str) -> Exception:
            offset = cursor.section.offset + index * raw.shape[1]
            return file.error(f"point {index}: {problem}", cursor.section, offset, InvalidPointError)

        if stored:
            return StoredTable(curve, decoder.group, raw, locate, check=check_points, host=host)
        array, bad = decode_table(decoder, raw, check=check_points, host=host)
        if bad is not None:
            raise locate(bad.index, bad.problem)
        return PointTable(curve, decoder.group, array)

    if stored:
        return tuple(table(section, entry[1]) for section, entry in zip(sections, layout, strict=True))

    # numpy releases the GIL inside its loops: the five tables decode side by side on as many cores as there are
    # (a host backend's kernels use every core for each table in turn)
    with ThreadPoolExecutor(max_workers=1 if host is not None else min(len(layout), os.cpu_count() or 1)) as pool:
        futures = [pool.submit(table, section, entry[1]) for section, entry in zip(sections, layout, strict=True)]
        return tuple(f.result() for f in futures)  # the first error, in order


def read_base_curve(file: BinFile, header: Cursor, files: str) -> tuple[Curve, int]:
    """The curve named by a header's n8q and q (a .zkey's, a .ptau's), and where they start; ``files`` says what
    cuzk reads ("keys", "ptau files") in the error for an unknown prime."""
    start = header.pos
    n8q = header.u32("n8q")
    if n8q == 0 or n8q % 8 or n8q > 64:
        raise file.error(f"n8q = {n8q} is not a positive multiple of 8", header.section, start)
    q = header.integer(n8q, "the base field prime q")
    curve = curve_of_base_prime(q)
    if curve is None:
        raise file.error(
            f"unknown base field prime q = {q}: cuzk reads {files} for bn128 (BN254) and bls12381 (BLS12-381)",
            header.section,
            start + 4,
            CurveMismatchError,
        )
    if n8q != field_bytes(q):
        raise file.error(f"n8q = {n8q}, but {curve.name} needs {field_bytes(q)}", header.section, start)
    return curve, start


def _read_curve(file: BinFile, header: Cursor, wanted: Curve | str | None) -> Curve:
    key_curve, start = read_base_curve(file, header, "keys")
    r_at = header.pos
    n8r = header.u32("n8r")
    r = header.integer(n8r, "the scalar field prime r") if n8r == field_bytes(key_curve.r) else None
    if r != key_curve.r:
        raise file.error(
            f"the scalar field is not {key_curve.name}'s (n8r = {n8r}, r = {r})",
            header.section,
            r_at,
            CurveMismatchError,
        )
    if wanted is not None:
        wanted_curve = curve_by_name(wanted) if isinstance(wanted, str) else wanted
        if wanted_curve is not key_curve:
            raise file.error(
                f"the key is for {key_curve.name} ({snarkjs_name(key_curve)}), not for {wanted_curve.name}",
                header.section,
                start,
                CurveMismatchError,
            )
    return key_curve


def _check_sizes(
    file: BinFile, header: Cursor, at: int, curve: Curve, num_variables: int, num_public: int, n: int
) -> None:
    """nVars (at offset ``at``), nPublic and domainSize must fit together and in the curve's domains."""
    if num_variables < num_public + 1:
        raise file.error(
            f"nVars = {num_variables} cannot hold the constant and {num_public} public signals", header.section, at
        )
    if n == 0 or n & (n - 1) or n < num_public + 1:
        raise file.error(f"domainSize = {n} is not a power of two ≥ nPublic + 1", header.section, at + 8)
    if 2 * n > 1 << curve.Fr.TWO_ADICITY:
        raise file.error(
            f"domainSize = {n}: the circom reduction needs 2n-th roots of unity and {curve.name}'s Fr has them only up "
            f"to 2^{curve.Fr.TWO_ADICITY}",
            header.section,
            at + 8,
        )


def _header_point(file: BinFile, header: Cursor, decoder: PointDecoder, name: str) -> Point:
    raw = header.array(1, point_bytes(decoder.curve, decoder.group), name)
    points, bad = decoder.decode_points(raw)
    if bad is not None:
        offset = header.pos - raw.shape[1]
        raise file.error(f"{name}: {bad.problem}", header.section, offset, InvalidPointError)
    return points[0]


def _point_section(file: BinFile, section_id: int, decoder: PointDecoder, count: int) -> tuple[Cursor, np.ndarray]:
    """The section's bytes as (count, point bytes), its size checked (nothing decoded yet)."""
    cursor = file.cursor(section_id)
    raw = cursor.array(count, point_bytes(decoder.curve, decoder.group), "the points")
    cursor.finish()
    return cursor, raw


def _read_ic(file: BinFile, g1: PointDecoder, num_public: int) -> list[Point]:
    cursor, raw = _point_section(file, 3, g1, num_public + 1)
    ic, bad = g1.decode_points(raw)
    if bad is not None:
        offset = cursor.section.offset + bad.index * raw.shape[1]
        raise file.error(f"point {bad.index}: {bad.problem}", cursor.section, offset, InvalidPointError)
    return ic


def _read_coefficients(file: BinFile, curve: Curve, num_variables: int, num_public: int, n: int) -> Coefficients:
    cursor = file.cursor(4)
    count = cursor.u32("the number of coefficients")
    n8r = field_bytes(curve.r)
    raw = cursor.array(count, 12 + n8r, "the coefficients")
    cursor.finish()
    matrix, constraint, signal, stored = split_records(raw, n8r)
    start = cursor.section.offset + 4
    for bad, problem in (
        (matrix > 1, "the matrix is not 0 (A) or 1 (B)"),
        (constraint >= n, f"the constraint (row) is not below domainSize = {n}"),
        (signal >= num_variables, f"the signal is not below nVars = {num_variables}"),
    ):
        if bad.any():
            i = int(np.argmax(bad))
            raise file.error(f"coefficient {i}: {problem}", cursor.section, start + i * raw.shape[1])
    bad_value = limbs.first_noncanonical(stored, curve.r)
    if bad_value is not None:
        i = bad_value[0]
        raise file.error(
            f"coefficient {i}: the value is not reduced modulo r",
            cursor.section,
            start + i * raw.shape[1] + 12,
            ValueOutOfRangeError,
        )
    if count and int(constraint.max()) < num_public:
        # the rows end with one per public signal and the constant (A = 1): the circuit's own rows come first
        raise file.error(
            f"the coefficients' last row is {int(constraint.max())}, but the rows of the {num_public} public signals "
            "and of the constant come last, after the constraints' rows",
            cursor.section,
            cursor.section.offset,
        )
    return Coefficients(matrix, constraint, signal, stored, curve.r)


__all__ = [
    "FR_BYTES",
    "GROTH16",
    "MAGIC",
    "VERSION",
    "Coefficients",
    "ZKey",
    "curve_of_scalar_prime",
    "read_base_curve",
    "read_zkey",
    "read_zkey_curve",
    "read_zkey_header",
    "snarkjs_name",
]
