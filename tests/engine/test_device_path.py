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


def test_the_keys_matrices_wait_for_the_inputs_checks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``cuzk groth16 prove`` lays out the key's A and B on a thread as soon as the key is read, but sends them to
    the backend only once the inputs have passed their checks: a witness its .r1cs refuses gets the typed error and
    nothing is prepared; a good one's proof uses the matrices that thread prepared; a thread told the checks failed
    ends without preparing them."""
    from concurrent.futures import CancelledError, Future

    from cuzk.backends import limbs
    from cuzk.backends.registry import get_backend
    from cuzk.engine import files_job
    from cuzk.engine import zkey as zkey_engine
    from cuzk.formats.wtns import read_wtns, write_wtns
    from cuzk.reference.errors import UnsatisfiedConstraintError

    usable_or_skip("opencl")
    folder = FIXTURES / "bn128"
    key, r1cs = folder / "circuit_final.zkey", folder / "circuit.r1cs"
    prepared: list[int] = []
    real = zkey_engine.qap_from_csr

    def counted(*args: object, **kwargs: object) -> object:
        prepared.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(zkey_engine, "qap_from_csr", counted)
    witness = read_wtns(folder / "witness.wtns")
    values = limbs.limbs_to_ints(witness.values)
    values[-1] = (values[-1] + 1) % witness.prime  # still in the field, no longer a solution
    write_wtns(tmp_path / "bad.wtns", witness.prime, values)
    with pytest.raises(UnsatisfiedConstraintError):
        files_job.prove_files(key, tmp_path / "bad.wtns", backend_name="opencl", r1cs_path=r1cs)
    assert prepared == [], "inputs that failed their checks sent the key's matrices to the device"
    done = files_job.prove_files(key, folder / "witness.wtns", backend_name="opencl", r1cs_path=r1cs)
    assert prepared == [1] and "verify" in done.result.seconds
    refused: Future[bool] = Future()
    refused.set_result(False)
    device = get_backend("opencl")
    with pytest.raises(CancelledError):
        zkey_engine.start_key_qap(zkey_engine.read_zkey_for(key, device, 0), device, checked=refused).result()
    assert prepared == [1]
