"""The keys and the proof of Groth16, with the names of the paper and of ark-groth16.

Groth, "On the Size of Pairing-based Non-interactive Arguments", EUROCRYPT 2016, §3.2. [x]₁ and [x]₂ are x times
the generators of G1 and G2. u_j, v_j, w_j are the QAP polynomials of variable j (see :mod:`cuzk.reference.qap`);
variables 0 … ℓ are the public inputs (0 is the constant 1), the others are the witness (aux).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cuzk.reference.qap import Reduction


@dataclass(frozen=True)
class ToxicWaste:
    """The secrets of the setup. INSECURE: whoever knows them can prove anything; use only in tests and vectors.

    τ is the evaluation point of the QAP; α and β tie A, B, C together; γ and δ separate public inputs from the
    witness part.
    """

    tau: Any
    alpha: Any
    beta: Any
    gamma: Any
    delta: Any


@dataclass(frozen=True)
class VerifyingKey:
    """[α]₁, [β]₂, [γ]₂, [δ]₂ and gamma_abc_g1[i] = [(β·u_i(τ) + α·v_i(τ) + w_i(τ))/γ]₁ for the public inputs."""

    curve: Any
    alpha_g1: Any
    beta_g2: Any
    gamma_g2: Any
    delta_g2: Any
    gamma_abc_g1: list[Any]

    @property
    def num_public_inputs(self) -> int:
        """ℓ: the public inputs, not counting the constant 1."""
        return len(self.gamma_abc_g1) - 1


@dataclass(frozen=True)
class ProvingKey:
    """Everything the prover multiplies by; vk is included because A and B start from [α]₁ and [β]₂.

    a_query[j] = [u_j(τ)]₁, b_g1_query[j] = [v_j(τ)]₁, b_g2_query[j] = [v_j(τ)]₂ for every variable j;
    l_query[j] = [(β·u_j(τ) + α·v_j(τ) + w_j(τ))/δ]₁ for the aux variables; h_query as the reduction says
    (libsnark: [τⁱ·Z(τ)/δ]₁, i < n − 1; circom: [L_(2i+1)(τ)/δ]₁ over the 2n-point domain, i < n).
    """

    vk: VerifyingKey
    beta_g1: Any
    delta_g1: Any
    a_query: list[Any]
    b_g1_query: list[Any]
    b_g2_query: list[Any]
    h_query: list[Any]
    l_query: list[Any]
    reduction: Reduction
    num_constraints: int

    @property
    def curve(self) -> Any:
        return self.vk.curve

    @property
    def num_inputs(self) -> int:
        """Public variables including the constant 1."""
        return len(self.vk.gamma_abc_g1)

    @property
    def num_variables(self) -> int:
        return len(self.a_query)

    @property
    def domain_size(self) -> int:
        return len(self.h_query) + 1 if self.reduction is Reduction.LIBSNARK else len(self.h_query)


@dataclass(frozen=True)
class Proof:
    """π = ([A]₁, [B]₂, [C]₁)."""

    a: Any
    b: Any
    c: Any

    def to_bytes(self) -> bytes:
        """A‖B‖C in the curve's compressed encoding (for BLS12-381 the 192-byte bellman/ZCash form)."""
        from cuzk.reference.encoding import encode_point

        return b"".join(encode_point(p, compressed=True) for p in (self.a, self.b, self.c))
