"""Randomness: the setup's toxic waste and the prover's r, s come from ``secrets`` (shown by replacing
``secrets.randbelow`` and seeing the keys and proofs follow it); two proofs of one witness differ and both verify;
the variants that take explicit values say that they are insecure, and old names keep working."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator

import pytest

from cuzk.engine.prover import Prover
from cuzk.reference.circuits import build
from cuzk.reference.curves import BN254, Curve
from cuzk.reference.groth16 import (
    ToxicWaste,
    create_proof,
    create_proof_insecure,
    create_random_proof,
    generate_parameters_insecure,
    generate_parameters_with_toxic_waste,
    generate_random_parameters,
    prepare_verifying_key,
    prove,
    random_toxic_waste,
    verify,
)
from cuzk.reference.groth16 import prover as reference_prover
from cuzk.reference.qap import domain_size
from cuzk.reference.r1cs import ConstraintSystem
from cuzk.reference.toy import TOY
from tests._suite_backends import usable_or_skip

INSECURE = "insecure: for tests and vectors"


class ScriptedRandbelow:
    """Stands in for ``secrets.randbelow``: returns the scripted values in turn and records every bound asked."""

    def __init__(self, values: list[int]) -> None:
        self.values: Iterator[int] = iter(values)
        self.bounds: list[int] = []

    def __call__(self, bound: int) -> int:
        self.bounds.append(bound)
        value = next(self.values)
        assert 0 <= value < bound
        return value


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> Callable[[list[int]], ScriptedRandbelow]:
    def install(values: list[int]) -> ScriptedRandbelow:
        fake = ScriptedRandbelow(values)
        monkeypatch.setattr(secrets, "randbelow", fake)
        return fake

    return install


def cubic(curve: Curve, seed: int = 1) -> ConstraintSystem:
    return build("cubic", curve.Fr, size=1, seed=seed)


def test_toxic_waste_comes_from_secrets(scripted: Callable[[list[int]], ScriptedRandbelow]) -> None:
    cs = cubic(TOY)
    n = domain_size(len(cs.constraints), cs.num_inputs)
    fake = scripted([10, 20, 30, 40, 50])
    toxic = random_toxic_waste(TOY.Fr, n)
    assert fake.bounds == [TOY.r - 1] * 5  # each secret uniform in [1, r)
    assert [int(getattr(toxic, k).value) for k in ("tau", "alpha", "beta", "gamma", "delta")] == [11, 21, 31, 41, 51]
    # the one-party setup draws its secrets the same way, and they alone decide the keys
    scripted([10, 20, 30, 40, 50])
    pk = generate_random_parameters(cs, TOY)
    expected = generate_parameters_insecure(cs, TOY, ToxicWaste(*(TOY.Fr(v) for v in (11, 21, 31, 41, 51))))
    assert (pk.vk.alpha_g1, pk.vk.delta_g2, pk.h_query, pk.l_query) == (
        expected.vk.alpha_g1,
        expected.vk.delta_g2,
        expected.h_query,
        expected.l_query,
    )


def engine_backend() -> str:
    """The cpu backend (required: a test fails when it cannot run)."""
    usable_or_skip("cpu")
    return "cpu"


def test_r_and_s_come_from_secrets(scripted: Callable[[list[int]], ScriptedRandbelow]) -> None:
    cs = cubic(BN254)
    pk = generate_parameters_insecure(cs, BN254, ToxicWaste(*(BN254.Fr(v) for v in (99, 3, 5, 7, 11))))
    expected = create_proof_insecure(pk, cs, r=13, s=17).to_bytes()
    engine = Prover(pk, engine_backend())
    for make in (lambda: prove(pk, cs), lambda: create_random_proof(pk, cs), lambda: engine.prove(cs)):
        fake = scripted([13, 17])
        assert make().to_bytes() == expected
        assert fake.bounds == [BN254.r, BN254.r]  # r and s uniform in [0, r)


def test_two_proofs_of_one_witness_differ_and_both_verify() -> None:
    cs = cubic(BN254, seed=5)
    pk = generate_random_parameters(cs, BN254)
    pvk = prepare_verifying_key(pk.vk)
    public = cs.input_assignment[1:]
    engine = Prover(pk, engine_backend())
    for first, second in ((prove(pk, cs), prove(pk, cs)), (engine.prove(cs), engine.prove(cs))):
        assert first.a != second.a and first.b != second.b and first.c != second.c
        assert verify(pvk, public, first) and verify(pvk, public, second)


def test_explicit_value_variants_say_they_are_insecure() -> None:
    explicit = [create_proof, create_proof_insecure, generate_parameters_with_toxic_waste, generate_parameters_insecure]
    for function in [*explicit, ToxicWaste, prove]:
        assert INSECURE in (function.__doc__ or "").lower(), f"{function.__name__}'s docstring must say {INSECURE!r}"
    # the clear names are the same functions as the old ones, which existing callers keep using
    assert create_proof_insecure is create_proof is reference_prover.create_proof
    assert generate_parameters_insecure is generate_parameters_with_toxic_waste
    for function in (create_random_proof, random_toxic_waste):
        assert "secrets" in (function.__doc__ or "")
