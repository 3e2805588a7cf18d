"""The readers on real files made by circom and snarkjs, committed in tests/fixtures/snarkjs (see its README.md and
make.sh): no node needed, and no file here was written by cuzk. For each curve: the .r1cs and .wtns agree and the
witness satisfies every constraint, the .zkey is the circuit's and holds verification_key.json's key, snarkjs's proof
verifies with cuzk's verifier (and a tampered public input does not), and cuzk proves with snarkjs's key."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from cuzk.engine.zkey import check_r1cs_matches, prove_zkey
from cuzk.formats import snarkjs_json
from cuzk.formats.errors import CurveMismatchError
from cuzk.formats.r1cs import R1cs, read_r1cs, read_sym
from cuzk.formats.wtns import Witness, read_wtns, write_wtns
from cuzk.formats.zkey import ZKey, read_zkey
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import ProvingKeyError, UnsatisfiedConstraintError
from cuzk.reference.groth16 import Proof, VerifyingKey, verify

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "snarkjs"
CURVES = {"bn128": BN254, "bls12381": BLS12_381}  # snarkjs's names, the fixtures' folders
# circuit.circom with --O2: its wires (the constant included), outputs, public and private inputs, constraints
SHAPE = (51, 2, 1, 2, 50)
DOMAIN_SIZE = 64


@dataclass(frozen=True)
class Files:
    """One curve's fixture files, read with cuzk's readers."""

    name: str
    curve: Curve
    folder: Path
    r1cs: R1cs
    witness: Witness
    zkey: ZKey
    vk: VerifyingKey
    proof: Proof
    public: list[int]
    inputs: dict[str, int]

    @property
    def vk_path(self) -> Path:
        return self.folder / "verification_key.json"


@pytest.fixture(scope="module", params=sorted(CURVES))
def files(request: pytest.FixtureRequest) -> Files:
    name: str = request.param
    curve, folder = CURVES[name], FIXTURES / name
    proof, proof_curve = snarkjs_json.read_proof(folder / "proof.json")
    assert proof_curve is curve
    return Files(
        name,
        curve,
        folder,
        read_r1cs(folder / "circuit.r1cs"),
        read_wtns(folder / "witness.wtns"),
        read_zkey(folder / "circuit_final.zkey", name),
        snarkjs_json.read_verifying_key(folder / "verification_key.json", name),
        proof,
        snarkjs_json.read_public(folder / "public.json", curve),
        {key: int(value) for key, value in json.loads((folder / "input.json").read_text()).items()},
    )


def _rows_satisfied(r1cs: R1cs, z: list[int], curve: Curve) -> list[bool]:
    """For every constraint, whether ⟨A,z⟩·⟨B,z⟩ = ⟨C,z⟩ in the reference's Fr."""
    Fr = curve.Fr
    values = [Fr(v) for v in z]
    sums = []
    for matrix in (r1cs.a, r1cs.b, r1cs.c):
        rows = matrix.matrix(Fr, r1cs.num_constraints)
        sums.append([sum((coeff * values[wire] for wire, coeff in row), Fr(0)) for row in rows])
    return [a * b == c for a, b, c in zip(*sums, strict=True)]


def test_r1cs_is_the_circuit_on_its_curve(files: Files) -> None:
    r1cs = files.r1cs
    assert (r1cs.prime, r1cs.n8) == (files.curve.r, 32)
    assert (r1cs.num_wires, r1cs.num_outputs, r1cs.num_public_inputs, r1cs.num_private_inputs) == SHAPE[:4]
    assert r1cs.num_constraints == SHAPE[4] and r1cs.num_public == 3
    assert len(r1cs.a.rows) and len(r1cs.b.rows) and len(r1cs.c.rows)


def test_witness_satisfies_every_constraint(files: Files) -> None:
    """A·z, B·z and C·z evaluated term by term in the reference's field; then the reader's own check."""
    assert files.witness.prime == files.curve.r and len(files.witness) == files.r1cs.num_wires
    z = files.witness.ints()
    assert z[0] == 1
    assert all(_rows_satisfied(files.r1cs, z, files.curve))
    files.r1cs.check_witness(files.witness)


def test_a_changed_witness_value_breaks_a_constraint(files: Files, tmp_path: Path) -> None:
    names = read_sym(files.folder / "circuit.sym")
    wire = next(w for w, name in names.items() if name == "main.aBits.out[0]")
    z = files.witness.ints()
    z[wire] = 1 - z[wire]  # still a bit, but no longer a's lowest one
    satisfied = _rows_satisfied(files.r1cs, z, files.curve)
    assert satisfied.count(False) == 1  # the bit constraints hold; the one tying a to its bits does not
    write_wtns(tmp_path / "broken.wtns", files.witness.prime, z)
    with pytest.raises(UnsatisfiedConstraintError, match=r"main\.aBits\.out\[0\]"):
        files.r1cs.check_witness(read_wtns(tmp_path / "broken.wtns"), names)


def test_witness_holds_the_inputs_where_the_sym_file_says(files: Files) -> None:
    names = read_sym(files.folder / "circuit.sym")
    wires = {name: wire for wire, name in names.items()}
    z, r = files.witness.ints(), files.curve.r
    a, b, offset = files.inputs["a"], files.inputs["b"], files.inputs["offset"]
    assert (z[wires["main.a"]], z[wires["main.b"]], z[wires["main.offset"]]) == (a, b, offset)
    assert z[wires["main.product"]] == (a * b + offset) % r and z[wires["main.square"]] == a * a
    assert [wires[n] for n in ("main.product", "main.square", "main.offset")] == [1, 2, 3]


def test_public_signals_are_the_witness_public_part(files: Files) -> None:
    assert files.public == files.witness.ints()[1 : files.zkey.num_public + 1]
    a, b, offset = files.inputs["a"], files.inputs["b"], files.inputs["offset"]
    assert files.public == [(a * b + offset) % files.curve.r, a * a, offset]


def test_zkey_is_the_circuit_of_the_r1cs(files: Files) -> None:
    zkey = files.zkey
    assert zkey.curve is files.curve
    assert (zkey.num_variables, zkey.num_public, zkey.num_constraints) == (SHAPE[0], 3, SHAPE[4])
    assert zkey.domain_size == DOMAIN_SIZE
    assert len(zkey.h_query) == DOMAIN_SIZE and len(zkey.ic) == 4
    check_r1cs_matches(zkey, files.r1cs)  # raises ProvingKeyError when they differ


def test_zkey_is_not_the_circuit_of_the_other_curves_r1cs(files: Files) -> None:
    other = next(name for name in CURVES if name != files.name)
    with pytest.raises(ProvingKeyError, match="is not the circuit of"):
        check_r1cs_matches(files.zkey, read_r1cs(FIXTURES / other / "circuit.r1cs"))
    with pytest.raises(CurveMismatchError):
        read_zkey(files.folder / "circuit_final.zkey", other)


def test_zkey_holds_the_verification_key_json(files: Files) -> None:
    from_zkey = files.zkey.verifying_key()
    assert files.vk == from_zkey
    assert files.vk.alpha_g1 == files.zkey.alpha_g1 and files.vk.delta_g2 == files.zkey.delta_g2
    assert files.vk.num_public_inputs == 3 and files.vk.gamma_abc_g1 == files.zkey.ic


def test_exported_verification_key_is_snarkjs_byte_for_byte(files: Files, tmp_path: Path) -> None:
    """vk_alphabeta_12 included: the pairing as ffjavascript computes it."""
    snarkjs_json.write_verifying_key(tmp_path / "vk.json", files.zkey.verifying_key())
    assert (tmp_path / "vk.json").read_bytes() == files.vk_path.read_bytes()


def test_snarkjs_proof_verifies(files: Files) -> None:
    assert verify(files.vk, files.public, files.proof)


def test_snarkjs_proof_with_a_tampered_public_input_does_not_verify(files: Files) -> None:
    tampered = [*files.public[:-1], (files.public[-1] + 1) % files.curve.r]
    assert not verify(files.vk, tampered, files.proof)


def test_cli_verifies_snarkjs_files(files: Files, capsys: pytest.CaptureFixture[str]) -> None:
    """cuzk groth16 verify, as snarkjs groth16 verify, on snarkjs's three files."""
    from cuzk.cli import main

    args = ["groth16", "verify", files.vk_path, files.folder / "public.json", files.folder / "proof.json"]
    assert main([str(arg) for arg in args]) == 0
    assert capsys.readouterr().out.strip() == "OK"


def test_cuzk_proves_with_the_snarkjs_key(files: Files, tmp_path: Path) -> None:
    result = prove_zkey(files.zkey, files.witness, backend="cpu", r1cs=files.r1cs)
    assert result.public_signals == files.public
    assert result.proof != files.proof  # its own r and s
    snarkjs_json.write_proof(tmp_path / "proof.json", result.proof)
    proof, curve = snarkjs_json.read_proof(tmp_path / "proof.json", files.name)
    assert curve is files.curve
    assert verify(files.vk, files.public, proof)
