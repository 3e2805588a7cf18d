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


def g2_beside(backend: Backend, g2_backend: Backend) -> bool:
    """Whether B_G2 runs by default on a thread beside H and the G1 MSMs: yes, unless it runs on the G1 backend and
    that is a device. A device runs its kernels in order on one stream, so B_G2 beside them ends no sooner, while
    both MSMs' working memory is held at once (at 2^27 on an H200: the same proof times after as beside, and 2.7 GB
    less held after, which brings the proof under issue 27's 120 GB: docs/performance.md). On a host backend the
    thread overlaps B_G2 with the other phases' work on the cores; on another device, with the other device's."""
    return not (g2_backend is backend and has_capability(backend, DEVICE))


__all__ = ["batches_msms", "g2_beside"]
