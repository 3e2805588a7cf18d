"""The .ptau reader on the committed snarkjs ceremonies (tests/fixtures/ptau, made by its make.sh), and ``cuzk groth16
setup circuit.r1cs pot.ptau circuit.zkey`` against the key snarkjs's ``groth16 setup`` wrote from the same files,
byte for byte — without node. Bad files: typed errors naming the section and the offset."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from cuzk.cli import main
from cuzk.formats.errors import CurveMismatchError, FormatError, InvalidPointError, TruncatedFileError
from cuzk.formats.ptau import SECTIONS, read_ptau, section_points
from cuzk.formats.zkey import read_zkey
from cuzk.reference.curves import BLS12_381, BN254, Curve

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CURVES = {"bn128": BN254, "bls12381": BLS12_381}


def ptau_of(name: str) -> Path:
    return FIXTURES / "ptau" / name / "pot7.ptau"


@pytest.mark.parametrize("name", CURVES)
def test_reads_a_snarkjs_ceremony(name: str) -> None:
    ptau = read_ptau(ptau_of(name))
    curve: Curve = CURVES[name]
    assert ptau.curve is curve and ptau.power == ptau.ceremony_power == 7 and ptau.prepared
    [contribution] = ptau.contributions
    assert contribution.name == "cuzk" and contribution.type == 0 and contribution.beacon_hash is None
    tau_g1, tau_g2 = ptau.contribution_points(contribution)[:2]
    assert tau_g1.is_on_curve() and tau_g2.is_in_subgroup()
    # one contributor: [τ]₁ of the contribution is the ptau's [τ^1]₁, and e(τ₁, G₂) = e(G₁, τ₂)
    assert ptau.points(2, 1, 1)[0] == tau_g1 and ptau.points(3, 1, 1)[0] == tau_g2
    # the Lagrange block of 2: [L_0(τ)]₁ + [L_1(τ)]₁ = [1]₁ (the domain {1, −1})
    block = ptau.lagrange(12, 1)
    assert block[0] + block[1] == curve.g1.generator
    assert len(ptau.lagrange(12, 8)) == 256 and len(ptau.lagrange(13, 7)) == 128


def test_an_unprepared_ptau_reads_but_does_not_set_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = read_ptau(ptau_of("bn128"))
    sections = [(i, bytes(source.file.data[s.offset : s.offset + s.size])) for i, [s] in source.file.sections.items()]
    from cuzk.formats.binfile import write_binfile

    write_binfile(tmp_path / "raw.ptau", b"ptau", 1, [(i, data) for i, data in sections if i <= 7])
    assert not read_ptau(tmp_path / "raw.ptau").prepared
    r1cs = FIXTURES / "snarkjs" / "bn128" / "circuit.r1cs"
    assert main(["groth16", "setup", str(r1cs), str(tmp_path / "raw.ptau"), str(tmp_path / "c.zkey")]) == 2
    assert "not prepared for phase 2" in capsys.readouterr().err


@pytest.mark.parametrize("name", CURVES)
def test_setup_from_ptau_is_snarkjs_byte_for_byte(name: str, tmp_path: Path) -> None:
    r1cs = FIXTURES / "snarkjs" / name / "circuit.r1cs"
    zkey = tmp_path / "circuit_0.zkey"
    assert main(["groth16", "setup", str(r1cs), str(ptau_of(name)), str(zkey), "--backend", "cpu"]) == 0
    assert zkey.read_bytes() == (FIXTURES / "ptau" / name / "circuit_0.zkey").read_bytes()
    assert read_zkey(zkey).curve is CURVES[name]


def _copy(tmp_path: Path, name: str = "bn128") -> tuple[Path, bytearray]:
    path = tmp_path / "bad.ptau"
    shutil.copy(ptau_of(name), path)
    return path, bytearray(path.read_bytes())


def _offset(path: Path, section_id: int) -> int:
    return read_ptau(path).file.section(section_id).offset


def test_truncated_file_names_the_section(tmp_path: Path) -> None:
    path, data = _copy(tmp_path)
    path.write_bytes(data[: _offset(path, 13) + 100])
    with pytest.raises(TruncatedFileError, match=r"section 13 \(Lagrange tauG2\)"):
        read_ptau(path)


def test_a_section_of_the_wrong_size(tmp_path: Path) -> None:
    from cuzk.formats.binfile import write_binfile

    source = read_ptau(ptau_of("bn128"))
    sections = []
    for i, [s] in source.file.sections.items():
        data = bytes(source.file.data[s.offset : s.offset + s.size])
        sections.append((i, data[:-64] if i == 4 else data))  # alphaTauG1 one point short
    write_binfile(tmp_path / "short.ptau", b"ptau", 1, sections)
    expected = section_points(4, 7) * 64
    with pytest.raises(FormatError, match=rf"section 4 \(alphaTauG1\).*{expected - 64} bytes.*take {expected}"):
        read_ptau(tmp_path / "short.ptau")


def test_an_unknown_curve_and_a_wrong_curve(tmp_path: Path) -> None:
    path, data = _copy(tmp_path)
    header = _offset(path, 1)
    data[header + 4] ^= 1  # q no longer BN254's
    path.write_bytes(data)
    with pytest.raises(CurveMismatchError, match=r"section 1 \(header\).*unknown base field prime"):
        read_ptau(path)
    with pytest.raises(CurveMismatchError, match="not bn254"):
        read_ptau(ptau_of("bls12381"), BN254)


@pytest.mark.parametrize("section_id", [12, 13, 15])
def test_an_off_curve_point_names_its_section_and_offset(tmp_path: Path, section_id: int) -> None:
    path, data = _copy(tmp_path)
    size = 64 if section_id != 13 else 128
    point = 7 + 2  # the block of 2^3 starts at point 7: its third point
    at = _offset(path, section_id) + point * size
    data[at] ^= 1  # x changes: (x, y) leaves the curve (with overwhelming probability)
    path.write_bytes(data)
    ptau = read_ptau(path)
    with pytest.raises(
        InvalidPointError, match=rf"{SECTIONS[section_id]}.*offset {at} .*point {point}: the point is not"
    ):
        ptau.lagrange(section_id, 3)


def test_header_points_are_checked_in_the_subgroup(tmp_path: Path) -> None:
    path, data = _copy(tmp_path)
    at = _offset(path, 6)  # [β]₂: the coordinate made ≥ q
    data[at : at + 32] = b"\xff" * 32
    path.write_bytes(data)
    with pytest.raises(InvalidPointError, match=r"section 6 \(betaG2\).*not reduced"):
        read_ptau(path).point(6)


def test_a_bad_contribution(tmp_path: Path) -> None:
    path, data = _copy(tmp_path)
    at = _offset(path, 7)
    data[at : at + 4] = struct.pack("<I", 1000)  # 1000 contributions announced
    path.write_bytes(data)
    with pytest.raises(FormatError, match=r"section 7 \(contributions\).*1000 contributions do not fit"):
        read_ptau(path)


def test_only_the_prefix_asked_for_is_read() -> None:
    ptau = read_ptau(ptau_of("bn128"))
    raw = ptau.raw(12, 7, 8)
    assert isinstance(raw.base, np.memmap) or raw.base is not None  # a view of the map, nothing copied
    with pytest.raises(FormatError, match="not in the section"):
        ptau.raw(2, 250, 10)


def test_any_backend_writes_the_same_key(tmp_path: Path) -> None:
    """The reference backend's MSMs (plain Python) give the cpu backend's key, which is snarkjs's (above)."""
    from cuzk.formats.r1cs import write_constraint_system
    from cuzk.reference.circuits import build

    write_constraint_system(tmp_path / "c.r1cs", build("cubic", BN254.Fr, size=1, seed=1))
    keys = {}
    for backend in ("cpu", "reference"):
        keys[backend] = tmp_path / f"{backend}.zkey"
        argv = ["groth16", "setup", str(tmp_path / "c.r1cs"), str(ptau_of("bn128")), str(keys[backend])]
        assert main([*argv, "--backend", backend]) == 0
    assert keys["cpu"].read_bytes() == keys["reference"].read_bytes()


def test_a_circuit_filling_the_ptau_past_one_hash_chunk_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """snarkjs hashes H in whole chunks of 2^14, so at n = 2^power ≥ 2^15 it reads past section 2 (what it makes of
    those bytes cuzk does not reproduce): refused before any work. Here with chunks of 4 on the 2^7 fixture."""
    from cuzk.engine import setup_hash
    from cuzk.formats.r1cs import write_constraint_system
    from cuzk.reference.circuits import build

    assert setup_hash.hashed_count(1 << 14) == (1 << 14) - 1 and setup_hash.hashed_count(1 << 15) == 1 << 15
    monkeypatch.setattr(setup_hash, "HASH_CHUNK", 4)
    write_constraint_system(tmp_path / "c.r1cs", build("cubic", BN254.Fr, size=28, seed=1))  # 114 rows: 2^7
    argv = ["groth16", "setup", str(tmp_path / "c.r1cs"), str(ptau_of("bn128")), str(tmp_path / "c.zkey")]
    assert main(argv) == 2 and not (tmp_path / "c.zkey").exists()
    assert "needs a ptau of 2^8 here" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["bn128", "bls12381"])
def test_the_hashs_h_points_by_a_backend_are_the_python_oracles(name: str) -> None:
    """H's points of the circuit hash, [τ^(i+n)]₁ − [τ^i]₁, as row_sums rows (the cpu backend's one pass, the
    reference backend's MSMs) are the bytes of the chord formula in Python integers, at every n of the ptau;
    and a difference that is a doubling or the identity comes out right."""
    from cuzk.backends import limbs
    from cuzk.backends.registry import get_backend
    from cuzk.engine import setup_hash

    ptau = read_ptau(ptau_of(name))
    for log_n in range(1, ptau.power):
        oracle = setup_hash.h_hash_points(ptau, 1 << log_n)
        for backend in ("cpu", "reference"):
            assert setup_hash.h_hash_points(ptau, 1 << log_n, get_backend(backend)) == oracle, (backend, log_n)
    curve, cpu = ptau.curve, get_backend("cpu")
    p = curve.g1.generator * 5
    high = limbs.points_to_limbs(curve, "g1", [p, p, -p, curve.g1.identity(), p])
    low = limbs.points_to_limbs(curve, "g1", [-p, p, curve.g1.identity(), p, curve.g1.generator])
    got = limbs.limbs_to_points(curve, "g1", setup_hash.point_differences(cpu, curve, high, low))
    assert got == [p + p, curve.g1.identity(), -p, -p, p - curve.g1.generator]


def test_the_hashs_h_points_as_msm_batch_rows_are_the_python_oracles() -> None:
    """The same through ``msm_batch`` rows, the path of a backend without ROW_SUMS (the opencl backend's)."""
    from cuzk.backends.protocol import MSM_BATCH, ROW_SUMS, has_capability
    from cuzk.backends.registry import get_backend
    from cuzk.engine import setup_hash
    from tests._suite_backends import usable_or_skip

    usable_or_skip("opencl")
    opencl = get_backend("opencl")
    assert has_capability(opencl, MSM_BATCH) and not has_capability(opencl, ROW_SUMS)
    ptau = read_ptau(ptau_of("bn128"))
    for log_n in (1, 3, ptau.power - 1):
        n = 1 << log_n
        count = setup_hash.hashed_count(n)
        high, low = ptau.points(2, n, count).limbs, ptau.points(2, 0, count).limbs
        got = setup_hash.point_differences(opencl, ptau.curve, high, low)
        assert setup_hash.uncompressed(got) == setup_hash.h_hash_points(ptau, n), log_n
