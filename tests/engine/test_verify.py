"""The engine's check of its own proofs (cuzk.engine.verify): the reference verifier's answer, with the pairings
on a backend, for real proofs and for proofs altered every way a faulty backend could alter them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.errors import InputShapeError
from cuzk.backends.registry import discover, get_backend
from cuzk.engine.verify import PreparedVerifyingKey, check_made_proof, pairing_backend, public_sum
from cuzk.engine.verify import verify as engine_verify
from cuzk.reference.circuits import build
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import ParameterError
from cuzk.reference.groth16 import Proof, generate_random_parameters, prove, verify
from cuzk.reference.groth16.verifier import prepare_inputs, verification_pairs
from tests._suite_backends import usable_or_skip


@pytest.fixture(scope="module", params=[BN254, BLS12_381], ids=lambda c: c.name)
def made(request: pytest.FixtureRequest) -> tuple[Curve, object, list[object], Proof]:
    curve = request.param
    cs = build("cubic", curve.Fr, size=1)
    pk = generate_random_parameters(cs, curve)
    return curve, pk.vk, cs.input_assignment[1:], prove(pk, cs)


@pytest.fixture(scope="module")
def altered(made) -> dict[str, tuple[Proof, bool]]:  # type: ignore[no-untyped-def]
    """The proof altered every way a faulty backend could, each with the reference verifier's verdict: asked once
    per curve (the pure-Python pairings, about a second a verdict), not once per backend."""
    curve, vk, public, proof = made
    g1, g2 = curve.g1.generator, curve.g2.generator
    candidates = {
        "real": proof,
        "A doubled": Proof(proof.a + proof.a, proof.b, proof.c),
        "B moved": Proof(proof.a, proof.b + g2, proof.c),
        "C moved": Proof(proof.a, proof.b, proof.c + g1),
        "A and C swapped": Proof(proof.c, proof.b, proof.a),
    }
    verdicts = {name: (candidate, verify(vk, public, candidate)) for name, candidate in candidates.items()}
    assert verdicts["real"][1] and not any(verdict for name, (_, verdict) in verdicts.items() if name != "real")
    assert not verify(vk, wrong_input(public), proof)
    return verdicts


def wrong_input(public: list[object]) -> list[object]:
    return [public[0] + 1, *public[1:]]  # type: ignore[operator]


@pytest.mark.parametrize("backend", ["cpu", "reference", "opencl", "cuda"])
def test_agrees_with_the_reference_verifier(made, altered, backend: str) -> None:  # type: ignore[no-untyped-def]
    usable_or_skip(backend)
    _, vk, public, proof = made
    b = get_backend(backend)
    prepared = PreparedVerifyingKey(vk)  # converted once, as a long-lived prover's: the same verdicts
    for name, (candidate, verdict) in altered.items():
        assert check_made_proof(vk, public, candidate, b) == verdict, name
        assert check_made_proof(vk, public, candidate, b, prepared=prepared) == verdict, name
    assert check_made_proof(vk, public, proof, b)
    assert not check_made_proof(vk, wrong_input(public), proof, b)  # the reference's verdict: in ``altered``


def test_the_prepared_pairs_are_the_references(made) -> None:  # type: ignore[no-untyped-def]
    """PreparedVerifyingKey's pairs are the reference's verification_pairs, point for point, in its order."""
    curve, vk, public, proof = made
    acc = prepare_inputs(vk, public)
    g1, g2 = PreparedVerifyingKey(vk).pairs(acc, proof)
    expected_g1, expected_g2 = zip(*verification_pairs(vk, acc, proof), strict=True)
    assert np.array_equal(g1, limbs.points_to_limbs(curve, "g1", expected_g1))
    assert np.array_equal(g2, limbs.points_to_limbs(curve, "g2", expected_g2))


def test_a_point_at_infinity_or_off_the_curve_does_not_verify(made) -> None:  # type: ignore[no-untyped-def]
    curve, vk, public, proof = made
    cpu = get_backend("cpu")
    assert not check_made_proof(vk, public, Proof(curve.g1.identity(), proof.b, proof.c), cpu)
    x, y = proof.a.to_affine()
    off = type(proof.a)(curve.g1, x, y + 1, type(x)(1))  # (x, y + 1) in projective coordinates, Z = 1
    assert not off.is_on_curve()
    assert not check_made_proof(vk, public, Proof(off, proof.b, proof.c), cpu)


def test_pairing_check_validates_its_arrays() -> None:
    cpu = get_backend("cpu")
    g1 = np.zeros((2, 2, 4), np.uint64)
    with pytest.raises(InputShapeError):
        cpu.pairing_check(BN254, g1, np.zeros((2, 2, 4), np.uint64))  # G2 points need (k, 2, 2, L)
    assert cpu.pairing_check(BN254, g1[:0], np.zeros((0, 2, 2, 4), np.uint64))  # the empty product is 1


def test_the_pairing_runs_where_it_is_ready(made) -> None:  # type: ignore[no-untyped-def]
    """A device's own pairing; the cpu backend's once its kernels are ready (WARM_UP's kernels_ready), else the
    reference's; the verifier of ``cuzk groth16 verify`` answers as the reference's, for proofs from anywhere."""
    curve, vk, public, proof = made
    cpu = get_backend("cpu")
    chosen = pairing_backend(cpu, curve)
    assert chosen.name == ("cpu" if cpu.kernels_ready(curve, "verify") else "reference")
    assert pairing_backend(get_backend("reference"), curve).name == "reference"
    for device in ("opencl", "cuda"):  # a device with PAIRING checks its own proofs
        entry = discover().get(device)
        if entry is not None and entry.available:
            assert pairing_backend(get_backend(device), curve).name == device
            # a long-lived prover's check goes to the host's compiled pairing once it is ready
            kept_free = pairing_backend(get_backend(device), curve, keep_device_free=True).name
            assert kept_free == ("cpu" if cpu.kernels_ready(curve, "verify") else device)
    assert engine_verify(vk, public, proof)
    assert not engine_verify(vk, [public[0] + 1, *public[1:]], proof)
    assert not engine_verify(vk, public, Proof(proof.a, proof.b, proof.c + curve.g1.generator))


@pytest.mark.parametrize("backend", ["cpu", "reference", "opencl", "cuda"])
def test_the_public_inputs_sum_is_the_references(made, backend: str) -> None:  # type: ignore[no-untyped-def]
    """Σ x_i·IC_i on a host backend whose small MSMs are ready (the cpu backend's, once compiled), else the
    reference's: the same point, and the same refusal of an input out of range, either way."""
    usable_or_skip(backend)
    curve, vk, public, _ = made
    b = get_backend(backend)
    inputs = [*public[:-1], curve.Fr(-1)]  # the largest input too
    assert public_sum(vk, inputs, b) == prepare_inputs(vk, inputs)
    assert public_sum(vk, [int(x) for x in public], b) == prepare_inputs(vk, public)
    with pytest.raises(ParameterError, match="not in \\[0, r\\)"):
        public_sum(vk, [curve.r, *[int(x) for x in public[1:]]], b)
    # an IC point at infinity (a public signal no constraint uses) and a zero input
    unused = dataclasses.replace(vk, gamma_abc_g1=[vk.gamma_abc_g1[0], curve.g1.identity(), *vk.gamma_abc_g1[2:]])
    zero = [0, *public[1:]]
    assert public_sum(unused, inputs, b) == prepare_inputs(unused, inputs)
    assert public_sum(vk, zero, b) == prepare_inputs(vk, zero)
