"""The bugs the fuzzing found, one test each (each failed before its fix): an untyped exception, a wrong reading
accepted, or a message that does not say what and where."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from cuzk.formats import snarkjs_json
from cuzk.formats.errors import FormatError, ValueOutOfRangeError
from cuzk.formats.r1cs import read_r1cs, read_sym
from cuzk.formats.wtns import read_wtns, write_wtns
from cuzk.formats.zkey import read_zkey
from cuzk.formats.zkey_write import write_zkey
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.encoding import decode_fq, decode_fq2, decode_point, decode_scalar
from cuzk.reference.errors import EncodingError
from cuzk.reference.groth16 import VerifyingKey

from ._mutations import Container
from ._targets import cheap_zkey, write_cubic

# --- snarkjs JSON ----------------------------------------------------------------------------------------------


def _public(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "public.json"
    path.write_text(text)
    return path


def test_json_integer_of_more_than_4300_digits(tmp_path: Path) -> None:
    """json.load raised ValueError (Python's limit on int() of long digit strings), not a FormatError."""
    with pytest.raises(FormatError, match=r"public\.json: not valid JSON: Exceeds the limit"):
        snarkjs_json.read_public(_public(tmp_path, "[" + "7" * 5000 + "]"), BN254)


@pytest.mark.parametrize("depth", [65, 5_000, 100_000])
def test_json_nested_deeper_than_the_recursion_limit(tmp_path: Path, depth: int) -> None:
    """json.load raised RecursionError; and with the recursion limit raised (py_ecc sets 100000 on import), 100000
    levels overflowed the C stack: a segmentation fault. The depth is now measured before parsing."""
    with pytest.raises(FormatError, match=rf"public\.json: arrays or objects nest {depth} levels deep, more than"):
        snarkjs_json.read_public(_public(tmp_path, "[" * depth + "]" * depth), BN254)
    with pytest.raises(FormatError, match=r"nest 70 levels deep"):  # brackets in strings do not count
        snarkjs_json.read_public(_public(tmp_path, "[" * 70 + '"[[[]]"' + "]" * 70), BN254)
    assert snarkjs_json.nesting_depth('["[[[[", {"a": "]]\\"[["}, [[]]]') == 3


def test_deep_json_with_the_recursion_limit_raised(tmp_path: Path) -> None:
    """As py_ecc leaves it: json's C parser overflowed the C stack (the process died with SIGSEGV)."""
    path = _public(tmp_path, "[" * 100_000 + "]" * 100_000)
    code = (
        "import sys; sys.setrecursionlimit(100_000)\n"
        "from cuzk.formats import snarkjs_json\n"
        "from cuzk.reference.curves import BN254\n"
        "try:\n"
        f"    snarkjs_json.read_public({str(path)!r}, BN254)\n"
        "except snarkjs_json.FormatError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"exit status {done.returncode}: {done.stderr[-500:]}"
    assert "arrays or objects nest 100000 levels deep" in done.stdout


@pytest.mark.parametrize("text", ["1_0", " 5", "5\n", "+4", "\u0663", "\uff11"])
def test_numbers_python_reads_but_snarkjs_does_not(tmp_path: Path, text: str) -> None:
    """int() accepted "1_0" (10), " 5", "+4" and Unicode digits; a public signal is ASCII digits only."""
    with pytest.raises(FormatError, match=r"public signal 0: .* is not a decimal number"):
        snarkjs_json.read_public(_public(tmp_path, json.dumps([text])), BN254)


def test_leading_zeros_are_read(tmp_path: Path) -> None:
    """ffjavascript reads them (/^[0-9]+$/, then BigInt): so does cuzk, whatever their number."""
    assert snarkjs_json.read_public(_public(tmp_path, json.dumps(["0" * 5000 + "42", "000"])), BN254) == [42, 0]


def test_a_5000_digit_string_is_out_of_range_in_a_short_message(tmp_path: Path) -> None:
    """int() of it raised ValueError (4300-digit limit) inside the FormatError path; a message quoted it all."""
    with pytest.raises(ValueOutOfRangeError) as caught:
        snarkjs_json.read_public(_public(tmp_path, json.dumps(["9" * 5000])), BN254)
    assert "public signal 0: a number of 5000 digits is not in [0, " in str(caught.value)
    assert len(str(caught.value)) < 300


def test_messages_quote_garbage_briefly(tmp_path: Path) -> None:
    """The protocol (or a coordinate) was quoted whole: a megabyte of garbage made a megabyte of message."""
    path = tmp_path / "proof.json"
    path.write_text(json.dumps({"protocol": "x" * 60_000, "curve": "bn128"}))  # within proof.json's budget
    with pytest.raises(FormatError, match=r"the protocol is 'xxxx+…, not \"groth16\"$") as caught:
        snarkjs_json.read_proof(path)
    assert len(str(caught.value)) < 200 + len(str(path))


def test_npublic_must_be_an_integer(tmp_path: Path) -> None:
    """True == 1 and 1.0 == 1 in Python: "nPublic": true passed the check against len(IC) − 1."""
    g1, g2 = BN254.g1.generator, BN254.g2.generator
    good = snarkjs_json.verifying_key_to_json(VerifyingKey(BN254, g1, g2, g2, g2, [g1, g1]))
    for wrong in (True, 1.0, "1"):
        (tmp_path / "vk.json").write_text(json.dumps({**good, "nPublic": wrong}))
        with pytest.raises(FormatError, match=r'"nPublic" must be an integer, got '):
            snarkjs_json.read_verifying_key(tmp_path / "vk.json")


def test_a_curve_that_is_not_a_name(tmp_path: Path) -> None:
    """ "curve": 5 was reported as a missing field."""
    (tmp_path / "proof.json").write_text(json.dumps({"protocol": "groth16", "curve": 5}))
    with pytest.raises(FormatError, match=r'the "curve" field is 5, not a name'):
        snarkjs_json.read_proof(tmp_path / "proof.json")


# --- circom's files --------------------------------------------------------------------------------------------


@pytest.fixture
def cubic_files(curve: Curve, tmp_path: Path) -> tuple[Path, Path]:
    r1cs, wtns = tmp_path / "c.r1cs", tmp_path / "c.wtns"
    write_cubic(curve, r1cs, wtns)
    return r1cs, wtns


def _with_header_field(path: Path, offset: int, value: bytes) -> Path:
    """A copy of ``path`` with bytes of section 1 (the header) at ``offset`` replaced."""
    c = Container.parse(path.read_bytes())
    sections = [
        (i, content[:offset] + value + content[offset + len(value) :] if i == 1 else content)
        for i, content in c.sections
    ]
    out = path.with_name("bad" + path.suffix)
    out.write_bytes(Container(c.magic, c.version, tuple(sections)).to_bytes())
    return out


@pytest.mark.parametrize("prime", [0, 2, 1 << 200], ids=["zero", "even", "power-of-two"])
def test_r1cs_prime_must_be_odd(cubic_files: tuple[Path, Path], prime: int) -> None:
    """The .r1cs reader took any prime (the .wtns reader did check): a prime of 0 made check_witness divide by 0."""
    bad = _with_header_field(cubic_files[0], 4, prime.to_bytes(32, "little"))
    with pytest.raises(FormatError, match=rf"section 1 \(header\), offset 28 .*the prime {prime} is not an odd prime"):
        read_r1cs(bad)


@pytest.mark.parametrize("kind", ["r1cs", "wtns"])
def test_n8_must_be_the_width_of_the_prime(cubic_files: tuple[Path, Path], curve: Curve, kind: str) -> None:
    """A 254-bit prime with n8 = 64 was read as 8-limb values (the engine wants 4); a 190-bit one in n8 = 32 too."""
    path = cubic_files[0] if kind == "r1cs" else cubic_files[1]
    small_prime = (1 << 190) - 1  # odd, 3 words wide, stored in the 32 bytes of the real prime
    bad = _with_header_field(path, 4, small_prime.to_bytes(32, "little"))
    with pytest.raises(FormatError, match=r"offset 24 .*n8 = 32 does not match the prime \d+, whose elements take 24"):
        read_r1cs(bad) if kind == "r1cs" else read_wtns(bad)


def test_wtns_with_n8_64(tmp_path: Path) -> None:
    values = [1, 2, 3]
    header = struct.pack("<I", 64) + BN254.r.to_bytes(64, "little") + struct.pack("<I", len(values))
    body = b"".join(v.to_bytes(64, "little") for v in values)
    from cuzk.formats.binfile import write_binfile

    write_binfile(tmp_path / "w.wtns", b"wtns", 2, [(1, header), (2, body)])
    with pytest.raises(FormatError, match="n8 = 64 does not match the prime"):
        read_wtns(tmp_path / "w.wtns")
    write_wtns(tmp_path / "ok.wtns", BN254.r, values)
    assert read_wtns(tmp_path / "ok.wtns").ints() == values


@pytest.mark.parametrize("reader", [read_r1cs, read_wtns, read_zkey], ids=["r1cs", "wtns", "zkey"])
def test_a_directory(tmp_path: Path, reader) -> None:  # type: ignore[no-untyped-def]
    """numpy's memmap raised IsADirectoryError (an OSError) after os.stat had succeeded."""
    with pytest.raises(FormatError, match=rf"{tmp_path}: cannot open the .* file: Is a directory"):
        reader(tmp_path)


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("1,--5,0,x", "is not 'label,wire,component,name'"),  # lstrip("-") then isdigit() passed; int() raised
        ("1,\u0663,0,x", "is not 'label,wire,component,name'"),  # Unicode digits passed isdigit()
        ("1," + "9" * 5000 + ",0,x", "is not 'label,wire,component,name'"),  # int() of 5000 digits raised
    ],
    ids=["double-minus", "unicode-digit", "5000-digits"],
)
def test_sym_wires(tmp_path: Path, line: str, why: str) -> None:
    (tmp_path / "c.sym").write_text(f"0,0,0,main.one\n{line}\n", encoding="utf-8")
    with pytest.raises(FormatError, match=f"line 2 {why}") as caught:
        read_sym(tmp_path / "c.sym")
    assert len(str(caught.value)) < 200 + len(str(tmp_path))


def test_sym_not_utf8(tmp_path: Path) -> None:
    """The text-mode read raised UnicodeDecodeError."""
    (tmp_path / "c.sym").write_bytes(b"0,0,0,main.one\n1,1,0,main.\xff\n")
    with pytest.raises(FormatError, match=r"c\.sym: line 2 is not UTF-8 text: invalid start byte at byte 11"):
        read_sym(tmp_path / "c.sym")


def test_zkey_rows_leave_room_for_the_public_signals(tmp_path: Path) -> None:
    """A key whose coefficient rows all lie below nPublic gave num_constraints < 0."""
    r1cs, wtns = tmp_path / "c.r1cs", tmp_path / "c.wtns"
    write_cubic(BN254, r1cs, wtns)
    key = cheap_zkey(read_r1cs(r1cs))
    assert key.num_public >= 1
    c = key.coefficients
    keep = c.constraint < key.num_public
    from cuzk.formats.zkey import Coefficients, ZKey

    low = Coefficients(c.matrix[keep], c.constraint[keep], c.signal[keep], c.stored[keep], c.modulus)
    write_zkey(tmp_path / "low.zkey", ZKey(**{**key.__dict__, "coefficients": low}))
    with pytest.raises(FormatError, match=r"section 4 \(coefficients\), offset \d+ .*the coefficients' last row is 0"):
        read_zkey(tmp_path / "low.zkey")


# --- encodings -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("group", [BN254.g1, BN254.g2, BLS12_381.g1, BLS12_381.g2], ids=lambda g: g.name)
def test_an_int_is_not_bytes(group) -> None:  # type: ignore[no-untyped-def]
    """bytes(64) is 64 zero bytes: decode_point(G1, 64) returned the point at infinity (EIP-196's encoding)."""
    with pytest.raises(EncodingError, match=rf"a {group.name} point: expected bytes, got int"):
        decode_point(group, 64)
    with pytest.raises(EncodingError, match="expected bytes, got str"):
        decode_point(group, "00" * 64)


def test_scalars_and_coordinates_want_bytes() -> None:
    """int.from_bytes took a list of ints; a list with 300 in it raised ValueError."""
    with pytest.raises(EncodingError, match=r"a scalar of bn254\.Fr: expected bytes, got list"):
        decode_scalar(BN254.Fr, [300] * 32)
    with pytest.raises(EncodingError, match="expected bytes, got list"):
        decode_fq(BN254.Fq, [1] * 32)
    with pytest.raises(EncodingError, match="expected bytes, got NoneType"):
        decode_fq2(BN254.Fq2, None)
    assert decode_scalar(BN254.Fr, bytearray(32)).value == 0  # bytes-like is fine
    assert decode_point(BN254.g1, memoryview(bytes(64))).is_identity()
