"""The .zkey reader, writer and setup against the reference: same keys, same proofs, and every corruption caught."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.registry import get_backend
from cuzk.engine.setup import setup_zkey
from cuzk.engine.zkey import ZkeyProver, qap_of_zkey
from cuzk.formats.errors import CurveMismatchError, FormatError, InvalidPointError, TruncatedFileError
from cuzk.formats.montgomery import MontgomeryField
from cuzk.formats.r1cs import read_r1cs
from cuzk.formats.zkey import read_zkey
from cuzk.formats.zkey_write import write_zkey
from cuzk.reference.curves import BN254
from cuzk.reference.groth16 import create_proof, generate_parameters_with_toxic_waste, verify
from cuzk.reference.groth16.prover import qap_evaluations as reference_qap_evaluations
from cuzk.reference.qap import Reduction

from .._suite_backends import usable_or_skip

TOXIC_VALUES = {"tau": 123456789, "alpha": 11, "beta": 13, "gamma": 17, "delta": 19}


def test_header(small, small_zkey) -> None:  # type: ignore[no-untyped-def]
    cs = small.cs
    assert small_zkey.curve is small.curve
    assert (small_zkey.num_variables, small_zkey.num_public) == (cs.num_inputs + cs.num_aux, cs.num_inputs - 1)
    assert small_zkey.num_constraints == cs.num_constraints
    assert small_zkey.domain_size == 16
    assert len(small_zkey.l_query) == cs.num_aux
    assert len(small_zkey.coefficients) == sum(len(r) for r in cs.matrices().a + cs.matrices().b) + cs.num_inputs


def test_write_read_round_trip(small, small_zkey, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write_zkey(tmp_path / "again.zkey", small_zkey)
    assert (tmp_path / "again.zkey").read_bytes() == small.zkey.read_bytes()


def test_setup_is_the_reference_setup_on_bn254(small_circuits) -> None:  # type: ignore[no-untyped-def]
    """On BN254 snarkjs's domain order is the reference's, so the key is the reference generator's, point for point."""
    from cuzk.reference.groth16 import ToxicWaste

    small = small_circuits["bn254"]
    pk = read_zkey(small.zkey).proving_key()
    expected = generate_parameters_with_toxic_waste(
        small.cs, BN254, ToxicWaste(**TOXIC_VALUES), reduction=Reduction.CIRCOM
    )
    for name in ("a_query", "b_g1_query", "b_g2_query", "h_query", "l_query"):
        assert list(getattr(pk, name)) == getattr(expected, name), name
    assert pk.vk == expected.vk
    assert (pk.beta_g1, pk.delta_g1) == (expected.beta_g1, expected.delta_g1)


@pytest.mark.parametrize("host", ["cpu", "reference"])
@pytest.mark.parametrize("name", ["bn254", "bls12_381"])
def test_qap_evaluations_are_the_reference_ones(small_circuits, name: str, host: str) -> None:  # type: ignore[no-untyped-def]
    """Row by row (constraints, then inputs, then padding) the key's evaluations are the reference's, on every host
    backend; they come in the reference's domain order, where snarkjs's row i is the domain point k·i mod n (a
    permutation on BLS12-381, the identity on BN254), and are read back in snarkjs's order here."""
    from cuzk.formats.domain import row_positions
    from cuzk.formats.wtns import read_wtns

    small = small_circuits[name]
    zkey = read_zkey(small.zkey)
    positions = row_positions(zkey.curve.Fr, zkey.domain_size)
    evaluations = qap_of_zkey(zkey, get_backend(host)).evaluate(read_wtns(small.wtns).values)
    a, b, c = (limbs.limbs_to_ints(v[positions]) for v in evaluations)
    assert bool((positions == np.arange(zkey.domain_size)).all()) is (zkey.curve is BN254)
    ra, rb, rc = reference_qap_evaluations(small.cs)
    assert a == [x.value for x in ra]
    assert b == [x.value for x in rb]
    assert c == [x.value for x in rc]  # A∘B is C where the witness is satisfied, and 0 = 0·0 on the padding


@pytest.mark.parametrize("name", ["bn254", "bls12_381"])
def test_proof_equals_the_reference_proof(small_circuits, name: str) -> None:  # type: ignore[no-untyped-def]
    """For fixed r, s the engine's proof from the .zkey is the reference prover's from the same key, bit for bit."""
    small = small_circuits[name]
    zkey = read_zkey(small.zkey)
    from cuzk.formats.wtns import read_wtns

    result = ZkeyProver(zkey, "reference").prove_witness(read_wtns(small.wtns), r=5, s=7)
    pk = zkey.proving_key()
    if small.curve is BN254:
        assert result.proof == create_proof(pk, small.cs, r=5, s=7)
    assert verify(zkey.verifying_key(), result.public_signals, result.proof)
    assert result.public_signals == [small.cs.input_assignment[1].value]


@pytest.mark.parametrize("device", ["opencl", "cuda"])
@pytest.mark.parametrize("name", ["bn254", "bls12_381"])
def test_witness_side_on_the_device(small_circuits, name: str, device: str) -> None:  # type: ignore[no-untyped-def]
    """On a device with SPARSE, a .zkey's A·z, B·z and C = A∘B are made on the device from z uploaded once and stay
    there (kept, never read back) for compute_h and the MSMs: the proof is the reference backend's, bit for bit."""
    from cuzk.backends.protocol import KeptScalars
    from cuzk.formats.wtns import read_wtns

    usable_or_skip(device)
    small = small_circuits[name]
    zkey, witness = read_zkey(small.zkey), read_wtns(small.wtns)
    prover = ZkeyProver(zkey, device)
    assert prover.key_qap.backend is prover.backend
    assignment = prover.assign(witness.values, prover.key_qap)
    assert assignment.abc_kept is not None and all(isinstance(v, KeptScalars) for v in assignment.abc_kept)
    got = prover.prove_witness(witness, r=5, s=7)
    expected = ZkeyProver(zkey, "reference").prove_witness(witness, r=5, s=7)
    assert got.proof == expected.proof
    assert got.public_signals == expected.public_signals


def test_curve_asked_for(small_circuits) -> None:  # type: ignore[no-untyped-def]
    assert read_zkey(small_circuits["bn254"].zkey, "bn128").curve is BN254
    with pytest.raises(
        CurveMismatchError, match=r"cubic.zkey: section 2 .*the key is for bls12_381 .bls12381., not for bn254"
    ):
        read_zkey(small_circuits["bls12_381"].zkey, BN254)


@pytest.mark.parametrize("cut", [0, 11, 30, 200, -1])
def test_truncated(small, tmp_path: Path, cut: int) -> None:  # type: ignore[no-untyped-def]
    data = small.zkey.read_bytes()
    path = tmp_path / "cut.zkey"
    path.write_bytes(data[: cut if cut >= 0 else len(data) - 1])
    with pytest.raises(TruncatedFileError, match=r"cut\.zkey"):
        read_zkey(path)


def test_wrong_magic_and_version(small, small_witness, rewrite, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(FormatError, match=r"cubic.wtns: offset 0 .*not a \.zkey file"):
        read_zkey(small.wtns)
    with pytest.raises(FormatError, match="version 9"):
        read_zkey(rewrite(small.zkey, tmp_path / "v9.zkey", version=9))


def test_plonk_key_refused(small, rewrite, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(FormatError, match=r"section 1 \(protocol\).*the key is for PLONK; cuzk proves Groth16 only"):
        read_zkey(rewrite(small.zkey, tmp_path / "plonk.zkey", {1: struct.pack("<I", 2)}))


def test_unknown_prime(small, rewrite, section, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    header = section(small.zkey, 2)
    header[4] ^= 0x02  # q + 2
    with pytest.raises(CurveMismatchError, match=r"section 2 \(Groth16 header\), offset .*unknown base field prime q"):
        read_zkey(rewrite(small.zkey, tmp_path / "q.zkey", {2: bytes(header)}))


def test_scalar_field_must_match(small, rewrite, section, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    header = section(small.zkey, 2)
    n8q = 8 * limbs.limb_count(small.curve.q)
    header[4 + n8q + 4] ^= 0x01
    with pytest.raises(CurveMismatchError, match="the scalar field is not"):
        read_zkey(rewrite(small.zkey, tmp_path / "r.zkey", {2: bytes(header)}))


def _flip_point(content: bytearray, index: int, point_bytes: int) -> bytearray:
    content[index * point_bytes] ^= 0x01  # x changes: the point leaves the curve (y² = x³ + b no longer holds)
    return content


@pytest.mark.parametrize("where", ["read", "stored", "cpu", "opencl", "cuda"])
@pytest.mark.parametrize(
    ("section_id", "group", "name"), [(5, "g1", "A points"), (7, "g2", "B2 points"), (9, "g1", "H points")]
)
def test_point_off_the_curve(
    small, rewrite, section, tmp_path: Path, section_id: int, group: str, name: str, where: str
) -> None:  # type: ignore[no-untyped-def]
    """The same error wherever the point is checked: when the key is read, when a section left as stored is first
    decoded, or on a device that takes the stored words as they are (STORED_BASES) while the prover is made."""
    from cuzk.formats.points import point_bytes

    size = point_bytes(small.curve, group)
    content = section(small.zkey, section_id)
    index = next(i for i in range(len(content) // size) if any(content[i * size : (i + 1) * size]))
    path = rewrite(small.zkey, tmp_path / "off.zkey", {section_id: bytes(_flip_point(content, index, size))})
    attribute = {5: "a_query", 7: "b_g2_query", 9: "h_query"}[section_id]
    with pytest.raises(
        InvalidPointError,
        match=rf"off.zkey: section {section_id} \({name}\), offset \d+ .*point {index}: the point is not on",
    ):
        if where == "read":
            read_zkey(path)
        elif where == "stored":
            _ = getattr(read_zkey(path, stored=True), attribute).limbs
        else:
            usable_or_skip(where)
            ZkeyProver(read_zkey(path, stored=True), where, key_checked=True)
    assert len(read_zkey(path, check_points=False).a_query) > 0  # the bulk checks can be skipped


def test_header_point_off_the_curve(small, rewrite, section, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    header = section(small.zkey, 2)
    n8q, n8r = 8 * limbs.limb_count(small.curve.q), 8 * limbs.limb_count(small.curve.r)
    start = 4 + n8q + 4 + n8r + 12
    header[start] ^= 0x01
    with pytest.raises(InvalidPointError, match=r"\[α\]₁: the point is not on"):
        read_zkey(rewrite(small.zkey, tmp_path / "alpha.zkey", {2: bytes(header)}))


def test_coordinate_not_reduced(small, rewrite, section, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    n8q = 8 * limbs.limb_count(small.curve.q)
    content = section(small.zkey, 3)
    content[:n8q] = small.curve.q.to_bytes(n8q, "little")
    with pytest.raises(InvalidPointError, match=r"section 3 \(IC\), offset \d+ .*point 0: a coordinate is not reduced"):
        read_zkey(rewrite(small.zkey, tmp_path / "q.zkey", {3: bytes(content)}))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (0, 2, "the matrix is not 0"),
        (1, 1 << 20, "the constraint .row. is not below"),
        (2, 999, "the signal is not below"),
    ],
)
def test_bad_coefficient(small, rewrite, section, tmp_path: Path, field: int, value: int, message: str) -> None:  # type: ignore[no-untyped-def]
    content = section(small.zkey, 4)
    record = 12 + 8 * limbs.limb_count(small.curve.r)
    content[4 + record + 4 * field : 4 + record + 4 * field + 4] = struct.pack("<I", value)
    with pytest.raises(
        FormatError,
        match=rf"section 4 \(coefficients\), offset {small_offset(small, 4) + 4 + record}.*coefficient 1: {message}",
    ):
        read_zkey(rewrite(small.zkey, tmp_path / "coef.zkey", {4: bytes(content)}))


def small_offset(small, section_id: int) -> int:  # type: ignore[no-untyped-def]
    from cuzk.formats.binfile import BinFile

    return BinFile(small.zkey, b"zkey", (1,)).section(section_id).offset


def test_coefficient_not_reduced(small, rewrite, section, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = section(small.zkey, 4)
    n8r = 8 * limbs.limb_count(small.curve.r)
    content[4 + 12 : 4 + 12 + n8r] = small.curve.r.to_bytes(n8r, "little")
    with pytest.raises(FormatError, match="coefficient 0: the value is not reduced modulo r"):
        read_zkey(rewrite(small.zkey, tmp_path / "coef.zkey", {4: bytes(content)}))


def test_coefficients_are_stored_times_r_squared(small, small_zkey, section) -> None:  # type: ignore[no-untyped-def]
    """The stored value of each coefficient c is c·R² mod r (snarkjs's "Montgomery of Montgomery")."""
    content = section(small.zkey, 4)
    n8r = 8 * limbs.limb_count(small.curve.r)
    record = 12 + n8r
    r, big_r = small.curve.r, MontgomeryField(small.curve.r, n8r).R
    stored = [int.from_bytes(content[4 + i * record + 12 : 4 + (i + 1) * record], "little") for i in range(3)]
    values = limbs.limbs_to_ints(small_zkey.coefficients.values[:3])
    assert stored == [v * big_r * big_r % r for v in values]


def test_section_size_that_lies(small, rewrite, section, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    content = section(small.zkey, 8)
    with pytest.raises(TruncatedFileError, match=r"section 8 \(C points\).*the points .* needs"):
        read_zkey(rewrite(small.zkey, tmp_path / "short.zkey", {8: bytes(content[:-1])}))
    with pytest.raises(FormatError, match=r"section 8 \(C points\).*unexpected bytes"):
        read_zkey(rewrite(small.zkey, tmp_path / "long.zkey", {8: bytes(content) + b"\x00"}))


def test_domain_too_small(small, rewrite, section, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    header = section(small.zkey, 2)
    n8q, n8r = 8 * limbs.limb_count(small.curve.q), 8 * limbs.limb_count(small.curve.r)
    at = 4 + n8q + 4 + n8r + 8
    header[at : at + 4] = struct.pack("<I", 12)
    with pytest.raises(FormatError, match="domainSize = 12 is not a power of two"):
        read_zkey(rewrite(small.zkey, tmp_path / "n.zkey", {2: bytes(header)}))


def test_point_tables_are_the_canonical_limbs(small_zkey) -> None:  # type: ignore[no-untyped-def]
    table = small_zkey.a_query
    assert table.limbs.dtype == np.uint64 and table.limbs.shape[1:] == limbs.point_shape(small_zkey.curve, "g1")
    assert list(table) == limbs.limbs_to_points(small_zkey.curve, "g1", table.limbs)
    assert all(p.is_on_curve() for p in table)


def test_setup_refuses_a_foreign_field(small, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from cuzk.formats.r1cs import write_r1cs

    write_r1cs(
        tmp_path / "toy.r1cs",
        64513,
        [({0: 1}, {0: 1}, {0: 1})],
        num_wires=1,
        num_outputs=0,
        num_public_inputs=0,
        num_private_inputs=0,
    )
    with pytest.raises(CurveMismatchError, match="64513 is the scalar field of neither"):
        setup_zkey(read_r1cs(tmp_path / "toy.r1cs"))


def test_bad_witness_without_r1cs_is_caught_by_verifying(small_circuits, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from cuzk.engine.zkey import prove_zkey
    from cuzk.formats.wtns import read_wtns, write_wtns
    from cuzk.reference.errors import UnsatisfiedConstraintError

    small = small_circuits["bn254"]
    values = read_wtns(small.wtns).ints()
    values[4] += 1
    write_wtns(tmp_path / "bad.wtns", small.curve.r, values)
    zkey = read_zkey(small.zkey)
    with pytest.raises(
        UnsatisfiedConstraintError, match=r"bad\.wtns: the proof made with .*cubic\.zkey does not verify"
    ):
        prove_zkey(zkey, read_wtns(tmp_path / "bad.wtns"), backend="reference", verify_proof=True)
    with pytest.raises(UnsatisfiedConstraintError, match="does not satisfy constraint 1"):
        prove_zkey(zkey, read_wtns(tmp_path / "bad.wtns"), backend="reference", r1cs=read_r1cs(small.r1cs))


def test_r1cs_of_another_circuit(small_circuits, make_circuit, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from cuzk.engine.zkey import prove_zkey
    from cuzk.formats.wtns import read_wtns
    from cuzk.reference.errors import ProvingKeyError

    small = small_circuits["bn254"]
    make_circuit(BN254, 3, tmp_path / "big.r1cs", tmp_path / "big.wtns")
    with pytest.raises(ProvingKeyError, match=r"big\.r1cs is not the circuit of .*cubic\.zkey"):
        prove_zkey(read_zkey(small.zkey), read_wtns(small.wtns), r1cs=read_r1cs(tmp_path / "big.r1cs"))


def test_one_prover_many_proofs(small_circuits) -> None:  # type: ignore[no-untyped-def]
    from cuzk.formats.wtns import read_wtns

    small = small_circuits["bls12_381"]
    zkey = read_zkey(small.zkey)
    prover = ZkeyProver(zkey, "reference")
    first, second = (prover.prove_witness(read_wtns(small.wtns), r=r, s=r + 1) for r in (3, 4))
    assert first.proof != second.proof
    assert all(verify(zkey.verifying_key(), p.public_signals, p.proof) for p in (first, second))
    assert {"h", "msm_a_g1", "msm_b_g2", "qap_evaluations"} <= set(first.seconds)
