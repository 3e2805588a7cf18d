"""The CUDA backend (entry point ``cuda``): the kernels shared with OpenCL (32-bit limbs), run through CuPy.

Importing this package never fails and never imports cupy; :class:`CudaBackend` reports itself unavailable, with
the reason, when cupy, a CUDA driver or a GPU is missing. At run time it needs numpy and cupy only.
"""

from cuzk.backends.cuda.backend import CudaBackend
from cuzk.backends.gpu.errors import DeviceMemoryError, KernelBuildError

__all__ = ["CudaBackend", "DeviceMemoryError", "KernelBuildError"]
