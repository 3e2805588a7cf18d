"""The MiMC chain written from arrays (cuzk.engine.mimc_arrays) is the reference's circuit: the same .r1cs and .wtns,
byte for byte, on both curves, for one, two and five permutations and two seeds; the file reads back and its witness
satisfies it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuzk.backends import limbs
from cuzk.engine.mimc_arrays import MimcChain, round_steps
from cuzk.formats.r1cs import read_r1cs, write_constraint_system
from cuzk.formats.wtns import Witness, read_wtns, write_wtns
from cuzk.reference.circuits import build
from cuzk.reference.circuits.mimc import MiMC
from cuzk.reference.curves import Curve, curve_by_name
from cuzk.reference.errors import ParameterError, UnsatisfiedConstraintError

CURVES = [curve_by_name("bn254"), curve_by_name("bls12_381")]


def reference_files(folder: Path, curve: Curve, target: int, seed: int) -> tuple[bytes, bytes, int]:
    """The reference's .r1cs and .wtns bytes for ``build("mimc", …)``, and its number of constraints."""
    cs = build("mimc", curve.Fr, target_constraints=target, seed=seed, check=False)
    write_constraint_system(folder / "reference.r1cs", cs)
    write_wtns(folder / "reference.wtns", curve.r, [v.value for v in cs.full_assignment()])
    return (folder / "reference.r1cs").read_bytes(), (folder / "reference.wtns").read_bytes(), cs.num_constraints


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
@pytest.mark.parametrize("permutations", [1, 2, 5])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_files_are_the_references_byte_for_byte(tmp_path: Path, curve: Curve, permutations: int, seed: int) -> None:
    target = permutations * MiMC.for_field(curve.Fr).constraints_per_permutation + 1
    r1cs, wtns, num_constraints = reference_files(tmp_path, curve, target, seed)
    chain = MimcChain.from_seed(curve, target, seed)
    chain.write(tmp_path / "arrays.r1cs", tmp_path / "arrays.wtns")
    assert chain.permutations == permutations and chain.num_constraints == num_constraints
    assert (tmp_path / "arrays.r1cs").read_bytes() == r1cs
    assert (tmp_path / "arrays.wtns").read_bytes() == wtns


@pytest.mark.parametrize("curve", CURVES, ids=lambda c: c.name)
def test_the_circuit_reads_back_and_its_witness_satisfies_it(tmp_path: Path, curve: Curve) -> None:
    chain = MimcChain.from_seed(curve, 700, seed=3)
    chain.write(tmp_path / "c.r1cs", tmp_path / "w.wtns")
    r1cs, witness = read_r1cs(tmp_path / "c.r1cs"), read_wtns(tmp_path / "w.wtns")
    assert (r1cs.num_constraints, r1cs.num_wires, r1cs.num_public) == (chain.num_constraints, chain.num_wires, 1)
    r1cs.check_witness(witness)
    changed = Witness(witness.path, witness.prime, witness.values.copy())
    last = (limbs.limbs_to_int(changed.values[-1]) + 1) % curve.r  # the last step: its constraint fails first
    changed.values[-1] = limbs.int_to_limbs(last, changed.values.shape[1])
    with pytest.raises(UnsatisfiedConstraintError, match=f"constraint {chain.num_constraints - 2} "):
        r1cs.check_witness(changed)


def test_the_round_shape_follows_the_exponent() -> None:
    assert round_steps(5) == (False, False, True)  # t², t⁴, t⁴·t
    assert round_steps(7) == (False, True, False, True)
    assert round_steps(8) == (False, False, False)
    for exponent in (3, 5, 7, 11, 17):
        params = MiMC(curve_by_name("bn254").Fr, exponent, ())
        assert len(round_steps(exponent)) == params.constraints_per_round


def test_a_chain_needs_a_permutation() -> None:
    with pytest.raises(ParameterError, match="at least 1"):
        MimcChain(CURVES[0], 0, 1, 2)
