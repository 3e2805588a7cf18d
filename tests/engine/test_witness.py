"""The engine's compiled R1CS evaluation equals the reference's QAP evaluations, and refuses bad witnesses."""

from __future__ import annotations

import pytest

from cuzk.reference.circuits import CIRCUITS, build
from cuzk.reference.curves import BN254, Curve
from cuzk.reference.errors import ProvingKeyError, UnsatisfiedConstraintError
from cuzk.reference.groth16.prover import qap_evaluations
from cuzk.reference.toy import TOY
from cuzk.witness import CompiledR1CS


@pytest.mark.parametrize("name", sorted(CIRCUITS))
@pytest.mark.parametrize("setting", [TOY, BN254], ids=lambda c: c.name)
def test_compiled_evaluation_equals_the_reference(name: str, setting: Curve) -> None:
    cs = build(name, setting.Fr, size=2, seed=3)
    compiled = CompiledR1CS.from_cs(cs)
    got = compiled.evaluate([v.value for v in cs.full_assignment()])
    expected = qap_evaluations(cs)
    assert [[int(v) for v in rows] for rows in got] == [[v.value for v in rows] for rows in expected]


def test_compiled_evaluation_names_the_failing_constraint() -> None:
    cs = build("mimc", BN254.Fr, size=1)
    compiled = CompiledR1CS.from_cs(cs)
    z = [v.value for v in cs.full_assignment()]
    z[cs.num_inputs + 5] += 1  # corrupt one aux value
    with pytest.raises(UnsatisfiedConstraintError) as failure:
        compiled.evaluate(z)
    cs.aux_assignment[5] = cs.aux_assignment[5] + 1
    assert failure.value.index == cs.which_is_unsatisfied()
    with pytest.raises(ProvingKeyError, match="variables"):
        compiled.evaluate(z[:-1])
