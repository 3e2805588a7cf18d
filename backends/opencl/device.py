"""Finding the OpenCL device, building the generated programs for it, launching kernels.

Selection: ``CUZK_OPENCL_PLATFORM`` names the platform by index (``0``) or by a case-insensitive part of its name
or vendor (``nvidia``, ``pocl``, ``portable``); unset, the first platform with a GPU is used, else the first
platform. ``CUZK_DEVICE`` (the backend's ``device``) indexes that platform's devices, GPUs first; unset, 0.

Programs are built lazily, one per (curve, program) the first time a kernel of it is needed, through
``pyopencl.Program.build`` with the build options :data:`OPTIONS`: PyOpenCL keeps a binary cache keyed by source,
options and device, except on PoCL and NVIDIA, whose drivers cache builds themselves (PoCL in ``~/.cache/pocl/kcache``
or ``POCL_CACHE_DIR``, NVIDIA in ``~/.nv/ComputeCache``). PoCL compiles a kernel to machine code at its first launch;
that lands in its cache too.
"""

from __future__ import annotations

import threading
import time
from types import ModuleType
from typing import Any

import numpy as np

from cuzk.backends import env
from cuzk.backends.gpu.context import (
    ANCHOR_SECONDS,
    BufferHelpers,
    DeviceInfo,
    Finish,
    SelectionError,
    ready,
    tie_clocks,
)
from cuzk.backends.gpu.errors import KernelBuildError
from cuzk.backends.kernels import OPENCL, generate
from cuzk.reference.curves import Curve

ENV_PLATFORM = "CUZK_OPENCL_PLATFORM"
WORK_GROUP = {"cpu": 8, "gpu": 64}  # local size per device type: small on CPUs (PoCL runs one group per thread)
OPTIONS: tuple[str, ...] = ()  # build options of every program, none by default (tests and benchmarks add -D…)


def import_pyopencl() -> ModuleType:
    """pyopencl, or SelectionError saying how to install it."""
    try:
        import pyopencl
    except ImportError as exc:
        raise SelectionError(
            f"pyopencl is not installed ({exc}); install it with pip install 'cuzk[opencl]' and an OpenCL driver "
            "(pocl-opencl-icd runs on any CPU)"
        ) from None
    return pyopencl


def _platforms(cl: ModuleType) -> list[Any]:
    try:
        platforms = cl.get_platforms()
    except Exception as exc:  # pyopencl raises LogicError/RuntimeError (PLATFORM_NOT_FOUND_KHR) without an ICD
        raise SelectionError(
            f"no OpenCL platform found ({type(exc).__name__}: {exc}); install a driver (pocl-opencl-icd, NVIDIA's) "
            "and check that its .icd file is in /etc/OpenCL/vendors or OCL_ICD_VENDORS"
        ) from None
    if not platforms:
        raise SelectionError("no OpenCL platform found; install a driver such as pocl-opencl-icd")
    return platforms


def _devices(cl: ModuleType, platform: Any) -> list[Any]:
    try:
        devices = platform.get_devices()
    except Exception:  # DEVICE_NOT_FOUND
        return []
    return sorted(devices, key=lambda d: 0 if d.type & cl.device_type.GPU else 1)


def select_device(platform_spec: str | None, device: int | None) -> Any:
    """The pyopencl Device for ``platform_spec`` (CUZK_OPENCL_PLATFORM's value) and ``device``; SelectionError."""
    cl = import_pyopencl()
    platforms = _platforms(cl)
    names = ", ".join(f"{i}: {p.name}" for i, p in enumerate(platforms))
    spec = (platform_spec or "").strip()
    if not spec:
        with_gpu = [p for p in platforms if any(d.type & cl.device_type.GPU for d in _devices(cl, p))]
        platform = (with_gpu or [p for p in platforms if _devices(cl, p)] or platforms)[0]
    elif spec.isdigit():
        if int(spec) >= len(platforms):
            raise SelectionError(f"{ENV_PLATFORM}={spec} but there are {len(platforms)} platforms ({names})")
        platform = platforms[int(spec)]
    else:
        matches = [p for p in platforms if spec.lower() in f"{p.name} {p.vendor}".lower()]
        if not matches:
            raise SelectionError(f"{ENV_PLATFORM}={spec!r} matches no OpenCL platform ({names})")
        platform = matches[0]
    devices = _devices(cl, platform)
    index = 0 if device is None else device
    if index >= len(devices):
        raise SelectionError(
            f"no OpenCL device {index} on platform {platform.name!r} (it has {len(devices)}); "
            "set CUZK_DEVICE to a smaller index or CUZK_OPENCL_PLATFORM to another platform"
        )
    return devices[index]


def device_info(cl: ModuleType, device: Any) -> DeviceInfo:
    kind = "cpu" if device.type & cl.device_type.CPU else "gpu"
    facts = {
        "device": f"{device.name.strip()} ({device.platform.name.strip()})",
        "platform": device.platform.name.strip(),
        "platform_version": device.platform.version.strip(),
        "device_type": kind,
        "device_version": device.version.strip(),
        "driver": device.driver_version.strip(),
        "compute_units": device.max_compute_units,
        "global_mem_bytes": device.global_mem_size,
        "max_alloc_bytes": device.max_mem_alloc_size,
        "fp64": "cl_khr_fp64" in device.extensions.split(),
    }
    return DeviceInfo(
        device.name.strip(),
        device.platform.name.strip(),
        kind,
        device.max_compute_units,
        device.global_mem_size,
        device.max_mem_alloc_size,
        facts,
        fp64=facts["fp64"],
    )


class OpenCLContext(BufferHelpers):
    """A context and an in-order queue on one device, the programs built for it, and a kernel launcher."""

    def __init__(self, device: Any) -> None:
        self.cl = import_pyopencl()
        self.device = device
        self.info = device_info(self.cl, device)
        self.context = self.cl.Context([device])
        profiling = self.cl.command_queue_properties.PROFILING_ENABLE
        self.queue = self.cl.CommandQueue(self.context, device, properties=profiling)
        self.trace: list[tuple[str, Any]] | None = None  # (kernel, event) of every launch while a list
        self.lock = threading.RLock()
        self.build_seconds: dict[str, float] = {}
        self.memory_errors: tuple[type[BaseException], ...] = (self.cl.MemoryError,)
        self._programs: dict[tuple[str, str], Any] = {}
        self._kernels: dict[tuple[str, str, str], tuple[Any, int]] = {}
        self._clock: tuple[float, float] | None = None  # (host seconds − device seconds, when measured)
        self._clock_queue: Any = None

    # --- programs and kernels -------------------------------------------------------------------------------

    def program(self, curve: Curve, name: str) -> Any:
        key = (curve.name, name)
        with self.lock:
            if key not in self._programs:
                source = generate(curve, OPENCL, name)
                start = time.perf_counter()
                try:
                    program = self.cl.Program(self.context, source).build(options=list(OPTIONS))
                except self.cl.RuntimeError as exc:
                    raise KernelBuildError(
                        f"the OpenCL compiler of {self.info.name!r} rejected the {name!r} program of {curve.name}",
                        log=str(exc),
                    ) from None
                self.build_seconds[f"{curve.name}/{name}"] = time.perf_counter() - start
                self._programs[key] = program
            return self._programs[key]

    def prepare_program(self, curve: Curve, program: str) -> None:
        self.program(curve, program)

    def kernel(self, curve: Curve, program: str, name: str) -> tuple[Any, int]:
        """The kernel object and the work-group size it is launched with (always the same, so PoCL compiles it
        once)."""
        key = (curve.name, program, name)
        if key not in self._kernels:
            k = self.cl.Kernel(self.program(curve, program), name)
            limit = k.get_work_group_info(self.cl.kernel_work_group_info.WORK_GROUP_SIZE, self.device)
            self._kernels[key] = (k, max(1, min(WORK_GROUP[self.info.kind], limit)))
        return self._kernels[key]

    def launch(self, curve: Curve, program: str, name: str, items: int, *args: Any, group: int | None = None) -> Any:
        """Run kernel ``name`` over ``items`` work-items (rounded up to whole groups; kernels check their range), in
        work-groups of ``group`` items when given (kernels that share local memory), else of the default."""
        k, local = self.kernel(curve, program, name)
        if group is not None:
            limit = k.get_work_group_info(self.cl.kernel_work_group_info.WORK_GROUP_SIZE, self.device)
            if group > limit:
                raise KernelBuildError(f"{name} needs work-groups of {group}; {self.info.name!r} allows {limit}")
            local = group
        size = max(1, -(-items // local)) * local
        k.set_args(*args)
        event = self.cl.enqueue_nd_range_kernel(self.queue, k, (size,), (local,))
        if self.trace is not None:
            self.trace.append((name, event))
        return event

    def launch_seconds(self, trace: list[tuple[str, Any]]) -> list[float]:
        """Device time of each finished launch of ``trace`` (from the events' profiling)."""
        if trace:
            trace[-1][1].wait()  # the queue runs in order: the others are done by then (one wait, one GIL release)
        return [(event.profile.end - event.profile.start) * 1e-9 for _, event in trace]

    def kernel_intervals(self, trace: list[tuple[str, Any]], seconds: list[float]) -> list[tuple[float, float]] | None:
        """When each finished launch of ``trace`` ran, on the host's clock (``time.perf_counter``): the events'
        profiling times are the device's clock, tied to the host's by a marker on a queue of its own (passed as
        soon as it is queued; the shortest wait of a few), measured again after ANCHOR_SECONDS."""
        if self._clock is None or time.perf_counter() - self._clock[1] >= ANCHOR_SECONDS:
            if self._clock_queue is None:
                self._clock_queue = self.cl.CommandQueue(self.context, self.device, properties=self.queue.properties)
            marker, host = tie_clocks(self._passed_marker)
            self._clock = (host - marker.profile.end * 1e-9, time.perf_counter())
        offset = self._clock[0]
        return [(offset + event.profile.start * 1e-9, offset + event.profile.end * 1e-9) for _, event in trace]

    def _passed_marker(self) -> Any:
        """A marker queued on the clock's own queue, waited for."""
        marker = self.cl.enqueue_marker(self._clock_queue)
        marker.wait()
        return marker

    # --- buffers --------------------------------------------------------------------------------------------

    def buffer(self, nbytes: int) -> Any:
        return self.cl.Buffer(self.context, self.cl.mem_flags.READ_WRITE, max(nbytes, 8))

    def write(self, buf: Any, array: np.ndarray) -> None:
        self.cl.enqueue_copy(self.queue, buf, np.ascontiguousarray(array))

    def fill_zero(self, buf: Any, nbytes: int) -> None:
        if nbytes:
            self.cl.enqueue_fill_buffer(self.queue, buf, np.uint32(0), 0, nbytes)

    def read_later(
        self, buf: Any, shape: tuple[int, ...], dtype: Any = np.uint64, offset: int = 0
    ) -> Finish[np.ndarray]:
        out = np.empty(shape, dtype=dtype)
        if not out.nbytes:
            return ready(out)
        copied = self.cl.enqueue_copy(self.queue, out, buf, src_offset=offset, is_blocking=False)

        def finish() -> np.ndarray:
            copied.wait()
            return out

        return finish


def platform_env() -> str | None:
    """CUZK_OPENCL_PLATFORM (None when unset); EnvironmentVariableError when it is not short printable text."""
    return env.opencl_platform()


__all__ = [
    "ENV_PLATFORM",
    "OPTIONS",
    "OpenCLContext",
    "SelectionError",
    "device_info",
    "import_pyopencl",
    "platform_env",
    "select_device",
]
