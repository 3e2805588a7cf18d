"""The OpenCL backend's setup, without running kernels: availability and its reasons, device selection, describe(),
and lazy imports. The memory planner shared with CUDA: test_gpu_plan.py."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cuzk.backends.opencl import KernelBuildError, OpenCLBackend
from cuzk.backends.opencl import device as device_module
from cuzk.backends.protocol import CAPABILITIES, DEVICES, MONTGOMERY_FORM, ROW_SUMS
from cuzk.reference.curves import BN254

BACKEND = OpenCLBackend()
needs_device = pytest.mark.skipif(
    not BACKEND.is_available(), reason=f"the opencl backend cannot run here: {BACKEND.unavailable_reason()}"
)


def test_importing_the_backend_imports_no_pyopencl() -> None:
    code = "import sys, cuzk.backends.opencl, cuzk.backends.kernels; assert 'pyopencl' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unavailable_without_pyopencl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyopencl", None)  # makes `import pyopencl` raise ImportError
    backend = OpenCLBackend()
    assert not backend.is_available()
    assert "pyopencl is not installed" in (backend.unavailable_reason() or "")
    assert backend.describe()["device"] is None


def test_declares_every_capability() -> None:
    # decoding a file's stored words and a setup's small row sums run on the host (a .zkey's witness side, its
    # stored points, a proof's pairing check and a ptau's point NTT are the device's)
    assert OpenCLBackend.capabilities == CAPABILITIES - {MONTGOMERY_FORM, DEVICES, ROW_SUMS}
    assert (OpenCLBackend.CPU_PRIORITY, OpenCLBackend.GPU_PRIORITY) == (50, 200)


@needs_device
def test_platform_and_device_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "matches no OpenCL platform" in (OpenCLBackend(platform="no such platform").unavailable_reason() or "")
    assert "platforms" in (OpenCLBackend(platform="99").unavailable_reason() or "")
    assert "no OpenCL device 99" in (OpenCLBackend(device=99).unavailable_reason() or "")
    platform = BACKEND.describe()["platform"]
    assert OpenCLBackend(platform=platform[:8].lower()).is_available()
    assert OpenCLBackend(platform="0", device=0).is_available()
    monkeypatch.setenv("CUZK_OPENCL_PLATFORM", "no such platform")
    assert not OpenCLBackend().is_available()


@needs_device
def test_describe() -> None:
    facts = BACKEND.describe()
    for key in ("device", "platform", "driver", "device_version", "global_mem_bytes", "max_alloc_bytes", "versions"):
        assert facts[key], key
    assert "pyopencl" in facts["versions"]


@needs_device
def test_build_errors_are_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(device_module, "generate", lambda curve, api, program: "this is not OpenCL C")
    with pytest.raises(KernelBuildError, match="rejected the 'ntt' program of bn254") as info:
        OpenCLBackend().context.program(BN254, "ntt")
    assert info.value.log
