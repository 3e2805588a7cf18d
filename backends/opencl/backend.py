"""The OpenCL backend: the shared kernels (``cuzk.backends.kernels``, 64-bit limbs) run through PyOpenCL.

Runs on any OpenCL 1.2 device with 64-bit integers: GPUs through their vendors' drivers, and every CPU through
PoCL, which is how CI tests every kernel without a GPU. Device choice and program building are in
:mod:`~cuzk.backends.opencl.device`; the MSM, the NTT and memory planning are the GPU backends' shared host code
(:mod:`cuzk.backends.gpu`). Nothing is imported from pyopencl until the backend is asked whether it can run.
"""

from __future__ import annotations

from typing import Any

from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.backends.gpu.context import DeviceContext
from cuzk.backends.opencl.device import OpenCLContext, device_info, import_pyopencl, platform_env, select_device


class OpenCLBackend(DeviceBackend):
    """MSM (G1, G2), NTT, fused H and field operations on an OpenCL device.

    ``device`` indexes the devices of the platform (GPUs first); ``platform`` (default: ``CUZK_OPENCL_PLATFORM``)
    is a platform index or part of its name; the other options are :class:`DeviceBackend`'s.
    """

    name = "opencl"
    GPU_PRIORITY, CPU_PRIORITY = 200, 50  # cuda 300 > opencl on a GPU > cpu 100 > opencl on a CPU (PoCL)
    priority_ceiling = GPU_PRIORITY  # known before the probe: auto probes no OpenCL driver where cuda runs

    def __init__(
        self,
        *,
        device: int | None = None,
        platform: str | None = None,
        memory_limit: int | None = None,
        max_chunk: int | None = None,
        parallel_items: int | None = None,
        shifted_bases: bool | None = None,
        pipeline_from: int | None = None,
    ) -> None:
        super().__init__(
            device=device,
            memory_limit=memory_limit,
            max_chunk=max_chunk,
            parallel_items=parallel_items,
            shifted_bases=shifted_bases,
            pipeline_from=pipeline_from,
        )
        self.platform = platform_env() if platform is None else platform

    def _select(self) -> Any:
        return select_device(self.platform, self.device)

    def _open(self, device: Any) -> DeviceContext:
        return OpenCLContext(device)

    @property
    def priority(self) -> int:
        """What ``auto`` ranks this backend by: above ``cpu`` on a GPU, below it on a CPU device such as PoCL's,
        where the numba backend is faster (docs/performance.md)."""
        self._probe()
        if self._device is not None and self._device.type & import_pyopencl().device_type.CPU:
            return self.CPU_PRIORITY
        return self.GPU_PRIORITY

    api_package = "pyopencl"

    def _device_facts(self) -> dict[str, Any]:
        return dict(device_info(import_pyopencl(), self._device).facts)


__all__ = ["OpenCLBackend"]
