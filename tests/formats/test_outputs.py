"""cuzk.formats.outputs: output paths refused before any work (an input, another output, a missing folder, a folder,
'', a pseudo file) and files written atomically, several all-or-nothing, streams such as /dev/full cleanly."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cuzk.formats import bellman, outputs, snarkjs_json
from cuzk.formats.errors import CurveMismatchError
from cuzk.formats.outputs import (
    OutputPathError,
    OutputWriteError,
    atomic_outputs,
    check_outputs,
    write_atomic,
    write_outputs,
)
from cuzk.reference.curves import BN254
from cuzk.reference.errors import CuzkError
from cuzk.reference.groth16 import Proof

LINUX = pytest.mark.skipif(not os.path.exists("/proc/version"), reason="needs Linux's /proc and /dev")


@pytest.fixture
def key(tmp_path: Path) -> Path:
    path = tmp_path / "k.zkey"
    path.write_bytes(b"zkey" + bytes(range(256)))
    return path


def _links(key: Path) -> dict[str, Path]:
    (key.parent / "link.zkey").symlink_to(key.name)
    os.link(key, key.parent / "hard.zkey")
    relative = Path(os.path.relpath(key))
    return {
        "same": key,
        "relative": relative,
        "symlink": key.parent / "link.zkey",
        "hard link": key.parent / "hard.zkey",
    }


def test_an_output_that_is_an_input_is_refused(key: Path) -> None:
    before = key.read_bytes()
    for how, output in _links(key).items():
        with pytest.raises(OutputPathError, match=r"is the input file .*k.zkey; cuzk does not overwrite its inputs"):
            check_outputs([output], [key])
        assert key.read_bytes() == before, how
    check_outputs([key.parent / "other.json"], [key, None])  # None: an option not given


def test_an_input_that_does_not_exist_yet_is_compared_by_path(tmp_path: Path) -> None:
    with pytest.raises(OutputPathError, match=r"is the input file"):
        check_outputs([tmp_path / "x.r1cs"], [tmp_path / "sub" / ".." / "x.r1cs"])


def test_two_equal_outputs_are_refused(tmp_path: Path, key: Path) -> None:
    with pytest.raises(OutputPathError, match=r"proof.json: is also the path of another output \(.*proof.json\)"):
        check_outputs([tmp_path / "proof.json", f"{tmp_path}/./proof.json"])
    existing = tmp_path / "out.json"
    existing.write_text("{}")
    (tmp_path / "alias.json").symlink_to(existing)
    with pytest.raises(OutputPathError, match=r"another output"):
        check_outputs([existing, tmp_path / "alias.json"])
    check_outputs([tmp_path / "proof.json", tmp_path / "public.json"], [key])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alias.json", "k.zkey", "out.json"]  # the probe is gone


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("missing/proof.json", "proof.json: the directory .*missing does not exist"),
        ("folder", "folder: is a directory; give the path of a file in it"),
        ("k.zkey/proof.json", "a part of the path before the file name is not a directory"),
        ("new/", "ends with a '/'"),
    ],
)
def test_unwritable_paths_are_refused(tmp_path: Path, key: Path, name: str, message: str) -> None:
    (tmp_path / "folder").mkdir()
    with pytest.raises(OutputPathError, match=message) as refused:
        check_outputs([f"{tmp_path}/{name}"], [key])
    assert isinstance(refused.value, CuzkError) and "\n" not in str(refused.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "k.zkey"]


def test_empty_and_nul_paths_are_refused() -> None:
    with pytest.raises(OutputPathError, match=r"^'': an output path cannot be empty$"):
        check_outputs([""])
    with pytest.raises(OutputPathError, match=r"contains a NUL character"):
        check_outputs(["a\0b"])
    with pytest.raises(OutputWriteError, match=r"an output path cannot be empty"):
        write_atomic("", b"x")


@LINUX
def test_pseudo_files_are_refused_and_dev_full_fails_cleanly() -> None:
    with pytest.raises(OutputPathError, match=r"^/proc/version: cannot"):
        check_outputs(["/proc/version"])
    with pytest.raises(OutputWriteError, match=r"^/proc/version: cannot"):
        write_atomic("/proc/version", b"x")
    check_outputs(["/dev/full", "/dev/null"])  # character devices are written in place
    with pytest.raises(OutputWriteError, match=r"^/dev/full: cannot write: No space left on device$"):
        write_atomic("/dev/full", b"x" * 10000)
    write_atomic("/dev/null", b"x")


@LINUX
def test_a_failing_stream_leaves_the_regular_files_of_the_set_untouched(tmp_path: Path) -> None:
    kept = tmp_path / "public.json"
    kept.write_text("old")
    with pytest.raises(OutputWriteError, match=r"/dev/full"):
        write_outputs({kept: "new", "/dev/full": "proof"})
    assert kept.read_text() == "old" and os.listdir(tmp_path) == ["public.json"]


@LINUX
def test_a_descriptor_alias_is_written_at_its_offset(tmp_path: Path) -> None:
    """/dev/fd/N (and /dev/stdout, fd 1) writes through the process's descriptor: appended, not truncated."""
    log = tmp_path / "log"
    with open(log, "wb") as out:
        out.write(b"before ")
        out.flush()
        check_outputs([f"/dev/fd/{out.fileno()}"])
        write_atomic(f"/dev/fd/{out.fileno()}", "proof ")
        out.write(b"after")
    assert log.read_bytes() == b"before proof after"


def test_a_write_replaces_the_file_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "vk.json"
    target.write_text("old")
    target.chmod(0o640)
    inode = target.stat().st_ino
    write_atomic(target, "new")
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.stat().st_ino != inode  # a new file renamed over the old one, not the old one rewritten
    assert os.listdir(tmp_path) == ["vk.json"]


def test_a_symlink_is_written_through(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("old")
    (tmp_path / "link.json").symlink_to("real.json")
    write_atomic(tmp_path / "link.json", b"new")
    assert (tmp_path / "link.json").is_symlink() and (tmp_path / "real.json").read_text() == "new"


def test_an_error_while_writing_leaves_the_previous_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "proof.json"
    target.write_text("previous")
    with pytest.raises(RuntimeError, match=r"interrupted"), atomic_outputs([target]) as (temporary,):
        Path(temporary).write_text("half a pro")
        raise RuntimeError("interrupted")
    assert target.read_text() == "previous" and os.listdir(tmp_path) == ["proof.json"]


def test_a_failed_rename_leaves_the_previous_file_and_no_temporary(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "proof.json"
    target.write_text("previous")

    def failing_replace(source: str, destination: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(outputs.os, "replace", failing_replace)
    with pytest.raises(OutputWriteError, match=r"proof.json: cannot write: No space left on device"):
        snarkjs_json.write_public(target, [1, 2])
    assert target.read_text() == "previous" and os.listdir(tmp_path) == ["proof.json"]


def test_several_outputs_are_all_or_nothing(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    first, second = tmp_path / "proof.json", tmp_path / "public.json"
    first.write_text("old proof")
    with pytest.raises(OutputWriteError, match=r"missing/x: cannot create a file in"):
        write_outputs({first: "new proof", tmp_path / "missing" / "x": "x"})
    assert first.read_text() == "old proof"

    def failing_fsync(path: str) -> None:  # the last step before the renames
        if path.endswith(".tmp") and ".public.json" in path:
            raise OSError(5, "Input/output error")

    monkeypatch.setattr(outputs, "_fsync", failing_fsync)
    with pytest.raises(OutputWriteError, match=r"public.json: cannot write: Input/output error"):
        write_outputs({first: "new proof", second: "public"})
    assert first.read_text() == "old proof" and os.listdir(tmp_path) == ["proof.json"]
    monkeypatch.undo()
    write_outputs({first: "new proof", second: "public"})
    assert (first.read_text(), second.read_text()) == ("new proof", "public")


def test_a_bn254_bellman_proof_touches_no_file(tmp_path: Path) -> None:
    """bellman's format is BLS12-381's: the proof is refused before the file is opened (it was truncated before)."""
    target = tmp_path / "proof.bin"
    target.write_bytes(b"previous proof")
    g1, g2 = BN254.g1.generator, BN254.g2.generator
    with pytest.raises(CurveMismatchError, match=r"bellman's formats are for BLS12-381"):
        bellman.write_proof(target, Proof(g1 * 2, g2 * 3, g1 * 5))
    assert target.read_bytes() == b"previous proof" and os.listdir(tmp_path) == ["proof.bin"]
