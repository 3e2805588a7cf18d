"""The OpenCL backend (entry point ``opencl``): the kernels shared with CUDA, run through PyOpenCL.

Importing this package never fails and never imports pyopencl; :class:`OpenCLBackend` reports itself unavailable,
with the reason, when pyopencl or an OpenCL platform or device is missing. See docs/opencl.md.
"""

from cuzk.backends.gpu.errors import DeviceMemoryError, KernelBuildError
from cuzk.backends.opencl.backend import OpenCLBackend

__all__ = ["DeviceMemoryError", "KernelBuildError", "OpenCLBackend"]
