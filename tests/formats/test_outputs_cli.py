"""Every command that writes refuses a bad output before any work and writes its files all-or-nothing: an input
given as an output (also through a symlink or a hard link), two outputs on one path, a missing folder, a folder,
'', /proc/version, /dev/full, a bellman proof of a BN254 key. In process through cuzk.cli.main, and a few as real
processes for the exit status and the one-line stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cuzk.cli import main
from cuzk.engine import files_job

LINUX = pytest.mark.skipif(not os.path.exists("/proc/version"), reason="needs Linux's /proc and /dev")


@pytest.fixture
def bn(small_circuits, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The BN254 small circuit's files copied into tmp_path (so that outputs beside them can be made)."""
    for name in ("r1cs", "wtns", "zkey"):
        (tmp_path / f"c.{name}").write_bytes(getattr(small_circuits["bn254"], name).read_bytes())
    return tmp_path


@pytest.fixture
def no_proving(monkeypatch):  # type: ignore[no-untyped-def]
    """prove_files made to fail the test: a refusal must come before any work."""

    def prove_files(*args: object, **kwargs: object) -> None:
        raise AssertionError("the proof was computed before the outputs were checked")

    monkeypatch.setattr(files_job, "prove_files", prove_files)


def _run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _contents(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()}


def _refused(capsys: pytest.CaptureFixture[str], folder: Path, message: str, *argv: str | Path) -> None:
    """The command exits with 2 and one line naming the problem, and no file of ``folder`` changed or appeared."""
    before = _contents(folder)
    code, out, err = _run(capsys, *argv)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and message in err, err
    assert _contents(folder) == before


def test_prove_refuses_its_inputs_as_outputs(bn: Path, capsys, no_proving) -> None:  # type: ignore[no-untyped-def]
    (bn / "link.zkey").symlink_to("c.zkey")
    os.link(bn / "c.wtns", bn / "hard.wtns")
    zkey, wtns, public = bn / "c.zkey", bn / "c.wtns", bn / "public.json"
    for proof in (zkey, bn / "link.zkey", wtns, bn / "hard.wtns"):
        _refused(capsys, bn, "cuzk does not overwrite its inputs", "groth16", "prove", zkey, wtns, proof, public)
    _refused(capsys, bn, f"cuzk groth16: {zkey}: is the input", "groth16", "prove", zkey, wtns, public, zkey)
    argv = ("groth16", "prove", zkey, wtns, bn / "p.json", public, "--r1cs", bn / "c.r1cs")
    _refused(capsys, bn, "is the input file", *argv, "--trace", bn / "c.r1cs")
    _refused(capsys, bn, "is the input file", *argv, "--bellman-proof", bn / "c.r1cs")


def test_prove_refuses_one_path_for_two_outputs(bn: Path, capsys, no_proving) -> None:  # type: ignore[no-untyped-def]
    zkey, wtns, proof = bn / "c.zkey", bn / "c.wtns", bn / "proof.json"
    _refused(capsys, bn, "is also the path of another output", "groth16", "prove", zkey, wtns, proof, proof)
    argv = ("groth16", "prove", zkey, wtns, proof, bn / "public.json")
    _refused(capsys, bn, "is also the path of another output", *argv, "--trace", proof)


@pytest.mark.parametrize(
    ("public", "message"),
    [
        ("missing/public.json", "public.json: the directory"),
        ("folder", "folder: is a directory"),
        ("", "'': an output path cannot be empty"),
        pytest.param("/proc/version", "/proc/version: cannot", marks=LINUX),
    ],
)
def test_prove_refuses_an_unwritable_output_before_any_work(  # type: ignore[no-untyped-def]
    bn: Path, capsys, no_proving, public: str, message: str
) -> None:
    (bn / "folder").mkdir()
    where = public if public.startswith("/") or not public else f"{bn}/{public}"
    _refused(capsys, bn, message, "groth16", "prove", bn / "c.zkey", bn / "c.wtns", bn / "proof.json", where)


def test_a_bellman_proof_of_a_bn254_key_is_refused_before_any_work(bn: Path, capsys, no_proving) -> None:  # type: ignore[no-untyped-def]
    (bn / "x.bin").write_bytes(b"an earlier bellman proof")
    argv = ("groth16", "prove", bn / "c.zkey", bn / "c.wtns", bn / "proof.json", bn / "public.json")
    _refused(capsys, bn, "bellman's proof format is for BLS12-381 keys", *argv, "--bellman-proof", bn / "x.bin")


@LINUX
def test_dev_full_fails_cleanly_and_writes_nothing_else(bn: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (bn / "public.json").write_text("earlier")
    argv = (
        "groth16",
        "prove",
        bn / "c.zkey",
        bn / "c.wtns",
        "/dev/full",
        bn / "public.json",
        "--quiet",
        "--backend",
        "reference",
    )
    _refused(capsys, bn, "cuzk groth16: /dev/full: cannot write: No space left on device", *argv)


def test_a_failing_writer_leaves_the_earlier_outputs(bn: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from cuzk.formats import snarkjs_json

    (bn / "proof.json").write_text("earlier proof")
    (bn / "public.json").write_text("earlier public")

    def full_disk(path: object, signals: object) -> None:
        raise OSError(28, "No space left on device", os.fspath(path))  # type: ignore[arg-type]

    monkeypatch.setattr(snarkjs_json, "write_public", full_disk)
    argv = (
        "groth16",
        "prove",
        bn / "c.zkey",
        bn / "c.wtns",
        bn / "proof.json",
        bn / "public.json",
        "--quiet",
        "--backend",
        "reference",
    )
    _refused(capsys, bn, f"{bn / 'public.json'}: cannot write: No space left on device", *argv)


def test_setup_and_exports_refuse_their_input(bn: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (bn / "vk.json").symlink_to("c.zkey")
    _refused(capsys, bn, "is the input file", "groth16", "setup", bn / "c.r1cs", bn / "c.r1cs")
    _refused(capsys, bn, "is the input file", "zkey", "export", "verificationkey", bn / "c.zkey", bn / "vk.json")
    _refused(capsys, bn, "is the input file", "zkey", "export", "bellman", bn / "c.zkey", bn / "c.zkey")
    _refused(capsys, bn, "the directory", "zkey", "export", "verificationkey", bn / "c.zkey", bn / "no" / "vk.json")


def test_setup_replaces_a_key_atomically(bn: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from cuzk.formats import zkey_write

    key = bn / "new.zkey"
    key.write_bytes(b"an earlier key")

    def failing_write(path: str, key: object, **options: object) -> None:
        Path(path).write_bytes(b"zkey half")
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(zkey_write, "write_zkey", failing_write)
    argv = ("groth16", "setup", bn / "c.r1cs", key, "--backend", "reference")
    _refused(capsys, bn, "new.zkey: cannot write: Input/output error", *argv)
    monkeypatch.undo()
    assert _run(capsys, *argv)[0] == 0
    assert key.read_bytes()[:4] == b"zkey" and sorted(os.listdir(bn)) == ["c.r1cs", "c.wtns", "c.zkey", "new.zkey"]


def _cuzk(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "cuzk.cli", *map(str, argv)]
    return subprocess.run(command, text=True, capture_output=True, check=False, timeout=300)


@LINUX
def test_as_a_process(bn: Path) -> None:
    """Exit status 2 and one line on stderr, no traceback; /dev/stdout gets the proof, after it the summary."""
    before = _contents(bn)
    refused = _cuzk("groth16", "prove", bn / "c.zkey", bn / "c.wtns", bn / "c.zkey", bn / "public.json")
    assert refused.returncode == 2 and refused.stdout == "", refused.stderr
    assert refused.stderr == f"cuzk groth16: {bn / 'c.zkey'}: is the input file {bn / 'c.zkey'}; cuzk does not " + (
        "overwrite its inputs: choose another path\n"
    )
    full = _cuzk("groth16", "prove", bn / "c.zkey", bn / "c.wtns", bn / "p.json", "/dev/full", "--backend", "reference")
    assert full.returncode == 2 and "Traceback" not in full.stderr
    assert full.stderr.splitlines() == ["cuzk groth16: /dev/full: cannot write: No space left on device"]
    assert _contents(bn) == before
    shown = _cuzk(
        "groth16",
        "prove",
        bn / "c.zkey",
        bn / "c.wtns",
        "/dev/stdout",
        bn / "public.json",
        "--quiet",
        "--backend",
        "reference",
    )
    assert shown.returncode == 0, shown.stderr
    end = shown.stdout.rindex("}") + 1  # proof.json has no newline at its end, as snarkjs writes it
    assert json.loads(shown.stdout[:end])["protocol"] == "groth16"
    assert shown.stdout[end:].startswith(f"/dev/stdout, {bn / 'public.json'}: bn254 proof, verified")
