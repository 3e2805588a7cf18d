"""Groth16 verification (Groth16, §3.2): one pairing-product equation.

    e(A, B) = e(α, β) · e(Σ_i x_i·gamma_abc_g1[i], γ) · e(C, δ)        (x_0 = 1, x_1 … x_ℓ the public inputs)

checked as Π e(P_i, Q_i) = 1 with the left side moved over, so that one final exponentiation serves all four.
"""

from __future__ import annotations

from typing import Any

from cuzk.reference.errors import ProvingKeyError
from cuzk.reference.groth16.data_structures import Proof, VerifyingKey
from cuzk.reference.msm import msm


def prepare_inputs(vk: VerifyingKey, public_inputs: list[Any]) -> Any:
    """Σ_i x_i·gamma_abc_g1[i] with x_0 = 1."""
    if len(public_inputs) != vk.num_public_inputs:
        raise ProvingKeyError(
            f"the verifying key expects {vk.num_public_inputs} public inputs, {len(public_inputs)} were given"
        )
    fr = vk.curve.Fr
    scalars = [fr.one(), *(fr(x) if isinstance(x, int) else x for x in public_inputs)]
    return msm(vk.curve.g1, vk.gamma_abc_g1, scalars)


def verify_proof(vk: VerifyingKey, public_inputs: list[Any], proof: Proof) -> bool:
    """Whether ``proof`` is valid for ``public_inputs`` under ``vk``. Public inputs are elements of Fr (or ints
    < r); the points of the proof are taken as given (decoding is where they are checked to be in the groups)."""
    curve = vk.curve
    for name, value in (("public input", x) for x in public_inputs):
        if isinstance(value, int) and not 0 <= value < curve.r:
            raise ProvingKeyError(f"a {name} must lie in [0, r); got {value}")
    acc = prepare_inputs(vk, public_inputs)
    return curve.pairing_check(
        [(proof.a, proof.b), (-vk.alpha_g1, vk.beta_g2), (-acc, vk.gamma_g2), (-proof.c, vk.delta_g2)]
    )


verify = verify_proof
