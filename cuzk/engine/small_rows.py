"""Where a setup's rows of a few terms are summed: ``row_sums`` or ``msm_batch`` on the host beside a device.

A key's points from a ptau (:mod:`cuzk.engine.setup_ptau`) and the circuit hash's H points
(:mod:`cuzk.engine.setup_hash`) are millions of sums of one to a few points at 2^20: such rows are one pass over
their terms on the cpu backend (``backends/cpu/row_sums.py``; by ROW_SUMS in CSR form, without an array per row),
and a launch per few dozen rows on a device.
"""

from __future__ import annotations

from typing import cast

from cuzk.backends.protocol import (
    DEVICE,
    MSM_BATCH,
    WARM_UP,
    Backend,
    SupportsMsmBatch,
    SupportsRowSums,
    has_capability,
)
from cuzk.backends.registry import host_backend


def small_rows_backend(backend: Backend) -> Backend:
    """Where the rows of a few terms are summed: beside a device, its host backend when that one compiles its
    kernels (not the reference's Python); else ``backend`` itself."""
    if not has_capability(backend, DEVICE):
        return backend
    host = host_backend(backend, MSM_BATCH)
    return host if host is not backend and has_capability(host, WARM_UP) else backend


def backend_batch(backend: Backend) -> SupportsMsmBatch:
    """``backend`` as what it declared: MSM_BATCH."""
    return cast(SupportsMsmBatch, backend)


def backend_row_sums(backend: Backend) -> SupportsRowSums:
    """``backend`` as what it declared: ROW_SUMS."""
    return cast(SupportsRowSums, backend)


__all__ = ["backend_batch", "backend_row_sums", "small_rows_backend"]
