"""Finding the CUDA device, compiling the generated programs for it, launching kernels: CuPy underneath.

``CUZK_DEVICE`` (the backend's ``device``) is the CUDA device ordinal (after ``CUDA_VISIBLE_DEVICES``); unset, 0.
Programs are compiled lazily, one per (curve, program) the first time a kernel of it is needed, by NVRTC through
``cupy.RawModule`` for the device's own architecture (CuPy asks NVRTC for the device's sm_XY code); CuPy keeps the
binaries in its kernel cache (``~/.cupy/kernel_cache`` or ``CUPY_CACHE_DIR``) keyed by source and options, so a
program is compiled once per machine. Every launch, read and write goes to the context's main stream (non-blocking),
in order; each launch is bracketed by CUDA events while a trace is open, which is where the device time comes from.

Uploads go through a ring of pinned host buffers (:mod:`cuzk.backends.cuda.staging`), so that an upload queued
behind kernels does not hold the host until they finish; an array already in pinned memory (``host_array``) is
copied in place, and so is a large one whose pages the host pins where they are for the copy. Reads go the other
way through pinned memory of their own (:meth:`CudaContext.read_later`), so that queueing one does not wait.
An upload into a new buffer of LEASE_MIN_BYTES or more goes on a second stream, into memory leased from the
context, so that it runs beside the kernels queued before it (:mod:`cuzk.backends.cuda.uploads`).
"""

from __future__ import annotations

import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from cuzk.backends.cuda import prebuilt
from cuzk.backends.cuda.clock import EventClock
from cuzk.backends.cuda.large_blocks import keep_large_apart
from cuzk.backends.cuda.staging import PinnedStaging
from cuzk.backends.cuda.uploads import LeasedUploads, allocate
from cuzk.backends.gpu.context import BufferHelpers, DeviceInfo, Finish, SelectionError, ready
from cuzk.backends.gpu.errors import KernelBuildError
from cuzk.backends.kernels import CUDA, generate
from cuzk.reference.curves import Curve

KERNEL_PROBE = re.compile(r"KERNEL\s+void\s+(\w+)")  # a kernel's name in a program's source (to check a load)
BLOCK = 128  # threads per block; fewer when a kernel's registers allow fewer
WARP, REGISTER_UNIT = 32, 256  # threads a warp; a warp's registers are allocated in units of this many
OPTIONS = ("--std=c++17",)  # NVRTC options of every program (tests and benchmarks add -D…)
LEASE_MIN_BYTES = 1 << 20  # uploads this large go on the copy stream, into leased memory
LEASE_CACHE_FRACTION = 0.05  # of the device's memory, at most, kept in free leased slots for the next uploads


def import_cupy() -> ModuleType:
    """cupy, or SelectionError saying how to install it."""
    try:
        import cupy
    except ImportError as exc:
        raise SelectionError(
            f"cupy is not installed ({exc}); install it with pip install 'cuzk[cuda]' on a machine with an NVIDIA GPU "
            "and its driver"
        ) from None
    return cupy


def select_device(index: int | None) -> Any:
    """The cupy Device of ordinal ``index`` (default 0); SelectionError when there is none."""
    cp = import_cupy()
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError without a driver or a GPU
        raise SelectionError(f"no CUDA device available ({type(exc).__name__}: {exc})") from None
    if count == 0:
        raise SelectionError("no CUDA device found")
    i = 0 if index is None else index
    if i >= count:
        raise SelectionError(f"no CUDA device {i} (there are {count}); set CUZK_DEVICE to a smaller index")
    return cp.cuda.Device(i)


def device_info(cp: ModuleType, device: Any) -> DeviceInfo:
    props = cp.cuda.runtime.getDeviceProperties(device.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    runtime = cp.cuda.runtime
    facts = {
        "device": f"{name} (CUDA device {device.id})",
        "compute_capability": f"{props['major']}.{props['minor']}",
        "arch": f"sm_{props['major']}{props['minor']}",
        "multiprocessors": props["multiProcessorCount"],
        "global_mem_bytes": props["totalGlobalMem"],
        "l2_cache_bytes": props.get("l2CacheSize"),
        "registers_per_multiprocessor": props.get("regsPerMultiprocessor"),
        "threads_per_multiprocessor": props.get("maxThreadsPerMultiProcessor"),
        "driver_version": runtime.driverGetVersion(),
        "runtime_version": runtime.runtimeGetVersion(),
    }
    total = int(props["totalGlobalMem"])
    return DeviceInfo(name, "CUDA", "gpu", int(props["multiProcessorCount"]), total, total, facts)


def resident_threads(registers: int, block: int, unit_registers: int, unit_threads: int) -> int:
    """Threads of a kernel of ``registers`` registers a thread, in blocks of ``block``, that one multiprocessor of
    ``unit_registers`` registers and at most ``unit_threads`` threads runs at once: whole blocks, each warp's
    registers allocated in units of 256 (CUDA's occupancy calculator)."""
    warp_registers = -(-registers * WARP // REGISTER_UNIT) * REGISTER_UNIT
    blocks = min(unit_registers // (warp_registers * -(-block // WARP)), unit_threads // block)
    return blocks * block


class CudaContext(BufferHelpers):
    """One device, its main stream (kernels, reads) and copy stream (uploads), the programs compiled for it, and a
    kernel launcher (a DeviceContext)."""

    uploads_overlap = True  # uploads of LEASE_MIN_BYTES or more go on the copy stream

    def __init__(self, device: Any) -> None:
        self.cp = import_cupy()
        self.device = device
        self.info = device_info(self.cp, device)
        with device:
            self.stream = self.cp.cuda.Stream(non_blocking=True)
        self.trace: list[tuple[str, Any, Any]] | None = None  # (kernel, start event, end event) while a list
        self.lock = threading.RLock()
        self.build_seconds: dict[str, float] = {}
        self.built_by: dict[str, str] = {}  # "prebuilt" or "nvrtc", per curve/program
        self.memory_errors: tuple[type[BaseException], ...] = (self.cp.cuda.memory.OutOfMemoryError,)
        self._modules: dict[tuple[str, str], Any] = {}
        self._kernels: dict[tuple[str, str, str], tuple[Any, int]] = {}
        self._resident: dict[tuple[str, str, str], int] = {}  # resident_threads per kernel
        self.host = PinnedStaging(self.cp, self.memory_errors)
        self.leases = LeasedUploads(self.cp, device, self.stream, int(self.info.global_mem * LEASE_CACHE_FRACTION))
        self.clock = EventClock(self.cp, device)
        keep_large_apart(self.cp, self.info.global_mem)  # the largest arrays outside CuPy's pool (held ≈ live)

    @contextmanager
    def _on(self) -> Iterator[None]:
        with self.device, self.stream:
            yield

    # --- programs and kernels -------------------------------------------------------------------------------

    def module(self, curve: Curve, program: str) -> Any:
        """The program loaded on the device: its prebuilt code when shipped for this device (:mod:`.prebuilt`),
        else compiled by NVRTC (and kept in CuPy's kernel cache). ``build_seconds`` says how long each took and
        ``built_by`` which way each came."""
        key = (curve.name, program)
        with self.lock:
            if key not in self._modules:
                source = generate(curve, CUDA, program)
                start = time.perf_counter()
                module, how = self._prebuilt(source), "prebuilt"
                if module is None:
                    module, how = self._compiled(source, curve, program), "nvrtc"
                self.build_seconds[f"{curve.name}/{program}"] = time.perf_counter() - start
                self.built_by[f"{curve.name}/{program}"] = how
                self._modules[key] = module
            return self._modules[key]

    def prepare_program(self, curve: Curve, program: str) -> None:
        self.module(curve, program)

    def _prebuilt(self, source: str) -> Any:
        """The shipped cubin or PTX of ``source`` loaded, or None (none shipped, or the driver refuses it)."""
        major, minor = (int(v) for v in self.info.facts["compute_capability"].split("."))
        path = prebuilt.find(source, OPTIONS, major, minor)
        if path is None:
            return None
        # CuPy's RawModule loads a cubin or PTX from a file, on the first get_function: the decompressed code goes
        # to a temporary file for as long as that takes
        with tempfile.TemporaryDirectory(prefix="cuzk-prebuilt-") as folder:
            unpacked = Path(folder) / path.name.removesuffix(".xz")
            unpacked.write_bytes(prebuilt.load_code(path))
            try:
                with self._on():
                    module = self.cp.RawModule(path=str(unpacked))
                    module.get_function(KERNEL_PROBE.search(source).group(1))  # type: ignore[union-attr]
            except self.cp.cuda.driver.CUDADriverError:  # e.g. a driver older than the NVRTC that built it
                return None
        return module

    def _compiled(self, source: str, curve: Curve, program: str) -> Any:
        try:
            with self._on():
                module = self.cp.RawModule(code=source, options=OPTIONS)
                module.compile()
        except self.cp.cuda.compiler.CompileException as exc:
            raise KernelBuildError(
                f"NVRTC rejected the {program!r} program of {curve.name} for {self.info.name!r}", log=str(exc)
            ) from None
        return module

    def kernel(self, curve: Curve, program: str, name: str) -> tuple[Any, int]:
        """The kernel and its block size (BLOCK, or what the kernel's register use allows)."""
        key = (curve.name, program, name)
        if key not in self._kernels:
            k = self.module(curve, program).get_function(name)
            self._kernels[key] = (k, max(32, min(BLOCK, k.max_threads_per_block)))
        return self._kernels[key]

    def resident_threads(self, curve: Curve, program: str, name: str) -> int | None:
        registers, threads = (self.info.facts.get(f"{what}_per_multiprocessor") for what in ("registers", "threads"))
        if not registers or not threads:
            return None
        key = (curve.name, program, name)
        if key not in self._resident:
            k, block = self.kernel(curve, program, name)
            self._resident[key] = resident_threads(k.num_regs, block, registers, threads)
        return self._resident[key]

    def launch(self, curve: Curve, program: str, name: str, items: int, *args: Any, group: int | None = None) -> None:
        """Run kernel ``name`` over ``items`` threads (rounded up to whole blocks; kernels check their range), in
        blocks of ``group`` threads when given (kernels that share memory within a block), else of the default."""
        k, block = self.kernel(curve, program, name)
        if group is not None:
            if group > k.max_threads_per_block:
                raise KernelBuildError(
                    f"{name} needs blocks of {group} threads; its registers allow {k.max_threads_per_block} on "
                    f"{self.info.name!r}"
                )
            block = group
        grid = max(1, -(-items // block))
        self.leases.await_copies(args)
        with self._on():
            if self.trace is None:
                k((grid,), (block,), args)
                return
            start, end = self.cp.cuda.Event(), self.cp.cuda.Event()
            if not self.trace:
                self.clock.opened(start)
            start.record(self.stream)
            k((grid,), (block,), args)
            end.record(self.stream)
            self.trace.append((name, start, end))

    def launch_seconds(self, trace: list[tuple[str, Any, Any]]) -> list[float]:
        """Device time of each launch of ``trace`` (CUDA events). One wait, for the last event: the stream runs in
        order, so the others are done by then (each wait gives up the GIL, and getting it back can cost a switch
        interval while another thread runs Python)."""
        if not trace:
            return []
        trace[-1][2].synchronize()
        elapsed = self.cp.cuda.get_elapsed_time
        return [elapsed(start, end) * 1e-3 for _, start, end in trace]

    def kernel_intervals(
        self, trace: list[tuple[str, Any, Any]], seconds: list[float]
    ) -> list[tuple[float, float]] | None:
        """When each launch of ``trace`` (done: after :meth:`launch_seconds`) ran, on the host's clock."""
        return self.clock.intervals(trace, seconds)

    # --- buffers --------------------------------------------------------------------------------------------

    def buffer(self, nbytes: int) -> Any:
        """A new device buffer (the free leased slots given back first when the device has none left: allocate)."""
        with self._on():
            return allocate(self.cp, self.stream, max(nbytes, 8), self.release_cached)

    def write(self, buf: Any, array: np.ndarray) -> None:
        """Queue the copy of ``array`` into ``buf``; the caller may change ``array`` as soon as this returns. Up to
        STAGING_BUFFERS · STAGING_BYTES bytes wait in the pinned ring for the stream; beyond, the host waits for
        the oldest copy out of the ring before it reuses that buffer."""
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        if raw.size:
            self.leases.await_copies((buf,))
            self._stage(buf, raw, self.stream)

    def upload(self, array: np.ndarray, meanwhile: Callable[[], None] | None = None) -> Any:
        """A new buffer holding ``array``: from LEASE_MIN_BYTES on, copied on the copy stream into leased memory,
        beside the kernels already queued; the kernels that read it wait for the copy. From pinned memory, or from
        pageable memory whose pages the host pins in place for the copy (:meth:`PinnedStaging.register`), the DMA
        reads the array where it is, ``meanwhile`` runs beside it, and the upload returns once it is done; else it
        goes through the ring of pinned buffers."""
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        if raw.size < LEASE_MIN_BYTES:
            return super().upload(array, meanwhile)
        buf, slot = self.leases.lease(raw.size)
        if self.host.is_pinned(raw):
            return self._upload_in_place(buf, slot, raw, meanwhile)
        registered = self.host.register(raw)
        if registered is not None:
            try:
                return self._upload_in_place(buf, slot, raw, meanwhile)
            finally:
                self.host.unregister(registered)  # the copy has run
        if meanwhile is not None:
            meanwhile()
        self._stage(buf, raw, self.leases.copy_stream)
        self.leases.copied(buf, slot)
        return buf

    def _upload_in_place(self, buf: Any, slot: Any, raw: np.ndarray, meanwhile: Callable[[], None] | None) -> Any:
        """The DMA from pinned ``raw`` into the leased ``buf`` on the copy stream, ``meanwhile`` beside it; returns
        once the copy has run."""
        copy = self.leases.copy_stream
        with self._on():
            buf[: raw.size].set(raw, stream=copy)
            done = self.cp.cuda.Event(disable_timing=True)
            done.record(copy)
        self.leases.copied(buf, slot)
        try:
            if meanwhile is not None:
                meanwhile()
        finally:
            done.synchronize()  # the caller may write its array again once this returns
        return buf

    def host_array(self, shape: tuple[int, ...], dtype: Any = np.uint64) -> np.ndarray:
        """Pinned host memory, which ``upload`` copies without the ring at the bus's speed (a plain array when the
        host refuses)."""
        return self.host.host_array(shape, dtype)

    @property
    def cached_bytes(self) -> int:
        return self.leases.idle_bytes

    def release_cached(self) -> None:
        self.leases.trim(0)

    @property
    def free_bytes(self) -> int:
        """The device's free memory (other processes' use already out of it), within the pool's limit where one is
        set (CUPY_GPU_MEMORY_LIMIT), plus the free blocks of CuPy's pool."""
        pool = self.cp.get_default_memory_pool()
        with self.device:
            free, _ = self.cp.cuda.runtime.memGetInfo()
        limit = int(pool.get_limit())
        if limit:
            free = min(free, max(0, limit - int(pool.total_bytes())))
        return int(free) + int(pool.free_bytes())

    def _stage(self, buf: Any, raw: np.ndarray, stream: Any) -> None:
        """Queue the copy of the bytes ``raw`` into ``buf`` on ``stream``, through the pinned ring when large."""
        with self._on():
            self.host.stage(buf, raw, stream)

    def fill_zero(self, buf: Any, nbytes: int) -> None:
        if nbytes:
            self.leases.await_copies((buf,))
            with self._on():
                self.cp.cuda.runtime.memsetAsync(buf.data.ptr, 0, nbytes, self.stream.ptr)

    def read_later(
        self, buf: Any, shape: tuple[int, ...], dtype: Any = np.uint64, offset: int = 0
    ) -> Finish[np.ndarray]:
        """Queue the copy into pinned memory (when the host grants it; else the copy is made now, waiting for the
        stream); the Finish waits for it and moves the bytes into the array it returns."""
        out = np.empty(shape, dtype=dtype)
        raw = out.reshape(-1).view(np.uint8)
        if not out.nbytes:
            return ready(out)
        self.leases.await_copies((buf,))
        with self._on():
            pinned = self.host.pinned(out.nbytes)
            if pinned is None:
                buf[offset : offset + out.nbytes].get(stream=self.stream, out=raw)
                return ready(out)
            buf[offset : offset + out.nbytes].get(stream=self.stream, out=pinned, blocking=False)
            copied = self.cp.cuda.Event(disable_timing=True)
            copied.record(self.stream)

        def finish() -> np.ndarray:
            copied.synchronize()
            self.host.copy(raw, pinned)
            return out

        return finish


__all__ = ["BLOCK", "OPTIONS", "CudaContext", "device_info", "import_cupy", "select_device"]
