"""The GPU backends the shared test bodies run on (opencl, cuda): one instance per backend and options, shared by
the tests of a run (its context and compiled programs are reused), and a skip that says why one cannot run."""

from __future__ import annotations

from functools import cache

import pytest

from cuzk.backends.cuda import CudaBackend
from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.backends.opencl import OpenCLBackend

GPU_BACKENDS: dict[str, type[DeviceBackend]] = {"opencl": OpenCLBackend, "cuda": CudaBackend}


@cache
def _instance(name: str, options: tuple[tuple[str, int | bool], ...]) -> DeviceBackend:
    return GPU_BACKENDS[name](**dict(options))


def shared(name: str, **options: int | bool) -> DeviceBackend:
    """The shared instance of backend ``name`` made with ``options``."""
    return _instance(name, tuple(sorted(options.items())))


def available(name: str, **options: int | bool) -> DeviceBackend:
    """:func:`shared`, or the test skipped with the reason the backend cannot run here."""
    instance = shared(name, **options)
    if not instance.is_available():
        pytest.skip(f"the {name} backend cannot run here: {instance.unavailable_reason()}")
    return instance
