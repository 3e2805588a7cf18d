"""The last step of the engine's proof: [A]₁, [B]₂ and [C]₁ from the MSM results, on the backends (a mixin of
:class:`cuzk.prover.Prover`, which provides the attributes declared here).

The reference's ``assemble_proof`` does six scalar multiplications in pure Python (~100 ms on BN254). Here they are
small MSMs. The key's fixed G1 points α, β, δ are prepared like the queries, so that on a GPU their terms run over
shifted copies with no one-thread chain of 255 doublings, and the prover queues them in its batch of query MSMs.
Σl + Σh + s·Σa + r·Σb, over points just read back, would need such a chain: it runs on the cpu backend when the
main one drives a device (:func:`small_msm_backend`). So does [β]₂ + s·[δ]₂ beside a device G2 backend (β₂, δ₂
are prepared there): over shifted copies on the GPU it had no chain (on an H200 the chain of G2 doublings had
taken 11.2 ms of a BLS12-381 proof), but its kernels and its Python came between H and the G1 batch (see
:meth:`Assembly._assemble_g2`). The sums are added on the host. The same group elements as the reference's, so the
same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.errors import BackendUnavailableError
from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.backends.protocol import Backend, PreparedBases
from cuzk.backends.registry import get_backend
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


def small_msm_backend(backend: Backend) -> Backend:
    """Where the assembly's MSM over the four G1 sums (four points on the host, with s and r among the scalars)
    runs, and [β]₂ + s·[δ]₂ beside a G2 ``backend``: on the cpu backend when ``backend`` drives a device and the
    cpu backend can run here, since on a GPU such an MSM is one thread's chain of 255 doublings (H200, 2^20
    proofs: 2.9 ms on BN254, 5.6 ms on BLS12-381 for the four sums; the cpu backend takes 0.23 and 0.38 ms for
    them by Straus's joint double-and-add on a 2-core development machine, see :mod:`cuzk.backends.cpu.straus`);
    else on ``backend``."""
    if not isinstance(backend, DeviceBackend):
        return backend
    try:
        return get_backend("cpu")
    except BackendUnavailableError:
        return backend


class Assembly:
    """The assembly's backend calls and formulas."""

    curve: Curve
    batch: bool
    recorder: Recorder
    _fixed: dict[str, Any]  # the key's fixed points per group, prepared (or limb arrays)
    backend: Backend
    _small: dict[str, Backend]  # per group: small_msm_backend of the group's backend

    def _backend_for(self, group: str) -> Backend:
        raise NotImplementedError

    def _timed_call(self, backend: Backend, name: str, call: Callable[[], Any], parts: list[str] | None = None) -> Any:
        raise NotImplementedError

    def _combine(self, name: str, backend: Backend, group: str, sums: list[tuple[Any, list[int]]]) -> list[np.ndarray]:
        """Σ scalars[i]·bases[i] for each (bases, scalars) of ``sums``, a handful of points per sum, on ``backend``:
        the bases are an (m, …) limb array or the key's fixed points prepared there (``_fixed``); one G1
        ``msm_batch`` call for them all with ``batch``, else one call each."""
        k = [limbs.ints_to_limbs(scalars, limbs.FR_LIMBS) for _, scalars in sums]
        if self.batch and group == "g1":
            batch = partial(backend.msm_batch, self.curve, group, [b for b, _ in sums], k)  # type: ignore[attr-defined]
            return list(self._timed_call(backend, name, batch))
        calls = [msm_call(backend, self.curve, group, b, s) for (b, _), s in zip(sums, k, strict=True)]
        return [self._timed_call(backend, name, call) for call in calls]

    def _point(self, group: str, array: np.ndarray) -> Point:
        return limbs.limbs_to_point(self.curve, group, array)

    def _assemble_g2(self, b_g2: np.ndarray, s: int) -> Point:
        """[B]₂ = ([β]₂ + s·[δ]₂) + Σ z_j·b_g2_query[j]: an MSM over the key's two fixed points, and one addition on
        the host. Beside a device G2 backend the MSM runs on the cpu backend (a core beside the G1 batch): on an
        H200 its kernels (0.66 ms of a BN254 2^20 proof) ran between H and the G1 batch, and its Python (4.4 ms from
        call to result, waiting on H's kernels) beside the batch's."""
        with self.recorder.span("assemble_g2"):
            fixed = self._combine("assemble_g2", self._small["g2"], "g2", [(self._fixed["g2"], [1, s])])[0]
            return self._point("g2", fixed) + self._point("g2", b_g2)

    def _warm_small_msm(self, points: dict[str, list[Point]]) -> None:
        """One MSM of the assembly's shape over ``points`` (by group) on each group's small-MSM backend that is not
        the group's own, so that its code is compiled (or loaded from numba's cache) while the prover is made, not
        in the first proof."""
        groups = [group for group in points if self._small[group] is not self._backend_for(group)]
        if not groups:
            return
        order = self.curve.r
        with self.recorder.span("warm_small_msm"):
            for group in groups:
                bases = limbs.points_to_limbs(self.curve, group, points[group])
                scalars = limbs.ints_to_limbs([order - 1 - k for k in range(len(points[group]))], limbs.FR_LIMBS)
                self._small[group].msm(self.curve, group, bases, scalars)  # type: ignore[attr-defined]

    def _fixed_terms(self, r: int, s: int) -> dict[str, tuple[Any, list[int]]]:
        """The G1 sums over the key's fixed points ([α]₁, [β]₁, [δ]₁), as (bases, scalars) by key: [α]₁ + r·[δ]₁
        of [A]₁, and s·[α]₁ + r·[β]₁ + r·s·[δ]₁ of [C]₁. They need no MSM result: the prover queues them with its
        batch of query MSMs."""
        fixed = self._fixed["g1"]
        return {"a_fixed": (fixed, [1, 0, r]), "c_fixed": (fixed, [s, r, r * s % self.curve.r])}

    def _assemble(self, sums: dict[str, np.ndarray], b_g2: Point, r: int, s: int) -> Proof:
        """The proof from the MSM results, by the formula of the reference's ``assemble_proof``:

        [A]₁ = [α]₁ + Σ z_j·a_query[j] + r·[δ]₁          [B]₁ = [β]₁ + Σ z_j·b_g1_query[j] + s·[δ]₁
        [C]₁ = Σ l + Σ h + s·[A]₁ + r·[B]₁ − r·s·[δ]₁
             = (s·[α]₁ + r·[β]₁ + r·s·[δ]₁) + (Σ l + Σ h + s·Σ a + r·Σ b)

        The terms over the fixed points come with ``sums`` when the prover batched them (else they are MSMs here,
        over the prepared points); Σ l + Σ h + s·Σ a + r·Σ b is an MSM over the four sums, on the small-MSM
        backend; then two additions on the host.
        """
        with self.recorder.span("assemble"):
            missing = {key: term for key, term in self._fixed_terms(r, s).items() if key not in sums}
            if missing:
                terms = self._combine("assemble", self.backend, "g1", list(missing.values()))
                sums = sums | dict(zip(missing, terms, strict=True))
            four = np.stack([sums["l"], sums["h"], sums["a"], sums["b_g1"]])
            k = limbs.ints_to_limbs([1, 1, s, r], limbs.FR_LIMBS)
            small = self._small["g1"]
            c_rest = self._timed_call(small, "assemble", msm_call(small, self.curve, "g1", four, k))
            a = self._point("g1", sums["a_fixed"]) + self._point("g1", sums["a"])
            c = self._point("g1", sums["c_fixed"]) + self._point("g1", c_rest)
            return Proof(a=a, b=b_g2, c=c)


__all__ = ["Assembly", "msm_call", "small_msm_backend"]
