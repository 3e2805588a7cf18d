"""One Groth16 setting per curve, shared by the reliability tests: the cubic circuit (x³ + x + 5 = 35), keys from
a setup whose toxic waste the test keeps (so that it can forge what only the trapdoor can), and one proof."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from cuzk.reference.circuits.cubic import synthesize_cubic
from cuzk.reference.curves import Curve
from cuzk.reference.groth16 import (
    PreparedVerifyingKey,
    Proof,
    ProvingKey,
    ToxicWaste,
    generate_parameters_insecure,
    prepare_verifying_key,
    prove,
    random_toxic_waste,
    verify,
)
from cuzk.reference.qap import domain_size
from cuzk.reference.r1cs import ConstraintSystem


@dataclass(frozen=True)
class Setting:
    curve: Curve
    toxic: ToxicWaste
    cs: ConstraintSystem
    pk: ProvingKey
    pvk: PreparedVerifyingKey
    public: list[int]
    proof: Proof
    data: bytes  # proof.to_bytes(): A‖B‖C compressed


def cubic_cs(curve: Curve, x: int = 3) -> ConstraintSystem:
    cs = ConstraintSystem(curve.Fr)
    synthesize_cubic(cs, x=x)
    return cs


@functools.cache
def make_setting(curve: Curve) -> Setting:
    """Made once per curve and session (a setup and a proof cost about a second)."""
    cs = cubic_cs(curve)
    toxic = random_toxic_waste(curve.Fr, domain_size(len(cs.constraints), cs.num_inputs))
    pk = generate_parameters_insecure(cs, curve, toxic)
    public = [int(v) for v in cs.input_assignment[1:]]
    proof = prove(pk, cs)
    assert verify(pk.vk, public, proof), "the honest proof must verify, or every rejection below means nothing"
    return Setting(curve, toxic, cs, pk, prepare_verifying_key(pk.vk), public, proof, proof.to_bytes())
