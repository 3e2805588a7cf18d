"""circom's .wtns and .r1cs: read back what the writers write, check witnesses, refuse damaged files."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.formats.errors import FormatError, TruncatedFileError, ValueOutOfRangeError, WitnessMismatchError
from cuzk.formats.r1cs import read_r1cs, read_sym, write_r1cs
from cuzk.formats.wtns import read_wtns, write_wtns
from cuzk.reference.curves import BN254, Curve
from cuzk.reference.errors import NonCanonicalError, UnsatisfiedConstraintError


def test_witness_round_trip(small, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    witness = read_wtns(small.wtns)
    assert witness.prime == small.curve.r
    assert witness.ints() == [v.value for v in small.cs.full_assignment()]
    assert witness.field_elements(small.curve.Fr) == small.cs.full_assignment()
    with pytest.raises(FormatError, match="not over"):
        witness.field_elements(BN254.Fq)


def test_witness_written_from_limbs_and_read_into_the_callers_memory(curve: Curve, tmp_path: Path) -> None:
    """write_wtns of a limb array writes the very bytes it writes for the ints (from the array's own memory); a
    value ≥ r is refused and nothing is written; read_wtns copies the values into the array its ``empty`` gives."""
    ints = [1, curve.r - 1, 2**200 + 7, 0, 12345]
    write_wtns(tmp_path / "ints.wtns", curve.r, ints)
    write_wtns(tmp_path / "limbs.wtns", curve.r, limbs.ints_to_limbs(ints, 4))
    assert (tmp_path / "limbs.wtns").read_bytes() == (tmp_path / "ints.wtns").read_bytes()
    with pytest.raises(NonCanonicalError, match="values"):
        write_wtns(tmp_path / "bad.wtns", curve.r, limbs.ints_to_limbs([1, curve.r], 4))
    assert not (tmp_path / "bad.wtns").exists()
    given: list[np.ndarray] = []

    def empty(shape: tuple[int, ...], dtype: object) -> np.ndarray:
        given.append(np.full(shape, 7, dtype=dtype))
        return given[-1]

    witness = read_wtns(tmp_path / "limbs.wtns", empty=empty)
    assert witness.values is given[0] and witness.ints() == ints


def test_witness_value_not_reduced(curve: Curve, tmp_path: Path) -> None:
    path = tmp_path / "w.wtns"
    write_wtns(path, curve.r, [1, 2, 3])
    data = bytearray(path.read_bytes())
    n8 = 32
    at = len(data) - n8  # the last value
    data[at : at + n8] = curve.r.to_bytes(n8, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(
        ValueOutOfRangeError, match=rf"w.wtns: section 2 \(witness\), offset {at} .*witness value 2 is not reduced"
    ):
        read_wtns(path)


def test_witness_must_start_with_one(tmp_path: Path) -> None:
    write_wtns(tmp_path / "w.wtns", BN254.r, [2, 3])
    with pytest.raises(FormatError, match="witness value 0 must be the constant 1"):
        read_wtns(tmp_path / "w.wtns")


def test_witness_count_that_lies(tmp_path: Path) -> None:
    path = tmp_path / "w.wtns"
    write_wtns(path, BN254.r, [1, 5])
    data = bytearray(path.read_bytes())
    count_at = 12 + 12 + 4 + 32
    data[count_at : count_at + 4] = struct.pack("<I", 1_000_000)
    path.write_bytes(bytes(data))
    with pytest.raises(TruncatedFileError, match=r"the witness values \(1000000 × 32 bytes\) needs 32000000 bytes"):
        read_wtns(path)


def test_r1cs_round_trip(small) -> None:  # type: ignore[no-untyped-def]
    r1cs = read_r1cs(small.r1cs)
    a, b, c = small.cs.matrices()
    assert (r1cs.num_constraints, r1cs.num_wires, r1cs.num_public) == (len(a), 10, 1)
    fr = small.curve.Fr
    assert r1cs.a.matrix(fr, r1cs.num_constraints) == a
    assert r1cs.b.matrix(fr, r1cs.num_constraints) == b
    assert r1cs.c.matrix(fr, r1cs.num_constraints) == c
    r1cs.check_witness(read_wtns(small.wtns))


def test_unsatisfied_constraint_is_named(small, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    values = [v.value for v in small.cs.full_assignment()]
    values[3] += 1  # sym_1 of the first step: x·x = sym_1 fails, and so does sym_1·x = y
    write_wtns(tmp_path / "bad.wtns", small.curve.r, values)
    names = {3: "main.sym_1", 2: "main.x"}
    with pytest.raises(UnsatisfiedConstraintError) as caught:
        read_r1cs(small.r1cs).check_witness(read_wtns(tmp_path / "bad.wtns"), names)
    assert caught.value.index == 0
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'bad.wtns'}: the witness does not satisfy constraint 0 of {small.r1cs}")
    assert "main.x (wire 2), main.sym_1 (wire 3)" in message


def test_witness_of_another_circuit(small, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write_wtns(tmp_path / "short.wtns", small.curve.r, [1, 2])
    with pytest.raises(
        WitnessMismatchError, match=r"short\.wtns: the witness has 2 values, but .*cubic\.r1cs expects 10"
    ):
        read_r1cs(small.r1cs).check_witness(read_wtns(tmp_path / "short.wtns"))


def test_r1cs_wire_out_of_range(tmp_path: Path) -> None:
    write_r1cs(
        tmp_path / "c.r1cs",
        BN254.r,
        [({0: 1}, {5: 1}, {0: 1})],
        num_wires=2,
        num_outputs=0,
        num_public_inputs=0,
        num_private_inputs=1,
    )
    with pytest.raises(FormatError, match=r"section 2 \(constraints\), offset \d+ .*a term of B refers to wire 5"):
        read_r1cs(tmp_path / "c.r1cs")


def write_one_constraint(path: Path) -> None:
    """An .r1cs of one constraint 1·1 = 1 over the constant wire alone (BN254)."""
    write_r1cs(
        path, BN254.r, [({0: 1}, {0: 1}, {0: 1})], num_wires=1, num_outputs=0, num_public_inputs=0, num_private_inputs=0
    )


def test_r1cs_coefficient_not_reduced(tmp_path: Path, rewrite, section) -> None:  # type: ignore[no-untyped-def]
    write_one_constraint(tmp_path / "c.r1cs")
    body = section(tmp_path / "c.r1cs", 2)
    body[8:40] = BN254.r.to_bytes(32, "little")  # A's only coefficient
    with pytest.raises(ValueOutOfRangeError, match="a coefficient of A is not reduced"):
        read_r1cs(rewrite(tmp_path / "c.r1cs", tmp_path / "d.r1cs", {2: bytes(body)}))


def test_r1cs_constraint_count_that_lies(tmp_path: Path, rewrite, section) -> None:  # type: ignore[no-untyped-def]
    write_one_constraint(tmp_path / "c.r1cs")
    header = section(tmp_path / "c.r1cs", 1)
    header[-4:] = struct.pack("<I", 2)
    with pytest.raises(FormatError, match=r"constraint 1 \(A\) runs past the end of the section"):
        read_r1cs(rewrite(tmp_path / "c.r1cs", tmp_path / "d.r1cs", {1: bytes(header)}))
    body = section(tmp_path / "c.r1cs", 2)
    body[0:4] = struct.pack("<I", 99)
    with pytest.raises(FormatError, match="announces 99 terms"):
        read_r1cs(rewrite(tmp_path / "c.r1cs", tmp_path / "e.r1cs", {2: bytes(body)}))


def test_r1cs_custom_gates_refused(tmp_path: Path, rewrite) -> None:  # type: ignore[no-untyped-def]
    write_r1cs(tmp_path / "c.r1cs", BN254.r, [], num_wires=1, num_outputs=0, num_public_inputs=0, num_private_inputs=0)
    path = rewrite(tmp_path / "c.r1cs", tmp_path / "d.r1cs", {})
    data = path.read_bytes()
    gates = struct.pack("<IQ", 4, 8) + struct.pack("<II", 1, 0)
    path.write_bytes(data[:8] + struct.pack("<I", 4) + data[12:] + gates)
    with pytest.raises(FormatError, match="PLONK custom gates"):
        read_r1cs(path)


def test_sym_file(tmp_path: Path) -> None:
    (tmp_path / "c.sym").write_text("1,1,0,main.out\n2,-1,0,main.gone\n3,2,1,main.sub.x\n")
    assert read_sym(tmp_path / "c.sym") == {1: "main.out", 2: "main.sub.x"}
    (tmp_path / "bad.sym").write_text("1;1;0;x\n")
    with pytest.raises(FormatError, match="line 1 is not"):
        read_sym(tmp_path / "bad.sym")
    with pytest.raises(FormatError, match="cannot read"):
        read_sym(tmp_path / "none.sym")


def test_the_word_walk_and_gather_are_the_checked_ones(small) -> None:  # type: ignore[no-untyped-def]
    """The constraint section walked a word at a time (nothing checked on the way) finds the combinations the
    checked walk finds, and gives up (None) on a section whose counts run past its end or leave bytes over; the
    records gathered a row of words per term are the bytes gathered one by one."""
    from cuzk.formats import r1cs_terms
    from cuzk.formats.binfile import BinFile
    from cuzk.formats.r1cs import MAGIC, SECTIONS, VERSION

    file = BinFile(small.r1cs, MAGIC, (VERSION,), SECTIONS)
    section = file.section(2)
    data = file.data[section.offset : section.offset + section.size]
    m, n8 = read_r1cs(small.r1cs).num_constraints, 32
    walked = r1cs_terms._walk(data, n8, m)
    checked = r1cs_terms._combination_starts_checked(file, section, data, n8, m)
    assert walked is not None
    for got, expected in zip(walked, checked, strict=True):
        assert all(np.array_equal(g, e) for g, e in zip(got, expected, strict=True))
    assert r1cs_terms._walk(data[:-4], n8, m) is None and r1cs_terms._walk(data, n8, m - 1) is None
    offsets = checked[0][0][: m // 2]
    by_words = r1cs_terms._records(data, 4 + n8)(offsets)
    assert np.array_equal(by_words, data[offsets[:, None] + np.arange(4 + n8)])
