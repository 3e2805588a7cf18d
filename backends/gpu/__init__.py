"""The host side shared by the GPU backends (OpenCL, CUDA): planning, MSM and NTT drivers, the backend base.

Everything here is written against :class:`~cuzk.backends.gpu.context.DeviceContext`, the few operations a GPU API
has to offer (buffers, copies, kernel launches, device-time records); ``backends/opencl`` and ``backends/cuda``
each implement it and select their devices. The kernels themselves are the shared source of
:mod:`cuzk.backends.kernels`. Nothing here imports pyopencl or cupy.
"""

from cuzk.backends.gpu.errors import DeviceMemoryError, KernelBuildError

__all__ = ["DeviceMemoryError", "KernelBuildError"]
