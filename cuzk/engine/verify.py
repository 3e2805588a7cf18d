"""Checking a proof the engine has just made: the verification equation with its pairings on a backend.

The reference's :func:`~cuzk.reference.groth16.verify` is the verifier for a proof from anywhere: it checks that A,
B and C are in their subgroups ([r]P = O, in pure Python) and computes four pairings in pure Python, 0.2–0.3 s a
proof. A proof the engine made needs less: its points are sums of the proving key's points (checked when the key
was read, or made by the setup), so they are in the subgroups whenever they are on the curve, and the pairings can
run on a backend that offers PAIRING (the cpu backend's: about a millisecond), the host backend beside a device.
The answer is the reference verifier's for such a proof; what is checked is the equation
e(A, B) = e(α, β)·e(Σ x_i·IC_i, γ)·e(C, δ), as Π e(P_i, Q_i) = 1 over (A, B), (−α, β), (−Σ x_i·IC_i, γ), (−C, δ).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cuzk.backends import limbs
from cuzk.backends.protocol import PAIRING, Backend
from cuzk.backends.registry import host_backend
from cuzk.reference.groth16 import Proof, VerifyingKey
from cuzk.reference.groth16.verifier import prepare_inputs, verification_pairs


def check_made_proof(vk: VerifyingKey, public_inputs: Sequence[Any], proof: Proof, backend: Backend) -> bool:
    """Whether ``proof``, made by this engine from a checked key, satisfies the verification equation for
    ``public_inputs`` (elements of Fr or ints in [0, r)); the pairings on ``backend``'s host backend with PAIRING.
    A point off the curve or at infinity is a proof that does not verify (False)."""
    curve = vk.curve
    acc = prepare_inputs(vk, list(public_inputs))
    points = (proof.a, proof.b, proof.c)
    if any(p.is_identity() or not p.is_on_curve() for p in points):
        return False
    g1_points, g2_points = zip(*verification_pairs(vk, acc, proof), strict=True)
    g1 = limbs.points_to_limbs(curve, "g1", g1_points)
    g2 = limbs.points_to_limbs(curve, "g2", g2_points)
    return bool(host_backend(backend, PAIRING).pairing_check(curve, g1, g2))  # type: ignore[attr-defined]


__all__ = ["check_made_proof"]
