"""The parsers under fuzzing, each with its valid seeds, its mutations, its oracle and the summary of its result.

    zcash          BLS12-381 points (G1/G2, compressed/uncompressed)     reference.encoding.decode_point
    eip196         BN254 points (EIP-196/197, and cuzk's compressed form)  reference.encoding.decode_point
    scalar         32-byte little-endian scalars of both curves           reference.encoding.decode_scalar
    coordinates    big-endian Fq and Fq2 elements of both curves          reference.encoding.decode_fq(2)
    r1cs, wtns     circom's files, both curves                            cuzk.formats.r1cs / wtns
    sym            circom's symbol file                                   cuzk.formats.r1cs.read_sym
    zkey           snarkjs's Groth16 key, both curves                     cuzk.formats.zkey
    proof.json, public.json, verification_key.json (both curves)          cuzk.formats.snarkjs_json
    bellman-proof, bellman-vk (BLS12-381)                                  cuzk.formats.bellman

A parser with several targets (curves, groups) shares its examples among them: the slow run gives every parser
at least :data:`~._harness.SLOW_EXAMPLES` cases.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from hypothesis import strategies as st

from cuzk.backends import limbs
from cuzk.formats import bellman, snarkjs_json
from cuzk.formats.errors import FormatError
from cuzk.formats.points import PointTable
from cuzk.formats.r1cs import R1cs, read_r1cs, read_sym, write_constraint_system
from cuzk.formats.wtns import Witness, read_wtns, write_wtns
from cuzk.formats.zkey import ZKey, read_zkey
from cuzk.formats.zkey_write import coefficients_of, write_zkey
from cuzk.reference.circuits.cubic import synthesize_cubic
from cuzk.reference.curves import BLS12_381, BN254, Curve, Group, Point
from cuzk.reference.encoding import (
    decode_fq,
    decode_fq2,
    decode_point,
    decode_scalar,
    encode_fq,
    encode_fq2,
    encode_point,
    encode_scalar,
    point_size,
)
from cuzk.reference.errors import EncodingError
from cuzk.reference.fields import Fq2Element
from cuzk.reference.groth16 import Proof, VerifyingKey
from cuzk.reference.qap import domain_size
from cuzk.reference.r1cs import ConstraintSystem

from . import _oracles as oracles
from ._harness import (
    SLOW_EXAMPLES,
    AcceptOnly,
    Invalid,
    Target,
    Valid,
    Verdict,
    names,
    names_file,
    names_file_and_place,
)
from ._mutations import (
    Container,
    Field,
    edit_records,
    lying_value,
    mutate_bytes,
    mutate_container,
    mutate_json,
    paths,
    put,
)

CURVES = (BN254, BLS12_381)
ByteOrder = Literal["little", "big"]


def _pick(data: st.DataObject, seeds: tuple[Any, ...]) -> Any:
    return seeds[0] if len(seeds) == 1 else data.draw(st.sampled_from(seeds), label="seed")


# --- points, scalars, coordinates ------------------------------------------------------------------------------


def _words_mutation(data: st.DataObject, raw: bytes, word: int, modulus: int, byteorder: ByteOrder) -> bytes:
    """One word (an encoded integer of ``word`` bytes) replaced by a value at or past the modulus, or by 0."""
    count = len(raw) // word
    i = data.draw(st.integers(0, count - 1), label="word")
    original = int.from_bytes(raw[i * word : (i + 1) * word], byteorder)
    top = (1 << (8 * word)) - 1
    choices = [0, 1, modulus, modulus + 1, modulus + original, modulus - 1, top, original | (1 << (8 * word - 1))]
    value = data.draw(st.sampled_from(choices), label="value") & top
    return raw[: i * word] + value.to_bytes(word, byteorder) + raw[(i + 1) * word :]


def _encoding_mutation(
    data: st.DataObject, raw: bytes, word: int, modulus: int, byteorder: ByteOrder, flags: bool
) -> bytes:
    """A fixed-size encoding damaged: bytes changed in place, a word set to a value ≥ the modulus, the three flag
    bits set to any combination, random bytes, or another length (those of the other forms and groups, and near)."""
    kinds = ["bytes", "word", "random", "length"] + (["flags"] if flags else [])
    kind = data.draw(st.sampled_from(kinds), label="kind")
    if kind == "word":
        raw = _words_mutation(data, raw, word, modulus, byteorder)
    elif kind == "flags":
        raw = bytes([(raw[0] & 0x1F) | data.draw(st.integers(0, 7), label="flags") << 5]) + raw[1:]
    elif kind == "random":
        raw = data.draw(st.binary(min_size=len(raw), max_size=len(raw)), label="random")
    elif kind == "length":
        sizes = [0, 1, 31, 32, 33, 47, 48, 63, 64, 65, 95, 96, 97, 127, 128, 129, 191, 192, 193, 384]
        size = data.draw(st.sampled_from(sizes), label="size")
        return (raw * (size // max(len(raw), 1) + 1))[:size]
    if kind == "bytes" or data.draw(st.booleans(), label="more"):
        raw = mutate_bytes(data, raw, at_most=2, same_length=True)
    return raw


def _point_seeds(group: Group, compressed: bool) -> Callable[[Path], tuple[bytes, ...]]:
    def build(folder: Path) -> tuple[bytes, ...]:
        p = group.generator * 0x1234567
        return tuple(encode_point(q, compressed=compressed) for q in (p, -p, group.identity(), group.generator))

    return build


def _point_target(fmt: str, group: Group, compressed: bool, examples: int) -> Target:
    fq_size = (group.field.BASE if issubclass(group.field, Fq2Element) else group.field).bit_length()
    word = (fq_size + 7) // 8
    q = BLS12_381.q if fmt == "zcash" else BN254.q

    def mutate(data: st.DataObject, seeds: tuple[bytes, ...]) -> bytes:
        return _encoding_mutation(data, _pick(data, seeds), word, q, "big", True)

    def parse(path: Path, raw: bytes) -> tuple[Point, bool]:
        return decode_point(group, raw), len(raw) == point_size(group, True)

    return Target(
        name=f"{fmt}-{group.name.split('.')[1]}-{'compressed' if compressed else 'uncompressed'}",
        suffix=".bin",
        default_examples=examples,
        slow_examples=SLOW_EXAMPLES // 4,
        build=_point_seeds(group, compressed),
        mutate=mutate,
        parse=parse,
        oracle=AcceptOnly,
        summary=lambda result: encode_point(result[0], compressed=result[1]),
        errors=EncodingError,
        check_message=names(group.name),
    )


def _scalar_target(curve: Curve, examples: int) -> Target:
    fr = curve.Fr

    def oracle(raw: bytes) -> Verdict:
        if len(raw) != 32:
            return Invalid("length")
        value = int.from_bytes(raw, "little")
        return Valid(value) if value < fr.MODULUS else Invalid("≥ r")

    return Target(
        name=f"scalar-{curve.name}",
        suffix=".bin",
        default_examples=examples,
        slow_examples=SLOW_EXAMPLES // 2,
        build=lambda folder: tuple(encode_scalar(fr(v)) for v in (0, 1, fr.MODULUS - 1, 0xC0FFEE << 200)),
        mutate=lambda data, seeds: _encoding_mutation(data, _pick(data, seeds), 32, fr.MODULUS, "little", False),
        parse=lambda path, raw: decode_scalar(fr, raw),
        oracle=oracle,
        summary=lambda s: s.value,
        errors=EncodingError,
        check_message=names(fr.NAME),
    )


def _coordinate_target(curve: Curve, quadratic: bool, examples: int) -> Target:
    fq, word = curve.Fq, (curve.q.bit_length() + 7) // 8
    size = 2 * word if quadratic else word

    def oracle(raw: bytes) -> Verdict:
        if len(raw) != size:
            return Invalid("length")
        values = [int.from_bytes(raw[i : i + word], "big") for i in range(0, size, word)]
        if any(v >= curve.q for v in values):
            return Invalid("≥ q")
        return Valid(tuple(reversed(values)) if quadratic else values[0])  # Fq2 is written c1 ‖ c0

    def build(folder: Path) -> tuple[bytes, ...]:
        values = (0, 1, curve.q - 1, curve.q // 3)
        if quadratic:
            return tuple(encode_fq2(curve.Fq2(a, b)) for a, b in zip(values, reversed(values), strict=True))
        return tuple(encode_fq(fq(v)) for v in values)

    return Target(
        name=f"{'fq2' if quadratic else 'fq'}-{curve.name}",
        suffix=".bin",
        default_examples=examples,
        slow_examples=SLOW_EXAMPLES // 4,
        build=build,
        mutate=lambda data, seeds: _encoding_mutation(data, _pick(data, seeds), word, curve.q, "big", False),
        parse=lambda path, raw: decode_fq2(curve.Fq2, raw) if quadratic else decode_fq(fq, raw),
        oracle=oracle,
        summary=lambda e: (e.c0.value, e.c1.value) if quadratic else e.value,
        errors=EncodingError,
        check_message=names(fq.NAME),
    )


# --- circom's and snarkjs's binary files -----------------------------------------------------------------------


@functools.cache
def cubic(curve: Curve) -> ConstraintSystem:
    cs = ConstraintSystem(curve.Fr)
    synthesize_cubic(cs, 3, steps=2)
    return cs


def write_cubic(curve: Curve, r1cs: Path, wtns: Path) -> None:
    """The cubic circuit as circom's files: its public inputs as circom public inputs, one private input."""
    cs = cubic(curve)
    write_constraint_system(r1cs, cs, num_private_inputs=1)
    write_wtns(wtns, curve.r, [v.value for v in cs.full_assignment()])


def _file_seed(curve: Curve, suffix: str) -> Callable[[Path], tuple[bytes, ...]]:
    def build(folder: Path) -> tuple[bytes, ...]:
        r1cs, wtns = folder / f"{curve.name}.r1cs", folder / f"{curve.name}.wtns"
        write_cubic(curve, r1cs, wtns)
        if suffix == ".zkey":
            write_zkey(folder / f"{curve.name}.zkey", cheap_zkey(read_r1cs(r1cs)))
        return ((folder / f"{curve.name}{suffix}").read_bytes(),)

    return build


def cheap_zkey(r1cs: R1cs) -> ZKey:
    """A well-formed key for ``r1cs`` without a setup: real coefficients, and distinct points (multiples of the
    generators, some at infinity, as circom's keys have) in every table."""
    curve = next(c for c in CURVES if c.r == r1cs.prime)
    n = domain_size(r1cs.num_constraints, r1cs.num_public + 1)
    variables, public = r1cs.num_wires, r1cs.num_public

    def multiples(group: Group, count: int, start: int) -> list[Point]:
        out, p = [], group.generator * start
        for i in range(count):
            out.append(group.identity() if i % 5 == 3 else p)
            p = p + group.generator
        return out

    def table(group: str, points: list[Point]) -> PointTable:
        return PointTable(curve, group, limbs.points_to_limbs(curve, group, points))

    g1, g2 = curve.g1, curve.g2
    return ZKey(
        path="",
        curve=curve,
        num_variables=variables,
        num_public=public,
        domain_size=n,
        alpha_g1=g1.generator * 2,
        beta_g1=g1.generator * 3,
        beta_g2=g2.generator * 3,
        gamma_g2=g2.generator * 5,
        delta_g1=g1.generator * 7,
        delta_g2=g2.generator * 7,
        ic=multiples(g1, public + 1, 11),
        coefficients=coefficients_of(r1cs),
        a_query=table("g1", multiples(g1, variables, 20)),
        b_g1_query=table("g1", multiples(g1, variables, 40)),
        b_g2_query=table("g2", multiples(g2, variables, 40)),
        l_query=table("g1", multiples(g1, variables - public - 1, 60)),
        h_query=table("g1", multiples(g1, n, 80)),
    )


def _wtns_fields(seed: bytes) -> dict[int, list[Field]]:
    n8 = 32
    return {1: [Field(0, 4), Field(4, 8), Field(4 + n8 - 8, 8), Field(4 + n8, 4)], 2: [Field(0, 8), Field(24, 8)]}


def _r1cs_fields(seed: bytes) -> dict[int, list[Field]]:
    n8 = 32
    header = [Field(0, 4), Field(4 + n8 - 8, 8)] + [Field(4 + n8 + 4 * i, 4) for i in range(4)]
    header += [Field(4 + n8 + 16, 8), Field(4 + n8 + 24, 4)]
    body: list[Field] = []  # the term counts of the first combinations, and the wire of their first terms
    section = oracles.Sections(seed, b"r1cs", (1,)).one(2)
    pos = 0
    for _ in range(9):
        count = int.from_bytes(section[pos : pos + 4], "little")
        body.append(Field(pos, 4))
        if count:
            body += [Field(pos + 4, 4), Field(pos + 8 + n8 - 8, 8)]
        pos += 4 + count * (4 + n8)
    return {1: header, 2: body, 3: [Field(0, 8)]}


def _zkey_fields(seed: bytes) -> dict[int, list[Field]]:
    sections = oracles.Sections(seed, b"zkey", (1,))
    n8q = int.from_bytes(sections.one(2)[:4], "little")
    after_q = 4 + n8q
    counts = after_q + 4 + 32
    header = [Field(0, 4), Field(4, 8), Field(after_q, 4), Field(after_q + 4, 8)]
    header += [Field(counts, 4), Field(counts + 4, 4), Field(counts + 8, 4), Field(counts + 12, 8)]
    coefficients = [Field(0, 4)] + [Field(4 + 44 * i + k, 4) for i in (0, 1, 21) for k in (0, 4, 8)]
    points = [Field(0, 8), Field(n8q - 8, 8), Field(n8q, 8)]
    return {1: [Field(0, 4)], 2: header, 4: coefficients, **{s: points for s in (3, 5, 6, 7, 8, 9)}}


def _zkey_valid_edits(seed: bytes) -> tuple[Callable[[st.DataObject, Container], Container], ...]:
    """Points of a table swapped, or negated (Montgomery y → q − y): the key stays valid, with other points; and
    coefficients swapped (another valid order)."""
    sections = oracles.Sections(seed, b"zkey", (1,))
    q = int.from_bytes(sections.one(2)[4 : 4 + int.from_bytes(sections.one(2)[:4], "little")], "little")
    n8 = oracles.words_bytes(q)

    def negate(point: bytes) -> bytes:
        half = len(point) // 2
        y = [int.from_bytes(point[i : i + n8], "little") for i in range(half, len(point), n8)]
        if not any(point):
            return point
        return point[:half] + b"".join(((q - v) % q).to_bytes(n8, "little") for v in y)

    def edit(data: st.DataObject, c: Container) -> Container:
        section_id = data.draw(st.sampled_from([3, 4, 5, 6, 7, 8, 9]), label="table")
        if section_id == 4:
            return edit_records(data, c, 4, 12 + 32, 4, None)
        size = (4 if section_id == 7 else 2) * n8
        how = data.draw(st.sampled_from([None, negate]), label="swap or negate")
        return edit_records(data, c, section_id, size, 0, how)

    return (edit,)


def _witness_summary(w: Witness) -> tuple[Any, ...]:
    return w.prime, tuple(w.ints())


def _r1cs_summary(r: R1cs) -> tuple[Any, ...]:
    counts = (r.num_wires, r.num_outputs, r.num_public_inputs, r.num_private_inputs, r.num_labels)
    matrices = (tuple(m.entries()) for m in (r.a, r.b, r.c))
    return (r.prime, r.n8, *counts, r.num_constraints, *matrices)


def _affine(point: Point) -> Any:
    """A point as ints: None (infinity), (x, y) for G1, ((x.c0, x.c1), (y.c0, y.c1)) for G2."""
    affine = point.to_affine()
    if affine is None:
        return None
    return tuple((c.c0.value, c.c1.value) if isinstance(c, Fq2Element) else c.value for c in affine)


def _table(table: PointTable) -> tuple[Any, ...]:
    ints = limbs.limbs_to_ints(table.limbs)
    width = 2 if table.group == "g1" else 4
    out = []
    for i in range(0, len(ints), width):
        c = ints[i : i + width]
        out.append(None if not any(c) else (c[0], c[1]) if width == 2 else ((c[0], c[1]), (c[2], c[3])))
    return tuple(out)


def _zkey_summary(z: ZKey) -> tuple[Any, ...]:
    k = z.coefficients
    head = (z.alpha_g1, z.beta_g1, z.beta_g2, z.gamma_g2, z.delta_g1, z.delta_g2)
    entries = zip(
        k.matrix.tolist(), k.constraint.tolist(), k.signal.tolist(), limbs.limbs_to_ints(k.stored), strict=True
    )
    tables = (z.a_query, z.b_g1_query, z.b_g2_query, z.l_query, z.h_query)
    return (
        z.curve.name,
        z.num_variables,
        z.num_public,
        z.domain_size,
        tuple(_affine(p) for p in head),
        tuple(_affine(p) for p in z.ic),
        tuple(entries),
        tuple(_table(t) for t in tables),
    )


def _binary_target(
    kind: str,
    curve: Curve,
    examples: int,
    fields: Callable[[bytes], dict[int, list[Field]]],
    parse: Callable[[Path], Any],
    oracle: Callable[[bytes], Any],
    summary: Callable[[Any], Any],
    valid_edits: Callable[[bytes], tuple[Callable[[st.DataObject, Container], Container], ...]] | None = None,
) -> Target:
    def mutate(data: st.DataObject, seeds: tuple[bytes, ...]) -> bytes:
        return mutate_container(data, seeds[0], fields(seeds[0]), valid_edits(seeds[0]) if valid_edits else ())

    return Target(
        name=f"{kind}-{curve.name}",
        suffix=f".{kind}",
        default_examples=examples,
        slow_examples=SLOW_EXAMPLES // 2,
        build=_file_seed(curve, f".{kind}"),
        mutate=mutate,
        parse=lambda path, raw: parse(path),
        oracle=lambda raw: oracles.verdict(oracle, raw),
        summary=summary,
        errors=FormatError,
        check_message=names_file_and_place,
        track_memory=True,
    )


# --- snarkjs's JSON --------------------------------------------------------------------------------------------


@functools.cache
def outside_subgroup(group: Group) -> Point | None:
    """A point of E' (G2) that is not in the order-r subgroup; None for BN254's G1 (cofactor 1) … and G1s."""
    if not issubclass(group.field, Fq2Element):
        return None
    k = 1
    while True:
        x = group.field(k, 1)
        rhs = group.rhs(x)
        if rhs.is_square():
            return group.point(x, rhs.sqrt())
        k += 1


def _json_point(value: Any) -> Any:
    """A point node → (group name, X, Y, Z) as field-element ints (pairs for G2); None if it is not one."""
    if isinstance(value, list) and len(value) == 3:
        if all(isinstance(c, str) and c.isascii() and c.isdigit() for c in value):
            return "g1", *(int(c) for c in value)
        if all(
            isinstance(c, list) and len(c) == 2 and all(isinstance(v, str) and v.isascii() and v.isdigit() for v in c)
            for c in value
        ):
            return "g2", *(tuple(int(v) for v in c) for c in value)
    return None


def _point_edits(curve: Curve) -> list[Callable[[st.DataObject, Any], Any]]:
    """Edits of a document's points: rescaled Jacobian triples and infinity with junk X, Y (both valid, same
    meaning), the negated point (valid), a point off the curve, one outside the subgroup (both invalid)."""

    def element(group: str, v: Any) -> Any:
        return curve.Fq(v) if group == "g1" else curve.Fq2(*v)

    def written(group: str, e: Any) -> Any:
        return str(e.value) if group == "g1" else [str(e.c0.value), str(e.c1.value)]

    def edit(data: st.DataObject, value: Any) -> Any:
        candidates = [p for p in paths(value) if _json_point(_get(value, p)) is not None]
        if not candidates:
            return value
        path = data.draw(st.sampled_from(candidates), label="point")
        group, *xyz = _json_point(_get(value, path))
        x, y, z = (element(group, v) for v in xyz)
        how = data.draw(st.sampled_from(["rescale", "infinity", "negate", "off curve", "outside"]), label="how")
        if how == "rescale":
            k = data.draw(st.integers(2, 1 << 64), label="lambda")
            lam = element(group, k if group == "g1" else (k, k + 1))
            x, y, z = x * lam.square(), y * lam.square() * lam, z * lam
        elif how == "infinity":
            z = z.zero()
        elif how == "negate":
            y = -y
        elif how == "off curve":
            y = y + y.one()
        else:
            grp = curve.g1 if group == "g1" else curve.g2
            outside = outside_subgroup(grp)
            if outside is None:
                return value
            x, y, z = outside.X, outside.Y, outside.Z
        return put(value, path, [written(group, x), written(group, y), written(group, z)])

    return [edit]


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _json_target(kind: str, curve: Curve, examples: int) -> Target:
    rng = random.Random(f"{kind}-{curve.name}")
    g1, g2 = curve.g1.generator, curve.g2.generator
    modulus = curve.r if kind == "public" else curve.q

    def build(folder: Path) -> tuple[Any, ...]:
        if kind == "proof":
            proof = Proof(g1 * rng.randrange(curve.r), g2 * rng.randrange(curve.r), g1 * rng.randrange(curve.r))
            return (snarkjs_json.proof_to_json(proof),)
        if kind == "vk":
            ic = [g1 * rng.randrange(curve.r), curve.g1.identity()]
            vk = VerifyingKey(curve, g1 * 3, g2 * 5, g2 * 7, g2 * rng.randrange(curve.r), ic)
            return (snarkjs_json.verifying_key_to_json(vk),)
        return ([str(v) for v in (1, 0, curve.r - 1, rng.randrange(curve.r))],)

    def mutate(data: st.DataObject, seeds: tuple[Any, ...]) -> bytes:
        edits = [] if kind == "public" else _point_edits(curve)
        return mutate_json(data, seeds[0], lambda path: modulus, edits)

    def parse(path: Path, raw: bytes) -> Any:
        if kind == "proof":
            return snarkjs_json.read_proof(path)
        if kind == "vk":
            return snarkjs_json.read_verifying_key(path)
        return snarkjs_json.read_public(path, curve)

    def oracle(raw: bytes) -> Verdict:
        if kind == "proof":
            return oracles.verdict(oracles.read_proof, raw)
        if kind == "vk":
            return oracles.verdict(oracles.read_verifying_key, raw)
        return oracles.verdict(functools.partial(oracles.read_public, curve), raw)

    def summary(result: Any) -> Any:
        if kind == "proof":
            proof, c = result
            return (c.name, _affine(proof.a), _affine(proof.b), _affine(proof.c))
        if kind == "vk":
            vk = result
            head = (vk.alpha_g1, vk.beta_g2, vk.gamma_g2, vk.delta_g2)
            return (vk.curve.name, *(_affine(p) for p in head), tuple(_affine(p) for p in vk.gamma_abc_g1))
        return tuple(result)

    return Target(
        name=f"{kind}.json-{curve.name}",
        suffix=".json",
        default_examples=examples,
        slow_examples=SLOW_EXAMPLES // 2,
        build=build,
        mutate=mutate,
        parse=parse,
        oracle=oracle,
        summary=summary,
        errors=FormatError,
        check_message=names_file,
    )


# --- bellman ---------------------------------------------------------------------------------------------------


def _bellman_target(kind: str, examples: int) -> Target:
    g1, g2, r = BLS12_381.g1.generator, BLS12_381.g2.generator, BLS12_381.r
    rng = random.Random(f"bellman-{kind}")

    def build(folder: Path) -> tuple[bytes, ...]:
        if kind == "proof":
            return (bellman.proof_to_bytes(Proof(g1 * rng.randrange(r), g2 * rng.randrange(r), g1 * rng.randrange(r))),)
        vk = bellman.BellmanVerifyingKey(g1 * 2, g1 * 3, g2 * 3, g2 * 5, g1 * 7, g2 * 7, [g1 * 11, g1 * 13])
        # the same layout with [β]₂, [γ]₂, [δ]₂ at infinity (which bellman reads): cases that reach the IC cost
        # a tenth as much without their three G2 subgroup checks (G2 decoding has its own targets)
        o = BLS12_381.g2.identity()
        cheap = bellman.BellmanVerifyingKey(g1 * 2, g1 * 3, o, o, g1 * 7, o, [g1 * 11, g1 * 13])
        return bellman.verifying_key_to_bytes(vk), *(bellman.verifying_key_to_bytes(cheap) for _ in range(3))

    def mutate(data: st.DataObject, seeds: tuple[bytes, ...]) -> bytes:
        raw = _pick(data, seeds)
        if kind == "vk" and data.draw(st.booleans(), label="lie about the IC count"):
            at = 3 * 96 + 3 * 192  # after α₁ β₁ β₂ γ₂ δ₁ δ₂, uncompressed
            count = lying_value(data, int.from_bytes(raw[at : at + 4], "big"), 4)
            raw = raw[:at] + count.to_bytes(4, "big") + raw[at + 4 :]
            return raw if data.draw(st.booleans(), label="more") else mutate_bytes(data, raw, at_most=2)
        return _encoding_mutation(data, raw, 48, BLS12_381.q, "big", False)

    def parse(path: Path, raw: bytes) -> Any:
        return bellman.read_proof(path) if kind == "proof" else bellman.read_verifying_key(path)

    def summary(result: Any) -> Any:
        if kind == "proof":
            points = (result.a, result.b, result.c)
            return "infinity accepted" if any(p.is_identity() for p in points) else bellman.proof_to_bytes(result)
        if any(p.is_identity() for p in result.ic):
            return "infinity accepted in IC"
        return bellman.verifying_key_to_bytes(result)

    return Target(
        name=f"bellman-{kind}",
        suffix=".bin",
        default_examples=examples,
        slow_examples=SLOW_EXAMPLES,
        build=build,
        mutate=mutate,
        parse=parse,
        oracle=AcceptOnly,
        summary=summary,
        errors=FormatError,
        check_message=names_file,
    )


# --- circom's .sym --------------------------------------------------------------------------------------------

SYM_SEED = "1,1,0,main.out\n2,-1,0,main.gone\n3,2,1,main.sub.x\n4,3,1,main.sub.ü\n5,2,2,main.dup\n"
WIRES = ["--5", "-", "", " 1", "1 ", "+1", "1_0", "0x1", "\u0663", "9" * 30, "9" * 5000, "18446744073709551615", "-0"]


def _sym_mutation(data: st.DataObject, seeds: tuple[bytes, ...]) -> bytes:
    """A wire field replaced by a non-number or a huge one, line endings changed, a line cut, bytes damaged."""
    lines = seeds[0].decode().splitlines()
    kind = data.draw(st.sampled_from(["wire", "endings", "cut", "bytes"]), label="kind")
    if kind == "wire":
        i = data.draw(st.integers(0, len(lines) - 1), label="line")
        fields = lines[i].split(",")
        fields[1] = data.draw(st.sampled_from(WIRES) | st.text(max_size=4), label="wire")
        lines[i] = ",".join(fields)
    elif kind == "cut":
        i = data.draw(st.integers(0, len(lines) - 1), label="line")
        lines[i] = lines[i][: data.draw(st.integers(0, len(lines[i])), label="keep")]
    ending = data.draw(st.sampled_from(["\n", "\r\n", "\r", ""]), label="ending") if kind == "endings" else "\n"
    raw = "".join(line + ending for line in lines).encode("utf-8", errors="surrogatepass")
    return mutate_bytes(data, raw, at_most=2) if kind == "bytes" or data.draw(st.booleans(), label="more") else raw


def _sym_target(examples: int) -> Target:
    return Target(
        name="sym",
        suffix=".sym",
        default_examples=examples,
        slow_examples=SLOW_EXAMPLES,
        build=lambda folder: (SYM_SEED.encode(),),
        mutate=_sym_mutation,
        parse=lambda path, raw: read_sym(path),
        oracle=lambda raw: oracles.verdict(oracles.read_sym, raw),
        summary=lambda names: tuple(sorted(names.items())),
        errors=FormatError,
        check_message=names_file,
    )


# --- all of them -----------------------------------------------------------------------------------------------


def all_targets() -> list[Target]:
    targets = []
    for fmt, curve in (("zcash", BLS12_381), ("eip196", BN254)):
        for group in (curve.g1, curve.g2):
            for compressed in (True, False):
                targets.append(_point_target(fmt, group, compressed, 75))
    for curve in CURVES:
        targets.append(_scalar_target(curve, 150))
        targets += [_coordinate_target(curve, quadratic, 75) for quadratic in (False, True)]
        targets.append(_binary_target("r1cs", curve, 150, _r1cs_fields, read_r1cs, oracles.read_r1cs, _r1cs_summary))
        targets.append(_binary_target("wtns", curve, 150, _wtns_fields, read_wtns, oracles.read_wtns, _witness_summary))
        zkey_parts = (_zkey_fields, read_zkey, oracles.read_zkey, _zkey_summary, _zkey_valid_edits)
        targets.append(_binary_target("zkey", curve, 100, *zkey_parts))
        targets += [_json_target(kind, curve, 100) for kind in ("proof", "public", "vk")]
    targets += [_bellman_target("proof", 150), _bellman_target("vk", 150), _sym_target(200)]
    return targets


TARGETS = all_targets()
