"""Groth16 verification (Groth16, §3.2): one pairing-product equation.

    e(A, B) = e(α, β) · e(Σ_i x_i·gamma_abc_g1[i], γ) · e(C, δ)        (x_0 = 1, x_1 … x_ℓ the public inputs)

checked as Π e(P_i, Q_i) = 1 with the left side moved over, so that one final exponentiation serves all four
(or, with a :class:`PreparedVerifyingKey`, as three Miller loops against the precomputed e(α, β)).

What the verifier refuses, and how (docs/security.md has the whole picture):

- **Arguments that are not what the equation is defined on raise** a :class:`~cuzk.reference.errors.CuzkError`
  that names the culprit: a proof point of the wrong group (GroupMismatchError), off its curve
  (PointNotOnCurveError) or outside the order-r subgroup (PointNotInSubgroupError); public inputs of the wrong
  count (ProvingKeyError), of the wrong type (ArgumentTypeError, a ParameterError; an element of another curve's
  Fr: FieldMismatchError) or outside [0, r) (ParameterError: negative ints and ints ≥ r are refused, never
  reduced). A ``vk``, ``proof`` or ``public_inputs`` of the wrong type (None, a tuple for a Proof, a set or a
  string for the inputs) raises ArgumentTypeError before anything is computed; the inputs may be any ordered
  iterable, a generator included, read up to one item more than the key expects.
- **A proof made of group elements that is not valid returns False**: the equation fails, or one of A, B, C is
  the point at infinity. Groth16's equation itself does not exclude O, but an honest proof has A = O, B = O or
  C = O only with probability ≈ 3/r, while with O the pairings degenerate (e(O, ·) = 1 makes the left side
  vanish); bellman's Proof::read refuses O for all three points, and cuzk refuses the same proofs, so that a
  proof cuzk accepts is one bellman accepts. (The toy setting, 64513 elements, keeps the bare equation: there an
  honest proof would hit O about once in 20000.)

The verifying key is trusted: it comes from the setup or from a file reader that checked its points.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Iterable, Mapping, Sized
from typing import Any

from cuzk.reference import pairing
from cuzk.reference.curves.curve import Curve
from cuzk.reference.errors import (
    ArgumentTypeError,
    FieldMismatchError,
    GroupMismatchError,
    ParameterError,
    PointNotInSubgroupError,
    PointNotOnCurveError,
    ProvingKeyError,
)
from cuzk.reference.fields.prime_field import PrimeFieldElement
from cuzk.reference.groth16.data_structures import PreparedVerifyingKey, Proof, VerifyingKey
from cuzk.reference.msm import msm

# Iterables that are not a list of inputs: text and bytes (their items are characters and bytes), and collections
# without an order (a set, a dict's keys): refused rather than read.
NOT_INPUTS = (str, bytes, bytearray, memoryview, set, frozenset, Mapping)


def input_list(vk: VerifyingKey, public_inputs: Iterable[Any]) -> list[Any]:
    """The public inputs as a list, their count checked: any ordered iterable (a list, a tuple, a numpy array, a
    generator). A generator is read up to one item more than the key expects, never without bound, so an endless
    one is refused by its count. ArgumentTypeError for None, a non-iterable, text or bytes, a set or a mapping."""
    if public_inputs is None or isinstance(public_inputs, NOT_INPUTS) or not isinstance(public_inputs, Iterable):
        raise ArgumentTypeError(
            f"public_inputs must be a list (or tuple, array, iterable) of ints in [0, r) or elements of "
            f"{vk.curve.Fr.NAME}, in order; got {type(public_inputs).__name__}"
        )
    expected = vk.num_public_inputs
    items = list(itertools.islice(public_inputs, expected + 1))
    if len(items) != expected:
        if isinstance(public_inputs, Sized):
            given = str(len(public_inputs))
        else:  # a generator: read no further than one item too many
            given = f"more than {expected}" if len(items) > expected else str(len(items))
        raise ProvingKeyError(f"the verifying key expects {expected} public inputs, {given} were given")
    return items


def check_public_inputs(vk: VerifyingKey, public_inputs: Iterable[Any]) -> list[Any]:
    """The public inputs as elements of Fr, after checking their count, type and range (see the module)."""
    if not isinstance(vk, VerifyingKey):
        raise ArgumentTypeError(f"vk must be a VerifyingKey (cuzk.reference.groth16), got {type(vk).__name__}")
    public_inputs = input_list(vk, public_inputs)
    fr = vk.curve.Fr
    scalars = []
    for i, x in enumerate(public_inputs):
        if isinstance(x, PrimeFieldElement):
            if type(x) is not fr:
                raise FieldMismatchError(f"public input {i} is an element of {x.NAME}; the key is over {fr.NAME}")
            scalars.append(x)
        elif isinstance(x, numbers.Integral) and not isinstance(x, bool):  # int, or numpy's integers
            x = int(x)
            if not 0 <= x < fr.MODULUS:
                raise ParameterError(
                    f"public input {i} = {x} is not in [0, r) of {fr.NAME} (r = {fr.MODULUS:#x}); "
                    "inputs are not reduced modulo r"
                )
            scalars.append(fr(x))
        else:
            raise ArgumentTypeError(
                f"public input {i} is a {type(x).__name__}; expected an int in [0, r) or an element of {fr.NAME}"
            )
    return scalars


def prepare_inputs(vk: VerifyingKey, public_inputs: Iterable[Any]) -> Any:
    """Σ_i x_i·gamma_abc_g1[i] with x_0 = 1, the inputs checked by :func:`check_public_inputs`."""
    scalars = [vk.curve.Fr.one(), *check_public_inputs(vk, public_inputs)]
    return msm(vk.curve.g1, vk.gamma_abc_g1, scalars)


def check_proof_points(vk: VerifyingKey, proof: Proof) -> None:
    """Raise unless A and C are points of G1 and B a point of G2: on the curve and in the order-r subgroup.

    The subgroup check matters: a point A + T with T of small order (BLS12-381's G1 cofactor has the factor 3) is
    on the curve, and the reduced pairing does not see T (it is trivial on r·E(Fq), which holds T), so a proof
    with A + T in place of A satisfies the equation while being another proof (tests/reliability shows it); and
    points outside the subgroup are not the group elements the security proof is about. On BN254's G1 (cofactor 1)
    every point of the curve is in the subgroup, so there on-curve is the whole check.
    """
    curve = vk.curve
    for name, point, group in (("A", proof.a, curve.g1), ("B", proof.b, curve.g2), ("C", proof.c, curve.g1)):
        if getattr(point, "group", None) is not group:
            got = point.group.name if hasattr(point, "group") else type(point).__name__
            raise GroupMismatchError(f"proof.{name} must be a point of {group.name}, got {got}")
        if hasattr(point, "is_on_curve") and not point.is_on_curve():
            raise PointNotOnCurveError(f"proof.{name} = {point!r} is not on {group.name}: y² ≠ x³ + b")
        if group.cofactor != 1 and not point.is_in_subgroup():
            raise PointNotInSubgroupError(
                f"proof.{name} = {point!r} is on {group.name} but not in its subgroup of order r"
            )


def _has_identity(curve: Any, proof: Proof) -> bool:
    """Whether a point of the proof is O, on the curves where that is refused (not the toy setting)."""
    return isinstance(curve, Curve) and any(p.is_identity() for p in (proof.a, proof.b, proof.c))


def prepare_verifying_key(vk: VerifyingKey) -> PreparedVerifyingKey:
    """e(α, β), −γ and −δ, computed once for many verifications (BN254 and BLS12-381)."""
    if not isinstance(vk.curve, Curve):
        raise ParameterError(f"a prepared verifying key needs a pairing-friendly curve, not {vk.curve.name}")
    return PreparedVerifyingKey(
        vk=vk,
        alpha_beta=vk.curve.pairing(vk.alpha_g1, vk.beta_g2),
        neg_gamma_g2=-vk.gamma_g2,
        neg_delta_g2=-vk.delta_g2,
    )


def verify_proof(vk: VerifyingKey | PreparedVerifyingKey, public_inputs: Iterable[Any], proof: Proof) -> bool:
    """Whether ``proof`` is valid for ``public_inputs`` under ``vk`` (plain or prepared).

    True or False for a proof of group elements and well-formed inputs; raises for anything else (the module
    docstring lists what and how). Public inputs are elements of Fr or ints in [0, r), in a list or any ordered
    iterable (:func:`input_list`); an argument of a wrong type raises ArgumentTypeError.
    """
    if not isinstance(vk, VerifyingKey | PreparedVerifyingKey):
        raise ArgumentTypeError(
            f"vk must be a VerifyingKey or a PreparedVerifyingKey (cuzk.reference.groth16), got {type(vk).__name__}"
        )
    if not isinstance(proof, Proof):
        raise ArgumentTypeError(
            f"proof must be a Proof (cuzk.reference.groth16; Proof.from_bytes(curve, data) reads one from bytes), "
            f"got {type(proof).__name__}"
        )
    plain = vk.vk if isinstance(vk, PreparedVerifyingKey) else vk
    curve = plain.curve
    acc = prepare_inputs(plain, public_inputs)
    check_proof_points(plain, proof)
    if _has_identity(curve, proof):
        return False
    if isinstance(vk, PreparedVerifyingKey):
        f = (
            pairing.miller_loop(curve, proof.a, proof.b)
            * pairing.miller_loop(curve, acc, vk.neg_gamma_g2)
            * pairing.miller_loop(curve, proof.c, vk.neg_delta_g2)
        )
        return bool(pairing.final_exponentiation(curve, f) == vk.alpha_beta)
    return bool(curve.pairing_check(verification_pairs(plain, acc, proof)))


def verification_pairs(vk: VerifyingKey, acc: Any, proof: Proof) -> list[tuple[Any, Any]]:
    """The verification equation e(A, B) = e(α, β)·e(acc, γ)·e(C, δ) as a product of pairings equal to 1:
    (A, B), (−α, β), (−acc, γ), (−C, δ), where ``acc`` = Σ x_i·IC_i (:func:`prepare_inputs`)."""
    return [(proof.a, proof.b), (-vk.alpha_g1, vk.beta_g2), (-acc, vk.gamma_g2), (-proof.c, vk.delta_g2)]


verify = verify_proof
