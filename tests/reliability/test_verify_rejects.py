"""Verification rejects everything that is not a valid proof, in one of two documented ways
(reference/groth16/verifier.py):

- decoding the proof bytes (``Proof.from_bytes``, A‖B‖C compressed) raises an EncodingError naming the point and
  its bytes; ``verify`` raises a CuzkError naming the culprit for a point off its curve or outside its subgroup and
  for public inputs of the wrong count, type or range;
- ``verify`` returns False for a proof of group elements that fails the equation or has a point at infinity.

Every single-bit change of one valid proof per curve is rejected one way or the other: a sample in the default
run, all bits in the slow run.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import numpy as np
import pytest

from cuzk.formats import bellman
from cuzk.formats.errors import FormatError
from cuzk.reference.curves import BLS12_381, BN254
from cuzk.reference.encoding import encode_point
from cuzk.reference.errors import (
    CuzkError,
    EncodingError,
    FieldMismatchError,
    GroupMismatchError,
    InvalidLengthError,
    NonCanonicalError,
    ParameterError,
    PointNotInSubgroupError,
    PointNotOnCurveError,
    ProvingKeyError,
)
from cuzk.reference.groth16 import Proof, check_public_inputs, prepare_inputs, verify

from ._points import (
    FLAG_BITS,
    base_modulus,
    flip,
    hash_to_curve_uncleared,
    is_g2,
    off_curve_point,
    replace_slot,
    slots,
    small_order_point,
    with_x,
    x_off_curve,
)
from ._setting import Setting, make_setting

# --- helpers -----------------------------------------------------------------------------------------------------


def with_point(proof: Proof, slot: str, point: Any) -> Proof:
    parts = {"A": proof.a, "B": proof.b, "C": proof.c}
    parts[slot] = point
    return Proof(parts["A"], parts["B"], parts["C"])


def group_of(setting: Setting, slot: str) -> Any:
    return setting.curve.g2 if slot == "B" else setting.curve.g1


def equation_holds(setting: Setting, public: list[int], proof: Proof) -> bool:
    """Groth16's pairing equation alone, with none of the verifier's checks on the points."""
    vk = setting.pk.vk
    acc = prepare_inputs(vk, public)
    return setting.curve.pairing_check(
        [(proof.a, proof.b), (-vk.alpha_g1, vk.beta_g2), (-acc, vk.gamma_g2), (-proof.c, vk.delta_g2)]
    )


def both_verifiers(setting: Setting) -> list[Any]:
    return [setting.pk.vk, setting.pvk]


# --- decoding ------------------------------------------------------------------------------------------------------


def test_proof_bytes_round_trip(setting: Setting) -> None:
    decoded = Proof.from_bytes(setting.curve, setting.data)
    assert (decoded.a, decoded.b, decoded.c) == (setting.proof.a, setting.proof.b, setting.proof.c)
    assert len(setting.data) == {BN254.name: 128, BLS12_381.name: 192}[setting.curve.name]
    for data in (setting.data[:-1], setting.data + b"\0", b""):
        with pytest.raises(InvalidLengthError, match=rf"a {setting.curve.name} proof is {len(setting.data)} bytes"):
            Proof.from_bytes(setting.curve, data)
    assert Proof.from_bytes(setting.curve, bytearray(setting.data)) == decoded
    for not_bytes in (len(setting.data), setting.data.hex(), None):
        with pytest.raises(EncodingError, match=rf"proof: expected bytes, got {type(not_bytes).__name__}"):
            Proof.from_bytes(setting.curve, not_bytes)  # type: ignore[arg-type]
    if setting.curve is BLS12_381:  # the same bytes are bellman's proof
        assert bellman.proof_from_bytes(setting.data) == decoded


def test_prepared_and_plain_verifiers_agree(setting: Setting) -> None:
    for vk in both_verifiers(setting):
        assert verify(vk, setting.public, setting.proof) is True
        assert verify(vk, [setting.public[0] + 1], setting.proof) is False


# --- off the curve -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("slot", "ABC")
def test_x_off_the_curve_is_refused_by_decoding(setting: Setting, slot: str) -> None:
    group = group_of(setting, slot)
    x = x_off_curve(group)
    halves = [x.c1.value, x.c0.value] if is_g2(group) else [x.value]
    data = setting.data
    for half, value in enumerate(halves):
        data = with_x(setting.curve, data, slot, value, half=half)
    with pytest.raises(PointNotOnCurveError, match=rf"^proof {slot} \(bytes \d+\.\.\d+ of \d+\): .*x³ \+ b is not a"):
        Proof.from_bytes(setting.curve, data)


@pytest.mark.parametrize("slot", "ABC")
def test_point_off_the_curve_is_refused_by_verify(setting: Setting, slot: str) -> None:
    proof = with_point(setting.proof, slot, off_curve_point(group_of(setting, slot)))
    for vk in both_verifiers(setting):
        with pytest.raises(
            PointNotOnCurveError, match=rf"^proof\.{slot} = .* is not on {group_of(setting, slot).name}"
        ):
            verify(vk, setting.public, proof)


def test_points_of_the_wrong_group_are_refused(setting: Setting) -> None:
    p = setting.proof
    other = BN254 if setting.curve is BLS12_381 else BLS12_381
    cases = {
        "A": Proof(p.b, p.b, p.c),  # a G2 point as A
        "B": Proof(p.a, p.a, p.c),  # a G1 point as B
        "C": Proof(p.a, p.b, other.g1.generator),  # a point of the other curve
    }
    for slot, proof in cases.items():
        with pytest.raises(GroupMismatchError, match=rf"^proof\.{slot} must be a point of "):
            verify(setting.pvk, setting.public, proof)
    with pytest.raises(GroupMismatchError, match=r"proof\.A must be a point of .*, got NoneType"):
        verify(setting.pk.vk, setting.public, Proof(None, p.b, p.c))


# --- outside the prime-order subgroup ------------------------------------------------------------------------------


@pytest.mark.parametrize("slot", "ABC")
def test_point_outside_the_subgroup_is_refused(setting: Setting, slot: str) -> None:
    """A point hashed to the curve without clearing the cofactor: on the curve, in the subgroup with probability
    1/h. BN254's G1 has h = 1, so there the point is a group element like any other and only the equation decides
    (False); every other group refuses it at decoding and in verify."""
    group = group_of(setting, slot)
    point = hash_to_curve_uncleared(group, f"proof-{slot}")
    assert point.is_on_curve()
    data = replace_slot(setting.curve, setting.data, slot, encode_point(point, compressed=True))
    proof = with_point(setting.proof, slot, point)
    if group.cofactor == 1:
        assert group is BN254.g1 and point.is_in_subgroup()
        assert Proof.from_bytes(setting.curve, data) == proof
        assert verify(setting.pvk, setting.public, proof) is False
        return
    assert not point.is_in_subgroup()
    with pytest.raises(PointNotInSubgroupError, match=rf"^proof {slot} \(bytes .*not in its subgroup of order r"):
        Proof.from_bytes(setting.curve, data)
    for vk in both_verifiers(setting):
        with pytest.raises(PointNotInSubgroupError, match=rf"^proof\.{slot} = .* not in its subgroup of order r"):
            verify(vk, setting.public, proof)
    if setting.curve is BLS12_381:
        with pytest.raises(FormatError, match=rf"{slot}: .*not in its subgroup"):
            bellman.proof_from_bytes(data)


@pytest.mark.parametrize("slot", "AC")
def test_small_order_component_fools_the_equation_but_not_the_verifier(slot: str) -> None:
    """A + T, T of order 3 on BLS12-381's G1: the pairing equation cannot see T (another proof that satisfies it,
    a malleability), so only the subgroup check stands between it and acceptance."""
    setting = make_setting(BLS12_381)
    torsion = small_order_point(BLS12_381.g1, 3)
    original = setting.proof.a if slot == "A" else setting.proof.c
    proof = with_point(setting.proof, slot, (original + torsion).normalize())
    assert proof != setting.proof
    assert equation_holds(setting, setting.public, proof), "the pairing was expected to be blind to T"
    with pytest.raises(PointNotInSubgroupError, match=rf"proof\.{slot}"):
        verify(setting.pvk, setting.public, proof)
    data = replace_slot(
        BLS12_381, setting.data, slot, encode_point(proof.a if slot == "A" else proof.c, compressed=True)
    )
    with pytest.raises(PointNotInSubgroupError, match=rf"^proof {slot} "):
        Proof.from_bytes(BLS12_381, data)


# --- non-canonical coordinates -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("slot", "half"), [("A", 0), ("B", 0), ("B", 1), ("C", 0)], ids=["A.x", "B.x.c1", "B.x.c0", "C.x"]
)
def test_coordinate_at_least_q_is_refused(setting: Setting, slot: str, half: int) -> None:
    """x + q (the same residue: a decoder that reduced would accept it), q itself, and the largest value that fits
    the field's bytes: all ≥ q, all refused with NonCanonicalError."""
    group, start, size = slots(setting.curve)[slot]
    q = base_modulus(group)
    width = size // 2 if is_g2(group) else size
    room = 8 * width - (FLAG_BITS[setting.curve.name] if half == 0 else 0)
    offset = start + half * width
    x = int.from_bytes(setting.data[offset : offset + width], "big") & ((1 << room) - 1)
    values = [q, (1 << room) - 1] + ([x + q] if x + q < 1 << room else [])
    for value in values:
        data = with_x(setting.curve, setting.data, slot, value, half=half)
        with pytest.raises(NonCanonicalError, match=rf"^proof {slot} \(bytes {start}\.\..*≥ q"):
            Proof.from_bytes(setting.curve, data)


# --- the point at infinity -----------------------------------------------------------------------------------------


def forged_with_identity(setting: Setting, slot: str, public: list[int]) -> Proof:
    """With the toxic waste: a proof whose point ``slot`` is O and which satisfies the pairing equation.

    acc = [a]₁ (a unknown, but acc·γ/δ is computable); e(A, B) = e(α, β)·e(acc, γ)·e(C, δ) holds for
    A or B = O and C = −[αβ/δ]₁ − (γ/δ)·acc; for C = O and A = [αβ]₁ + γ·acc, B = [1]₂.
    """
    curve, t = setting.curve, setting.toxic
    g1, g2 = curve.g1.generator, curve.g2.generator
    acc = prepare_inputs(setting.pk.vk, public)
    c = -(g1 * (t.alpha * t.beta / t.delta) + acc * (t.gamma / t.delta))
    if slot == "A":
        return Proof(curve.g1.identity(), setting.proof.b, c)
    if slot == "B":
        return Proof(setting.proof.a, curve.g2.identity(), c)
    return Proof(g1 * (t.alpha * t.beta) + acc * t.gamma, g2, curve.g1.identity())


@pytest.mark.parametrize("slot", "ABC")
def test_identity_is_refused_even_when_the_equation_holds(setting: Setting, slot: str) -> None:
    """O is a valid encoding (it decodes), and the forged proof satisfies the equation; verify still says False,
    as bellman's reader refuses O for A, B and C."""
    proof = forged_with_identity(setting, slot, setting.public)
    assert equation_holds(setting, setting.public, proof)
    data = proof.to_bytes()
    assert Proof.from_bytes(setting.curve, data) == proof
    for vk in both_verifiers(setting):
        assert verify(vk, setting.public, proof) is False
    if setting.curve is BLS12_381:
        with pytest.raises(FormatError, match=rf"{slot} is the point at infinity"):
            bellman.proof_from_bytes(data)


def test_toxic_waste_forges_a_false_statement(setting: Setting) -> None:
    """Why the setup's secrets must be forgotten: with them, a proof that 3³ + 3 + 5 = 36 verifies."""
    curve, t = setting.curve, setting.toxic
    false_public = [setting.public[0] + 1]
    acc = prepare_inputs(setting.pk.vk, false_public)
    g1 = curve.g1.generator
    forged = Proof(g1 * (t.alpha * t.beta + t.delta) + acc * t.gamma, curve.g2.generator, g1)
    assert verify(setting.pvk, false_public, forged) is True


# --- public inputs -------------------------------------------------------------------------------------------------


def test_public_inputs_out_of_range_are_refused(setting: Setting) -> None:
    """Never reduced modulo r: x + r would otherwise verify like x."""
    r = setting.curve.r
    x = setting.public[0]
    for vk in both_verifiers(setting):
        for value in (r, x + r, r + r - 1, 1 << 256):
            with pytest.raises(ParameterError, match=rf"^public input 0 = {value} is not in \[0, r\)"):
                verify(vk, [value], setting.proof)
        for value in (-1, x - r, -(1 << 256)):
            with pytest.raises(ParameterError, match=r"^public input 0 = -\d+ is not in \[0, r\)"):
                verify(vk, [value], setting.proof)


def test_public_inputs_of_the_wrong_count_or_type_are_refused(setting: Setting) -> None:
    x = setting.public[0]
    other = BN254 if setting.curve is BLS12_381 else BLS12_381
    for vk in both_verifiers(setting):
        for public in ([], [x, x], [x, 0, 0]):
            with pytest.raises(ProvingKeyError, match=rf"expects 1 public inputs, {len(public)} were given"):
                verify(vk, public, setting.proof)
        with pytest.raises(FieldMismatchError, match=rf"public input 0 is an element of {other.Fr.NAME}"):
            verify(vk, [other.Fr(x)], setting.proof)
        for value in (True, float(x), str(x), None):
            with pytest.raises(ParameterError, match=rf"public input 0 is a {type(value).__name__}; expected an int"):
                verify(vk, [value], setting.proof)
    assert verify(setting.pvk, [setting.curve.Fr(x)], setting.proof) is True  # an element of Fr is fine
    assert check_public_inputs(setting.pk.vk, [np.int64(x)]) == [setting.curve.Fr(x)]  # so is a numpy integer


# --- every single-bit change ---------------------------------------------------------------------------------------


def sample_bits(setting: Setting) -> list[int]:
    """Every 16th bit: one bit in every other byte, its position in the byte rotating so that all eight positions
    are hit; plus every bit of the first byte of each point (the flags)."""
    chosen = {8 * i + (i // 2) % 8 for i in range(0, len(setting.data), 2)}
    for _, start, _ in slots(setting.curve).values():
        chosen.update(range(8 * start, 8 * start + 8))
    return sorted(chosen)


def sign_bits(setting: Setting) -> set[int]:
    """The sign flag of each point: flipping it gives −P, always decodable, so the verifier must say False."""
    position = FLAG_BITS[setting.curve.name] - 1  # 0x40 (BN254) or 0x20 (BLS12-381)
    return {8 * start + position for _, start, _ in slots(setting.curve).values()}


def flip_bits(setting: Setting, bits: list[int], *, bellman_too: bool) -> tuple[Counter[str], list[int]]:
    """Flip each bit in turn. Returns how each flip was rejected (the decode error's type, or "verify: False") and
    the bits whose flip was accepted (must be none). Anything raised other than a CuzkError fails the test.
    ``bellman_too``: on BLS12-381, also check that bellman's reader refuses (or decodes alike) the same bytes."""
    outcomes: Counter[str] = Counter()
    accepted: list[int] = []
    rejected_by_verify: list[int] = []
    check_bellman = bellman_too and setting.curve is BLS12_381
    for bit in bits:
        data = flip(setting.data, bit)
        try:
            proof = Proof.from_bytes(setting.curve, data)
        except CuzkError as exc:
            assert isinstance(exc, EncodingError), f"bit {bit}: {type(exc).__name__} is not an EncodingError"
            assert str(exc).startswith(("proof A (bytes", "proof B (bytes", "proof C (bytes")), f"bit {bit}: {exc}"
            outcomes[type(exc).__name__] += 1
            if check_bellman:
                with pytest.raises(FormatError):
                    bellman.proof_from_bytes(data)
            continue
        if check_bellman:
            assert bellman.proof_from_bytes(data) == proof
        if verify(setting.pvk, setting.public, proof):
            accepted.append(bit)
        else:
            outcomes["verify: False"] += 1
            rejected_by_verify.append(bit)
    assert sign_bits(setting) & set(bits) <= set(rejected_by_verify), "a sign flip (−P) must reach the verifier"
    return outcomes, accepted


def report(setting: Setting, bits: list[int], seconds: float, outcomes: Counter[str]) -> None:
    total = 8 * len(setting.data)
    print(f"\n{setting.curve.name}: {len(bits)} of {total} bits flipped in {seconds:.1f} s: {dict(outcomes)}")


def test_single_bit_changes_are_rejected_sample(setting: Setting) -> None:
    bits = sample_bits(setting)
    started = time.perf_counter()
    outcomes, accepted = flip_bits(setting, bits, bellman_too=False)
    report(setting, bits, time.perf_counter() - started, outcomes)
    assert accepted == [], f"flipping these bits of {setting.data.hex()} gave a proof that verifies: {accepted}"
    assert sum(outcomes.values()) == len(bits)
    assert outcomes["verify: False"] >= 3 and outcomes["NonCanonicalError"] + outcomes["InvalidFlagsError"] > 0


@pytest.mark.slow
def test_every_single_bit_change_is_rejected(setting: Setting) -> None:
    bits = list(range(8 * len(setting.data)))
    started = time.perf_counter()
    outcomes, accepted = flip_bits(setting, bits, bellman_too=True)
    report(setting, bits, time.perf_counter() - started, outcomes)
    assert accepted == [], f"flipping these bits of {setting.data.hex()} gave a proof that verifies: {accepted}"
    assert sum(outcomes.values()) == len(bits)
