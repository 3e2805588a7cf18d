"""The GPU backends' pairing check (capability PAIRING): a mixin of :class:`~cuzk.backends.gpu.backend.DeviceBackend`
over the ``pairing`` program (backends/kernels/tower.c, pairing.c).

Π e(P_i, Q_i) = 1 is the equation a proof's check asks (k = 4 pairs for Groth16). One work-item runs the Miller loop
of each pair (``pairing_miller_loop``); one more multiplies the k values and runs the one final exponentiation
(``pairing_final_exponentiation``), whose value it leaves canonical beside its answer. Everything stays on the device
but the answer (and, for :meth:`PairingWork.pairing_product`, the value): a proof's check on a GPU imports no
numba. The algorithms are the cpu backend's (backends/cpu/pairing.py), the value the reference's bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.capabilities import PAIRING
from cuzk.backends.checks import CurveLike, check_same_length
from cuzk.backends.gpu.context import DeviceContext, Finish, ready
from cuzk.reference.curves import Curve

T = TypeVar("T")

PROGRAM = "pairing"
FQ12_COEFFICIENTS = 12  # Fq elements of an Fq12 value, in the reference's order (c0.c0.c0, c0.c0.c1, …, c1.c2.c1)


def queue_pairing(ctx: DeviceContext, curve: Curve, g1: np.ndarray, g2: np.ndarray) -> Finish[tuple[bool, np.ndarray]]:
    """Queue the check of the k pairs (g1: (k, 2, L), g2: (k, 2, 2, L) canonical limbs, checked by the caller);
    the Finish gives (whether Π e(P_i, Q_i) = 1, the product's 12 canonical Fq coefficients as (12, L) limbs)."""
    k, L = len(g1), limbs.fq_limbs(curve)
    if k == 0:
        return ready((True, limbs.ints_to_limbs([1] + [0] * (FQ12_COEFFICIENTS - 1), L)))
    g1_buf, g2_buf = ctx.upload(np.ascontiguousarray(g1)), ctx.upload(np.ascontiguousarray(g2))
    values = ctx.buffer(k * FQ12_COEFFICIENTS * L * 8)
    out, is_one = ctx.buffer(FQ12_COEFFICIENTS * L * 8), ctx.buffer(4)
    ctx.launch(curve, PROGRAM, "pairing_miller_loop", k, g1_buf, g2_buf, values, np.uint32(k))
    ctx.launch(curve, PROGRAM, "pairing_final_exponentiation", 1, values, np.uint32(k), out, is_one)
    read_value, read_answer = ctx.read_later(out, (FQ12_COEFFICIENTS, L)), ctx.read_later(is_one, (1,), np.uint32)
    return lambda: (bool(read_answer()[0]), read_value())


class PairingWork:
    """The hook of HostCapabilities.pairing_check on the device, and the product's value for tests."""

    if TYPE_CHECKING:

        def _call(self, queue: Callable[[DeviceContext], Finish[T]]) -> T: ...
        def _ready(self, curve: CurveLike, capability: str | None = None) -> Curve: ...

    def _pairing_check(self, curve: Curve, g1: np.ndarray, g2: np.ndarray) -> bool:
        return self._call(lambda ctx: queue_pairing(ctx, curve, g1, g2))[0]

    def pairing_product(self, curve: CurveLike, g1: np.ndarray, g2: np.ndarray) -> list[int]:
        """Π e(g1[i], g2[i]) as 12 canonical integers in the reference's coefficient order (1, 0, …, 0 for k = 0):
        the value behind ``pairing_check``, which the tests compare with the reference's pairing."""
        c = self._ready(curve, PAIRING)
        g1, g2 = limbs.check_points(c, "g1", g1, "g1"), limbs.check_points(c, "g2", g2, "g2")
        check_same_length(g1, g2, ("g1", "g2"))
        _, value = self._call(lambda ctx: queue_pairing(ctx, c, g1, g2))
        return limbs.limbs_to_ints(value)


__all__ = ["FQ12_COEFFICIENTS", "PROGRAM", "PairingWork", "queue_pairing"]
