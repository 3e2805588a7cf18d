"""The snarkjs-compatible commands on the small circuits, without node: every command, its output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuzk.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_setup_prove_export_verify(small, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    zkey, vk, proof, public = (tmp_path / name for name in ("c.zkey", "vk.json", "proof.json", "public.json"))
    code, out, _ = _run(capsys, "groth16", "setup", small.r1cs, zkey)
    assert code == 0 and "A one-party setup: for development and tests only" in out
    code, out, err = _run(capsys, "groth16", "prove", zkey, small.wtns, proof, public, "--backend", "reference", "-v")
    assert code == 0, err
    assert f"{proof}, {public}: {small.curve.name} proof, verified" in out and "msm_b_g2" in out
    assert json.loads(public.read_text()) == [str(small.cs.input_assignment[1].value)]
    assert _run(capsys, "zkey", "export", "verificationkey", zkey, vk)[0] == 0
    assert _run(capsys, "groth16", "verify", vk, public, proof)[:2] == (0, "OK\n")
    public.write_text(json.dumps(["36"]))
    code, _, err = _run(capsys, "groth16", "verify", vk, public, proof)
    assert code == 1 and err.startswith("INVALID: the proof in")


def test_wtns_check(small, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = _run(capsys, "wtns", "check", small.r1cs, small.wtns)
    assert code == 0 and "satisfies the 8 constraints" in out


def test_errors_are_one_line(small, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, err = _run(capsys, "groth16", "prove", small.wtns, small.wtns, tmp_path / "p", tmp_path / "q")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("cuzk groth16: ") and "not a .zkey file" in err


def test_bellman_export_and_proof(small_circuits, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from cuzk.formats import bellman, snarkjs_json
    from cuzk.reference.groth16 import verify

    small = small_circuits["bls12_381"]
    proof_json, public, proof_bin, vk_bin = (tmp_path / n for n in ("p.json", "pub.json", "p.bin", "vk.bin"))
    argv = ("groth16", "prove", small.zkey, small.wtns, proof_json, public, "--bellman-proof", proof_bin, "--no-verify")
    code, out, err = _run(capsys, *argv, "--backend", "reference")
    assert code == 0 and "not verified (--no-verify)" in out, err
    assert _run(capsys, "zkey", "export", "bellman", small.zkey, vk_bin)[0] == 0
    proof = bellman.read_proof(proof_bin)
    assert proof == snarkjs_json.read_proof(proof_json)[0]
    signals = snarkjs_json.read_public(public, small.curve)
    assert verify(bellman.read_verifying_key(vk_bin).verifying_key(), signals, proof)


def test_groth16_prove_timings_and_trace(small, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """--timings lists every step of the command from the process's start; --trace shows them, and B_G2 on a
    thread of its own beside the G1 MSMs."""
    zkey, proof, public, trace = (tmp_path / name for name in ("c.zkey", "proof.json", "public.json", "t.json"))
    assert _run(capsys, "groth16", "setup", small.r1cs, zkey)[0] == 0
    argv = ("groth16", "prove", zkey, small.wtns, proof, public, "--backend", "cpu", "--timings", "--trace", trace)
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    rows = [line.split()[0] for line in out.splitlines()[1:] if line and not line.startswith(" ")]
    steps = ["read_key", "backend", "read_witness", "read_r1cs", "check_r1cs", "prepare", "prove", "verify", "write"]
    assert [row for row in rows if row in steps] == steps, out
    assert "msm_b_g2" in out and "msm_a_g1" in out and f"trace written to {trace}" in out
    events = json.loads(trace.read_text())["traceEvents"]
    threads = {event["name"]: event["tid"] for event in events if event.get("ph") == "X"}
    assert {*steps, "msm_b_g2", "msm_a_g1"} <= set(threads)
    assert threads["msm_b_g2"] != threads["msm_a_g1"]
    start = {event["name"]: event["ts"] for event in events if event.get("ph") == "X"}
    assert start["read_witness"] < start["prepare"] < start["prove"] < start["verify"] < start["write"]
