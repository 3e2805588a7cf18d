"""Groth16 setup: from a constraint system and the toxic waste to the proving and verifying keys (Groth16, §3.2)."""

from __future__ import annotations

import secrets
from typing import Any

from cuzk.reference.errors import ParameterError
from cuzk.reference.fixed_base import FixedBaseTable
from cuzk.reference.groth16.data_structures import ProvingKey, ToxicWaste, VerifyingKey
from cuzk.reference.qap import (
    Reduction,
    check_domain,
    domain_size,
    h_query_scalars,
    lagrange_basis_at,
    qap_at,
    qap_matrices,
)


def generate_parameters_with_toxic_waste(
    cs: Any, curve: Any, toxic: ToxicWaste, *, reduction: Reduction = Reduction.LIBSNARK
) -> ProvingKey:
    """The keys for ``cs`` from explicitly given secrets. Insecure: for tests and vectors. Whoever knows the
    secrets can make proofs of false statements (see :class:`ToxicWaste`). :func:`generate_parameters_insecure` is
    this function under a name that says so; keys to use come from :func:`generate_random_parameters` (or from a
    ceremony's .zkey).

    u_j(τ), v_j(τ), w_j(τ)   the QAP polynomials of every variable j, evaluated at τ
    a_query[j]    = [u_j(τ)]₁          b_g1_query[j] = [v_j(τ)]₁          b_g2_query[j] = [v_j(τ)]₂
    gamma_abc_g1[i] = [(β·u_i + α·v_i + w_i)/γ]₁   for public i
    l_query[j]      = [(β·u_j + α·v_j + w_j)/δ]₁   for aux j
    h_query         = [·/δ]₁ of :func:`~cuzk.reference.qap.h_query_scalars`
    """
    fr = curve.Fr
    tau, alpha, beta, gamma, delta = (fr(getattr(toxic, name)) for name in ("tau", "alpha", "beta", "gamma", "delta"))
    if any(x.is_zero() for x in (alpha, beta, gamma, delta)):
        raise ParameterError("α, β, γ and δ must be non-zero")
    a, b, c = cs.matrices()
    num_inputs, num_variables = cs.num_inputs, cs.num_inputs + cs.num_aux
    n = domain_size(len(a), num_inputs)
    check_domain(fr, n, reduction)
    a, b, c = qap_matrices(a, b, c, num_inputs)
    basis = lagrange_basis_at(fr, n, tau)
    u, v, w = (qap_at(m, num_variables, basis) for m in (a, b, c))

    # every key element is a multiple of one of two generators: precompute their fixed-base tables once
    g1, g2 = FixedBaseTable(curve.g1.generator), FixedBaseTable(curve.g2.generator)
    gamma_inv, delta_inv = gamma.inverse(), delta.inverse()
    combined = [beta * u_j + alpha * v_j + w_j for u_j, v_j, w_j in zip(u, v, w, strict=True)]
    vk = VerifyingKey(
        curve=curve,
        alpha_g1=g1.mul(alpha),
        beta_g2=g2.mul(beta),
        gamma_g2=g2.mul(gamma),
        delta_g2=g2.mul(delta),
        gamma_abc_g1=[g1.mul(x * gamma_inv) for x in combined[:num_inputs]],
    )
    return ProvingKey(
        vk=vk,
        beta_g1=g1.mul(beta),
        delta_g1=g1.mul(delta),
        a_query=[g1.mul(x) for x in u],
        b_g1_query=[g1.mul(x) for x in v],
        b_g2_query=[g2.mul(x) for x in v],
        h_query=[g1.mul(x * delta_inv) for x in h_query_scalars(fr, n, tau, reduction)],
        l_query=[g1.mul(x * delta_inv) for x in combined[num_inputs:]],
        reduction=reduction,
        num_constraints=len(cs.constraints),
    )


def random_toxic_waste(field: Any, n: int) -> ToxicWaste:
    """Secrets drawn with the ``secrets`` module (the operating system's CSPRNG): α, β, γ, δ uniform in
    [1, r), τ uniform in [1, r) outside the 2n-point domain. The caller must forget them after the setup."""

    def nonzero() -> Any:
        return field(1 + secrets.randbelow(field.MODULUS - 1))

    tau = nonzero()
    while (tau ** (2 * n)) == 1:
        tau = nonzero()
    return ToxicWaste(tau=tau, alpha=nonzero(), beta=nonzero(), gamma=nonzero(), delta=nonzero())


def generate_random_parameters(cs: Any, curve: Any, *, reduction: Reduction = Reduction.LIBSNARK) -> ProvingKey:
    """The keys for ``cs`` with fresh secrets that are forgotten when this function returns (a one-party setup;
    real deployments run a multi-party ceremony, whose output cuzk reads as a .zkey)."""
    n = domain_size(len(cs.constraints), cs.num_inputs)
    return generate_parameters_with_toxic_waste(cs, curve, random_toxic_waste(curve.Fr, n), reduction=reduction)


# The explicit-secrets setup under a name that says what it is (the original name stays for existing callers).
generate_parameters_insecure = generate_parameters_with_toxic_waste
