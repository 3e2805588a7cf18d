"""Where a proof's MSMs run by default: the G1 MSMs as one batch call or one call each, and B_G2 beside them on a
thread of its own or after them (the engine's :class:`~cuzk.engine.prover.Prover` asks these when its caller does
not say)."""

from __future__ import annotations

from cuzk.backends.protocol import DEVICE, MSM_BATCH, Backend, has_capability


def batches_msms(backend: Backend) -> bool:
    """Whether the engine gives ``backend`` its G1 MSMs as one ``msm_batch`` call by default: a device backend
    with MSM_BATCH, whose every call ends by waiting for the device. A host backend runs a batch as the same loop
    of MSMs, so separate calls cost it nothing and keep a timings row per MSM."""
    return has_capability(backend, MSM_BATCH) and has_capability(backend, DEVICE)


# B_G2's points from which it runs after the G1 MSMs on their device. At 2^27 (BLS12-381, an H200) after was as fast
# as beside and held 2.7 GB less, which brought the proof under 120 GB; at 2^20 beside is the measured default (and on
# PoCL at 2^14 after cost about 1 ms a proof of host-side overlap). Below 2^25 points B_G2's working memory is under
# a GB (docs/performance.md).
AFTER_FROM = 1 << 25


def g2_beside(backend: Backend, g2_backend: Backend, points: int) -> bool:
    """Whether B_G2 over ``points`` points runs by default on a thread beside H and the G1 MSMs: yes, unless it
    runs on the G1 backend, that is a device, and the MSM is large (AFTER_FROM). A device runs the two lanes'
    kernels in turn on its one stream, so beside them B_G2 gains only the overlap of its host-side work with theirs,
    while both MSMs' working memory is held at once: for the largest keys, what decides whether a proof fits."""
    return not (g2_backend is backend and has_capability(backend, DEVICE) and points >= AFTER_FROM)


__all__ = ["AFTER_FROM", "batches_msms", "g2_beside"]
