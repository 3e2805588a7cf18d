"""The Python API's entry points refuse arguments of the wrong type with the project's typed error, ArgumentTypeError
(a ParameterError, a TypeError and a CuzkError) naming the argument, instead of a TypeError or AttributeError from
deep inside: ``verify(vk, None, proof)``, ``proof=None``, a ProvingKey for a VerifyingKey, ``Prover(None)``,
``Prover.prove(None)``. Public inputs may be any ordered iterable, a generator included, read up to one item more
than the key expects."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from cuzk.engine.prover import Prover
from cuzk.reference.circuits import build
from cuzk.reference.curves import BN254
from cuzk.reference.errors import ArgumentTypeError, CuzkError, ParameterError, ProvingKeyError
from cuzk.reference.groth16 import (
    ProvingKey,
    ToxicWaste,
    create_proof,
    generate_parameters_with_toxic_waste,
    prepare_verifying_key,
    verify,
)


@pytest.fixture(scope="module")
def setting() -> tuple[Any, ProvingKey, Any, list[int]]:
    """A one-step cubic circuit on BN254, its key (fixed toxic waste), a proof and the public inputs as ints."""
    cs = build("cubic", BN254.Fr, size=1, seed=0)
    toxic = ToxicWaste(
        **{k: BN254.Fr(v) for k, v in {"tau": 9, "alpha": 3, "beta": 5, "gamma": 7, "delta": 11}.items()}
    )
    pk = generate_parameters_with_toxic_waste(cs, BN254, toxic)
    public = [x.value for x in cs.input_assignment[1:]]
    return cs, pk, create_proof(pk, cs, r=3, s=4), public


def test_the_error_is_every_kind_a_caller_may_catch() -> None:
    assert issubclass(ArgumentTypeError, ParameterError)
    assert issubclass(ArgumentTypeError, TypeError) and issubclass(ArgumentTypeError, CuzkError)


@pytest.mark.parametrize(
    ("inputs", "words"),
    [
        (None, "public_inputs must be a list"),
        (5, "got int"),
        ("12", "got str"),
        (b"\x01", "got bytes"),
        ({1, 2}, "got set"),
        ({1: 2}, "got dict"),
    ],
)
def test_verify_refuses_inputs_that_are_not_an_ordered_collection(setting: Any, inputs: Any, words: str) -> None:
    _cs, pk, proof, _public = setting
    with pytest.raises(ArgumentTypeError, match=words):
        verify(pk.vk, inputs, proof)


def test_verify_refuses_an_input_of_the_wrong_type(setting: Any) -> None:
    _cs, pk, proof, public = setting
    with pytest.raises(ArgumentTypeError, match="public input 0 is a str"):
        verify(pk.vk, [str(public[0])], proof)


def test_verify_reads_a_generator_of_inputs_with_a_bound(setting: Any) -> None:
    _cs, pk, proof, public = setting
    assert verify(pk.vk, (x for x in public), proof)
    assert verify(pk.vk, iter(public), proof) and verify(pk.vk, tuple(public), proof)
    with pytest.raises(ProvingKeyError, match=f"expects {len(public)} public inputs, more than {len(public)}"):
        verify(pk.vk, itertools.count(), proof)  # endless: read one item too many, then refused
    with pytest.raises(ProvingKeyError, match=f"expects {len(public)} public inputs, 0 were given"):
        verify(pk.vk, iter([]), proof)


@pytest.mark.parametrize("proof", [None, "proof", (1, 2, 3)])
def test_verify_refuses_a_proof_that_is_not_a_proof(setting: Any, proof: Any) -> None:
    _cs, pk, _proof, public = setting
    with pytest.raises(ArgumentTypeError, match=f"proof must be a Proof .*got {type(proof).__name__}"):
        verify(pk.vk, public, proof)


def test_verify_refuses_a_key_that_is_not_a_verifying_key(setting: Any) -> None:
    _cs, pk, proof, public = setting
    for vk in (None, pk, "vk"):
        with pytest.raises(ArgumentTypeError, match=f"vk must be a VerifyingKey .*got {type(vk).__name__}"):
            verify(vk, public, proof)
    assert verify(prepare_verifying_key(pk.vk), public, proof)  # a prepared key stays welcome


@pytest.mark.parametrize(
    ("pk", "backend", "options", "words"),
    [
        (None, "reference", {}, "pk must be a ProvingKey"),
        ("key.zkey", "reference", {}, "got str"),
        ("the setting's", 42, {}, "backend must be a backend name .*got int"),
        ("the setting's", "reference", {"g2_backend": object()}, "backend must be .*got object"),
        ("the setting's", "reference", {"verify": "no"}, "verify must be True, False or None, got str"),
        ("the setting's", "reference", {"window": "8"}, "window must be an int"),
        ("the setting's", "reference", {"proofs": 0}, "proofs must be an int ≥ 1 or None, got 0"),
        ("the setting's", "reference", {"proofs": True}, "proofs must be an int ≥ 1 or None, got True"),
    ],
)
def test_prover_refuses_arguments_of_the_wrong_type(
    setting: Any, pk: Any, backend: Any, options: dict[str, Any], words: str
) -> None:
    key = setting[1] if pk == "the setting's" else pk
    with pytest.raises(ArgumentTypeError, match=words):
        Prover(key, backend, **options)


@pytest.mark.parametrize("cs", [None, "circuit", 3])
def test_prove_refuses_what_is_not_a_constraint_system(setting: Any, cs: Any) -> None:
    _cs, pk, _proof, _public = setting
    prover = Prover(pk, "reference")
    for call in (prover.prove, prover.witness, prover.compile):
        with pytest.raises(ArgumentTypeError, match=f"cs must be a ConstraintSystem .*got {type(cs).__name__}"):
            call(cs)
    assert prover.prove(setting[0], r=3, s=4) == setting[2]  # the prover still works after
