"""The cpu backend: numba-compiled, multi-core, bit-exact with the reference; the default without a GPU.

Modules: :mod:`.params` (constants from the reference's curve data), :mod:`.emit` (the LLVM IR of limb
arithmetic), :mod:`.field` (Montgomery arithmetic on 64-bit limbs and Fq2, as numba intrinsics), :mod:`.curve`
(G1/G2 point arithmetic), :mod:`.msm`, :mod:`.digits` and :mod:`.buckets` (signed-digit Pippenger with
batch-affine bucket sums; :mod:`.free_scalars` splits off the zeros and ones of a witness),
:mod:`.ntt` (radix-2 NTT, the fused H), :mod:`.fieldops` (FIELD_OPS), :mod:`.fixed_base` (FIXED_BASE: many
multiples of a generator, for a setup), :mod:`.sparse` (SPARSE: CSR matrices over Fr, the witness side of a proof,
which the engine runs here beside a device backend too), :mod:`.clock` (TIMINGS: the internal time of a call) and
:mod:`.jit` (numba options, disk cache), :mod:`.tower` and :mod:`.pairing` (PAIRING: the optimal ate pairing
check, for verifying a proof in milliseconds), :mod:`.warm` (WARM_UP: compiling ahead in other processes),
:mod:`.point_ntt` (POINT_NTT: a ptau's Lagrange bases, ``prepare phase2``), :mod:`.row_sums` (ROW_SUMS, and an
``msm_batch`` of many rows of a few terms: a setup's sums), :mod:`.runtime` (the process's pool and tables). Kept
scalars (KEPT_SCALARS) are a private copy of the checked array: the MSMs and sparse products that take them check
nothing again.

Importing this package imports neither numba nor the kernels: they load, and compile on first use (cached on
disk once per machine, then loaded), when a backend method first needs them.

Threads: ``threads`` (default: $CUZK_THREADS, else numba's NUMBA_NUM_THREADS, i.e. the usable cores) nogil kernels
run on one :class:`~concurrent.futures.ThreadPoolExecutor`; calls from several Python threads at once are safe (the
engine runs the G2 MSM beside the G1 MSMs).

Internal time: ``last_internal_seconds()`` is, for the calling thread's last call, the seconds in which one of its
kernels ran (:mod:`.clock`), so that the engine's overhead column (wrapper − internal) shows the rest.
"""

from __future__ import annotations

import platform
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from importlib import metadata
from itertools import pairwise
from typing import Any

import numpy as np

from cuzk.backends import env, limbs
from cuzk.backends.cpu.runtime import CLOCK, Runtime, numba_missing, runtime
from cuzk.backends.protocol import (
    COMPUTE_H,
    FIELD_OPS,
    FIXED_BASE,
    KEPT_SCALARS,
    MONTGOMERY_FORM,
    MSM_BATCH,
    PAIRING,
    POINT_NTT,
    PREPARED_BASES,
    ROW_SUMS,
    SPARSE,
    STORED_BASES,
    TIMINGS,
    WARM_UP,
    WINDOW,
    BackendBase,
    KeptScalars,
    PreparedBases,
    SparseMatrix,
    WarmUp,
    WorkSizes,
)
from cuzk.reference.curves import Curve
from cuzk.reference.errors import NotInvertibleError, ParameterError, UnsatisfiedConstraintError

PARALLEL_ROWS = 1 << 14  # field_op rows from which the work is shared among the pool's threads
ENV_THREADS = "CUZK_THREADS"  # the default thread count of the cpu backend


class QuotientNotDivisibleError(UnsatisfiedConstraintError, ValueError):
    """compute_h (libsnark): A·B − C is not divisible by Z = Xⁿ − 1, so the witness does not satisfy the
    constraints: the reference's ``witness_map`` raises UnsatisfiedConstraintError for the same input; this
    subclass is also a ValueError (an invalid input value)."""


def _measured(hook: Callable[..., Any]) -> Callable[..., Any]:
    """A backend hook whose kernel time is recorded for the calling thread (see :mod:`.clock`)."""

    @wraps(hook)
    def measured(self: CpuBackend, *args: Any) -> Any:
        with self._measure():
            return hook(self, *args)

    return measured


class CpuBackend(BackendBase):
    """Numba kernels on the host CPU: MSM (G1, G2) and NTT for both curves, every optional capability."""

    name = "cpu"
    priority = 100
    capabilities = frozenset(
        {PREPARED_BASES, MSM_BATCH, COMPUTE_H, WINDOW, FIELD_OPS, KEPT_SCALARS, SPARSE, FIXED_BASE, TIMINGS}
        | {WARM_UP, PAIRING, MONTGOMERY_FORM, POINT_NTT, STORED_BASES, ROW_SUMS}
    )

    def __init__(self, *, device: int | None = None, threads: int | None = None) -> None:
        super().__init__(device=device)  # a GPU index: nothing to choose on the host
        threads = threads_from_env() if threads is None else threads
        if not (threads is None or (isinstance(threads, int) and threads >= 1)):
            raise ParameterError(f"threads must be a positive int or None (all cores), got {threads!r}")
        self._threads = threads

    def unavailable_reason(self) -> str | None:
        return numba_missing()

    def runtime(self) -> Runtime:
        """The loaded kernels and thread pool (imports numba and the kernel modules on the first call)."""
        return runtime(self._threads)

    @contextmanager
    def _measure(self) -> Iterator[None]:
        with CLOCK.measure():
            yield

    def last_internal_seconds(self) -> float | None:
        """The seconds the calling thread's last call spent in compiled kernels (the engine's "internal" level):
        the union of the intervals in which any of its kernels ran, on any thread of the pool."""
        return CLOCK.last_seconds()

    def last_internal_intervals(self) -> list[tuple[float, float]] | None:
        """Where those seconds lie: disjoint ``time.perf_counter()`` intervals (an optional extension of the
        protocol's ``last_internal_seconds``; the engine places its internal spans by them when offered)."""
        return CLOCK.last_intervals()

    def describe(self) -> dict[str, Any]:
        versions = {"numpy": np.__version__}
        for package in ("cuzk", "numba", "llvmlite"):
            try:
                versions[package] = metadata.version(package)
            except metadata.PackageNotFoundError:
                versions[package] = "not installed"
        if self.unavailable_reason() is not None:
            return {"device": None, "versions": versions}
        threads = self.runtime().threads
        return {
            "device": f"host CPU: {platform.machine()}, {threads} threads (numba nogil kernels)",
            "versions": versions,
            "threads": threads,
        }

    # --- MSM ----------------------------------------------------------------------------------------------------

    @staticmethod
    def _like(F: Any, group: str) -> Any:
        """An element of the coordinate field of ``group``: numba specializes the kernels on its type."""
        return F.one if group == "g1" else (F.one, F.one)

    @_measured
    def _prepare_bases(self, curve: Curve, group: str, bases: np.ndarray) -> Any:
        rt = self.runtime()
        F = rt.curve(curve).fq.consts
        return rt.msm.prepare(bases, self._like(F, group), F, rt.pool, rt.threads)

    def _msm_points(
        self, curve: Curve, group: str, points: Any, scalars: np.ndarray | KeptScalars, window: int | None
    ) -> np.ndarray:
        rt = self.runtime()
        out = rt.free_scalars.msm_auto(points, _host(scalars), window, rt.pool, rt.threads)
        return out.reshape(limbs.point_shape(curve, group))

    @_measured
    def _msm(self, curve: Curve, group: str, bases: np.ndarray, scalars: np.ndarray, window: int | None) -> np.ndarray:
        return self._msm_points(curve, group, self._prepare_bases(curve, group, bases), scalars, window)

    @_measured
    def _msm_prepared(self, handle: PreparedBases, scalars: np.ndarray | KeptScalars, window: int | None) -> np.ndarray:
        return self._msm_points(handle.curve, handle.group, handle.payload, _host(scalars), window)

    @_measured
    def _msm_batch(
        self,
        curve: Curve,
        group: str,
        bases: list[np.ndarray | PreparedBases],
        scalars: list[np.ndarray],
        windows: list[int | None],
    ) -> np.ndarray:
        """Rows of raw points and a few terms each (a setup's sums) in one pass (:mod:`.row_sums`), else an MSM each."""
        from cuzk.backends.cpu.row_sums import small_rows

        if not small_rows(bases):
            return super()._msm_batch(curve, group, bases, scalars, windows)
        return self._row_summer(curve)(group, bases, [_host(s) for s in scalars])  # type: ignore[arg-type]

    @_measured
    def _row_sums(self, curve: Curve, group: str, points: Any, indptr: Any, index: Any, scalars: Any) -> np.ndarray:
        return self._row_summer(curve).over_table(group, points, indptr, index, scalars)

    def _row_summer(self, curve: Curve) -> Any:
        from cuzk.backends.cpu.row_sums import RowSums

        rt = self.runtime()
        return RowSums(curve, rt.curve(curve), rt.pool, rt.threads)

    # --- kept scalars: checked once, held as the array itself ---------------------------------------------------

    @_measured
    def _keep_scalars(self, curve: Curve, scalars: np.ndarray) -> KeptScalars:
        """A private copy of the checked scalars (what a device's upload is to a GPU backend): later changes to the
        caller's array do not reach the MSMs that read it."""
        return KeptScalars(self.name, curve, len(scalars), self.runtime().pool.call(np.array, scalars, np.uint64))

    @_measured
    def _compute_h_kept(self, curve: Curve, a: Any, b: Any, c: Any, reduction: str) -> KeptScalars:
        h = self._compute_h(curve, _host(a), _host(b), _host(c), reduction)
        return KeptScalars(self.name, curve, len(h), h)

    # --- the witness side: sparse products (:mod:`.sparse`) and a setup's fixed-base multiples ------------------

    def _prepare_sparse(
        self, curve: Curve, indptr: np.ndarray, columns: np.ndarray, coefficients: np.ndarray, num_columns: int
    ) -> Any:
        from cuzk.backends.cpu.sparse import CsrMatrix

        return CsrMatrix.from_csr(indptr, columns, coefficients, curve.r, num_columns)

    def _sparse_product(self, matrix: SparseMatrix, z: np.ndarray | KeptScalars, rows: int) -> np.ndarray:
        return matrix.payload.product(np.ascontiguousarray(_host(z)), rows)

    @_measured
    def _generator_multiples(self, curve: Curve, group: str, scalars: np.ndarray) -> np.ndarray:
        flat = self.runtime().generator_table(curve, group)(scalars)
        return flat.reshape(len(scalars), *limbs.point_shape(curve, group))

    # --- NTT and H ----------------------------------------------------------------------------------------------

    @_measured
    def _ntt(self, curve: Curve, values: np.ndarray, inverse: bool, coset: bool) -> np.ndarray:
        return self.runtime().ntt_of(curve).transform(values, inverse, coset)

    @_measured
    def _compute_h(self, curve: Curve, a: np.ndarray, b: np.ndarray, c: np.ndarray, reduction: str) -> np.ndarray:
        h = self.runtime().ntt_of(curve).compute_h(a, b, c, reduction)
        if reduction == "circom":
            return h
        n = len(h)
        if h[n - 1].any():
            raise QuotientNotDivisibleError(
                "A·B − C is not divisible by Z: the witness does not satisfy the constraints "
                f"(coefficient {n - 1} of the quotient H is not zero)"
            )
        return h[: n - 1].copy()

    # --- the pairing check (:mod:`.pairing`, :mod:`.tower`) ---------------------------------------------------------

    @_measured
    def _pairing_check(self, curve: Curve, g1: np.ndarray, g2: np.ndarray) -> bool:
        from cuzk.backends.cpu import pairing

        return bool(self.runtime().pool.call(pairing.pairing_check, curve, g1, g2))

    # --- the NTT over points (:mod:`.point_ntt`): a ptau's Lagrange bases -------------------------------------------

    @_measured
    def _point_ntt(self, curve: Curve, group: str, points: np.ndarray, omega: int, inverse: bool) -> np.ndarray:
        from cuzk.backends.cpu.point_ntt import PointNtt

        if len(points) == 0:
            return points.copy()
        rt = self.runtime()
        return PointNtt(curve, rt.curve(curve), rt.pool, rt.threads)(group, points, omega, inverse)

    # --- stored forms (:mod:`.stored`) -----------------------------------------------------------------------------

    @_measured
    def _points_from_montgomery(
        self, curve: Curve, group: str, stored: np.ndarray, check: bool
    ) -> tuple[np.ndarray, int, str]:
        from cuzk.backends.cpu import stored as kernels

        rt = self.runtime()
        return kernels.points_from_montgomery(curve, rt.curve(curve), group, stored, check, rt.pool, rt.threads)

    @_measured
    def _prepare_stored_bases(
        self, curve: Curve, group: str, stored: np.ndarray, check: bool, uses: int | None
    ) -> tuple[Any, int]:
        from cuzk.backends.cpu import stored as kernels

        rt = self.runtime()
        return kernels.prepare_stored(curve, rt.curve(curve), group, stored, check, rt.pool, rt.threads)

    @_measured
    def _scalars_from_montgomery(self, curve: Curve, stored: np.ndarray, reductions: int) -> tuple[np.ndarray, int]:
        from cuzk.backends.cpu import stored as kernels

        rt = self.runtime()
        return kernels.scalars_from_montgomery(rt.curve(curve), stored, reductions, rt.pool, rt.threads)

    @_measured
    def _field_to_montgomery(self, curve: Curve, field: str, values: np.ndarray, powers: int) -> np.ndarray:
        from cuzk.backends.cpu import stored as kernels

        rt = self.runtime()
        params = rt.curve(curve).fr if field == "fr" else rt.curve(curve).fq
        return kernels.field_to_montgomery(params, values, powers, rt.pool, rt.threads)

    # --- compiling ahead (:mod:`.warm`) ---------------------------------------------------------------------------

    def _warm_up(self, curve: Curve, work: str) -> WarmUp:
        return self._warm_up_for(curve, work, None, False)

    def _warm_up_for(self, curve: Curve, work: str, sizes: WorkSizes | None, background: bool) -> WarmUp:
        from cuzk.backends.cpu import warm

        return warm.start(curve, work, sizes=sizes, background=background)

    def _kernels_ready(self, curve: Curve, work: str, sizes: WorkSizes | None) -> bool:
        """Whether the warm-up's stamps say ``work``'s kernels (for ``sizes``) are in numba's cache."""
        from cuzk.backends.cpu import warm

        return warm.ready(curve, work, sizes)

    # --- field operations ---------------------------------------------------------------------------------------

    @_measured
    def _field_op(self, curve: Curve, field: str, op: str, a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
        rt = self.runtime()
        params = rt.curve(curve)
        if op == "inverse" and not np.all(a.any(axis=1)):
            row = int(np.argmin(a.any(axis=1)))
            raise NotInvertibleError(f"a[{row}]: 0 has no inverse in {curve.name}.{field.capitalize()}")
        consts = (params.fr if field == "fr" else params.fq).consts
        if len(a) < PARALLEL_ROWS or rt.threads == 1:
            return rt.pool.call(rt.fieldops.field_op, consts, op, a, b)
        edges = np.linspace(0, len(a), rt.threads + 1).astype(np.int64).tolist()

        def rows(lo: int, hi: int) -> np.ndarray:
            return rt.fieldops.field_op(consts, op, a[lo:hi], None if b is None else b[lo:hi])

        parts = rt.pool.map(lambda span: rows(*span), list(pairwise(edges)))
        return np.concatenate(parts)


def _host(scalars: np.ndarray | KeptScalars) -> np.ndarray:
    """The rows of scalars given as an array or kept by this backend (the kept array, from row ``first``)."""
    if isinstance(scalars, KeptScalars):
        return scalars.payload[scalars.first : scalars.first + scalars.n]
    return scalars


def threads_from_env() -> int | None:
    """The thread count $CUZK_THREADS asks for (None when unset: all usable cores, numba's NUMBA_NUM_THREADS).
    EnvironmentVariableError (a ParameterError) when CUZK_THREADS is not an integer in 1 … env.MAX_THREADS, or when
    NUMBA_NUM_THREADS is set but not one: numba would fail at import with a message that does not name it."""
    env.numba_threads()
    return env.threads()


__all__ = ["ENV_THREADS", "CpuBackend", "QuotientNotDivisibleError", "threads_from_env"]
