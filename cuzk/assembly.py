"""The last step of the engine's proof: [A]₁, [B]₂ and [C]₁ from the MSM results, on the backends (a mixin of
:class:`cuzk.prover.Prover`, which provides the attributes declared here).

The reference's ``assemble_proof`` does six scalar multiplications in pure Python (~100 ms on BN254). Here they are
small MSMs on the backend: the key's fixed points α, β, δ (and β₂, δ₂) are prepared like the queries, so that on a
GPU their terms run over shifted copies with no one-thread chain of 255 doublings (on an H200 the chain of G2
doublings of [B]₂ had taken 11.2 ms of a BLS12-381 proof); only s·Σa + r·Σb keeps such a chain, and the sums are
added on the host. The same group elements as the reference's, so the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import Backend, PreparedBases
from cuzk.reference.curves import Curve, Point
from cuzk.reference.groth16 import Proof
from cuzk.timing import Recorder


def msm_call(
    backend: Backend, curve: Curve, group: str, bases: Any, scalars: Any, window: int | None = None
) -> Callable[[], np.ndarray]:
    """The backend call of one MSM over ``bases``: prepared (``msm_prepared``) or a limb array (``msm``)."""
    if isinstance(bases, PreparedBases):
        return partial(backend.msm_prepared, bases, scalars, window=window)  # type: ignore[attr-defined]
    return partial(backend.msm, curve, group, bases, scalars, window=window)


class Assembly:
    """The assembly's backend calls and formulas."""

    curve: Curve
    batch: bool
    recorder: Recorder
    _fixed: dict[str, Any]  # the key's fixed points per group, prepared (or limb arrays)

    def _backend_for(self, group: str) -> Backend:
        raise NotImplementedError

    def _timed_call(self, backend: Backend, name: str, call: Callable[[], Any], parts: list[str] | None = None) -> Any:
        raise NotImplementedError

    def _combine(self, name: str, group: str, sums: list[tuple[Any, list[int]]]) -> list[np.ndarray]:
        """Σ scalars[i]·bases[i] for each (bases, scalars) of ``sums``, a handful of points per sum: the bases are an
        (m, …) limb array or the key's prepared fixed points (``_fixed``), on the group's backend; one ``msm_batch``
        call for them all with ``batch``, else one call each."""
        backend = self._backend_for(group)
        k = [limbs.ints_to_limbs(scalars, limbs.FR_LIMBS) for _, scalars in sums]
        if self.batch and group == "g1":
            batch = partial(backend.msm_batch, self.curve, group, [b for b, _ in sums], k)  # type: ignore[attr-defined]
            return list(self._timed_call(backend, name, batch))
        calls = [msm_call(backend, self.curve, group, b, s) for (b, _), s in zip(sums, k, strict=True)]
        return [self._timed_call(backend, name, call) for call in calls]

    def _point(self, group: str, array: np.ndarray) -> Point:
        return limbs.limbs_to_point(self.curve, group, array)

    def _assemble_g2(self, b_g2: np.ndarray, s: int) -> Point:
        """[B]₂ = ([β]₂ + s·[δ]₂) + Σ z_j·b_g2_query[j]: an MSM over the key's two prepared points (on a GPU their
        shifted copies: no chain of doublings), and one addition on the host."""
        with self.recorder.span("assemble_g2"):
            fixed = self._combine("assemble_g2", "g2", [(self._fixed["g2"], [1, s])])[0]
            return self._point("g2", fixed) + self._point("g2", b_g2)

    def _assemble(self, sums: dict[str, np.ndarray], b_g2: Point, r: int, s: int) -> Proof:
        """The proof from the MSM results, by the formula of the reference's ``assemble_proof``:

        [A]₁ = [α]₁ + Σ z_j·a_query[j] + r·[δ]₁          [B]₁ = [β]₁ + Σ z_j·b_g1_query[j] + s·[δ]₁
        [C]₁ = Σ l + Σ h + s·[A]₁ + r·[B]₁ − r·s·[δ]₁
             = (s·[α]₁ + r·[β]₁ + r·s·[δ]₁) + (Σ l + Σ h + s·Σ a + r·Σ b)

        in one backend call: the terms over the key's fixed points α, β, δ as MSMs over their prepared bases (on a
        GPU shifted copies, with no chain of doublings), the rest as one MSM over the four sums (the only chain of
        doublings left, for s·Σ a + r·Σ b); then two additions on the host.
        """
        fixed, order = self._fixed["g1"], self.curve.r
        with self.recorder.span("assemble"):
            four = np.stack([sums["l"], sums["h"], sums["a"], sums["b_g1"]])
            a_fixed, c_fixed, c_rest = self._combine(
                "assemble",
                "g1",
                [(fixed, [1, 0, r]), (fixed, [s, r, r * s % order]), (four, [1, 1, s, r])],
            )
            a = self._point("g1", a_fixed) + self._point("g1", sums["a"])
            c = self._point("g1", c_fixed) + self._point("g1", c_rest)
            return Proof(a=a, b=b_g2, c=c)


__all__ = ["Assembly", "msm_call"]
