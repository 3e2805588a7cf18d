"""The JSON readers spend memory and time in proportion to what the file can need, whatever it holds: a size
budget read before anything is allocated (also from /dev/zero and pipes), a linear allocation-free nesting scan,
counts checked against the key before any element is converted."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from cuzk.formats import json_bounded, snarkjs_json
from cuzk.formats.errors import FormatError, WitnessMismatchError
from cuzk.formats.json_bounded import InputTooLargeError
from cuzk.reference.curves import BN254, Curve
from cuzk.reference.groth16 import Proof, VerifyingKey

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "snarkjs"


def _proof_json(curve: Curve) -> dict[str, object]:
    g1, g2 = curve.g1.generator, curve.g2.generator
    return snarkjs_json.proof_to_json(Proof(g1 * 3, g2 * 5, g1 * 7))


# --- the budget ------------------------------------------------------------------------------------------------


def test_a_file_of_exactly_the_budget_is_read_and_one_byte_more_is_not(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b" " * 99 + b"1")
    assert json_bounded.read_bounded(str(path), 100, "a test file") == bytearray(b" " * 99 + b"1")
    path.write_bytes(b" " * 100 + b"1")
    with pytest.raises(InputTooLargeError) as caught:
        json_bounded.read_bounded(str(path), 100, "a test file")
    assert str(caught.value) == (
        f"{path}: larger than a test file can need: read 101 bytes, more than the budget of 100 bytes"
    )
    assert isinstance(caught.value, FormatError)


def test_a_20_mb_string_in_proof_json_costs_the_budget_not_the_file(tmp_path: Path) -> None:
    """It cost about 120 times its size (2.5 GB), most of it in the nesting regex, before any field was read."""
    path = tmp_path / "proof.json"
    path.write_text(json.dumps({**_proof_json(BN254), "pi_a": ["x" * 20_000_000, "1", "1"]}))
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(InputTooLargeError, match=r"proof\.json: larger than a proof\.json can need: read 65537"):
            snarkjs_json.read_proof(path)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 4 << 20, f"{peak} bytes at the peak"
    assert time.perf_counter() - started < 5


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this system")
@pytest.mark.parametrize("reader", ["proof", "vk", "public"])
def test_dev_zero(reader: str) -> None:
    """/dev/zero was read until memory ran out: now at most the budget is, in well under a second."""
    started = time.perf_counter()
    with pytest.raises(InputTooLargeError, match=r"^/dev/zero: larger than a .* can need: read \d+ bytes"):
        if reader == "proof":
            snarkjs_json.read_proof("/dev/zero")
        elif reader == "vk":
            snarkjs_json.read_verifying_key("/dev/zero")
        else:
            snarkjs_json.read_public("/dev/zero", BN254, 3)
    assert time.perf_counter() - started < 5


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_an_endless_fifo_is_read_up_to_the_budget(tmp_path: Path) -> None:
    """A FIFO (or a pipe) has no size to trust: a writer that never stops is read up to the budget, then left."""
    fifo = tmp_path / "proof.json"
    os.mkfifo(fifo)

    def write_forever() -> None:
        try:
            with open(fifo, "wb") as sink:
                while True:
                    sink.write(b"[" + b" " * (1 << 16))
        except (BrokenPipeError, OSError):
            pass

    writer = threading.Thread(target=write_forever, daemon=True)
    writer.start()
    with pytest.raises(InputTooLargeError, match=r"proof\.json: larger than a proof\.json can need"):
        snarkjs_json.read_proof(fifo)
    writer.join(timeout=10)
    assert not writer.is_alive()


def test_the_budgets_hold_what_snarkjs_writes(curve: Curve, tmp_path: Path) -> None:
    """Every file snarkjs wrote for the fixtures, and cuzk's own for many signals, fit their budgets; one more
    signal than the key has does not fit a public.json padded to the budget."""
    for folder in ("bn128", "bls12381"):
        assert (FIXTURES / folder / "proof.json").stat().st_size * 16 < snarkjs_json.PROOF_BUDGET
        assert (FIXTURES / folder / "public.json").stat().st_size <= snarkjs_json.public_budget(3)
        assert (FIXTURES / folder / "verification_key.json").stat().st_size <= snarkjs_json.VK_BUDGET
    for n in (0, 1, 5_000):
        snarkjs_json.write_public(tmp_path / "public.json", [curve.r - 1] * n)
        size = (tmp_path / "public.json").stat().st_size
        assert size <= snarkjs_json.public_budget(n) - snarkjs_json.SLACK + 2
    g1 = curve.g1.generator
    point = json.dumps(snarkjs_json.point_to_json(g1 * (curve.r - 1)), indent=1)
    assert len(point) + point.count("\n") * 2 + 4 <= snarkjs_json.IC_POINT_BYTES  # as nested in "IC"
    assert snarkjs_json.public_budget(3) == snarkjs_json.SLACK + 3 * snarkjs_json.SIGNAL_BYTES


def test_public_json_is_counted_before_any_signal_is_converted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """["1","1",…] was converted element by element before its length was compared with the key's (minutes for
    200 MB). The commas are counted on the raw bytes: 5 MB of it, within the budget of a key of 100000 signals,
    is refused in a fraction of a second, no signal converted."""
    path = tmp_path / "public.json"
    path.write_bytes(b"[" + b'"1",' * 1_250_000 + b'"1"]')
    converted: list[object] = []
    number = snarkjs_json._number
    monkeypatch.setattr(snarkjs_json, "_number", lambda value, *args: converted.append(value) or number(value, *args))
    started = time.perf_counter()
    with pytest.raises(
        WitnessMismatchError, match=r"public\.json: has 1250001 public signals, but the key expects 100000"
    ):
        snarkjs_json.read_public(path, BN254, 100_000)
    assert converted == [] and time.perf_counter() - started < 3
    with pytest.raises(InputTooLargeError, match=r"larger than a public\.json of 3 signals can need"):
        snarkjs_json.read_public(path, BN254, 3)  # against a key of 3, the budget is a few KiB: refused at once
    assert converted == []


@pytest.mark.parametrize(("content", "n"), [("[]", 1), ('["1"]', 0), ('["1", "2"]', 1), ('["1", "2"]', 3)])
def test_the_count_against_the_key(tmp_path: Path, content: str, n: int) -> None:
    (tmp_path / "public.json").write_text(content)
    with pytest.raises(WitnessMismatchError, match=rf"has \d public signals, but the key expects {n} \(nPublic\)"):
        snarkjs_json.read_public(tmp_path / "public.json", BN254, n)


def test_the_count_is_right_when_signals_hold_commas_or_brackets(tmp_path: Path) -> None:
    """Only commas between the top-level elements count: one inside a string (refused later, for what it is) or in
    a nested list does not."""
    (tmp_path / "public.json").write_text('["1,2", "3"]')
    with pytest.raises(FormatError, match=r"public signal 0: '1,2' is not a decimal number"):
        snarkjs_json.read_public(tmp_path / "public.json", BN254, 2)
    (tmp_path / "public.json").write_text('[["1", "2"], "3"]')
    with pytest.raises(FormatError, match=r"public signal 0: expected a decimal string, got \["):
        snarkjs_json.read_public(tmp_path / "public.json", BN254, 2)
    (tmp_path / "public.json").write_text('[ "0" , "7" ]')
    assert snarkjs_json.read_public(tmp_path / "public.json", BN254, 2) == [0, 7]
    (tmp_path / "public.json").write_text(" [ ] ")
    assert snarkjs_json.read_public(tmp_path / "public.json", BN254, 0) == []


def test_ic_is_counted_before_any_point_is_converted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Checking an IC point costs milliseconds: a key of more public inputs than cuzk reads is refused first."""
    g1, g2 = BN254.g1.generator, BN254.g2.generator
    vk = snarkjs_json.verifying_key_to_json(VerifyingKey(BN254, g1, g2, g2, g2, [g1] * 4))
    (tmp_path / "vk.json").write_text(json.dumps(vk))
    monkeypatch.setattr(snarkjs_json, "MAX_PUBLIC", 2)
    monkeypatch.setattr(snarkjs_json, "point_from_json", lambda *args: pytest.fail("a point was converted"))
    with pytest.raises(FormatError, match=r'vk\.json: "nPublic" is 3, more than the 2 public inputs cuzk reads'):
        snarkjs_json.read_verifying_key(tmp_path / "vk.json")


# --- as strict as JSON.parse, and stricter about numbers ---------------------------------------------------------


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(tmp_path: Path, constant: str) -> None:
    """json.loads read them (as float('nan') …); snarkjs's JSON.parse refuses them, in any field."""
    g1, g2 = BN254.g1.generator, BN254.g2.generator
    vk = snarkjs_json.verifying_key_to_json(VerifyingKey(BN254, g1, g2, g2, g2, [g1, g1]))
    vk["vk_alphabeta_12"][0][0][0] = "@"
    (tmp_path / "vk.json").write_text(json.dumps(vk).replace('"@"', constant))
    with pytest.raises(FormatError, match=rf"vk\.json: not valid JSON: {constant} is not a JSON value"):
        snarkjs_json.read_verifying_key(tmp_path / "vk.json")
    (tmp_path / "public.json").write_text(f'["1", {constant}]')
    with pytest.raises(FormatError, match=rf"public\.json: not valid JSON: {constant} is not a JSON value"):
        snarkjs_json.read_public(tmp_path / "public.json", BN254)


@pytest.mark.parametrize("number", ["1", "7", "2389156641", "1.0", "1e0", "-0"])
def test_json_numbers_are_not_decimal_strings(tmp_path: Path, curve: Curve, number: str) -> None:
    """An unquoted integer was read (snarkjs reads one through a double: exact below 2^53 only)."""
    proof = _proof_json(curve)
    proof["pi_a"][2] = "@"
    (tmp_path / "proof.json").write_text(json.dumps(proof).replace('"@"', number))
    with pytest.raises(FormatError, match=r"pi_a: expected a decimal string, got .* \(a JSON number"):
        snarkjs_json.read_proof(tmp_path / "proof.json")
    (tmp_path / "public.json").write_text(f'["5", {number}]')
    with pytest.raises(FormatError, match=r"public signal 1: expected a decimal string, got .* \(a JSON number"):
        snarkjs_json.read_public(tmp_path / "public.json", curve, 2)


def test_a_json_number_too_long_to_convert_is_refused_before_int(tmp_path: Path) -> None:
    """Even with Python's own limit lifted (sys.set_int_max_str_digits(0)), a long JSON integer is not converted."""
    if not hasattr(sys, "set_int_max_str_digits"):
        pytest.skip("Python has no int() digit limit to lift")
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        (tmp_path / "public.json").write_text("[" + "7" * 1_000_000 + "]")
        started = time.perf_counter()
        with pytest.raises(FormatError, match=r"not valid JSON: Exceeds the limit \(4300 digits\) .* 1000000 digits"):
            snarkjs_json.read_public(tmp_path / "public.json", BN254)
        assert time.perf_counter() - started < 2
    finally:
        sys.set_int_max_str_digits(previous)


def test_a_byte_order_mark_is_not_json(tmp_path: Path) -> None:
    (tmp_path / "public.json").write_bytes(b'\xef\xbb\xbf["1"]')
    with pytest.raises(FormatError, match="not valid JSON: it starts with a UTF-8 byte order mark"):
        snarkjs_json.read_public(tmp_path / "public.json", BN254)
    (tmp_path / "public.json").write_bytes(b'["1", "\xff"]')
    with pytest.raises(FormatError, match=r"not valid JSON: not UTF-8 text \(invalid start byte at byte 7\)"):
        snarkjs_json.read_public(tmp_path / "public.json", BN254)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('["1",]', "Expecting value: line 1 column 6"),
        ('["1" "2"]', "Expecting ',' delimiter: line 1 column 6"),
        ('["1"] x', "Extra data: line 1 column 7"),
        ('["1"', "Expecting ',' delimiter: line 1 column 5"),
        ("[", "Expecting value: line 1 column 2"),
        ("", "Expecting value: line 1 column 1"),
    ],
)
def test_public_json_is_parsed_as_json_parses_it(tmp_path: Path, content: str, message: str) -> None:
    """public.json is walked one element at a time (so that each is converted as it is read): the walk refuses
    what json's parser refuses, with its messages."""
    (tmp_path / "public.json").write_text(content)
    with pytest.raises(FormatError, match=rf"not valid JSON: {message}"):
        snarkjs_json.read_public(tmp_path / "public.json", BN254)


# --- the nesting scan ------------------------------------------------------------------------------------------


def _reference_scan(text: str) -> tuple[int, int]:
    """Depth and top-level commas, a character at a time: a quote ends a string unless an odd run of backslashes
    precedes it."""
    level = deepest = commas = backslashes = 0
    in_string = False
    for ch in text:
        if ch == '"' and backslashes % 2 == 0:
            in_string = not in_string
        elif not in_string and ch in "[{":
            level += 1
            deepest = max(deepest, level)
        elif not in_string and ch in "]}":
            level -= 1
        elif not in_string and ch == "," and level == 1:
            commas += 1
        backslashes = backslashes + 1 if ch == "\\" else 0
    return deepest, commas


@pytest.mark.parametrize("block", [1, 2, 3, 7, 1 << 18])
def test_the_scan_matches_a_character_by_character_reading(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    """Random texts of brackets, quotes, backslashes and commas, scanned in blocks of ``block`` bytes: what is
    carried from block to block (an open string, a run of backslashes, the level) is carried right."""
    monkeypatch.setattr(json_bounded, "_SCAN_BLOCK", block)
    rng = random.Random(block)
    for _ in range(1500):
        text = "".join(rng.choice('[]{}",\\\\a ') for _ in range(rng.randrange(40)))
        found = json_bounded.scan(text.encode())
        assert (found.depth, found.top_level_commas) == _reference_scan(text), text


def _depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


def _random_json(rng: random.Random, levels: int) -> object:
    if levels == 0 or rng.random() < 0.3:
        return rng.choice(["", '"', "\\", '\\"', "[[{", "]}]", ",", 'a"b\\', 5, None, True])
    if rng.random() < 0.5:
        return [_random_json(rng, levels - 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["[", "]", '"', "k", "\\"]): _random_json(rng, levels - 1) for _ in range(rng.randrange(4))}


@pytest.mark.parametrize("block", [1, 5, 1 << 18])
def test_the_scan_finds_the_depth_json_parses(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    """On valid JSON whose strings hold brackets, quotes and backslashes: the depth of the value json reads."""
    monkeypatch.setattr(json_bounded, "_SCAN_BLOCK", block)
    rng = random.Random(block)
    for _ in range(400):
        value = _random_json(rng, 6)
        text = json.dumps(value, indent=rng.choice([None, 1]))
        structure = json_bounded.scan(text.encode())
        assert structure.depth == _depth(value), text
        if isinstance(value, list):
            assert structure.top_level_commas == max(len(value) - 1, 0), text
    assert json_bounded.nesting_depth('["[[[[", {"a": "]]\\"[["}, [[]]]') == 3


@pytest.mark.parametrize("levels", [65, 1_000_000])
def test_deep_nesting_is_refused_without_recursion(tmp_path: Path, levels: int) -> None:
    """A million levels in a 2 MB verification_key.json: refused by the scan, before json's parser recurses."""
    (tmp_path / "vk.json").write_text("[" * levels + "]" * levels)
    started = time.perf_counter()
    with pytest.raises(FormatError, match=rf"vk\.json: arrays or objects nest {levels} levels deep, more than the 64"):
        snarkjs_json.read_verifying_key(tmp_path / "vk.json")
    assert time.perf_counter() - started < 3


# --- peak memory, measured in a process of its own -----------------------------------------------------------------

_MEASURE = """
import sys, time
from cuzk.formats import snarkjs_json
from cuzk.reference.curves import BN254

def status(key):
    with open("/proc/self/status") as lines:
        return next(int(line.split()[1]) for line in lines if line.startswith(key + ":"))

path, n = sys.argv[1], int(sys.argv[2])
before = status("VmRSS")
started = time.perf_counter()
try:
    result = len(snarkjs_json.read_public(path, BN254, n))
except snarkjs_json.FormatError as exc:
    result = str(exc)[-80:]
seconds = time.perf_counter() - started
print(status("VmHWM") - before, seconds, result, sep="|")
"""


def _measure(path: Path, n: int) -> tuple[int, float, str]:
    """(growth of the peak resident set in bytes, seconds, signals read or the error) of read_public in a fresh
    process: its peak (VmHWM) less its resident set before reading (VmRSS). Not getrusage's ru_maxrss: Linux
    carries it over a fork and exec, so a child of a large parent (pytest) would start at the parent's peak."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path), str(n)], capture_output=True, text=True, timeout=300, check=True
    )
    grown, seconds, result = done.stdout.strip().split("|", 2)
    return int(grown) << 10, float(seconds), result


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc/self/status (VmHWM)")
def test_peak_memory_of_a_large_public_json(tmp_path: Path) -> None:
    """A public.json of 300000 full-size signals (24 MB, as snarkjs writes them) read against a key of as many:
    the peak grows by at most twice the file plus 64 MiB (the bytes and the text while decoding; then the text
    and the ints, which cost less than their digits). A file of the same size of "1"s is refused by the count,
    with less."""
    n = 300_000
    legit = tmp_path / "public.json"
    snarkjs_json.write_public(legit, [BN254.r - 1 - i for i in range(n)])
    size = legit.stat().st_size
    grown, seconds, result = _measure(legit, n)
    assert result == str(n)
    assert size < grown <= 2 * size + (64 << 20), f"{grown / 2**20:.0f} MiB for {size / 2**20:.0f} MiB"
    ones = tmp_path / "ones.json"
    ones.write_bytes(b"[" + b'"1",' * (size // 4 - 1) + b'"1"]')
    grown, seconds, result = _measure(ones, n)
    assert "public signals, but the key expects 300000" in result
    assert grown <= 2 * size + (64 << 20) and seconds < 5, (grown, seconds)
