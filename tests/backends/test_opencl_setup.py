"""The OpenCL backend's setup, without running kernels: availability and its reasons, device selection, describe(),
lazy imports, and the memory planner (pure Python)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cuzk.backends.opencl import DeviceMemoryError, KernelBuildError, OpenCLBackend
from cuzk.backends.opencl import device as device_module
from cuzk.backends.opencl.plan import Memory, default_window, piece_sizes, plan_msm, window_cost
from cuzk.backends.protocol import CAPABILITIES
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
    assert OpenCLBackend.capabilities == CAPABILITIES
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


# --- the planner --------------------------------------------------------------------------------------------------

BIG = Memory(budget=1 << 34, max_alloc=1 << 32)


def test_default_window_grows_with_n() -> None:
    windows = [default_window(1 << k, 255) for k in range(0, 25, 2)]
    assert windows == sorted(windows)
    assert 12 <= default_window(1 << 16, 255) <= 14
    for n in (1, 100, 1 << 16):
        c = default_window(n, 255)
        assert all(window_cost(n, c, 255) <= window_cost(n, d, 255) for d in range(1, 21))


def test_plan_fits_the_memory() -> None:
    plan = plan_msm(1 << 20, 16, scalar_bits=255, base_bytes=96, xyzz_bytes=192, prepared=False, memory=BIG,
                    parallel_items=32)  # fmt: skip
    assert (plan.windows, plan.buckets, plan.chunk) == (16, 1 << 15, 1 << 20)
    assert plan.segments * plan.segment >= plan.buckets > (plan.segments - 1) * plan.segment
    small = Memory(budget=plan.fixed_bytes + 1000 * plan.point_bytes, max_alloc=1 << 32)
    chunked = plan_msm(1 << 20, 16, scalar_bits=255, base_bytes=96, xyzz_bytes=192, prepared=False, memory=small,
                       parallel_items=32)  # fmt: skip
    assert chunked.chunk == 1000


def test_plan_errors_and_fallback() -> None:
    tiny = Memory(budget=50_000, max_alloc=1 << 20)
    with pytest.raises(DeviceMemoryError, match="12-bit windows"):
        plan_msm(1000, 12, scalar_bits=255, base_bytes=96, xyzz_bytes=192, prepared=False, memory=tiny,
                 parallel_items=4)  # fmt: skip
    plan = plan_msm(1 << 20, None, scalar_bits=255, base_bytes=96, xyzz_bytes=192, prepared=True, memory=tiny,
                    parallel_items=4)  # fmt: skip
    assert plan.window < default_window(1 << 20, 255)  # the default window shrinks to fit
    with pytest.raises(DeviceMemoryError, match="prepared bases"):
        piece_sizes(1000, 96, tiny)
    assert piece_sizes(10, 96, BIG, max_chunk=4) == [4, 4, 2]


def test_plan_trades_segments_for_memory() -> None:
    """A GPU-sized parallelism on a small memory: fewer bucket segments rather than an error."""
    wide = plan_msm(300, 4, scalar_bits=254, base_bytes=64, xyzz_bytes=128, prepared=False, memory=BIG,
                    parallel_items=33792)  # fmt: skip
    small = Memory(budget=60_000, max_alloc=60_000)
    narrow = plan_msm(300, 4, scalar_bits=254, base_bytes=64, xyzz_bytes=128, prepared=False, memory=small,
                      parallel_items=33792)  # fmt: skip
    assert wide.segments == 8 and narrow.segments < 8 and narrow.fixed_bytes < 60_000
