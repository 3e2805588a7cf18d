"""Groth16 end to end on the reference: every example circuit verifies on both curves and on the toy setting, and
everything that should be rejected is."""

from __future__ import annotations

import pytest

from cuzk.reference.circuits import CIRCUITS, build
from cuzk.reference.circuits.cubic import synthesize_cubic
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.encoding import decode_point, encode_point
from cuzk.reference.errors import EncodingError, ProvingKeyError, UnsatisfiedConstraintError
from cuzk.reference.groth16 import (
    Proof,
    ToxicWaste,
    create_proof,
    generate_parameters_with_toxic_waste,
    generate_random_parameters,
    prove,
    verify,
)
from cuzk.reference.qap import Reduction
from cuzk.reference.r1cs import ConstraintSystem
from cuzk.reference.toy import TOY

SETTINGS = [TOY, BN254, BLS12_381]
REDUCTIONS = [Reduction.LIBSNARK, Reduction.CIRCOM]
TOXIC = {"tau": 1234567, "alpha": 3, "beta": 5, "gamma": 7, "delta": 11}


def toxic(curve) -> ToxicWaste:
    return ToxicWaste(**{k: curve.Fr(v) for k, v in TOXIC.items()})


def cubic_cs(curve, x: int = 3) -> ConstraintSystem:
    cs = ConstraintSystem(curve.Fr)
    synthesize_cubic(cs, x=x)
    return cs


@pytest.fixture(
    scope="module", params=[(c, red) for c in SETTINGS for red in REDUCTIONS], ids=lambda p: f"{p[0].name}-{p[1].value}"
)
def cubic_setting(request):
    """The cubic circuit's keys and a proof, per curve and reduction (made once per module: setup costs seconds)."""
    curve, reduction = request.param
    cs = cubic_cs(curve)
    pk = generate_parameters_with_toxic_waste(cs, curve, toxic(curve), reduction=reduction)
    proof = create_proof(pk, cs, r=13, s=17)
    return curve, reduction, cs, pk, proof


def test_cubic_proof_verifies(cubic_setting) -> None:
    _, _, cs, pk, proof = cubic_setting
    assert verify(pk.vk, [cs.input_assignment[1]], proof)


def test_wrong_public_input_is_rejected(cubic_setting) -> None:
    _, _, cs, pk, proof = cubic_setting
    assert not verify(pk.vk, [cs.input_assignment[1] + 1], proof)


def test_fixed_randomness_is_deterministic(cubic_setting) -> None:
    curve, _, cs, pk, proof = cubic_setting
    again = create_proof(pk, cubic_cs(curve), r=13, s=17)
    assert (again.a, again.b, again.c) == (proof.a, proof.b, proof.c)
    if curve is not TOY:
        assert again.to_bytes() == proof.to_bytes()
    other = create_proof(pk, cs, r=14, s=17)
    assert other.a != proof.a and verify(pk.vk, [cs.input_assignment[1]], other)


def test_unsatisfied_witness_is_refused_before_proving(cubic_setting) -> None:
    curve, _, _, pk, _ = cubic_setting
    cs = ConstraintSystem(curve.Fr)
    synthesize_cubic(cs, x=3, out=36)  # claims 36 = 3³ + 3 + 5
    with pytest.raises(UnsatisfiedConstraintError, match=r"constraint 3 \(\(sym_2\+5\)\*1=out\)"):
        create_proof(pk, cs, r=1, s=2)


def test_proof_for_another_circuit_is_rejected(cubic_setting) -> None:
    curve, reduction, cs, pk, proof = cubic_setting
    other = ConstraintSystem(curve.Fr)
    synthesize_cubic(other, x=3, steps=2)
    other_pk = generate_parameters_with_toxic_waste(other, curve, toxic(curve), reduction=reduction)
    with pytest.raises(ProvingKeyError, match="constraints"):
        create_proof(other_pk, cs, r=1, s=2)
    other_proof = create_proof(other_pk, other, r=1, s=2)
    assert not verify(pk.vk, [cs.input_assignment[1]], other_proof)
    with pytest.raises(ProvingKeyError, match="public inputs"):
        verify(pk.vk, [], proof)


def decode_proof(curve: Curve, data: bytes) -> Proof:
    """A‖B‖C from their compressed encodings, checked to be valid group elements."""
    n1, n2 = (
        len(encode_point(curve.g1.generator, compressed=True)),
        len(encode_point(curve.g2.generator, compressed=True)),
    )
    return Proof(
        a=decode_point(curve.g1, data[:n1]),
        b=decode_point(curve.g2, data[n1 : n1 + n2]),
        c=decode_point(curve.g1, data[n1 + n2 :]),
    )


@pytest.mark.parametrize("curve", [BN254, BLS12_381], ids=lambda c: c.name)
def test_one_bit_changed_is_rejected(curve: Curve) -> None:
    """A proof with any one bit flipped is rejected: by decoding (not a point of the group) or by the verifier.
    24 bits spread over the whole proof here; issue-level fuzzing flips every bit in the slow run."""
    cs = cubic_cs(curve)
    pk = generate_parameters_with_toxic_waste(cs, curve, toxic(curve))
    public = [cs.input_assignment[1]]
    data = create_proof(pk, cs, r=13, s=17).to_bytes()
    assert verify(pk.vk, public, decode_proof(curve, data))
    outcomes = {"decoding": 0, "verifier": 0}
    for bit in range(0, 8 * len(data), 8 * len(data) // 24 + 1):
        tampered = bytearray(data)
        tampered[bit // 8] ^= 1 << (bit % 8)
        try:
            proof = decode_proof(curve, bytes(tampered))
        except EncodingError:
            outcomes["decoding"] += 1
            continue
        assert not verify(pk.vk, public, proof), f"bit {bit} flipped still verifies"
        outcomes["verifier"] += 1
    assert sum(outcomes.values()) >= 24


# every circuit on the toy curve; on BN254 the small ones by default, MiMC's 331 and the Merkle path's 333
# constraints (about 14 s each in pure Python: the same prover and verifier over the same field) with -m slow
LARGE = {"mimc", "merkle"}
EXAMPLES = [pytest.param(TOY, name, id=f"{name}-{TOY.name}") for name in sorted(CIRCUITS)] + [
    pytest.param(BN254, name, id=f"{name}-{BN254.name}", marks=[pytest.mark.slow] if name in LARGE else [])
    for name in sorted(CIRCUITS)
]


@pytest.mark.parametrize(("curve", "name"), EXAMPLES)
def test_every_example_circuit_proves_and_verifies(curve, name: str) -> None:
    cs = build(name, curve.Fr, size=1, seed=7)
    pk = generate_random_parameters(cs, curve, reduction=Reduction.CIRCOM if name == "bits" else Reduction.LIBSNARK)
    proof = prove(pk, cs)
    assert verify(pk.vk, cs.input_assignment[1:], proof)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CIRCUITS))
def test_every_example_circuit_on_bls12_381(name: str) -> None:
    cs = build(name, BLS12_381.Fr, size=1, seed=7)
    pk = generate_random_parameters(cs, BLS12_381)
    assert verify(pk.vk, cs.input_assignment[1:], prove(pk, cs))


def test_random_proofs_differ_and_both_verify() -> None:
    cs = cubic_cs(TOY)
    pk = generate_random_parameters(cs, TOY)
    p1, p2 = prove(pk, cs), prove(pk, cs)
    assert verify(pk.vk, [35], p1) and verify(pk.vk, [35], p2)
    assert (p1.a, p1.c) != (p2.a, p2.c)


def test_verification_agrees_with_py_ecc_pairing(curve: Curve) -> None:
    """The verification equation recomputed with py_ecc's pairing (an independent implementation)."""
    from ._py_ecc import module, to_py

    m = module(curve)
    cs = cubic_cs(curve)
    pk = generate_parameters_with_toxic_waste(cs, curve, toxic(curve))
    proof = create_proof(pk, cs, r=13, s=17)
    vk = pk.vk
    acc = vk.gamma_abc_g1[0] + vk.gamma_abc_g1[1] * cs.input_assignment[1]

    def e(p, q):
        return m.pairing(to_py(q), to_py(p))

    lhs = e(proof.a, proof.b)
    rhs = e(vk.alpha_g1, vk.beta_g2) * e(acc, vk.gamma_g2) * e(proof.c, vk.delta_g2)
    assert lhs == rhs
    assert e(proof.a + curve.g1.generator, proof.b) != rhs
