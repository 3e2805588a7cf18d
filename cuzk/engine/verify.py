"""Checking a proof: the verification equation with its pairings on a backend whose pairing is ready.

The reference's :func:`~cuzk.reference.groth16.verify` is the verifier for a proof from anywhere: it checks that A,
B and C are in their subgroups ([r]P = O, in pure Python) and computes four pairings in pure Python, 0.2–0.3 s a
proof. A proof the engine made needs less: its points are sums of the proving key's points (checked when the key
was read, or made by the setup), so they are in the subgroups whenever they are on the curve, and the pairings can
run on a backend that offers PAIRING (the cpu backend's: about a millisecond), the device itself when it offers it,
else the host backend beside a device.
The answer is the reference verifier's for such a proof; what is checked is the equation
e(A, B) = e(α, β)·e(Σ x_i·IC_i, γ)·e(C, δ), as Π e(P_i, Q_i) = 1 over (A, B), (−α, β), (−Σ x_i·IC_i, γ), (−C, δ).

A backend's pairing is used once its kernels are ready (WARM_UP's ``kernels_ready`` for work "verify"): compiling
the cpu backend's costs about 6 s of a core, twenty times the reference's pure-Python pairing, so until then the
reference's pairing checks (and a background warm-up compiles it for later processes, :mod:`cuzk.engine.warm`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.errors import BackendUnavailableError, UnknownBackendError
from cuzk.backends.protocol import DEVICE, PAIRING, WARM_UP, Backend, has_capability
from cuzk.backends.registry import get_backend, host_backend
from cuzk.engine.warm import kernels_ready, warm_later
from cuzk.reference.curves import Curve
from cuzk.reference.groth16 import Proof, VerifyingKey
from cuzk.reference.groth16.verifier import (
    check_proof_points,
    check_public_inputs,
    prepare_inputs,
)


def pairing_backend(
    backend: Backend, curve: Curve, *, compile_later: bool = False, keep_device_free: bool = False
) -> Backend:
    """The backend whose pairing checks ``backend``'s proofs: a device with PAIRING itself (its program is built
    with the proof's, or shipped prebuilt: the check then imports nothing of the host backend's); else its host
    backend with PAIRING when that one's kernels are ready, else the reference backend (pure Python, nothing to
    compile); with ``compile_later`` the host's pairing is then compiled in the background for later processes.
    ``keep_device_free`` (a long-lived prover, whose check runs while the device makes the next proof): the host's
    pairing when its kernels are ready, even beside a device with PAIRING. The device's pairing runs its final
    exponentiation on one work-item, on the stream the next proof's kernels wait on; the host's takes a core
    (benchmarks/gpu/pairing_cost.py measures both)."""
    if has_capability(backend, DEVICE) and has_capability(backend, PAIRING):
        if keep_device_free and _compiled_and_ready(host := host_backend(backend, PAIRING), curve):
            return host  # asked only here: a one-shot device process loads nothing of the host backend's
        return backend
    host = host_backend(backend, PAIRING)
    if kernels_ready(host, curve, "verify"):
        return host
    if compile_later:
        warm_later(host, curve, "verify").close()  # goes on after close
    return get_backend("reference")


def _compiled_and_ready(host: Backend, curve: Curve, work: str = "verify") -> bool:
    """Whether ``host`` does ``work`` (its pairing: "verify") with compiled kernels, ready now (the reference's
    pure Python has none)."""
    return has_capability(host, WARM_UP) and kernels_ready(host, curve, work)


class PreparedVerifyingKey:
    """A verifying key's fixed points as the backends take them, converted once for the checks of many proofs (the
    part arkworks' PreparedVerifyingKey plays): the IC points of the public sum, and the points of the verification
    pairs that do not depend on the proof, −[α]₁ and [β]₂, [γ]₂, [δ]₂, in the order of the reference's
    :func:`~cuzk.reference.groth16.verifier.verification_pairs`."""

    def __init__(self, vk: VerifyingKey) -> None:
        self.vk, curve = vk, vk.curve
        self.neg_alpha = limbs.points_to_limbs(curve, "g1", [-vk.alpha_g1])
        self.g2 = limbs.points_to_limbs(curve, "g2", [vk.beta_g2, vk.gamma_g2, vk.delta_g2])

    @cached_property
    def ic(self) -> np.ndarray:
        """The IC points, converted when a compiled MSM first sums the public inputs over them (the reference's
        sum takes the points themselves)."""
        return limbs.points_to_limbs(self.vk.curve, "g1", self.vk.gamma_abc_g1)

    def pairs(self, acc: Any, proof: Proof) -> tuple[np.ndarray, np.ndarray]:
        """The reference's verification pairs as (G1, G2) limbs: (A, B), (−α, β), (−acc, γ), (−C, δ)."""
        curve = self.vk.curve
        ends = limbs.points_to_limbs(curve, "g1", [proof.a, -acc, -proof.c])
        g1 = np.concatenate([ends[:1], self.neg_alpha, ends[1:]])
        return g1, np.concatenate([limbs.points_to_limbs(curve, "g2", [proof.b]), self.g2])

    def holds(self, acc: Any, proof: Proof, pairing: Backend) -> bool:
        """Whether Π e(P_i, Q_i) = 1 over :meth:`pairs`, on ``pairing``'s pairing_check."""
        return bool(pairing.pairing_check(self.vk.curve, *self.pairs(acc, proof)))  # type: ignore[attr-defined]


def check_made_proof(
    vk: VerifyingKey,
    public_inputs: Sequence[Any],
    proof: Proof,
    backend: Backend,
    *,
    keep_device_free: bool = False,
    prepared: PreparedVerifyingKey | None = None,
) -> bool:
    """Whether ``proof``, made by this engine from a checked key, satisfies the verification equation for
    ``public_inputs`` (elements of Fr or ints in [0, r)); the pairings by :func:`pairing_backend` (and its
    ``keep_device_free``); ``prepared``: ``vk`` converted once (a long-lived prover's). A point off the curve or at
    infinity is a proof that does not verify (False)."""
    if any(p.is_identity() or not p.is_on_curve() for p in (proof.a, proof.b, proof.c)):
        return False
    prepared = PreparedVerifyingKey(vk) if prepared is None else prepared
    pairing = pairing_backend(backend, vk.curve, compile_later=True, keep_device_free=keep_device_free)
    acc = public_sum(vk, list(public_inputs), pairing, prepared=prepared)
    return prepared.holds(acc, proof, pairing)


def public_sum(
    vk: VerifyingKey, public_inputs: Sequence[Any], backend: Backend, *, prepared: PreparedVerifyingKey | None = None
) -> Any:
    """Σ x_i·IC_i with x_0 = 1 (the reference's :func:`prepare_inputs`, same checks and errors): an MSM of
    ``backend``'s when it is a host backend whose small MSMs are compiled and ready, else the reference's. The
    reference's Python MSM holds the interpreter for milliseconds even for one input (a 254-bit double-and-add),
    which a server's check thread would take from the thread launching the next proof's kernels."""
    host_ready = not has_capability(backend, DEVICE) and _compiled_and_ready(backend, vk.curve, "small_msm")
    if not host_ready:
        return prepare_inputs(vk, public_inputs)
    curve = vk.curve
    scalars = limbs.fr_to_limbs(curve, [curve.Fr.one(), *check_public_inputs(vk, public_inputs)])
    bases = prepared.ic if prepared is not None else limbs.points_to_limbs(curve, "g1", vk.gamma_abc_g1)
    return limbs.limbs_to_point(curve, "g1", backend.msm(curve, "g1", bases, scalars))


def verify(vk: VerifyingKey, public_inputs: Sequence[Any], proof: Proof) -> bool:
    """The reference's ``verify`` for a proof from anywhere (the inputs checked, A, B, C checked on the curve and
    in their subgroups, a point at infinity refused), the pairings on the cpu backend when its pairing is ready
    (else the reference's, and the cpu backend's compiled in the background): ``cuzk groth16 verify``."""
    acc = prepare_inputs(vk, list(public_inputs))
    check_proof_points(vk, proof)
    if any(p.is_identity() for p in (proof.a, proof.b, proof.c)):
        return False
    try:
        pairing = pairing_backend(get_backend("cpu"), vk.curve, compile_later=True)
    except (BackendUnavailableError, UnknownBackendError):  # numba missing: the reference's pairing
        pairing = get_backend("reference")
    return PreparedVerifyingKey(vk).holds(acc, proof, pairing)


__all__ = ["PreparedVerifyingKey", "check_made_proof", "pairing_backend", "public_sum", "verify"]
