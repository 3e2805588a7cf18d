"""``cuzk powersoftau prepare phase2`` without node: the committed ceremonies of tests/fixtures/ptau (2^7, made by
snarkjs including its ``prepare phase2``) cut back to sections 1–7, prepared again by cuzk, must come out byte for
byte as snarkjs wrote them, on every backend with POINT_NTT (the pure-Python reference in the slow run only: about
a minute per curve). And the command's refusals: its input as output, a file that is not a ptau, a truncated one,
a point of the powers off its curve."""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from cuzk.backends.protocol import POINT_NTT, has_capability
from cuzk.backends.registry import get_backend, registered_backends
from cuzk.cli import main
from cuzk.engine.prepare_phase2 import gather, prepare_phase2, source_rows
from cuzk.formats.binfile import BinFile
from cuzk.formats.errors import FormatError, InvalidPointError
from cuzk.formats.outputs import OutputPathError
from cuzk.formats.points import point_bytes
from cuzk.formats.ptau import GROUPS, MAGIC, SECTIONS, read_ptau
from cuzk.reference.point_ntt import lagrange_sources
from tests._suite_backends import usable_or_skip

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ptau"
CURVES = ("bn128", "bls12381")
BACKENDS = [pytest.param(n, marks=pytest.mark.slow) if n == "reference" else n for n in registered_backends()]


def phase1_only(prepared: Path, target: Path) -> Path:
    """``prepared`` without its sections 12–15: what snarkjs's ``prepare phase2`` read."""
    file, data = BinFile(prepared, MAGIC, (1,), SECTIONS), prepared.read_bytes()
    out = bytearray(MAGIC + struct.pack("<II", 1, 7))
    for section_id in range(1, 8):
        section = file.section(section_id)
        out += struct.pack("<IQ", section_id, section.size) + data[section.offset : section.offset + section.size]
    target.write_bytes(bytes(out))
    return target


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    def run(*argv: str | Path) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("curve", CURVES)
def test_fixture_byte_identity(name: str, curve: str, tmp_path: Path) -> None:
    usable_or_skip(name)
    if not has_capability(get_backend(name), POINT_NTT):
        pytest.skip(f"the {name} backend does not offer {POINT_NTT}")
    expected = FIXTURES / curve / "pot7.ptau"
    source = phase1_only(expected, tmp_path / "pot7_phase1.ptau")
    done = prepare_phase2(source, tmp_path / "pot7.ptau", backend=name)
    assert done.power == 7 and done.backend == name and set(done.seconds) == {12, 13, 14, 15}
    assert (tmp_path / "pot7.ptau").read_bytes() == expected.read_bytes()


def test_cli_prepares(cli: Callable[..., tuple[int, str, str]], tmp_path: Path) -> None:
    expected = FIXTURES / "bn128" / "pot7.ptau"
    source = phase1_only(expected, tmp_path / "in.ptau")
    code, out, err = cli("powersoftau", "prepare", "phase2", source, tmp_path / "out.ptau", "--backend", "cpu", "-v")
    assert code == 0, err
    assert "bn254, 2^7, Lagrange sections 12–15 on the cpu backend" in out
    assert "section 13 (Lagrange tauG2)" in err
    assert (tmp_path / "out.ptau").read_bytes() == expected.read_bytes()


def test_refuses_input_as_output(cli: Callable[..., tuple[int, str, str]], tmp_path: Path) -> None:
    source = phase1_only(FIXTURES / "bn128" / "pot7.ptau", tmp_path / "in.ptau")
    before = source.read_bytes()
    code, _, err = cli("powersoftau", "prepare", "phase2", source, source)
    assert code == 2 and "is the input file" in err and "Traceback" not in err
    assert source.read_bytes() == before
    with pytest.raises(OutputPathError):
        prepare_phase2(source, source)


def test_refuses_bad_input(cli: Callable[..., tuple[int, str, str]], tmp_path: Path) -> None:
    """Not a ptau, a truncated one: a FormatError naming the file, exit status 2, no output left behind."""
    not_ptau = tmp_path / "zkey.ptau"
    not_ptau.write_bytes((FIXTURES / "bn128" / "circuit_0.zkey").read_bytes())
    truncated = tmp_path / "truncated.ptau"
    truncated.write_bytes((FIXTURES / "bn128" / "pot7.ptau").read_bytes()[:5000])
    for bad in (not_ptau, truncated):
        target = tmp_path / "out.ptau"
        code, _, err = cli("powersoftau", "prepare", "phase2", bad, target)
        assert code == 2 and str(bad) in err and "Traceback" not in err, err
        assert not target.exists()
        with pytest.raises(FormatError):
            prepare_phase2(bad, target)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize(("section_id", "index"), [(2, 200), (3, 5)])
def test_a_bad_power_is_named(name: str, section_id: int, index: int, tmp_path: Path) -> None:
    """A point of the powers off its curve (a byte of x flipped): an InvalidPointError naming the section and the
    point on every backend (a GPU's finds it on the device), no output left behind."""
    usable_or_skip(name)
    if not has_capability(get_backend(name), POINT_NTT):
        pytest.skip(f"the {name} backend does not offer {POINT_NTT}")
    source = phase1_only(FIXTURES / "bn128" / "pot7.ptau", tmp_path / "pot7_phase1.ptau")
    ptau = read_ptau(source)
    offset = ptau.file.section(section_id).offset + index * point_bytes(ptau.curve, GROUPS[section_id])
    data = bytearray(source.read_bytes())
    data[offset] ^= 1
    source.write_bytes(bytes(data))
    target = tmp_path / "out.ptau"
    with pytest.raises(
        InvalidPointError, match=f"point {index}: the point is not on bn254.G{section_id - 1}"
    ) as raised:
        prepare_phase2(source, target, backend=name)
    assert (
        raised.value.offset == offset
        and raised.value.section is not None
        and f"section {section_id}" in str(raised.value)
    )
    assert not target.exists()


@pytest.mark.parametrize(("log_n", "power"), [(0, 0), (1, 0), (3, 2), (7, 7), (8, 7), (16, 15), (17, 16), (18, 17)])
def test_source_rows_are_the_references(log_n: int, power: int) -> None:
    """The engine's numpy rows are the reference's lagrange_sources (None as −1), for every section kind, including
    section 2's extra block at powers ≥ 16; gathering them gives the rows, zeros for −1."""
    for tau_g1 in (False, True):
        expected = [-1 if k is None else k for k in lagrange_sources(log_n, power, tau_g1)]
        rows = source_rows(log_n, power, tau_g1)
        assert rows.dtype == np.int64 and rows.tolist() == expected
        table = np.arange(3 * len(rows), dtype=np.uint64).reshape(len(rows), 3) + 1
        block = gather(table, rows)
        assert np.array_equal(block[rows >= 0], table[rows[rows >= 0]]) and not block[rows < 0].any()
