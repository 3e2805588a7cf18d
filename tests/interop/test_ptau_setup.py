"""``cuzk groth16 setup circuit.r1cs pot.ptau circuit.zkey`` against the pinned snarkjs: the same .zkey byte for byte
(sha256) on both curves, domains 2^4 … 2^12 (2^13 … 2^16 with -m slow); ``snarkjs zkey verify`` accepts cuzk's key,
and a proof by cuzk with it passes ``snarkjs groth16 verify``.

(Past 2^12 the ptau is 2^17: a circuit of 2^15 or more that fills its ptau is refused, cuzk.engine.setup_hash.)
The committed ceremonies of tests/fixtures/ptau are 2^7; larger ones are made here as *development* ptau files
(:mod:`cuzk.engine.dev_ptau`: τ, α, β drawn from a seed, the points by the cpu backend's fixed-base kernel). A proof
verified by snarkjs with a key from one shows the sections are right.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from cuzk.backends.registry import get_backend
from cuzk.engine.dev_ptau import write_dev_ptau
from cuzk.engine.small_rows import small_rows_backend
from cuzk.formats.r1cs import write_constraint_system
from cuzk.formats.wtns import write_wtns
from cuzk.reference.circuits import build
from cuzk.reference.curves import BLS12_381, BN254, Curve

from .._shared_build import shared_folder
from .._suite_backends import usable_or_skip

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CURVES = {"bn128": BN254, "bls12381": BLS12_381}
SIZES = [("bn128", k) for k in (4, 6, 8, 10, 12, 16)] + [("bls12381", k) for k in (4, 8, 12, 16)]
SLOW_SIZES = [("bn128", k) for k in (13, 14, 15)] + [("bls12381", k) for k in (14,)]


def circuit_of_domain(curve: Curve, k: int, folder: Path) -> tuple[Path, Path]:
    """A reference MiMC chain whose key has a domain of 2^k (its rows: the constraints, one per public signal and
    the constant), as a .r1cs with its witness."""
    family = "cubic" if k < 10 else "mimc"  # MiMC: over 300 constraints a permutation
    cs = build(family, curve.Fr, target_constraints=(1 << k) * 3 // 4, seed=k)
    assert 1 << (k - 1) < len(cs.constraints) + cs.num_inputs <= 1 << k
    r1cs, wtns = folder / f"c{k}.r1cs", folder / f"c{k}.wtns"
    write_constraint_system(r1cs, cs)
    write_wtns(wtns, curve.r, [v.value for v in cs.full_assignment()])
    return r1cs, wtns


@pytest.fixture(scope="module")
def dev_ptau(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """dev_ptau(name, power): the development ptau, made once per run and shared by the xdist workers (its secrets
    come from a fixed seed: every worker would write the same bytes)."""
    made: dict[tuple[str, int], Path] = {}

    def get(name: str, power: int) -> Path:
        if (name, power) not in made:
            file = f"{name}_{power}.ptau"
            folder = shared_folder(
                tmp_path_factory, f"ptau-{name}-{power}", lambda into: write_dev_ptau(into / file, CURVES[name], power)
            )
            assert folder is not None
            made[name, power] = folder / file
        return made[name, power]

    return get


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _same_key(node_tools, cuzk, r1cs: Path, ptau: Path, folder: Path) -> tuple[Path, float, float]:  # type: ignore[no-untyped-def]
    """Both setups of ``r1cs`` from ``ptau``; the keys must be the same bytes. Returns cuzk's and the seconds."""
    started = time.perf_counter()
    node_tools.run("snarkjs", "groth16", "setup", r1cs, ptau, "snarkjs.zkey", cwd=folder)
    snarkjs_seconds = time.perf_counter() - started
    started = time.perf_counter()
    result = cuzk("groth16", "setup", r1cs, ptau, folder / "cuzk.zkey")
    cuzk_seconds = time.perf_counter() - started
    assert result.code == 0, result.err
    assert _sha256(folder / "cuzk.zkey") == _sha256(folder / "snarkjs.zkey")
    return folder / "cuzk.zkey", snarkjs_seconds, cuzk_seconds


def _check_size(node_tools, cuzk, dev_ptau, name: str, k: int, folder: Path) -> None:  # type: ignore[no-untyped-def]
    r1cs, _ = circuit_of_domain(CURVES[name], k, folder)
    _, snarkjs_seconds, cuzk_seconds = _same_key(node_tools, cuzk, r1cs, dev_ptau(name, 12 if k <= 12 else 17), folder)
    print(f"{name} 2^{k}: snarkjs {snarkjs_seconds:.1f} s, cuzk {cuzk_seconds:.1f} s (in process)")


@pytest.mark.parametrize(("name", "k"), SIZES)
def test_setup_is_snarkjs_byte_for_byte(node_tools, cuzk, dev_ptau, name: str, k: int, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _check_size(node_tools, cuzk, dev_ptau, name, k, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "k"), SLOW_SIZES)
def test_setup_is_snarkjs_byte_for_byte_large(node_tools, cuzk, dev_ptau, name: str, k: int, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _check_size(node_tools, cuzk, dev_ptau, name, k, tmp_path)


@pytest.mark.parametrize("name", CURVES)
def test_snarkjs_verifies_the_key_and_proofs(node_tools, cuzk, dev_ptau, name: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """On the committed ceremony and circom circuit: ``snarkjs zkey verify`` accepts cuzk's key, after a phase-2
    contribution by snarkjs too, and cuzk's proofs with both pass ``snarkjs groth16 verify``; on a development
    ptau: a proof of a reference circuit (the Lagrange sections are right)."""
    ptau, circuit = FIXTURES / "ptau" / name / "pot7.ptau", FIXTURES / "snarkjs" / name
    zkey, _, _ = _same_key(node_tools, cuzk, circuit / "circuit.r1cs", ptau, tmp_path)
    assert "ZKey Ok!" in node_tools.run("snarkjs", "zkey", "verify", circuit / "circuit.r1cs", ptau, zkey, cwd=tmp_path)
    node_tools.run("snarkjs", "zkey", "contribute", zkey, "final.zkey", "--name=x", "-e=phase 2", cwd=tmp_path)
    for key in (zkey, tmp_path / "final.zkey"):
        _prove_and_verify(node_tools, cuzk, key, circuit / "witness.wtns", tmp_path)
    r1cs, wtns = circuit_of_domain(CURVES[name], 6, tmp_path)
    dev_key, _, _ = _same_key(node_tools, cuzk, r1cs, dev_ptau(name, 12), tmp_path)
    _prove_and_verify(node_tools, cuzk, dev_key, wtns, tmp_path)


def _prove_and_verify(node_tools, cuzk, zkey: Path, wtns: Path, folder: Path) -> None:  # type: ignore[no-untyped-def]
    vk, proof, public = folder / "vk.json", folder / "proof.json", folder / "public.json"
    assert cuzk("zkey", "export", "verificationkey", zkey, vk).code == 0
    result = cuzk("groth16", "prove", zkey, wtns, proof, public, "--backend", "cpu")
    assert result.code == 0, result.err
    accepted, output = node_tools.verify(vk, public, proof)
    assert accepted, output


@pytest.mark.parametrize("device", ["opencl", "cuda"])
def test_a_devices_setup_is_the_cpus_byte_for_byte(cuzk, dev_ptau, device: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A device backend makes the same key as the cpu backend: its rows of a few terms summed by the host's cpu
    backend beside it (small_rows_backend), its long rows (the constant's, the public signals') on the device."""
    usable_or_skip(device)
    assert small_rows_backend(get_backend(device)).name == "cpu"
    assert small_rows_backend(get_backend("cpu")).name == "cpu"
    r1cs, _ = circuit_of_domain(BN254, 10, tmp_path)
    for backend in ("cpu", device):
        result = cuzk(
            "groth16", "setup", r1cs, dev_ptau("bn128", 12), tmp_path / f"{backend}.zkey", "--backend", backend
        )
        assert result.code == 0, result.err
    assert _sha256(tmp_path / "cpu.zkey") == _sha256(tmp_path / f"{device}.zkey")
