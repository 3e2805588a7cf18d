"""A one-party Groth16 setup that writes a .zkey: ``cuzk groth16 setup circuit.r1cs circuit.zkey``.

It makes the key ``snarkjs groth16 setup`` would make from a powers-of-tau file, except that one party draws all
the secrets (τ, α, β, γ, δ) and forgets them: fine for development and tests, never for production, where the key
must come from a ceremony (snarkjs powersoftau + zkey contribute). The key is snarkjs's in every respect — domain
order, the circom reduction's H, coefficients ·R², the public-input rows — so snarkjs proves with it too.

As snarkjs's zkey_new.js: row k < m is constraint k, row m + s is public signal s (s = 0 the constant) with A = 1;
u_j(τ) = Σ_k A_kj·L_k(τ) over snarkjs's domain order (:mod:`cuzk.formats.domain`), likewise v_j, w_j; then the
points of :func:`cuzk.reference.groth16.generator.generate_parameters_with_toxic_waste`. The scalar
multiplications are the reference's fixed-base tables (pure Python: about 2 ms per G1 and 9 ms per G2 point, so
seconds for hundreds of constraints, tens of minutes for 2^16).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.formats.domain import h_positions, row_positions
from cuzk.formats.errors import CurveMismatchError
from cuzk.formats.points import PointTable
from cuzk.formats.r1cs import R1cs
from cuzk.formats.zkey import Coefficients, ZKey
from cuzk.reference.curves import CURVES, Curve
from cuzk.reference.fixed_base import FixedBaseTable
from cuzk.reference.groth16 import ToxicWaste, random_toxic_waste
from cuzk.reference.qap import Reduction, check_domain, domain_size, lagrange_basis_at


def curve_of_scalar_prime(prime: int, what: str) -> Curve:
    """The curve whose Fr has modulus ``prime`` (a circuit's field), or CurveMismatchError."""
    for curve in CURVES.values():
        if curve.r == prime:
            return curve
    raise CurveMismatchError(what, f"the field prime {prime} is the scalar field of neither bn128 nor bls12381")


def coefficients_of(r1cs: R1cs) -> Coefficients:
    """Section 4 of the key: A's and B's terms, then A = 1 on the row of each public signal (and the constant)."""
    inputs = np.arange(r1cs.num_public + 1, dtype=np.int64)
    one = limbs.ints_to_limbs([1] * len(inputs), limbs.FR_LIMBS)
    matrix = np.concatenate([np.zeros_like(r1cs.a.rows), np.ones_like(r1cs.b.rows), np.zeros_like(inputs)])
    constraint = np.concatenate([r1cs.a.rows, r1cs.b.rows, r1cs.num_constraints + inputs])
    signal = np.concatenate([r1cs.a.wires, r1cs.b.wires, inputs])
    values = np.concatenate([r1cs.a.coefficients, r1cs.b.coefficients, one])
    order = np.argsort(constraint, kind="stable")
    return Coefficients.from_values(matrix[order], constraint[order], signal[order], values[order], r1cs.prime)


def setup_zkey(r1cs: R1cs, toxic: ToxicWaste | None = None, *, path: str = "") -> ZKey:
    """The proving key of ``r1cs`` (secrets from ``toxic``, or drawn and forgotten), ready for
    :func:`~cuzk.formats.zkey_write.write_zkey`."""
    curve = curve_of_scalar_prime(r1cs.prime, r1cs.path)
    fr = curve.Fr
    m, num_public, num_variables = r1cs.num_constraints, r1cs.num_public, r1cs.num_wires
    n = domain_size(m, num_public + 1)
    check_domain(fr, n, Reduction.CIRCOM)
    toxic = toxic if toxic is not None else random_toxic_waste(fr, n)
    tau, alpha, beta, gamma, delta = (fr(getattr(toxic, k)) for k in ("tau", "alpha", "beta", "gamma", "delta"))

    reference_basis = lagrange_basis_at(fr, n, tau)
    basis = [reference_basis[k] for k in row_positions(fr, n).tolist()]  # L_k(τ) for snarkjs's row k
    u, v, w = ([fr.zero()] * num_variables for _ in range(3))
    for values, terms in ((u, r1cs.a), (v, r1cs.b), (w, r1cs.c)):
        for row, wire, coeff in terms.entries():
            values[wire] = values[wire] + basis[row] * coeff
    for s in range(num_public + 1):
        u[s] = u[s] + basis[m + s]
    odd_basis = lagrange_basis_at(fr, 2 * n, tau)
    h = [odd_basis[2 * j + 1] for j in h_positions(fr, n).tolist()]

    g1, g2 = FixedBaseTable(curve.g1.generator, 8), FixedBaseTable(curve.g2.generator, 8)
    gamma_inv, delta_inv = gamma.inverse(), delta.inverse()
    combined = [beta * u_j + alpha * v_j + w_j for u_j, v_j, w_j in zip(u, v, w, strict=True)]

    def table(group: str, base: FixedBaseTable, scalars: list[Any]) -> PointTable:
        return PointTable(curve, group, limbs.points_to_limbs(curve, group, [base.mul(x) for x in scalars]))

    return ZKey(
        path=path,
        curve=curve,
        num_variables=num_variables,
        num_public=num_public,
        domain_size=n,
        alpha_g1=g1.mul(alpha).normalize(),
        beta_g1=g1.mul(beta).normalize(),
        beta_g2=g2.mul(beta).normalize(),
        gamma_g2=g2.mul(gamma).normalize(),
        delta_g1=g1.mul(delta).normalize(),
        delta_g2=g2.mul(delta).normalize(),
        ic=[g1.mul(x * gamma_inv).normalize() for x in combined[: num_public + 1]],
        coefficients=coefficients_of(r1cs),
        a_query=table("g1", g1, u),
        b_g1_query=table("g1", g1, v),
        b_g2_query=table("g2", g2, v),
        l_query=table("g1", g1, [x * delta_inv for x in combined[num_public + 1 :]]),
        h_query=table("g1", g1, [x * delta_inv for x in h]),
    )


__all__ = ["coefficients_of", "curve_of_scalar_prime", "setup_zkey"]
