"""The CUDA backend: the shared kernels (``cuzk.backends.kernels``, 32-bit limbs) compiled by NVRTC through CuPy.

The host side (memory plans, chunking, resident bases, the MSM and NTT drivers, device time per call) is the GPU
backends' shared code (:mod:`cuzk.backends.gpu`); this module only finds the device and opens a
:class:`~cuzk.backends.cuda.device.CudaContext` on it. Nothing is imported from cupy until the backend is asked
whether it can run.
"""

from __future__ import annotations

from typing import Any

from cuzk.backends.cuda.device import CudaContext, device_info, import_cupy, select_device
from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.backends.gpu.context import DeviceContext


class CudaBackend(DeviceBackend):
    """MSM (G1, G2), NTT, fused H and field operations on an NVIDIA GPU.

    ``device`` is the CUDA device ordinal (default ``CUZK_DEVICE``, else 0); the other options are
    :class:`DeviceBackend`'s.
    """

    name = "cuda"
    priority = 300  # above opencl on a GPU (200) and cpu (100)

    def _select(self) -> Any:
        return select_device(self.device)

    def _open(self, device: Any) -> DeviceContext:
        return CudaContext(device)

    api_package = "cupy"

    def _device_facts(self) -> dict[str, Any]:
        cp = import_cupy()
        facts = dict(device_info(cp, self._device).facts)
        facts["versions"] = {"cupy": cp.__version__}  # the distribution is named per CUDA version (cupy-cuda12x, …)
        return facts


__all__ = ["CudaBackend"]
