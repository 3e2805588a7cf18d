"""The command line on damaged real files: every problem is one line naming the file and what is wrong, exit
status 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cuzk.formats.binfile import BinFile
from cuzk.formats.wtns import read_wtns, write_wtns
from cuzk.reference.curves import curve_by_name


def _one_line(result) -> str:  # type: ignore[no-untyped-def]
    assert result.code == 2, (result.out, result.err)
    message = result.err.strip()
    assert "\n" not in message and "Traceback" not in message, message
    return message


def _prove(cuzk, zkey: Path, wtns: Path, folder: Path):  # type: ignore[no-untyped-def]
    return cuzk("groth16", "prove", zkey, wtns, folder / "proof.json", folder / "public.json")


@pytest.mark.parametrize("keep", [100, 700, 0.5, -1])
def test_truncated_zkey(cuzk, snarkjs_run, tmp_path: Path, keep: float) -> None:  # type: ignore[no-untyped-def]
    data = snarkjs_run.zkey.read_bytes()
    size = int(len(data) * keep) if isinstance(keep, float) else keep if keep > 0 else len(data) - 1
    (tmp_path / "cut.zkey").write_bytes(data[:size])
    message = _one_line(_prove(cuzk, tmp_path / "cut.zkey", snarkjs_run.wtns, tmp_path))
    assert f"{tmp_path / 'cut.zkey'}: " in message and ("section" in message or "bytes" in message)


def test_truncated_witness(cuzk, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "cut.wtns").write_bytes(snarkjs_run.wtns.read_bytes()[:-5])
    message = _one_line(_prove(cuzk, snarkjs_run.zkey, tmp_path / "cut.wtns", tmp_path))
    assert "cut.wtns: section 2 (witness)" in message and "announces" in message


def test_wrong_magic(cuzk, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    message = _one_line(_prove(cuzk, snarkjs_run.r1cs, snarkjs_run.wtns, tmp_path))
    assert "not a .zkey file: the magic bytes are b'r1cs'" in message
    message = _one_line(_prove(cuzk, snarkjs_run.zkey, snarkjs_run.zkey, tmp_path))
    assert "not a .wtns file" in message


def test_key_and_witness_of_another_curve(cuzk, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    other = curve_by_name("bls12381" if snarkjs_run.curve == "bn128" else "bn128")
    witness = read_wtns(snarkjs_run.wtns)
    write_wtns(tmp_path / "other.wtns", other.r, witness.ints())
    message = _one_line(_prove(cuzk, snarkjs_run.zkey, tmp_path / "other.wtns", tmp_path))
    assert f"other.wtns: the witness is over the scalar field of {other.name} (r = {other.r})" in message
    assert str(snarkjs_run.zkey) in message


def test_witness_of_the_wrong_length(cuzk, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    witness = read_wtns(snarkjs_run.wtns)
    write_wtns(tmp_path / "short.wtns", witness.prime, witness.ints()[:-1])
    message = _one_line(_prove(cuzk, snarkjs_run.zkey, tmp_path / "short.wtns", tmp_path))
    assert (
        f"short.wtns: the witness has {len(witness) - 1} values, but {snarkjs_run.zkey} expects {len(witness)}"
        in message
    )


def test_point_off_the_curve_in_the_key(cuzk, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data = bytearray(snarkjs_run.zkey.read_bytes())
    h = BinFile(snarkjs_run.zkey, b"zkey", (1,)).section(9)
    data[h.offset + 3 * (h.size // 256)] ^= 0x04  # x of H point 3
    (tmp_path / "off.zkey").write_bytes(bytes(data))
    message = _one_line(_prove(cuzk, tmp_path / "off.zkey", snarkjs_run.wtns, tmp_path))
    assert "off.zkey: section 9 (H points), offset" in message and "point 3: the point is not on" in message


def test_public_input_not_below_r(cuzk, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    public = json.loads(snarkjs_run.public.read_text())
    r = curve_by_name(snarkjs_run.curve).r
    (tmp_path / "public.json").write_text(json.dumps([str(int(public[0]) + r), *public[1:]]))
    message = _one_line(cuzk("groth16", "verify", snarkjs_run.vk, tmp_path / "public.json", snarkjs_run.proof))
    assert f"public.json: public signal 0: {int(public[0]) + r} is not in [0, {r})" in message


def test_proof_point_off_the_curve(cuzk, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    proof = json.loads(snarkjs_run.proof.read_text())
    proof["pi_a"][1] = str(int(proof["pi_a"][1]) + 1)
    (tmp_path / "proof.json").write_text(json.dumps(proof))
    message = _one_line(cuzk("groth16", "verify", snarkjs_run.vk, snarkjs_run.public, tmp_path / "proof.json"))
    assert "proof.json: pi_a: the point is not on" in message


def test_proof_for_another_curve(cuzk, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    proof = json.loads(snarkjs_run.proof.read_text())
    proof["curve"] = "bls12381" if snarkjs_run.curve == "bn128" else "bn128"
    (tmp_path / "proof.json").write_text(json.dumps(proof))
    message = _one_line(cuzk("groth16", "verify", snarkjs_run.vk, snarkjs_run.public, tmp_path / "proof.json"))
    assert f"proof.json: the file is for {proof['curve']}" in message


def test_wrong_number_of_public_signals(cuzk, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "public.json").write_text(json.dumps(json.loads(snarkjs_run.public.read_text())[:1]))
    result = cuzk("groth16", "verify", snarkjs_run.vk, tmp_path / "public.json", snarkjs_run.proof)
    assert result.code == 1 and "has 1 public signals" in result.err


def test_a_real_process_prints_one_line(cuzk_process, snarkjs_run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "cut.zkey").write_bytes(snarkjs_run.zkey.read_bytes()[:1000])
    done = cuzk_process("groth16", "prove", tmp_path / "cut.zkey", snarkjs_run.wtns, tmp_path / "p", tmp_path / "q")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("cuzk groth16: ") and "cut.zkey: section" in done.stderr
