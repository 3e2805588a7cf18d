"""A tampered .zkey is reported as a bad key — which section, which check — never as a witness that does not satisfy
the circuit (issue 25, item 4); a bad witness still is, and with --r1cs its failing constraint is named.

Each case edits the bytes of a committed snarkjs key (tests/fixtures/snarkjs) and runs ``cuzk groth16 prove`` as a
user would (on the reference backend with the BN254 key, on the cpu backend with the BLS12-381 one): exit status 2
and one line naming the cause. Before the key checks every one of these ended in
"the proof made with KEY does not verify, so the witness does not satisfy the circuit".
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from cuzk.formats.wtns import read_wtns, write_wtns
from cuzk.formats.zkey import read_zkey

from ._zkey_edit import ZkeyBytes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "snarkjs"
CURVES = ("bn128", "bls12381")
WITNESS_BLAME = "does not verify, so the witness does not satisfy the circuit"


@dataclass(frozen=True)
class Case:
    edit: Callable[[ZkeyBytes, Path], None]  # the key's bytes, the fixture folder
    message: str  # a regular expression the one line must match
    r1cs: bool = False  # prove with --r1cs


def _coefficient_where(folder: Path, matrix: int, *, alone: bool) -> int:
    """A circuit coefficient of ``matrix`` (0 = A, 1 = B): with ``alone`` its signal's only term there, else one of
    several, of a private signal not zero in the witness (so that changing it changes the proof)."""
    zkey = read_zkey(folder / "circuit_final.zkey")
    c, values = zkey.coefficients, read_wtns(folder / "witness.wtns").ints()
    terms = np.bincount(c.signal[c.matrix == matrix], minlength=zkey.num_variables)
    for i in np.flatnonzero((c.matrix == matrix) & (c.constraint < zkey.num_constraints)):
        signal = int(c.signal[i])
        if alone and terms[signal] == 1:
            return int(i)
        if not alone and terms[signal] > 1 and values[signal] and signal > zkey.num_public:
            return int(i)
    raise AssertionError("no such coefficient in the fixture")


def _finite_pair(key: ZkeyBytes, section_id: int, count: int) -> tuple[int, int]:
    """Two indices of distinct finite points of a section."""
    content = key.sections[section_id]
    finite = [i for i in range(count) if any(content[key.point(section_id, i)])]
    return finite[1], finite[2]


def _one_more_public(key: ZkeyBytes, folder: Path) -> None:
    """nPublic + 1 with every size consistent: one more IC point, one C (l_query) point fewer."""
    key.set_count(1, key.count(1) + 1)
    key.sections[3] += key.sections[3][key.point(3, 0)]
    del key.sections[8][key.point(8, 0)]


def _zero_coefficient(matrix: int, alone: bool) -> Callable[[ZkeyBytes, Path], None]:
    def edit(key: ZkeyBytes, folder: Path) -> None:
        key.zero(4, key.coefficient_value(_coefficient_where(folder, matrix, alone=alone)))

    return edit


def _copy_coefficient_value(key: ZkeyBytes, folder: Path) -> None:
    i = _coefficient_where(folder, 0, alone=False)
    key.copy(4, key.coefficient_value(i + 1), key.coefficient_value(i))


def _input_row_value(key: ZkeyBytes, folder: Path) -> None:
    """The last public-input row's coefficient (1) becomes the first circuit coefficient's value."""
    key.copy(4, key.coefficient_value(0), key.coefficient_value(key.coefficient_count - 1))


def _swap_points(section_id: int) -> Callable[[ZkeyBytes, Path], None]:
    def edit(key: ZkeyBytes, folder: Path) -> None:
        a, b = _finite_pair(key, section_id, key.count(0))
        key.swap(section_id, key.point(section_id, a), key.point(section_id, b))

    return edit


CASES = {
    "alpha1-infinity": Case(
        lambda k, f: k.zero(2, k.header_point("alpha1")),
        r"bad key: section 2 \(Groth16 header\): \[α\]₁ is the point at infinity",
    ),
    "delta2-infinity": Case(
        lambda k, f: k.zero(2, k.header_point("delta2")),
        r"bad key: section 2 \(Groth16 header\): \[δ\]₂ is the point at infinity",
    ),
    "ic0-infinity": Case(
        lambda k, f: k.zero(3, k.point(3, 0)), r"bad key: section 3 \(IC\): IC point 0 is the point at infinity"
    ),
    "h-infinity": Case(
        lambda k, f: k.zero(9, k.point(9, 5)), r"bad key: section 9 \(H points\): H point 5 is the point at infinity"
    ),
    "npublic-plus-one": Case(
        _one_more_public,
        r"bad key: section 4 \(coefficients\): the public-input rows .*: row 49 holds \d+ terms, not 1",
    ),
    "input-row-coefficient": Case(
        _input_row_value,
        r"bad key: section 4 \(coefficients\): the public-input rows .*: coefficient 244 \(A, row 53, signal 3\) is "
        r"not A = 1·z_3",
    ),
    "zeroed-coefficient": Case(
        _zero_coefficient(0, alone=False),
        r"bad key: section 4 \(coefficients\): coefficient \d+ \(A, row \d+, signal \d+\) is zero",
    ),
    "zeroed-only-term": Case(
        _zero_coefficient(1, alone=True),
        r"bad key: section 6 \(B1 points\): point \d+ is not the point at infinity, but signal \d+ has no non-zero B "
        r"term in section 4",
    ),
    "beta-inconsistent": Case(
        lambda k, f: k.copy(2, k.header_point("gamma2"), k.header_point("beta2")),
        r"bad key: section 2 \(Groth16 header\): \[β\]₁ and \[β\]₂ are not of the same β",
    ),
    "delta-inconsistent": Case(
        lambda k, f: k.copy(2, k.header_point("alpha1"), k.header_point("delta1")),
        r"bad key: section 2 \(Groth16 header\): \[δ\]₁ and \[δ\]₂ are not of the same δ",
    ),
    "b2-swapped": Case(
        _swap_points(7), r"bad key: section 7 \(B2 points\): point \d+ is not the section 6 \(B1 points\) point"
    ),
    "coefficient-changed-r1cs": Case(
        _copy_coefficient_value,
        r"bad key: section 4 \(coefficients\): coefficient \d+ \(A, row \d+, signal \d+\) is not a term of the circuit",
        r1cs=True,
    ),
    "a-swapped-r1cs": Case(
        _swap_points(5), r"bad key: the witness .* satisfies .*circuit\.r1cs .* yet the proof .* does not verify", True
    ),
    # what no check can see without the ceremony's secrets or the .r1cs: the witness is blamed, saying so
    "a-swapped": Case(_swap_points(5), WITNESS_BLAME + r" \(the key passed its consistency checks"),
}


# the backend that proves with each curve's key: every case runs on both, the pure-Python reference on BN254 and
# the cpu backend (what a machine without a GPU picks) on BLS12-381, whose pairings cost the reference ~1.5 s each
BACKENDS = {"bn128": "reference", "bls12381": "cpu"}


def prove(key: Path, witness: Path, folder: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "cuzk.cli", "groth16", "prove", str(key), str(witness)]
    argv += [str(out / "proof.json"), str(out / "public.json"), "--backend", BACKENDS[folder.name], *extra]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)


def _one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize("curve", CURVES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_tampered_key_is_named(name: str, curve: str, tmp_path: Path) -> None:
    case, folder = CASES[name], FIXTURES / curve
    key = ZkeyBytes.load(folder / "circuit_final.zkey")
    case.edit(key, folder)
    bad = key.save(tmp_path / "bad.zkey")
    extra = ("--r1cs", str(folder / "circuit.r1cs")) if case.r1cs else ()
    line = _one_line(prove(bad, folder / "witness.wtns", folder, tmp_path, *extra))
    assert line.startswith(f"cuzk groth16: {bad}: ") or line.startswith(f"cuzk groth16: {folder}"), line
    assert re.search(case.message, line), line
    assert not (tmp_path / "proof.json").exists() and not (tmp_path / "public.json").exists()


@pytest.mark.parametrize("curve", CURVES)
def test_the_untouched_key_proves(curve: str, tmp_path: Path) -> None:
    folder = FIXTURES / curve
    key = ZkeyBytes.load(folder / "circuit_final.zkey").save(tmp_path / "same.zkey")
    assert key.read_bytes() == (folder / "circuit_final.zkey").read_bytes()
    result = prove(key, folder / "witness.wtns", folder, tmp_path)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("curve", CURVES)
def test_a_bad_witness_is_still_the_witness(curve: str, tmp_path: Path) -> None:
    """A good key and a witness that does not satisfy the circuit: blamed on the witness, and with --r1cs the
    failing constraint is named."""
    folder = FIXTURES / curve
    witness = read_wtns(folder / "witness.wtns")
    values = witness.ints()
    values[-1] = (values[-1] + 1) % witness.prime
    bad = tmp_path / "bad.wtns"
    write_wtns(bad, witness.prime, values)
    key = folder / "circuit_final.zkey"
    assert WITNESS_BLAME in _one_line(prove(key, bad, folder, tmp_path))
    line = _one_line(prove(key, bad, folder, tmp_path, "--r1cs", str(folder / "circuit.r1cs")))
    assert "does not satisfy constraint" in line, line
