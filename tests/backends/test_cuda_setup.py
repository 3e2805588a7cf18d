"""The CUDA backend's setup, mostly without a GPU: lazy imports, availability and its reasons, the entry point,
device selection and describe() where a GPU is present. Its kernels are checked by test_gpu.py and conformance."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cuzk.backends.cuda import CudaBackend, KernelBuildError
from cuzk.backends.cuda import device as device_module
from cuzk.backends.protocol import CAPABILITIES, DEVICES, MONTGOMERY_FORM, ROW_SUMS
from cuzk.backends.registry import discover
from cuzk.reference.curves import BN254

BACKEND = CudaBackend()
needs_gpu = pytest.mark.skipif(
    not BACKEND.is_available(), reason=f"the cuda backend cannot run here: {BACKEND.unavailable_reason()}"
)


def test_importing_the_backend_imports_no_cupy() -> None:
    code = "import sys, cuzk.backends.cuda, cuzk.backends.gpu; assert 'cupy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unavailable_without_cupy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cupy", None)  # makes `import cupy` raise ImportError
    backend = CudaBackend()
    assert not backend.is_available()
    assert "cupy is not installed" in (backend.unavailable_reason() or "")
    facts = backend.describe()
    assert facts["device"] is None and "cupy is not installed" in facts["reason"]


def test_registered_with_every_capability_and_first_priority() -> None:
    entry = discover()["cuda"]
    assert entry.target == "cuzk.backends.cuda:CudaBackend"
    assert entry.available == BACKEND.is_available()
    # decoding a file's stored words and a setup's small row sums run on the host (a .zkey's witness side, its
    # stored points, a proof's pairing check and a ptau's point NTT are the device's)
    assert CudaBackend.capabilities == CAPABILITIES - {MONTGOMERY_FORM, DEVICES, ROW_SUMS}
    assert CudaBackend.priority == 300


def test_no_device_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with cupy but no usable GPU: the runtime's error becomes the reason."""

    class Runtime:
        @staticmethod
        def getDeviceCount() -> int:
            raise RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")

    class Cuda:
        runtime = Runtime

    class FakeCupy:
        cuda = Cuda

    monkeypatch.setattr(device_module, "import_cupy", lambda: FakeCupy)
    reason = CudaBackend().unavailable_reason() or ""
    assert "no CUDA device available" in reason and "no CUDA-capable device" in reason


@needs_gpu
def test_device_selection_and_describe() -> None:
    assert "no CUDA device 99" in (CudaBackend(device=99).unavailable_reason() or "")
    facts = BACKEND.describe()
    for key in ("device", "arch", "multiprocessors", "global_mem_bytes", "driver_version", "versions"):
        assert facts[key], key
    assert facts["arch"].startswith("sm_")


@needs_gpu
def test_build_errors_are_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(device_module, "generate", lambda curve, api, program: "this is not CUDA C++")
    with pytest.raises(KernelBuildError, match="rejected the 'ntt' program of bn254") as info:
        CudaBackend().context.module(BN254, "ntt")
    assert info.value.log
