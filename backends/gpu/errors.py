"""Errors of the GPU backends (OpenCL, CUDA) (under :class:`~cuzk.backends.errors.BackendError`)."""

from __future__ import annotations

from cuzk.backends.errors import BackendError


class DeviceMemoryError(BackendError, MemoryError):
    """Even the smallest piece of the work does not fit in the device's memory (the message says what would)."""


class KernelBuildError(BackendError, RuntimeError):
    """The device's compiler rejected a generated kernel program; ``log`` holds the compiler's output."""

    def __init__(self, message: str, log: str = "") -> None:
        self.log = log
        super().__init__(message + (f"\n{log}" if log else ""))


__all__ = ["DeviceMemoryError", "KernelBuildError"]
