"""``cuzk groth16 prove --server URL <key> …``, snarkjs's argument order against a running server: the same files
as the local command (public.json byte for byte, a proof.json that verifies), the same one-line errors and status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ._server import FIXTURES, ROOT, Server, clean_environment

BN = FIXTURES / "bn128"


def cuzk(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**clean_environment(), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "cuzk.cli", *argv], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )


def test_a_remote_proof_is_the_local_commands(server: Server, keys_dir: Path, tmp_path: Path) -> None:
    local = cuzk("groth16", "prove", str(BN / "circuit_final.zkey"), str(BN / "witness.wtns"), "p.json", "pub.json",
                 "--backend", "cpu", cwd=tmp_path)  # fmt: skip
    assert local.returncode == 0, local.stderr
    for key in ("bn", str(keys_dir / "bn.zkey")):  # a registered name, or the path of a registered .zkey
        remote = cuzk("groth16", "prove", "--server", server.url, key, str(BN / "witness.wtns"), "rp.json", "rpub.json",
                      cwd=tmp_path)  # fmt: skip
        assert remote.returncode == 0, remote.stderr
        assert remote.stdout.startswith(f"rp.json, rpub.json: proof of key bn from {server.url}, verified there")
        assert (tmp_path / "rpub.json").read_bytes() == (tmp_path / "pub.json").read_bytes()
        assert (tmp_path / "rpub.json").read_bytes() == (BN / "public.json").read_bytes()
        local_text, remote_text = ((tmp_path / name).read_text() for name in ("p.json", "rp.json"))
        assert local_text.splitlines()[0] == remote_text.splitlines()[0] and len(local_text) > 700
        checked = cuzk("groth16", "verify", str(BN / "verification_key.json"), "rpub.json", "rp.json", cwd=tmp_path)
        assert (checked.returncode, checked.stdout) == (0, "OK\n")


def test_remote_errors_are_one_line_and_status_2(server: Server, tmp_path: Path) -> None:
    witness = str(BN / "witness.wtns")
    cases = {
        ("nokey", server.url): f"cuzk groth16: {server.url}: 422 unknown key 'nokey': this server has bls, bn\n",
        ("bls", server.url): "is over the scalar field of bn254",
        ("bn", "http://127.0.0.1:1"): "cuzk groth16: http://127.0.0.1:1: the server cannot be reached",
        ("bn", "ftp://x"): "cuzk groth16: 'ftp://x' is not a server's URL (http://HOST:PORT)\n",
    }
    for (key, url), message in cases.items():
        done = cuzk("groth16", "prove", "--server", url, key, witness, "p.json", "pub.json", cwd=tmp_path)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
        assert not (tmp_path / "p.json").exists()
    done = cuzk("groth16", "prove", "--server", server.url, "bn", witness, "p.json", "pub.json", "--r1cs", "x",
                cwd=tmp_path)  # fmt: skip
    assert (done.returncode, done.stderr) == (2, "cuzk groth16: --r1cs is for a local proof, not with --server\n")
