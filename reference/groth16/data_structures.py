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
    """The secrets of the setup. Insecure: for tests and vectors — whoever knows them can prove anything.

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
class PreparedVerifyingKey:
    """A verifying key with what every verification recomputes done once (ark-groth16's PreparedVerifyingKey):
    e(α, β) ∈ GT, and −γ, −δ, so that a verification is three Miller loops and one final exponentiation:

        FE( f_{B}(A) · f_{−γ}(Σ x_i·gamma_abc_g1[i]) · f_{−δ}(C) ) = e(α, β)

    Made by :func:`~cuzk.reference.groth16.verifier.prepare_verifying_key`; BN254 and BLS12-381 only.
    """

    vk: VerifyingKey
    alpha_beta: Any
    neg_gamma_g2: Any
    neg_delta_g2: Any

    @property
    def curve(self) -> Any:
        return self.vk.curve


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

    @classmethod
    def from_bytes(cls, curve: Any, data: bytes) -> Proof:
        """The proof encoded by :meth:`to_bytes` on ``curve``: A‖B‖C, each point compressed (BN254: 32 + 64 + 32
        bytes; BLS12-381: 48 + 96 + 48). Strict, as the point decoders are: each point must be the canonical
        encoding of an element of its group (on the curve, in the order-r subgroup, coordinates < q).

        Raises EncodingError for something not bytes-like, InvalidLengthError for a wrong total length, else the
        decoder's EncodingError (InvalidFlagsError, NonCanonicalError, PointNotOnCurveError,
        PointNotInSubgroupError) with the point and its bytes named. The point at infinity decodes (it is an
        element of the group): the verifier, not the encoding, refuses it in a proof
        (:func:`~cuzk.reference.groth16.verifier.verify_proof`).
        """
        from cuzk.reference.encoding import decode_point, point_size
        from cuzk.reference.errors import EncodingError, InvalidLengthError

        try:
            data = bytes(memoryview(data))  # bytes-like only: bytes(128) would be 128 zero bytes
        except TypeError:
            raise EncodingError(f"a {curve.name} proof: expected bytes, got {type(data).__name__}") from None
        sizes = [point_size(group, compressed=True) for group in (curve.g1, curve.g2, curve.g1)]
        if len(data) != sum(sizes):
            raise InvalidLengthError(
                f"a {curve.name} proof is {sum(sizes)} bytes (A‖B‖C compressed: {' + '.join(map(str, sizes))}), "
                f"got {len(data)}"
            )
        points = []
        start = 0
        for name, group, size in zip("ABC", (curve.g1, curve.g2, curve.g1), sizes, strict=True):
            try:
                points.append(decode_point(group, data[start : start + size]))
            except EncodingError as exc:
                raise type(exc)(f"proof {name} (bytes {start}..{start + size - 1} of {len(data)}): {exc}") from exc
            start += size
        return cls(*points)
