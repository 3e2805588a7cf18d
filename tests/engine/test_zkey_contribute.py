"""Phase-2 contributions without node: ``zkey contribute`` → ``zkey verify`` round trips on both curves from the
committed ceremony (tests/fixtures/ptau), a beacon equal byte for byte to the file snarkjs 0.7.6 wrote from the same
inputs (its sha256 below), snarkjs's own contribution (tests/fixtures/snarkjs) read, re-encoded and its chain
verified, tampered keys rejected with the step named, and a proof made with a contributed key verified.
(tests/interop/test_zkey_ceremony.py runs snarkjs itself on the same files.)"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from cuzk.backends import limbs
from cuzk.cli import main
from cuzk.engine.contribute import BeaconError, beacon, contribute
from cuzk.engine.mpc_rng import ChaCha
from cuzk.engine.zkey_verify import ZKeyMismatchError, check_chain, verify_zkey
from cuzk.formats.binfile import BinFile
from cuzk.formats.errors import FormatError, TruncatedFileError
from cuzk.formats.outputs import OutputPathError
from cuzk.formats.points import PointDecoder, point_bytes
from cuzk.formats.zkey import MAGIC, SECTIONS, read_zkey
from cuzk.formats.zkey_mpc import encode_contribution, encode_mpc_params, read_mpc_params
from cuzk.reference.curves import Point

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CURVES = ("bn128", "bls12381")
BEACON = bytes.fromhex("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20")
# sha256 of `snarkjs zkey beacon circuit_0.zkey out.zkey <BEACON hex> 10 -n="Final Beacon"` (snarkjs 0.7.6)
SNARKJS_BEACON_SHA256 = {
    "bn128": "a94a26f1874eaa53a9fd401ad114859dc65ac4cfc8a7a58b425c28773898aeee",
    "bls12381": "b6de6e49741b9441e322cfba86d5e0f91b2a411b85cc94e6d090e25a75da9082",
}
NOISE = bytes(range(64))  # in place of the OS's bytes: reproducible contributions, for tests only


def inputs(curve: str) -> tuple[Path, Path, Path]:
    """The committed circuit, ceremony and initial key of ``curve``."""
    return (
        FIXTURES / "snarkjs" / curve / "circuit.r1cs",
        FIXTURES / "ptau" / curve / "pot7.ptau",
        FIXTURES / "ptau" / curve / "circuit_0.zkey",
    )


CEREMONIES: dict[str, Path] = {}  # curve → final key, made once per test process (pytest tears a parametrized
# module fixture down whenever the next test wants another parameter, and the tests here alternate curves)


@pytest.fixture(scope="module", params=CURVES)
def ceremony(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """Two contributions and a beacon by cuzk on the committed initial key: (curve, the final key), which the tests
    only read."""
    curve: str = request.param
    if curve not in CEREMONIES:
        folder = tmp_path_factory.mktemp(f"ceremony-{curve}")
        _, _, initial = inputs(curve)
        contribute(initial, folder / "c1.zkey", entropy="first", name="alice", backend="cpu", random_bytes=NOISE)
        contribute(folder / "c1.zkey", folder / "c2.zkey", entropy="second", backend="cpu")
        beacon(folder / "c2.zkey", folder / "final.zkey", b"\xab\xcd", 10, name="beacon", backend="cpu")
        CEREMONIES[curve] = folder / "final.zkey"
    return curve, CEREMONIES[curve]


def test_chacha_is_rfc_8439s_block_function() -> None:
    """Key 0, nonce 0: RFC 8439 A.1's keystream, block 0 then block 1 (words little-endian)."""
    rng = ChaCha([0] * 8)
    words = [rng.next_u32() for _ in range(17)]
    assert words[:2] == [0xADE0B876, 0x903DF1A0] and words[16] == 0xBEE7079F


@pytest.mark.parametrize("curve", CURVES)
def test_beacon_is_snarkjs_byte_for_byte(curve: str, tmp_path: Path) -> None:
    _, _, initial = inputs(curve)
    out = tmp_path / "beacon.zkey"
    done = beacon(initial, out, BEACON, 10, name="Final Beacon", backend="cpu")
    assert done.index == 1
    assert hashlib.sha256(out.read_bytes()).hexdigest() == SNARKJS_BEACON_SHA256[curve]


def test_contributions_verify(ceremony: tuple[str, Path]) -> None:
    curve, final = ceremony
    r1cs, ptau, _ = inputs(curve)
    done = verify_zkey(r1cs, ptau, final, backend="cpu")
    assert [c.name for c in done.contributions] == ["alice", None, "beacon"]
    assert done.contributions[2].record.num_iterations_exp == 10


def test_the_initial_key_verifies() -> None:
    r1cs, ptau, initial = inputs("bn128")
    assert verify_zkey(r1cs, ptau, initial, backend="cpu").contributions == ()


@pytest.mark.parametrize("curve", CURVES)
def test_snarkjs_contribution_reads_back_and_its_chain_holds(curve: str) -> None:
    """circuit_final.zkey has one contribution by snarkjs (its ptau is not committed: the chain alone)."""
    path = FIXTURES / "snarkjs" / curve / "circuit_final.zkey"
    file = BinFile(path, MAGIC, (1, 2), SECTIONS)
    key = read_zkey(path, check_points=False)
    mpc = read_mpc_params(file, key.curve)
    section = file.section(10)
    assert encode_mpc_params(key.curve, mpc) == file.data[section.offset : section.offset + section.size].tobytes()
    assert mpc.contributions[0].name == "cuzk"

    def same_ratio(a1: Point, b1: Point, a2: Point, b2: Point) -> bool:
        return key.curve.pairing_check([(a1, b2), (-b1, a2)])

    assert check_chain(key.curve, mpc, same_ratio, lambda step: AssertionError(step)) == key.delta_g1


def _overwrite(path: Path, section_id: int, offset: int, data: bytes) -> None:
    section = BinFile(path, MAGIC, (1, 2), SECTIONS).section(section_id)
    raw = bytearray(path.read_bytes())
    raw[section.offset + offset : section.offset + offset + len(data)] = data
    path.write_bytes(bytes(raw))


def _encoded(decoder: PointDecoder, point: Point) -> bytes:
    return decoder.encode(limbs.points_to_limbs(decoder.curve, decoder.group, [point])).tobytes()


def tampered_copy(final: Path, folder: Path, what: str) -> Path:
    """A copy of ``final`` with one valid point replaced: an L point, the last contribution's [s·x]₂ or deltaAfter,
    or the header's [δ]₁ and [δ]₂ (both doubled: still consistent with each other)."""
    key = read_zkey(final)
    curve, g1, g2 = key.curve, PointDecoder(key.curve, "g1"), PointDecoder(key.curve, "g2")
    out = folder / f"{what}.zkey"
    out.write_bytes(final.read_bytes())
    s1, s2 = point_bytes(curve, "g1"), point_bytes(curve, "g2")
    mpc = read_mpc_params(BinFile(final, MAGIC, (1, 2), SECTIONS), curve)
    last = 64 + 4 + sum(len(encode_contribution(curve, c)) for c in mpc.contributions[:-1])  # the last one's offset
    if what == "L":
        _overwrite(out, 8, 0, _encoded(g1, key.l_query[0] * 2))
    elif what == "proof":
        _overwrite(out, 10, last + 3 * s1, _encoded(g2, mpc.contributions[-1].g2_spx * 2))
    elif what == "deltaAfter":
        _overwrite(out, 10, last, _encoded(g1, mpc.contributions[-1].delta_after * 2))
    else:
        header = BinFile(out, MAGIC, (1, 2), SECTIONS).section(2).size
        _overwrite(out, 2, header - s1 - s2, _encoded(g1, key.delta_g1 * 2) + _encoded(g2, key.delta_g2 * 2))
    return out


STEPS = {
    "L": "section L does not match δ",
    "proof": "contribution 3: proof of knowledge fails",
    "deltaAfter": "contribution 3: deltaAfter does not follow",
    "delta": "[δ]₁ is not the last contribution's deltaAfter",
}
# every step on bn128; on bls12381 (pure-Python pairings until the cpu backend's are compiled) the bulk one, L
TAMPERING = [("bn128", what) for what in STEPS] + [("bls12381", "L")]


@pytest.mark.parametrize(("ceremony", "what"), TAMPERING, indirect=["ceremony"])
def test_a_tampered_key_fails_at_its_step(ceremony: tuple[str, Path], what: str, tmp_path: Path) -> None:
    curve, final = ceremony
    r1cs, ptau, _ = inputs(curve)
    bad = tampered_copy(final, tmp_path, what)
    with pytest.raises(ZKeyMismatchError) as raised:
        verify_zkey(r1cs, ptau, bad, backend="cpu")
    assert STEPS[what] in raised.value.step
    assert main(["zkey", "verify", str(r1cs), str(ptau), str(bad), "--backend", "cpu"]) == 1


def test_a_proof_with_the_contributed_key_verifies(ceremony: tuple[str, Path], tmp_path: Path) -> None:
    curve, final = ceremony
    wtns = FIXTURES / "snarkjs" / curve / "witness.wtns"
    vk, proof, public = tmp_path / "vk.json", tmp_path / "proof.json", tmp_path / "public.json"
    assert main(["zkey", "export", "verificationkey", str(final), str(vk)]) == 0
    assert main(["groth16", "prove", str(final), str(wtns), str(proof), str(public), "--backend", "cpu"]) == 0
    assert main(["groth16", "verify", str(vk), str(public), str(proof)]) == 0


def test_cli_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r1cs, ptau, initial = inputs("bn128")
    out = tmp_path / "out.zkey"
    assert main(["zkey", "contribute", str(initial), str(out), "-e=text", "-n=bob", "--backend", "cpu"]) == 0
    assert "Contribution Hash:" in capsys.readouterr().out
    assert main(["zkey", "verify", str(r1cs), str(ptau), str(out), "--backend", "cpu"]) == 0
    printed = capsys.readouterr().out
    assert "contribution #1 bob:" in printed and "ZKey Ok!" in printed


def test_outputs_and_bad_inputs_are_refused(tmp_path: Path) -> None:
    _, _, initial = inputs("bn128")
    copy = tmp_path / "in.zkey"
    copy.write_bytes(initial.read_bytes())
    with pytest.raises(OutputPathError):
        contribute(copy, copy, backend="cpu")
    assert copy.read_bytes() == initial.read_bytes()
    truncated = tmp_path / "cut.zkey"
    truncated.write_bytes(initial.read_bytes()[:-100])
    with pytest.raises(TruncatedFileError):
        contribute(truncated, tmp_path / "out.zkey", backend="cpu")
    not_zkey = tmp_path / "not.zkey"
    not_zkey.write_bytes(b"ptau" + bytes(20))
    with pytest.raises(FormatError):
        beacon(not_zkey, tmp_path / "out.zkey", b"\x01", 10, backend="cpu")
    with pytest.raises(BeaconError):
        beacon(copy, tmp_path / "out.zkey", b"\x01", 9, backend="cpu")
    assert not (tmp_path / "out.zkey").exists()
    assert main(["zkey", "beacon", str(copy), str(tmp_path / "out.zkey"), "xyz", "10"]) == 2
