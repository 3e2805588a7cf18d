"""The backend protocol: the one contract every backend (reference, cpu, cuda, opencl, third-party) implements.

Data cross the boundary as numpy uint64 arrays of little-endian 64-bit limbs of *canonical* integers (never
Montgomery form); see :mod:`cuzk.backends.limbs` for the layout and the conversions:

    Fr scalars, NTT values      (n, 4)                 n a power of two (or 0) for NTTs
    G1 affine points            (n, 2, L)              L = 6 (BLS12-381), 4 (BN254); infinity = all zeros
    G2 affine points            (n, 2, 2, L)           (x.c0, x.c1), (y.c0, y.c1)
    an MSM result               one point: (2, L) or (2, 2, L)

Every result must equal the reference's bit for bit, edge cases included. Bases are trusted to lie on the curve and
in the order-r subgroup (they come from a proving key, checked when it is loaded); everything else is validated.

:class:`Backend` is the required surface. Optional capabilities are declared by name in ``capabilities`` (a
frozenset of the constants of :mod:`cuzk.backends.capabilities`, re-exported here) and offered through the methods
of the matching ``Supports…`` protocol; call them only when :func:`has_capability` says so. :class:`BackendBase`
validates every input (dtype, shape, limb count, canonical values, matching lengths) before the backend's own
``_msm``/``_ntt``/… hooks run, so every backend rejects bad input with the same typed error naming the array and the
row (:mod:`cuzk.backends.base`). The checks themselves live in :mod:`cuzk.backends.checks` and
:mod:`cuzk.backends.limbs`; this module re-exports them for backend authors.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from cuzk.backends.base import BackendBase, check_csr
from cuzk.backends.capabilities import (
    BINARY_FIELD_OPS,
    CAPABILITIES,
    COMPUTE_H,
    DEVICE,
    DEVICES,
    FIELD_OPS,
    FIXED_BASE,
    KEPT_SCALARS,
    MONTGOMERY_FORM,
    MSM_BATCH,
    PAIRING,
    POINT_NTT,
    PREPARED_BASES,
    REDUCTIONS,
    ROW_SUMS,
    SPARSE,
    STORED_BASES,
    STORED_POINT_NTT,
    TIMINGS,
    UNARY_FIELD_OPS,
    WARM_UP,
    WINDOW,
    WORKS,
    FieldName,
    KeptScalars,
    PreparedBases,
    Reduction,
    SparseMatrix,
    SupportsComputeH,
    SupportsDevices,
    SupportsKeptScalars,
    SupportsMsmBatch,
    SupportsPreparedBases,
    SupportsStoredBases,
    SupportsTimings,
    SupportsWarmUp,
    WarmUp,
    WorkSizes,
    backend_priority,
    has_capability,
)
from cuzk.backends.checks import (
    CurveLike,
    check_device,
    check_domain,
    check_group,
    check_output,
    check_same_length,
    check_window,
    resolve_curve,
    rows_within,
)
from cuzk.backends.host_protocols import (
    SupportsFieldOps,
    SupportsFixedBase,
    SupportsMontgomeryForm,
    SupportsPairing,
    SupportsPointNtt,
    SupportsRowSums,
    SupportsSparse,
    SupportsStoredPointNtt,
)
from cuzk.backends.indexed import IndexedCoefficients
from cuzk.backends.limbs import check_limb_array, check_points, check_scalars


@runtime_checkable
class Backend(Protocol):
    """What every backend offers. Optional attributes: ``priority: int`` (auto picks the highest available; default
    0) and ``capabilities: frozenset[str]`` (default empty: the engine calls an optional method only when its
    capability is declared, internal timings through TIMINGS for one). Entry points name a factory called as
    ``factory(device=index_or_None)``; it must not fail when the backend cannot run (report it through
    ``unavailable_reason`` instead)."""

    name: str

    def is_available(self) -> bool:
        """Whether this backend can run here (packages importable, device present)."""
        ...

    def unavailable_reason(self) -> str | None:
        """Why the backend cannot run (e.g. "cupy is not installed", "no CUDA device 1"), or None if it can."""
        ...

    def describe(self) -> dict[str, Any]:
        """Facts for ``cuzk info``: at least ``device`` (str or None) and ``versions`` (package → version)."""
        ...

    def msm(
        self,
        curve: CurveLike,
        group: str,
        bases: np.ndarray,
        scalars: np.ndarray,
        *,
        window: int | None = None,
    ) -> np.ndarray:
        """Σ scalars[i]·bases[i] in G1 (``group="g1"``) or G2 (``"g2"``) as one affine point; n = 0 gives the
        identity (zeros). ``window`` is the Pippenger window in bits (honoured exactly with WINDOW)."""
        ...

    def ntt(self, curve: CurveLike, values: np.ndarray, *, inverse: bool = False, coset: bool = False) -> np.ndarray:
        """The NTT of ``values`` (n, 4) over the order-n subgroup H of Fr^* exactly as :func:`cuzk.reference.ntt.ntt`:
        evaluations on H (or on g·H with ``coset``, g = Fr.GENERATOR); ``inverse`` interpolates back (×1/n)."""
        ...


__all__ = [
    "BINARY_FIELD_OPS",
    "CAPABILITIES",
    "COMPUTE_H",
    "DEVICE",
    "DEVICES",
    "FIELD_OPS",
    "FIXED_BASE",
    "KEPT_SCALARS",
    "MONTGOMERY_FORM",
    "MSM_BATCH",
    "PAIRING",
    "POINT_NTT",
    "PREPARED_BASES",
    "REDUCTIONS",
    "ROW_SUMS",
    "SPARSE",
    "STORED_BASES",
    "STORED_POINT_NTT",
    "TIMINGS",
    "UNARY_FIELD_OPS",
    "WARM_UP",
    "WINDOW",
    "WORKS",
    "Backend",
    "BackendBase",
    "CurveLike",
    "FieldName",
    "IndexedCoefficients",
    "KeptScalars",
    "PreparedBases",
    "Reduction",
    "SparseMatrix",
    "SupportsComputeH",
    "SupportsDevices",
    "SupportsFieldOps",
    "SupportsFixedBase",
    "SupportsKeptScalars",
    "SupportsMontgomeryForm",
    "SupportsMsmBatch",
    "SupportsPairing",
    "SupportsPointNtt",
    "SupportsPreparedBases",
    "SupportsRowSums",
    "SupportsSparse",
    "SupportsStoredBases",
    "SupportsStoredPointNtt",
    "SupportsTimings",
    "SupportsWarmUp",
    "WarmUp",
    "WorkSizes",
    "backend_priority",
    "check_csr",
    "check_device",
    "check_domain",
    "check_group",
    "check_limb_array",
    "check_output",
    "check_points",
    "check_same_length",
    "check_scalars",
    "check_window",
    "has_capability",
    "resolve_curve",
    "rows_within",
]
