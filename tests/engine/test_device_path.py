"""A .zkey's proof on a device backend, as ``cuzk groth16 prove`` makes it, loads no host backend: the key's
points and coefficients go to the device as the file stores them, A·z and B·z are made there, the assembly's small
MSMs run there (a one-shot Prover) and so does the proof's check (PAIRING); the products' kernels are the proof's
compute in its timings. numba is never imported: on the GPU
machine that import alone is about half a second of the process. Run in a fresh interpreter, on opencl (PoCL here)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .._suite_backends import usable_or_skip

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "snarkjs"

PROVE = textwrap.dedent(
    """
    import sys
    from cuzk.engine.files_job import prove_files

    folder = sys.argv[1]
    done = prove_files(f"{folder}/circuit_final.zkey", f"{folder}/witness.wtns", backend_name="opencl")
    assert "verify" in done.result.seconds, "the proof was checked"
    products = [s for s in done.recorder.spans if s.name == "qap_evaluations" and s.level == "internal"]
    assert len(products) >= 3, "A·z, B·z and their product are timed calls with the device's kernel time"
    loaded = sorted(name for name in ("numba", "cuzk.backends.cpu") if name in sys.modules)
    print("host modules:", loaded)
    """
)


@pytest.mark.parametrize("folder", ["bn128", "bls12381"])
def test_a_zkey_proof_on_a_device_loads_no_host_backend(folder: str) -> None:
    usable_or_skip("opencl")
    done = subprocess.run(
        [sys.executable, "-c", PROVE, str(FIXTURES / folder)], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "host modules: []" in done.stdout, done.stdout
