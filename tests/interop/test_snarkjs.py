"""cuzk and snarkjs on the same real circom circuit, on both curves: each verifies the other's proofs, and cuzk's files
are snarkjs's byte for byte where they can be (the verifying key, the public signals)."""

from __future__ import annotations

import json
from pathlib import Path

from cuzk.formats import bellman, snarkjs_json
from cuzk.formats.r1cs import read_r1cs
from cuzk.formats.wtns import read_wtns, write_wtns
from cuzk.formats.zkey import read_zkey
from cuzk.reference.groth16 import Proof, verify


def test_cuzk_proof_is_accepted_by_snarkjs(node_tools, snarkjs_run, cuzk_proof) -> None:  # type: ignore[no-untyped-def]
    accepted, output = node_tools.verify(snarkjs_run.vk, cuzk_proof.public, cuzk_proof.proof)
    assert accepted, output
    print(f"{snarkjs_run.curve}: {cuzk_proof.output}")


def test_public_signals_are_snarkjs_ones(snarkjs_run, cuzk_proof) -> None:  # type: ignore[no-untyped-def]
    assert cuzk_proof.public.read_bytes() == snarkjs_run.public.read_bytes()


def test_proof_json_has_snarkjs_layout(snarkjs_run, cuzk_proof) -> None:  # type: ignore[no-untyped-def]
    ours, theirs = json.loads(cuzk_proof.proof.read_text()), json.loads(snarkjs_run.proof.read_text())
    assert list(ours) == list(theirs)
    assert (ours["protocol"], ours["curve"]) == (theirs["protocol"], theirs["curve"])
    assert ours["pi_a"][2] == "1" and ours["pi_b"][2] == ["1", "0"]
    shape = [len(line) - len(line.lstrip()) for line in cuzk_proof.proof.read_text().splitlines()]
    assert shape == [len(line) - len(line.lstrip()) for line in snarkjs_run.proof.read_text().splitlines()]


def test_snarkjs_proof_is_accepted_by_cuzk(cuzk, snarkjs_run) -> None:  # type: ignore[no-untyped-def]
    result = cuzk("groth16", "verify", snarkjs_run.vk, snarkjs_run.public, snarkjs_run.proof)
    assert (result.code, result.out.strip()) == (0, "OK"), result.err


def test_cuzk_proof_is_accepted_by_cuzk(cuzk, snarkjs_run, cuzk_proof) -> None:  # type: ignore[no-untyped-def]
    result = cuzk("groth16", "verify", snarkjs_run.vk, cuzk_proof.public, cuzk_proof.proof)
    assert (result.code, result.out.strip()) == (0, "OK"), result.err


def test_tampered_proof_is_rejected_by_both(cuzk, node_tools, snarkjs_run, cuzk_proof, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    proof, _ = snarkjs_json.read_proof(cuzk_proof.proof)
    snarkjs_json.write_proof(tmp_path / "proof.json", Proof(proof.a, proof.b, proof.c.double()))  # valid point, wrong C
    result = cuzk("groth16", "verify", snarkjs_run.vk, cuzk_proof.public, tmp_path / "proof.json")
    assert result.code == 1 and "INVALID" in result.err
    assert not node_tools.verify(snarkjs_run.vk, cuzk_proof.public, tmp_path / "proof.json")[0]


def test_exported_verification_key_is_snarkjs_byte_for_byte(cuzk, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = cuzk("zkey", "export", "verificationkey", snarkjs_run.zkey, tmp_path / "vk.json")
    assert result.code == 0, result.err
    assert (tmp_path / "vk.json").read_bytes() == snarkjs_run.vk.read_bytes()


def test_reads_the_circom_files(cuzk, snarkjs_run) -> None:  # type: ignore[no-untyped-def]
    r1cs, witness, zkey = read_r1cs(snarkjs_run.r1cs), read_wtns(snarkjs_run.wtns), read_zkey(snarkjs_run.zkey)
    assert (r1cs.num_wires, r1cs.num_public, r1cs.num_constraints) == (
        len(witness),
        zkey.num_public,
        zkey.num_constraints,
    )
    assert zkey.domain_size == 256 and r1cs.num_constraints == 240
    r1cs.check_witness(witness)
    result = cuzk("wtns", "check", snarkjs_run.r1cs, snarkjs_run.wtns)
    assert result.code == 0 and "satisfies the 240 constraints" in result.out


def _broken_witness(snarkjs_run, path: Path) -> Path:  # type: ignore[no-untyped-def]
    witness = read_wtns(snarkjs_run.wtns)
    values = witness.ints()
    values[10] = (values[10] + 1) % witness.prime  # a private signal inside the hash
    write_wtns(path, witness.prime, values)
    return path


def test_unsatisfying_witness_is_named_with_the_r1cs(cuzk, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = _broken_witness(snarkjs_run, tmp_path / "bad.wtns")
    result = cuzk(
        "groth16",
        "prove",
        snarkjs_run.zkey,
        bad,
        tmp_path / "p.json",
        tmp_path / "q.json",
        "--r1cs",
        snarkjs_run.r1cs,
        "--sym",
        snarkjs_run.sym,
    )
    assert result.code == 2
    message = result.err.strip()
    assert "\n" not in message and "Traceback" not in message
    assert f"{bad}: the witness does not satisfy constraint" in message and str(snarkjs_run.r1cs) in message
    assert "main.hasher" in message and "(wire 10)" in message
    assert not (tmp_path / "p.json").exists()


def test_unsatisfying_witness_without_the_r1cs(cuzk, node_tools, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The key has no C, so the bad witness shows only when the proof is verified — which cuzk does by default,
    while snarkjs writes a proof that does not verify."""
    bad = _broken_witness(snarkjs_run, tmp_path / "bad.wtns")
    result = cuzk("groth16", "prove", snarkjs_run.zkey, bad, tmp_path / "p.json", tmp_path / "q.json")
    assert result.code == 2 and "does not verify, so the witness does not satisfy the circuit" in result.err
    node_tools.run("snarkjs", "groth16", "prove", snarkjs_run.zkey, bad, "p.json", "q.json", cwd=tmp_path)
    assert not node_tools.verify(snarkjs_run.vk, tmp_path / "q.json", tmp_path / "p.json")[0]


def test_cuzk_setup_key_works_in_snarkjs(cuzk, node_tools, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """cuzk groth16 setup writes a .zkey snarkjs exports, proves with and verifies; cuzk's export of it is snarkjs's."""
    result = cuzk("groth16", "setup", snarkjs_run.r1cs, tmp_path / "cuzk.zkey")
    assert result.code == 0 and "development and tests only" in result.out, result.err
    node_tools.run("snarkjs", "zkey", "export", "verificationkey", "cuzk.zkey", "snarkjs_vk.json", cwd=tmp_path)
    node_tools.run(
        "snarkjs", "groth16", "prove", "cuzk.zkey", snarkjs_run.wtns, "proof.json", "public.json", cwd=tmp_path
    )
    accepted, output = node_tools.verify(
        tmp_path / "snarkjs_vk.json", tmp_path / "public.json", tmp_path / "proof.json"
    )
    assert accepted, output
    assert cuzk("zkey", "export", "verificationkey", tmp_path / "cuzk.zkey", tmp_path / "vk.json").code == 0
    assert (tmp_path / "vk.json").read_bytes() == (tmp_path / "snarkjs_vk.json").read_bytes()
    result = cuzk("groth16", "verify", tmp_path / "vk.json", tmp_path / "public.json", tmp_path / "proof.json")
    assert result.code == 0, result.err


def test_bellman_bytes(cuzk, snarkjs_run, cuzk_proof, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = cuzk("zkey", "export", "bellman", snarkjs_run.zkey, tmp_path / "vk.bin")
    if snarkjs_run.curve != "bls12381":
        assert result.code == 2 and "the key is for bn254 (bn128), not for bls12_381" in result.err
        return
    assert result.code == 0, result.err
    proof = bellman.read_proof(cuzk_proof.bellman)
    assert proof == snarkjs_json.read_proof(cuzk_proof.proof)[0]
    assert len(cuzk_proof.bellman.read_bytes()) == 192
    public = snarkjs_json.read_public(cuzk_proof.public, proof.a.group and read_zkey(snarkjs_run.zkey).curve)
    assert verify(bellman.read_verifying_key(tmp_path / "vk.bin").verifying_key(), public, proof)
