"""The backend protocol's optional capabilities: their names, the handles they pass around (prepared bases, kept
scalars) and the ``Supports…`` protocols of their methods. A backend declares what it offers in ``capabilities``;
callers ask :func:`has_capability` first. Re-exported by :mod:`cuzk.backends.protocol`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.checks import CurveLike
from cuzk.backends.errors import BackendInputError
from cuzk.reference.curves import Curve, curve_by_name

Reduction = Literal["libsnark", "circom"]  # the values of cuzk.reference.qap.Reduction
FieldName = Literal["fr", "fq"]

# --- optional capabilities ----------------------------------------------------------------------------------------

PREPARED_BASES = "prepared_bases"  # prepare_bases + msm_prepared: bases converted/uploaded once, kept resident
MSM_BATCH = "msm_batch"  # msm_batch: several MSMs of one group in one call (one launch, overlapped copies)
COMPUTE_H = "compute_h"  # compute_h: the QAP quotient H fused on the device (NTTs and pointwise products)
WINDOW = "window"  # the window= argument is honoured exactly (without it, window is a hint and may be ignored)
FIELD_OPS = "field_ops"  # field_op: element-wise Fr/Fq arithmetic, for the conformance field vectors
KEPT_SCALARS = "kept_scalars"  # keep_scalars, compute_h_kept: scalars checked once, kept for msm_prepared/msm_batch
SPARSE = "sparse"  # prepare_sparse + sparse_product: a sparse matrix over Fr times a vector (A·z, B·z, C·z)
FIXED_BASE = "fixed_base"  # generator_multiples: [k_i]·G for the generator G of G1 or G2 (a setup's points)
TIMINGS = "timings"  # last_internal_seconds/_intervals, last_batch_seconds: the compute time of the last call
DEVICE = "device"  # computes on a device beside the host: host-side work (small MSMs, the witness) goes elsewhere
WARM_UP = "warm_up"  # warm_up: the kernels of a kind of work compiled (or loaded) in the background, ahead of use
PAIRING = "pairing"  # pairing_check: whether Π e(P_i, Q_i) = 1 (the equation of a Groth16 verification)
MONTGOMERY_FORM = "montgomery_form"  # points_/scalars_from_montgomery: iden3 files' stored values made canonical
POINT_NTT = "point_ntt"  # point_ntt: the NTT over G1/G2 points (a ptau's Lagrange bases, prepare phase2)
STORED_BASES = "stored_bases"  # prepare_stored_bases: a .zkey's stored words prepared (and checked) as they are
STORED_POINT_NTT = "stored_point_ntt"  # point_ntt_stored: POINT_NTT over a .ptau's stored words, result in that form
DEVICES = "devices"  # device_backends: the backends of the several devices this one spans (a batch spread over them)
ROW_SUMS = "row_sums"  # row_sums: many MSMs of a few terms over one table of points, in CSR form (a setup's sums)
CAPABILITIES = frozenset(
    {PREPARED_BASES, MSM_BATCH, COMPUTE_H, WINDOW, FIELD_OPS, KEPT_SCALARS, SPARSE, FIXED_BASE, TIMINGS, DEVICE}
    | {WARM_UP, PAIRING, MONTGOMERY_FORM, POINT_NTT, STORED_BASES, STORED_POINT_NTT, DEVICES, ROW_SUMS}
)

REDUCTIONS: tuple[str, ...] = ("libsnark", "circom")
# What warm_up prepares and kernels_ready asks of: "prove" a proof's kernels on the backend itself (its pairing not
# included); "host" the host's part of a proof beside a device, i.e. "witness" (the sparse products A·z, B·z, C·z and
# the field products) and "small_msm" (the assembly's MSMs of a few points); "verify" the pairing check of a
# verification; "setup" a setup's fixed-base multiples.
WORKS: tuple[str, ...] = ("prove", "host", "witness", "small_msm", "verify", "setup")
UNARY_FIELD_OPS: tuple[str, ...] = ("neg", "square", "inverse")
BINARY_FIELD_OPS: tuple[str, ...] = ("add", "sub", "mul")


@dataclass(frozen=True, eq=False)
class PreparedBases:
    """Bases made ready once (converted, uploaded, precomputed) for many MSMs; ``payload`` is the backend's own."""

    backend: str
    curve: Curve
    group: limbs.GroupName
    n: int
    payload: Any

    def __len__(self) -> int:
        return self.n


@dataclass(frozen=True, eq=False)
class KeptScalars:
    """Scalars a backend keeps where it computes (uploaded once by ``keep_scalars``, or the quotient H of
    ``compute_h_kept``), to be passed as the scalars of its own ``msm_prepared``/``msm_batch`` without a trip
    through the host. ``payload`` is the backend's; the rows are ``first`` … ``first + n − 1`` of it, so that a
    slice ``kept[k:]`` (z's rows from the first private variable on) is the same payload from row k."""

    backend: str
    curve: Curve
    n: int
    payload: Any
    first: int = 0

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, rows: slice) -> KeptScalars:
        if not isinstance(rows, slice) or rows.step not in (None, 1):
            raise TypeError(f"kept scalars take contiguous slices of rows, not {rows!r}")
        start, stop, _ = rows.indices(self.n)
        return replace(self, n=max(0, stop - start), first=self.first + start)


@dataclass(frozen=True, eq=False)
class SparseMatrix:
    """A matrix over Fr made ready once by ``prepare_sparse`` (``rows`` × ``columns``) for many products;
    ``payload`` is the backend's own."""

    backend: str
    curve: Curve
    rows: int
    columns: int
    payload: Any

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with the curve's name (curves are singletons), so a matrix can go to a worker process."""
        return _sparse_matrix, (self.backend, self.curve.name, self.rows, self.columns, self.payload)


def _sparse_matrix(backend: str, curve: str, rows: int, columns: int, payload: Any) -> SparseMatrix:
    return SparseMatrix(backend, curve_by_name(curve), rows, columns, payload)


@dataclass(frozen=True)
class WorkSizes:
    """The sizes of the work a warm-up prepares, so that a backend makes ready only the paths they reach: the most
    points of any G1 MSM and of any G2 MSM (a Groth16 proof: max(variables, domain) and its variables), the NTTs'
    domain. None in their place: every path."""

    g1: int
    g2: int
    domain: int

    def __post_init__(self) -> None:
        for name in ("g1", "g2", "domain"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"WorkSizes.{name} must be an int ≥ 0, got {value!r}")


class WarmUp:
    """Kernels being made ready in the background by ``warm_up``; this base class is a warm-up with nothing to do.

    ``wait`` blocks until they are ready (compiled into a cache the next call loads from, or loaded) and says
    whether they are; ``started`` is whether anything had to be done; ``failures`` says what went wrong (the
    kernels then compile on first use, as without a warm-up); ``close`` stops what is still running.
    """

    started = False

    def __init__(self) -> None:
        self.failures: list[str] = []

    def wait(self, timeout: float | None = None) -> bool:
        return True

    def close(self) -> None:
        """Stop the work still running (a no-op when all is done)."""

    def __enter__(self) -> WarmUp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@runtime_checkable
class SupportsPreparedBases(Protocol):
    """Capability PREPARED_BASES."""

    def prepare_bases(
        self, curve: CurveLike, group: str, bases: np.ndarray, *, uses: int | None = None
    ) -> PreparedBases:
        """The bases made ready for many MSMs. ``uses``: how many MSMs the caller expects over them (None: many, a
        server's); a backend may skip precomputation that pays off only over many (a one-shot command's key)."""
        ...

    def msm_prepared(self, handle: PreparedBases, scalars: np.ndarray, *, window: int | None = None) -> np.ndarray:
        """The MSM of the prepared bases with ``scalars`` (same length as the bases)."""
        ...


@runtime_checkable
class SupportsStoredBases(Protocol):
    """Capability STORED_BASES (with PREPARED_BASES): bases prepared from the words a file stores them as."""

    def prepare_stored_bases(
        self, curve: CurveLike, group: str, stored: np.ndarray, *, check: bool = True, uses: int | None = None
    ) -> tuple[PreparedBases | None, int]:
        """Bases from a .zkey's stored rows: (n, point bytes) uint8, each point's affine coordinates in Montgomery
        form (R = 2^(64·L)), the point at infinity all zeros, as snarkjs writes them; the backend keeps them in that
        form (a device's own), checking with ``check`` that every coordinate is below q and every point on its
        curve; ``uses`` as for prepare_bases. Returns (the prepared bases, −1), or (None, the index of the first bad
        point)."""
        ...


@runtime_checkable
class SupportsMsmBatch(Protocol):
    """Capability MSM_BATCH."""

    def msm_batch(
        self,
        curve: CurveLike,
        group: str,
        bases: Sequence[np.ndarray | PreparedBases],
        scalars: Sequence[np.ndarray],
        *,
        windows: Sequence[int | None] | None = None,
    ) -> np.ndarray:
        """k MSMs at once (bases[j] with scalars[j]; bases may be prepared); the k results stacked: (k, *point)."""
        ...


@runtime_checkable
class SupportsComputeH(Protocol):
    """Capability COMPUTE_H."""

    def compute_h(
        self, curve: CurveLike, a: np.ndarray, b: np.ndarray, c: np.ndarray, *, reduction: Reduction
    ) -> np.ndarray:
        """The scalars the prover multiplies h_query by, from the evaluations of A·z, B·z, C·z on the domain H of
        size n (each (n, 4)): exactly :func:`cuzk.reference.qap.witness_map`, computed without leaving the device.

        ``"libsnark"`` (arkworks): iNTT a, b, c; NTT them on the coset g·H; there (a·b − c)/(gⁿ − 1); iNTT on the
        coset: the coefficients h_0 … h_{n−2} of H = (A·B − C)/Z, shape (n − 1, 4). A non-zero h_{n−1} means the
        witness does not satisfy the constraints: raise, as the reference does.
        ``"circom"`` (snarkjs): the evaluations of a·b − c at the odd 2n-th roots of unity ω₂ₙ^(2i+1), no division,
        shape (n, 4); needs 2n ≤ 2^S.
        """
        ...


@runtime_checkable
class SupportsKeptScalars(Protocol):
    """Capability KEPT_SCALARS (with PREPARED_BASES or MSM_BATCH; compute_h_kept also needs COMPUTE_H): scalars
    kept by the backend, which its MSM methods take in place of arrays."""

    def keep_scalars(self, curve: CurveLike, scalars: np.ndarray) -> KeptScalars:
        """``scalars`` (n, 4), checked once and kept (uploaded) for any number of MSMs of this backend."""
        ...

    def host_array(self, shape: tuple[int, ...], dtype: Any = np.uint64) -> np.ndarray:
        """An empty host array that ``keep_scalars`` reads fastest (a device's pinned memory, reused; else a plain
        array): for a caller that makes its scalars where the backend will read them."""
        ...

    def compute_h_kept(
        self,
        curve: CurveLike,
        a: np.ndarray | KeptScalars,
        b: np.ndarray | KeptScalars,
        c: np.ndarray | KeptScalars,
        *,
        reduction: Reduction,
        consume: bool = False,
    ) -> KeptScalars:
        """``compute_h``'s scalars, left with the backend (same checks, same errors). a, b and c may be kept too
        (``keep_scalars``, e.g. while an earlier proof runs); they are read, not changed, unless ``consume``: then a
        backend short of memory for copies of them may transform kept ones in place (a device at 2^27 values) and
        let go of their memory once H is made, and the caller must not use them again (a device's backend then
        refuses them with BackendInputError)."""
        ...


@runtime_checkable
class SupportsTimings(Protocol):
    """Capability TIMINGS: what the calling thread's last call computed, for the engine's timing levels."""

    def last_internal_seconds(self) -> float | None:
        """Seconds of the backend's own compute (device events, kernel time) in the calling thread's last call."""
        ...

    def last_internal_intervals(self) -> list[tuple[float, float]] | None:
        """Where those seconds lie, as disjoint ``time.perf_counter()`` intervals; None when not known."""
        ...

    def last_batch_seconds(self) -> list[float] | None:
        """The compute seconds of each MSM when the last call was an ``msm_batch``; None when not known."""
        ...


@runtime_checkable
class SupportsWarmUp(Protocol):
    """Capability WARM_UP."""

    def warm_up(
        self, curve: CurveLike, work: str, *, sizes: WorkSizes | None = None, background: bool = False
    ) -> WarmUp:
        """Start making the kernels of ``work`` (one of WORKS) ready for ``curve`` beside the caller, who goes on
        with other things (building a circuit, reading a key) and calls ``wait`` before the work. ``sizes``: only
        the paths work of these sizes reaches (None: every path). ``background``: for later processes, at the
        lowest priority; nothing waits for it and it may outlive the caller (a backend may start nothing)."""
        ...

    def kernels_ready(self, curve: CurveLike, work: str, *, sizes: WorkSizes | None = None) -> bool:
        """Whether ``work``'s kernels (for ``sizes``, None: every path) are ready now: its calls would compile
        nothing (in the cache or loaded). Cheap (no kernel is loaded); False when the backend cannot tell."""
        ...


@runtime_checkable
class SupportsDevices(Protocol):
    """Capability DEVICES: a backend over several devices (``CUZK_DEVICE=0,1``), whose own methods split one
    proof's work across them."""

    def device_backends(self) -> list[Any]:
        """One backend per device, each usable alone (a batch of proofs spread over them: a prover on each)."""
        ...


def check_csr(
    indptr: np.ndarray, columns: np.ndarray, num_columns: int, name: str = "columns"
) -> tuple[np.ndarray, np.ndarray]:
    """``indptr`` and ``columns`` of a CSR matrix as contiguous int64 arrays: indptr rises from 0 to the number of
    terms, every column lies in 0 … num_columns − 1; else BackendInputError naming the array (``columns`` as
    ``name``)."""
    indptr, columns = np.ascontiguousarray(indptr, np.int64), np.ascontiguousarray(columns, np.int64)
    if (
        indptr.ndim != 1
        or len(indptr) == 0
        or indptr[0] != 0
        or indptr[-1] != len(columns)
        or (np.diff(indptr) < 0).any()
    ):
        raise BackendInputError("must rise from 0 to the number of terms", array="indptr")
    if len(columns) and (columns.min() < 0 or columns.max() >= num_columns):
        raise BackendInputError(f"an entry lies outside 0 … {num_columns - 1}", array=name)
    return indptr, columns


def check_work(work: str, sizes: object) -> str:
    """``work`` when it is one of WORKS and ``sizes`` WorkSizes or None; else BackendInputError."""
    if work not in WORKS:
        raise BackendInputError(f"unknown work {work!r}; expected one of {', '.join(WORKS)}", array="work")
    if sizes is not None and not isinstance(sizes, WorkSizes):
        raise BackendInputError(f"sizes must be WorkSizes or None, got {type(sizes).__name__}", array="sizes")
    return work


def has_capability(backend: object, capability: str) -> bool:
    """Whether ``backend`` declares the optional ``capability`` (one of CAPABILITIES)."""
    return capability in getattr(backend, "capabilities", frozenset())


def backend_priority(backend: object) -> int:
    """The priority ``auto`` ranks a backend by (cuda 300 > opencl 200 > cpu 100 > reference 0). A backend whose
    priority depends on its device (opencl: lower on a CPU device) declares the most it can be as the class
    attribute ``priority_ceiling``, so that ``auto`` need not probe it where a backend above it runs."""
    return int(getattr(backend, "priority", 0))


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
    "FieldName",
    "KeptScalars",
    "PreparedBases",
    "Reduction",
    "SparseMatrix",
    "SupportsComputeH",
    "SupportsDevices",
    "SupportsKeptScalars",
    "SupportsMsmBatch",
    "SupportsPreparedBases",
    "SupportsStoredBases",
    "SupportsTimings",
    "SupportsWarmUp",
    "WarmUp",
    "WorkSizes",
    "backend_priority",
    "check_csr",
    "check_work",
    "has_capability",
]
