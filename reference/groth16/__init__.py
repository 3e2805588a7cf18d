"""Groth16 (EUROCRYPT 2016) as the spec: setup, prove, verify, one module per role as in ark-groth16."""

from cuzk.reference.groth16.data_structures import (
    PreparedVerifyingKey,
    Proof,
    ProvingKey,
    ToxicWaste,
    VerifyingKey,
)
from cuzk.reference.groth16.generator import (
    generate_parameters_insecure,
    generate_parameters_with_toxic_waste,
    generate_random_parameters,
    random_toxic_waste,
)
from cuzk.reference.groth16.prover import create_proof, create_proof_insecure, create_random_proof, prove
from cuzk.reference.groth16.verifier import (
    check_proof_points,
    check_public_inputs,
    prepare_inputs,
    prepare_verifying_key,
    verification_pairs,
    verify,
    verify_proof,
)

setup = generate_random_parameters

__all__ = [
    "PreparedVerifyingKey",
    "Proof",
    "ProvingKey",
    "ToxicWaste",
    "VerifyingKey",
    "check_proof_points",
    "check_public_inputs",
    "create_proof",
    "create_proof_insecure",
    "create_random_proof",
    "generate_parameters_insecure",
    "generate_parameters_with_toxic_waste",
    "generate_random_parameters",
    "prepare_inputs",
    "prepare_verifying_key",
    "prove",
    "random_toxic_waste",
    "setup",
    "verification_pairs",
    "verify",
    "verify_proof",
]
