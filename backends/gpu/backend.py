"""The backend base of the GPU APIs: the protocol's hooks over the shared MSM/NTT drivers and a DeviceContext.

:class:`DeviceBackend` does everything that does not depend on the API: memory budgets (the device's, or a cap
given by the caller, which tests use to force chunking), the NTT table cache (resident bases: :mod:`.resident`),
one lock per context (a context's queue is shared by the threads that call the backend) and the device time of
each call (``last_kernel_seconds`` per kernel, ``last_internal_seconds`` per calling thread, and
``last_batch_seconds`` per MSM of a batch). A subclass says how to find its device (``_select``), how to open a
context on it (``_open``) and what to report (``describe``).

A call queues its copies and kernels holding the context's lock, then lets go and waits for its results (reads
queued behind its kernels; see :data:`~cuzk.backends.gpu.context.Finish`): another thread's call queues behind it
meanwhile, so the device runs one call's kernels while the host copies the next call's data in. Within a thread the
host is idle between the kernels of two calls, which is why ``msm_batch`` queues all its MSMs before it reads any
result, and why the engine gives it the four G1 MSMs of a proof at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from importlib import metadata
from itertools import pairwise
from typing import Any, TypeVar

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.gpu import msm as msm_device
from cuzk.backends.gpu import msm_batch
from cuzk.backends.gpu import ntt as ntt_device
from cuzk.backends.gpu import warm as device_warm
from cuzk.backends.gpu.context import DeviceContext, DeviceScalars, Finish, SelectionError, ready, seconds_by_kernel
from cuzk.backends.gpu.errors import DeviceMemoryError
from cuzk.backends.gpu.field_work import FieldWork, on_device
from cuzk.backends.gpu.pairing import PairingWork
from cuzk.backends.gpu.plan import Memory
from cuzk.backends.gpu.point_ntt import PointNttWork
from cuzk.backends.gpu.resident import BasesWork
from cuzk.backends.protocol import (
    COMPUTE_H,
    DEVICE,
    FIELD_OPS,
    FIXED_BASE,
    KEPT_SCALARS,
    MSM_BATCH,
    PAIRING,
    POINT_NTT,
    PREPARED_BASES,
    SPARSE,
    STORED_BASES,
    STORED_POINT_NTT,
    TIMINGS,
    WARM_UP,
    WINDOW,
    BackendBase,
    KeptScalars,
    PreparedBases,
    WarmUp,
)
from cuzk.reference.curves import Curve

T = TypeVar("T")

MEMORY_FRACTION = 0.75  # of the device's global memory one call may plan with
TABLE_CACHE_FRACTION = 0.125  # of that, for cached NTT tables
FREE_HEADROOM = 0.02  # of the device's memory, left free by a plan (the pool's rounding, blocks split apart)


class DeviceBackend(FieldWork, PairingWork, PointNttWork, BasesWork, BackendBase):
    """MSM (G1, G2), NTT, fused H, field operations and point NTTs on one GPU-API device (see the module docstring).

    ``memory_limit`` (bytes) and ``max_chunk`` (points) cap what one call plans with, below what the device has;
    ``parallel_items`` sets how many bucket-kernel work-items an MSM uses. Tests use them to force chunking and
    uneven segments on small devices. ``shifted_bases`` (default: on GPUs, not on CPU devices) makes
    ``prepare_bases`` also keep the shifted copies 2^(c·t)·P_i, so that MSMs over them need one bucket set and no
    doubling between windows, for W times the memory of the bases. ``pipeline_from`` (points; default: the MSM's
    PIPELINE_FROM where uploads overlap the kernels, never elsewhere) is the size from which one MSM's scalars from
    host memory are uploaded in two chunks, the second while the first's kernels run.
    """

    capabilities = frozenset(
        {
            PREPARED_BASES,
            MSM_BATCH,
            COMPUTE_H,
            KEPT_SCALARS,
            WINDOW,
            FIELD_OPS,
            FIXED_BASE,
            SPARSE,
            STORED_BASES,
            TIMINGS,
            DEVICE,
            WARM_UP,
            PAIRING,
            POINT_NTT,
            STORED_POINT_NTT,
        }
    )
    KEEP_CHECKS_SCALARS = True  # on the host while the upload runs (from pinned memory: beside the DMA)
    MSM_CHECKS_SCALARS = True  # the histogram kernel compares every scalar with r (msm.refused_if_noncanonical)

    def __init__(
        self,
        *,
        device: int | None = None,
        memory_limit: int | None = None,
        max_chunk: int | None = None,
        parallel_items: int | None = None,
        shifted_bases: bool | None = None,
        pipeline_from: int | None = None,
    ) -> None:
        super().__init__(device=device)
        self.pipeline_from = pipeline_from
        self.memory_limit = memory_limit
        self.max_chunk = max_chunk
        self.parallel_items = parallel_items
        self.shifted_bases = shifted_bases
        self._probed = False
        self._reason: str | None = None
        self._device: Any = None
        self._ctx: DeviceContext | None = None
        self._opening = threading.Lock()  # one context, whichever thread (a warm-up's, the caller's) asks first
        self._tables: ntt_device.Tables | None = None
        self._fixed_base_tables: dict[tuple[str, str], Any] = {}
        self._resident = 0
        self.last_kernel_seconds: dict[str, float] = {}
        self._per_thread = threading.local()

    # --- what a subclass provides ---------------------------------------------------------------------------

    def _select(self) -> Any:
        """The API's device handle for ``self.device``; SelectionError saying why there is none."""
        raise NotImplementedError

    def _open(self, device: Any) -> DeviceContext:
        """A new context on ``device``."""
        raise NotImplementedError

    api_package = ""  # the Python package of the API, whose version describe() reports

    def _device_facts(self) -> dict[str, Any]:
        """What describe() says of the selected device (the backend is available)."""
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        versions = {"numpy": np.__version__}
        for package in ("cuzk", self.api_package):
            try:
                versions[package] = metadata.version(package)
            except metadata.PackageNotFoundError:
                versions[package] = "not installed"
        if self.unavailable_reason() is not None:
            return {"device": None, "versions": versions, "reason": self._reason}
        facts = self._device_facts()
        facts["versions"] = {**versions, **facts.get("versions", {})}
        facts["build_seconds"] = dict(self._ctx.build_seconds) if self._ctx is not None else {}
        return facts

    # --- availability ---------------------------------------------------------------------------------------

    def _probe(self) -> None:
        if not self._probed:
            try:
                self._device = self._select()
            except SelectionError as exc:
                self._reason = str(exc)
            self._probed = True

    def unavailable_reason(self) -> str | None:
        self._probe()
        return self._reason

    @property
    def context(self) -> DeviceContext:
        """The device context, created at first use (by the warm-up's thread, when one runs)."""
        if self._ctx is None:
            self._require()
            with self._opening:
                if self._ctx is None:
                    self._ctx = self._open(self._device)
        return self._ctx

    def _call(self, queue: Callable[[DeviceContext], Finish[T]]) -> T:
        """One call: ``queue(ctx)`` queues its work holding the context's lock and returns its Finish, which runs
        after the lock is let go; then ``last_kernel_seconds`` holds the device time per kernel (a call made inside
        another, as msm_batch makes, counts towards the outer one and finishes at once). The API's out-of-memory
        errors (the device's memory is shared with other processes, or smaller than it reported) become
        :class:`DeviceMemoryError`; the backend stays usable."""
        ctx = self.context
        with ctx.lock:
            if ctx.trace is not None:
                return queue(ctx)()
            ctx.trace = trace = []
            self._per_thread.batch_marks = self._per_thread.batch_seconds = None
            try:
                finish = queue(ctx)
            except ctx.memory_errors as exc:
                ctx.release_cached()
                raise DeviceMemoryError(
                    f"the {self.name} device ran out of memory ({type(exc).__name__}: {exc}); other processes may "
                    f"hold part of it: pass memory_limit= (bytes) to {type(self).__name__} to plan with less, and the "
                    "work is cut into chunks that fit"
                ) from None
            finally:
                ctx.trace = None
        result = finish()
        seconds = ctx.launch_seconds(trace)
        self.last_kernel_seconds = seconds_by_kernel(trace, seconds)
        marks = self._per_thread.batch_marks
        self._per_thread.batch_seconds = None if marks is None else [sum(seconds[a:b]) for a, b in pairwise(marks)]
        self._per_thread.seconds = sum(seconds)
        self._per_thread.intervals = ctx.kernel_intervals(trace, seconds)
        return result

    def last_internal_seconds(self) -> float | None:
        """Device time (the API's event timers) of the calling thread's last call: the engine's "internal" level."""
        return getattr(self._per_thread, "seconds", None)

    def last_internal_intervals(self) -> list[tuple[float, float]] | None:
        """When each kernel of the calling thread's last call ran, on the host's clock (the API's events tied to it:
        ``kernel_intervals``), so that the engine's overhead counts only the time no kernel ran."""
        return getattr(self._per_thread, "intervals", None)

    def last_batch_seconds(self) -> list[float] | None:
        """Device time of each MSM of the calling thread's last call when it was an ``msm_batch`` (else None): the
        engine shows every MSM of a batch in its timings by it."""
        return getattr(self._per_thread, "batch_seconds", None)

    def _memory(self) -> Memory:
        """What the next call may plan with: its share of the device less the resident bases and matrices and the
        cached slots, and never more than the device has free now (less FREE_HEADROOM) where the API tells, for
        arrays kept between calls (a proof's z, a, b, c) and other processes count there."""
        ctx = self.context
        info = ctx.info
        total = int(info.global_mem * MEMORY_FRACTION) if self.memory_limit is None else self.memory_limit
        budget = total - self._resident - ctx.cached_bytes
        free = ctx.free_bytes
        if free is not None:
            budget = min(budget, free - int(info.global_mem * FREE_HEADROOM))
        return Memory(max(0, budget), min(info.max_alloc, total))

    def _memory_released(self) -> Memory:
        """:meth:`_memory` once the context's idle upload slots are let go of (for a call that does not fit beside
        them)."""
        self.context.release_cached()
        return self._memory()

    def _ntt_tables(self) -> ntt_device.Tables:
        """The cached NTT tables, trimmed to TABLE_CACHE_FRACTION of the memory this call may plan with (the tables'
        own included): a 2^27 domain's tables are several GB, which a device full of resident bases cannot spare."""
        if self._tables is None:
            self._tables = ntt_device.Tables(0)
        self._tables.fit(int((self._memory().budget + self._tables.nbytes) * TABLE_CACHE_FRACTION))
        return self._tables

    # --- the hooks of BackendBase ---------------------------------------------------------------------------

    def _msm(self, curve: Curve, group: str, bases: np.ndarray, scalars: np.ndarray, window: int | None) -> np.ndarray:
        options = {**self._msm_options(), "pipeline_from": self.pipeline_from}
        with msm_device.refused_if_noncanonical(curve, {"scalars": scalars}):
            return self._call(
                lambda ctx: (
                    msm_device.queue_msm(ctx, curve, group, scalars, bases, window, self._memory(), **options).read
                )
            )

    def _msm_options(self) -> dict[str, Any]:
        return {"max_chunk": self.max_chunk, "parallel_items": self.parallel_items}

    def _msm_prepared(self, handle: PreparedBases, scalars: np.ndarray | KeptScalars, window: int | None) -> np.ndarray:
        resident, k = self._resident_bases(handle), on_device(scalars)
        curve, group, options = handle.curve, handle.group, {**self._msm_options(), "pipeline_from": self.pipeline_from}
        with msm_device.refused_if_noncanonical(curve, {"scalars": scalars}):
            return self._call(
                lambda ctx: msm_device.queue_msm(ctx, curve, group, k, resident, window, self._memory(), **options).read
            )

    def _msm_batch(
        self,
        curve: Curve,
        group: str,
        bases: list[np.ndarray | PreparedBases],
        scalars: list[np.ndarray | KeptScalars],
        windows: list[int | None],
    ) -> np.ndarray:
        """Every MSM queued before any result is read (:func:`~cuzk.backends.gpu.msm_batch.queue_batch`); the device
        time of each is kept for ``last_batch_seconds``, from the launches each one added to the trace."""
        sources = [
            self._resident_bases(b, f"bases[{j}]") if isinstance(b, PreparedBases) else b for j, b in enumerate(bases)
        ]
        items = list(zip([on_device(k) for k in scalars], sources, windows, strict=True))

        def queue(ctx: DeviceContext) -> Finish[np.ndarray]:
            trace = ctx.trace
            assert trace is not None
            marks = [len(trace)]
            finish = msm_batch.queue_batch(
                ctx, curve, group, items, self._memory(), queued=lambda: marks.append(len(trace)), **self._msm_options()
            )

            def results() -> np.ndarray:
                done = finish()
                self._per_thread.batch_marks = marks  # each MSM's launches: its device time, once _call reads them
                return np.stack(done) if done else np.zeros((0, *limbs.point_shape(curve, group)), dtype=np.uint64)

            return results

        with msm_device.refused_if_noncanonical(curve, {f"scalars[{j}]": s for j, s in enumerate(scalars)}):
            return self._call(queue)

    def _ntt(self, curve: Curve, values: np.ndarray, inverse: bool, coset: bool) -> np.ndarray:
        return self._call(
            lambda ctx: ntt_device.queue_ntt(ctx, curve, self._ntt_tables(), values, inverse, coset, self._memory())
        )

    def _compute_h(self, curve: Curve, a: np.ndarray, b: np.ndarray, c: np.ndarray, reduction: str) -> np.ndarray:
        return self._call(
            lambda ctx: ntt_device.queue_compute_h(ctx, curve, self._ntt_tables(), a, b, c, reduction, self._memory())
        )

    def _compute_h_kept(
        self,
        curve: Curve,
        a: np.ndarray | KeptScalars,
        b: np.ndarray | KeptScalars,
        c: np.ndarray | KeptScalars,
        reduction: str,
        consume: bool = False,
    ) -> KeptScalars:
        inputs = [on_device(v) for v in (a, b, c)]
        kept = self._call(
            lambda ctx: ntt_device.queue_compute_h(
                ctx,
                curve,
                self._ntt_tables(),
                *inputs,
                reduction,
                self._memory(),
                keep=True,
                consume=consume,
                remeasure=self._memory_released,
            )
        )
        assert isinstance(kept, DeviceScalars)
        return KeptScalars(self.name, curve, kept.rows, kept)

    def _compute_h_kept_consuming(self, curve: Curve, a: Any, b: Any, c: Any, reduction: str) -> KeptScalars:
        """As _compute_h_kept, then the kept a, b, c let go of their buffers (the result's own reference stays where
        it was computed in place): the MSMs that follow have that memory, though a caller still holds a, b, c."""
        h = self._compute_h_kept(curve, a, b, c, reduction, consume=True)
        for v in (a, b, c):
            if isinstance(v, KeptScalars) and isinstance(v.payload, DeviceScalars):
                v.payload.release()
        return h

    def host_array(self, shape: tuple[int, ...], dtype: Any = np.uint64) -> np.ndarray:
        return self.context.host_array(shape, dtype)

    def _keep_scalars(self, curve: Curve, scalars: np.ndarray) -> KeptScalars:
        """One upload (on CUDA beside the queued kernels), for any number of MSMs. Scalars larger than one allocation
        or half the memory a call may plan with stay on the host instead, and each MSM takes them as an array
        (uploaded, or written chunk by chunk, as ever)."""
        memory, check = self._memory(), partial(limbs.check_scalars, curve, scalars)
        if scalars.nbytes > min(memory.max_alloc, memory.budget // 2):
            check()
            return KeptScalars(self.name, curve, len(scalars), scalars)
        kept = self._call(lambda ctx: ready(DeviceScalars.of(ctx, ctx.upload(scalars, check), len(scalars))))
        return KeptScalars(self.name, curve, len(scalars), kept)

    def _warm_up(self, curve: Curve, work: str) -> WarmUp:
        self._require()
        return device_warm.warm_up(lambda: self.context, curve, work)


__all__ = ["DeviceBackend"]
