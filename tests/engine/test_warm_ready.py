"""WARM_UP's readiness query as the engine uses it, asked of a fresh numba cache (nothing faked): a first run on the
cpu checks its proofs with the reference's pairing; beside a device it runs the small MSMs on the device itself
until the host's kernels are stamped ready, and the device checks its proofs itself (PAIRING). Background warm-ups
are left running."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

READINESS = textwrap.dedent(
    """
    from cuzk.backends.protocol import WORKS, DEVICE, has_capability
    from cuzk.backends.registry import get_backend
    from cuzk.backends.errors import BackendUnavailableError
    from cuzk.engine.prover import small_msm_backend
    from cuzk.engine.verify import pairing_backend
    from cuzk.engine.warm import kernels_ready, warm_up
    from cuzk.reference.curves import BN254

    cpu, reference = get_backend("cpu"), get_backend("reference")
    try:
        device = get_backend("opencl")
    except BackendUnavailableError as exc:
        device = None
        print("no device:", exc)
    assert not any(kernels_ready(cpu, BN254, work) for work in WORKS), "a fresh cache holds nothing"
    assert kernels_ready(reference, BN254, "prove"), "nothing to compile: always ready"
    assert pairing_backend(cpu, BN254).name == "reference"
    assert small_msm_backend(cpu, BN254) is cpu
    if device is not None:
        assert has_capability(device, DEVICE)
        assert small_msm_backend(device, BN254) is device, "the host's kernels are not ready: the device's own"
        assert pairing_backend(device, BN254) is device, "a device with PAIRING checks its proofs itself"
        assert pairing_backend(device, BN254, keep_device_free=True) is device, "the host's pairing is not ready"
        with warm_up(device, BN254, "setup") as warming:  # a device's warm-up starts no host work for a setup
            assert all(not handle.started for handle in warming.handles[1:])
    handle = cpu.warm_up(BN254, "small_msm", background=True)  # for later processes: at the lowest priority
    assert handle.started and handle.background
    handle.close()  # does not stop it
    assert handle.wait(timeout=600) and handle.failures == [], handle.failures
    assert kernels_ready(cpu, BN254, "small_msm") and not kernels_ready(cpu, BN254, "prove")
    assert kernels_ready(cpu, BN254, "host") is False, "the witness side is not compiled yet"
    if device is not None:
        assert small_msm_backend(device, BN254) is cpu, "ready: the host beside the device"
    assert not cpu.warm_up(BN254, "small_msm").started
    print("readiness: ok")
    """
)


def test_readiness_of_a_fresh_cache_steers_the_engine(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "CUZK_CPU_PREBUILT": "0"}  # none shipped
    done = subprocess.run([sys.executable, "-c", READINESS], env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "readiness: ok" in done.stdout


def test_a_backend_without_the_capability_says_not_ready() -> None:
    """BackendBase's default: a backend that cannot tell is not ready (its kernels compile on first use)."""
    from cuzk.backends.protocol import WARM_UP, BackendBase
    from cuzk.reference.curves import BN254

    class Blind(BackendBase):
        name = "blind"
        capabilities = frozenset({WARM_UP})

    assert Blind().kernels_ready(BN254, "prove") is False
    assert not Blind().warm_up(BN254, "prove", background=True).started
    with pytest.raises(Exception, match="unknown work"):
        Blind().kernels_ready(BN254, "nap")
