"""Groth16 proving (Groth16, §3.2): three group elements from the witness and two random scalars r, s."""

from __future__ import annotations

import secrets
from typing import Any

from cuzk.reference.errors import ParameterError, ProvingKeyError
from cuzk.reference.groth16.data_structures import Proof, ProvingKey
from cuzk.reference.msm import msm
from cuzk.reference.ntt import ntt as reference_ntt
from cuzk.reference.qap import NttFunction, domain_size, evaluate_rows, qap_matrices, witness_map


def check_shape(pk: ProvingKey, cs: Any) -> None:
    """The constraint system must have the shape of the one the key was made for."""
    shape = (cs.num_inputs, cs.num_inputs + cs.num_aux, len(cs.constraints))
    expected = (pk.num_inputs, pk.num_variables, pk.num_constraints)
    if shape != expected:
        raise ProvingKeyError(
            f"the proving key is for {expected[0]} public inputs, {expected[1]} variables and {expected[2]} "
            f"constraints, the circuit has {shape[0]}, {shape[1]} and {shape[2]}"
        )


def check_satisfies_key(pk: ProvingKey, cs: Any) -> None:
    """The constraint system must be the one the key was made for (same shape), and satisfied."""
    check_shape(pk, cs)
    cs.check_satisfied()


def qap_evaluations(cs: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """The values of A = Σ z_j·u_j, B and C on the domain H: one ⟨row, z⟩ per constraint and per input row."""
    a, b, c = qap_matrices(*cs.matrices(), cs.num_inputs)
    z = cs.full_assignment()
    n = domain_size(len(cs.constraints), cs.num_inputs)
    return evaluate_rows(a, z, n), evaluate_rows(b, z, n), evaluate_rows(c, z, n)


def compute_h(pk: ProvingKey, cs: Any, *, ntt: NttFunction = reference_ntt) -> list[Any]:
    """The scalars of the h_query MSM: the QAP evaluations of A, B, C on the domain through the key's reduction."""
    return witness_map(*qap_evaluations(cs), pk.reduction, ntt=ntt)


def assemble_proof(pk: ProvingKey, sums: dict[str, Any], *, r: Any, s: Any) -> Proof:
    """The proof from the five MSM results ``sums`` (keys a, b_g1, b_g2, l, h: Σ z_j·a_query[j], …) and r, s:

    [A]₁ = [α]₁ + Σ_j z_j·a_query[j] + r·[δ]₁
    [B]₂ = [β]₂ + Σ_j z_j·b_g2_query[j] + s·[δ]₂          ([B]₁ likewise, from b_g1_query)
    [C]₁ = Σ_aux z_j·l_query[j] + Σ_i h_i·h_query[i] + s·[A]₁ + r·[B]₁ − r·s·[δ]₁
    """
    fr = pk.curve.Fr
    r, s = fr(r) if isinstance(r, int) else r, fr(s) if isinstance(s, int) else s
    a = pk.vk.alpha_g1 + sums["a"] + pk.delta_g1 * r
    b_g2 = pk.vk.beta_g2 + sums["b_g2"] + pk.vk.delta_g2 * s
    b_g1 = pk.beta_g1 + sums["b_g1"] + pk.delta_g1 * s
    c = sums["l"] + sums["h"] + a * s + b_g1 * r - pk.delta_g1 * (r * s)
    return Proof(a=a.normalize(), b=b_g2.normalize(), c=c.normalize())


def create_proof(pk: ProvingKey, cs: Any, *, r: Any, s: Any) -> Proof:
    """The proof for the satisfied constraint system ``cs`` with explicit blinding scalars r and s: the five MSMs
    of :func:`assemble_proof`'s formula, by the reference MSM. The same r, s give the same proof, byte for byte:
    the determinism the conformance vectors rely on.

    Insecure: for tests and vectors. Zero knowledge rests on r and s being uniform and secret: whoever knows them
    computes A − [α]₁ − r·[δ]₁ = [Σ_j z_j·u_j(τ)]₁, a fixed function of the witness against which guesses of the
    witness can be tested. :func:`create_proof_insecure` is this function under a name that says so; proofs to
    publish come from :func:`create_random_proof` (or :func:`prove` without r and s)."""
    check_satisfies_key(pk, cs)
    z = cs.full_assignment()
    h = compute_h(pk, cs)
    g1, g2 = pk.curve.g1, pk.curve.g2
    sums = {
        "a": msm(g1, pk.a_query, z),
        "b_g1": msm(g1, pk.b_g1_query, z),
        "b_g2": msm(g2, pk.b_g2_query, z),
        "l": msm(g1, pk.l_query, z[pk.num_inputs :]),
        "h": msm(g1, pk.h_query, h),
    }
    return assemble_proof(pk, sums, r=r, s=s)


def create_random_proof(pk: ProvingKey, cs: Any) -> Proof:
    """The proof with r and s drawn uniformly from [0, r) by the ``secrets`` module (the operating system's
    CSPRNG; zero knowledge rests on their being secret), used for this proof only and not kept."""
    fr = pk.curve.Fr
    return create_proof(pk, cs, r=fr(secrets.randbelow(fr.MODULUS)), s=fr(secrets.randbelow(fr.MODULUS)))


def prove(pk: ProvingKey, cs: Any, *, r: Any = None, s: Any = None) -> Proof:
    """create_random_proof when r and s are both None (the secure default); with both given, create_proof
    with them, which is insecure: for tests and vectors (see :func:`create_proof`)."""
    if r is None and s is None:
        return create_random_proof(pk, cs)
    if r is None or s is None:
        raise ParameterError("give both r and s, or neither")
    return create_proof(pk, cs, r=r, s=s)


# The explicit-randomness prover under a name that says what it is (the original name stays for existing callers).
create_proof_insecure = create_proof
