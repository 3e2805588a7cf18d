"""The example circuits: exact matrices and counts, gadgets against their plain-Python twins, bad witnesses refused."""

from __future__ import annotations

import random
import time
from math import gcd

import pytest

from cuzk.reference.circuits import CIRCUITS, build, family
from cuzk.reference.circuits.bits import decompose, enforce_boolean, range_check, to_bits
from cuzk.reference.circuits.cubic import cubic, synthesize_cubic
from cuzk.reference.circuits.merkle import MerklePath, merkle_root, random_merkle_path, synthesize_merkle
from cuzk.reference.circuits.mimc import (
    MiMC,
    mimc_compress,
    mimc_compress_gadget,
    mimc_exponent,
    mimc_hash,
    mimc_hash_gadget,
    mimc_permutation,
    mimc_permutation_gadget,
    round_constant,
    synthesize_mimc_chain,
)
from cuzk.reference.curves import Curve
from cuzk.reference.errors import CuzkError, SynthesisError, UnsatisfiedConstraintError
from cuzk.reference.fields import fft_field, prime_field
from cuzk.reference.r1cs import ConstraintSystem, dense

TOY = fft_field("toy.Fr", 64513, generator=5)


def unsatisfied(cs: ConstraintSystem) -> UnsatisfiedConstraintError:
    with pytest.raises(UnsatisfiedConstraintError) as info:
        cs.check_satisfied()
    assert info.value.index == cs.which_is_unsatisfied()
    return info.value


# --- cubic: the QAP article's x³ + x + 5 = 35 ------------------------------------------------------------------------

# Buterin, "Quadratic Arithmetic Programs: from Zero to Hero": columns (~one, x, ~out, sym_1, y, sym_2).
ARTICLE_A = [[0, 1, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0], [0, 1, 0, 0, 1, 0], [5, 0, 0, 0, 0, 1]]
ARTICLE_B = [[0, 1, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]]
ARTICLE_C = [[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1], [0, 0, 1, 0, 0, 0]]
ARTICLE_WITNESS = [1, 3, 35, 9, 27, 30]
ARTICLE_COLUMN = [0, 2, 1, 3, 4, 5]  # our column j is the article's ARTICLE_COLUMN[j]: public ~out before private x


def from_article(rows: list[list[int]]) -> list[list[int]]:
    return [[row[ARTICLE_COLUMN[j]] for j in range(6)] for row in rows]


@pytest.mark.parametrize("field_of", [lambda c: TOY, lambda c: c.Fr], ids=["toy", "Fr"])
def test_cubic_has_the_article_matrices_and_witness(curve: Curve, field_of) -> None:
    cs = ConstraintSystem(field_of(curve))
    synthesize_cubic(cs, x=3)
    assert (cs.num_constraints, cs.num_inputs, cs.num_aux) == (4, 2, 4)
    a, b, c = cs.matrices()
    assert dense(a, 6) == from_article(ARTICLE_A)
    assert dense(b, 6) == from_article(ARTICLE_B)
    assert dense(c, 6) == from_article(ARTICLE_C)
    assert [v.value for v in cs.full_assignment()] == [ARTICLE_WITNESS[j] for j in ARTICLE_COLUMN]
    assert cs.input_names + cs.aux_names == ["one", "~out", "x", "sym_1", "y", "sym_2"]
    cs.check_satisfied()
    z = [v.value for v in cs.full_assignment()]
    for ra, rb, rc in zip(dense(a, 6), dense(b, 6), dense(c, 6), strict=True):  # (Az)∘(Bz) = Cz by hand
        assert sum(map(int.__mul__, ra, z)) * sum(map(int.__mul__, rb, z)) == sum(map(int.__mul__, rc, z))


def test_cubic_accepts_any_x(curve: Curve) -> None:
    x = curve.r - 2
    cs = ConstraintSystem(curve.Fr)
    out = synthesize_cubic(cs, x=x)
    assert cs.value(out) == cubic(x) and cs.is_satisfied()
    cs = ConstraintSystem(curve.Fr)
    out = synthesize_cubic(cs, x=2, steps=3)
    assert cs.value(out) == cubic(cubic(cubic(2))) and cs.num_constraints == 12 and cs.is_satisfied()


def test_cubic_refuses_a_wrong_x() -> None:
    cs = ConstraintSystem(TOY)
    synthesize_cubic(cs, x=4, out=35)  # 4³ + 4 + 5 = 73, not 35
    error = unsatisfied(cs)
    assert error.index == 3
    for part in ("constraint 3", "(sym_2+5)*1=out", "⟨a,z⟩ = 73", "⟨b,z⟩ = 1", "⟨c,z⟩ = 35"):
        assert part in str(error)

    cs = ConstraintSystem(TOY)
    synthesize_cubic(cs, x=3)
    cs.aux_assignment[0] = TOY(4)  # tamper with x after synthesis: x·x = sym_1 breaks first
    error = unsatisfied(cs)
    assert error.index == 0 and "x*x=sym_1" in str(error) and "⟨a,z⟩·⟨b,z⟩ = 16" in str(error)


# --- bits -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 8, 64])
def test_range_check_accepts_values_in_range(curve: Curve, rng: random.Random, n: int) -> None:
    for value in (0, 1 % (1 << n), (1 << n) - 1, rng.getrandbits(n)):
        cs = ConstraintSystem(curve.Fr)
        v = cs.alloc(value)
        bits = range_check(cs, v, n)
        assert cs.num_constraints == n + 1 and cs.num_aux == n + 1
        assert [cs.value(b).value for b in bits] == to_bits(value, n)
        cs.check_satisfied()


def test_range_check_refuses_values_out_of_range(curve: Curve) -> None:
    for value in (1 << 64, (1 << 64) + 5, curve.r - 1):
        cs = ConstraintSystem(curve.Fr)
        range_check(cs, cs.alloc(value), 64)
        error = unsatisfied(cs)
        assert error.index == 64 and "range<2^64/packing" in str(error)


def test_non_boolean_bit_is_refused() -> None:
    cs = ConstraintSystem(TOY)
    bits = decompose(cs, cs.alloc(2), 4)
    assert [cs.value(b).value for b in bits] == [0, 1, 0, 0]
    cs.aux_assignment[bits[0].index], cs.aux_assignment[bits[1].index] = TOY(2), TOY(0)  # still sums to 2
    error = unsatisfied(cs)
    assert error.index == 0 and "b0 boolean" in str(error) and "⟨a,z⟩·⟨b,z⟩ = 64511" in str(error)  # 2·(1−2) = −2

    cs = ConstraintSystem(TOY)
    enforce_boolean(cs, cs.alloc(1))
    enforce_boolean(cs, cs.alloc(0))
    assert cs.is_satisfied()
    cs.aux_assignment[1] = TOY(-1)
    assert cs.which_is_unsatisfied() == 1


def test_decomposition_wider_than_the_field_is_refused(curve: Curve) -> None:
    cs = ConstraintSystem(curve.Fr)
    v = cs.alloc(1)
    decompose(cs, v, curve.Fr.bit_length() - 1)  # 2^n < r: sound
    for n in (0, curve.Fr.bit_length()):
        with pytest.raises(SynthesisError, match="wrap around"):
            decompose(cs, v, n)


# --- MiMC -----------------------------------------------------------------------------------------------------------


def test_mimc_parameters_come_from_the_field(curve: Curve) -> None:
    params = MiMC.for_field(curve.Fr)
    assert gcd(3, curve.r - 1) == 3  # so the cube is not a permutation: 5 is the exponent
    assert params.exponent == 5 and gcd(params.exponent, curve.r - 1) == 1
    assert params.rounds == 110 and 5**109 < curve.r <= 5**110
    assert params.constants[0] == 0 and len(set(params.constants)) == params.rounds
    assert params.constants == MiMC.for_field(curve.Fr).constants
    assert params.constraints_per_round == 3 and params.constraints_per_permutation == 330


def test_mimc_exponent_is_computed_not_pasted() -> None:
    assert mimc_exponent(TOY) == 5 and MiMC.for_field(TOY).rounds == 7  # 5^6 < 64513 ≤ 5^7
    f31 = prime_field("f31", 31)  # 30 = 2·3·5: neither 3 nor 5 works
    params = MiMC.for_field(f31)
    assert params.exponent == 7 and params.constraints_per_round == 4 and params.rounds == 2
    assert mimc_exponent(prime_field("f11", 11)) == 3
    assert round_constant(TOY, 1) == round_constant(TOY, 1) != round_constant(TOY, 2)


def test_mimc_is_a_permutation_of_the_toy_field() -> None:
    params, F = MiMC.for_field(TOY), TOY
    key = F(12345)
    images = {mimc_permutation(params, x, key).value for x in range(F.MODULUS)}
    assert len(images) == F.MODULUS


@pytest.mark.parametrize("use_toy", [True, False], ids=["toy", "Fr"])
def test_mimc_gadgets_agree_with_plain_python(curve: Curve, rng: random.Random, use_toy: bool) -> None:
    F = TOY if use_toy else curve.Fr
    params = MiMC.for_field(F)
    x, k, m = (F(rng.randrange(F.MODULUS)) for _ in range(3))
    cs = ConstraintSystem(F)
    vx, vk, vm = cs.alloc(x), cs.alloc(k), cs.alloc(m)
    permuted = mimc_permutation_gadget(cs, params, vx, vk)
    assert cs.evaluate(permuted) == mimc_permutation(params, x, k)
    assert cs.num_constraints == params.constraints_per_permutation
    compressed = mimc_compress_gadget(cs, params, vk, vm)
    assert cs.evaluate(compressed) == mimc_compress(params, k, m) == mimc_permutation(params, m, k) + k + m
    hashed = mimc_hash_gadget(cs, params, [vx, cs.lc(vk, 1), vm])
    assert cs.evaluate(hashed) == mimc_hash(params, [x, k + 1, m])
    assert cs.num_constraints == 5 * params.constraints_per_permutation
    cs.check_satisfied()


def test_mimc_chain_counts_and_refusal(curve: Curve) -> None:
    params = MiMC.for_field(curve.Fr)
    cs = ConstraintSystem(curve.Fr)
    y = synthesize_mimc_chain(cs, params, 3, 4, permutations=2)
    assert cs.num_constraints == 2 * 330 + 1 and cs.num_inputs == 2
    assert cs.value(y) == mimc_permutation(params, mimc_permutation(params, 3, 4), 4)
    cs.check_satisfied()
    cs.aux_assignment[0] += 1  # the key
    error = unsatisfied(cs)
    assert error.index == 0 and "permutation 0/round 0/square" in str(error)


# --- Merkle ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("use_toy", [True, False], ids=["toy", "Fr"])
def test_merkle_accepts_a_valid_path(curve: Curve, rng: random.Random, use_toy: bool) -> None:
    F = TOY if use_toy else curve.Fr
    params = MiMC.for_field(F)
    path, root = random_merkle_path(params, 4, rng)
    cs = ConstraintSystem(F)
    public_root = synthesize_merkle(cs, params, path)
    assert cs.value(public_root) == root == merkle_root(params, path)
    assert cs.num_constraints == 4 * (params.constraints_per_permutation + 2) + 1 and cs.num_inputs == 2
    cs.check_satisfied()


def test_merkle_root_by_hand() -> None:
    params = MiMC.for_field(TOY)
    leaf, s0, s1 = TOY(11), TOY(22), TOY(33)
    path = MerklePath(leaf, (s0, s1), (1, 0))  # leaf is a right child, then its parent a left child
    expected = mimc_compress(params, mimc_compress(params, s0, leaf), s1)
    assert merkle_root(params, path) == expected


@pytest.mark.parametrize("tamper", ["leaf", "sibling", "direction"])
def test_merkle_refuses_a_wrong_path(curve: Curve, rng: random.Random, tamper: str) -> None:
    params = MiMC.for_field(curve.Fr)
    path, root = random_merkle_path(params, 3, rng)
    if tamper == "leaf":
        path = MerklePath(path.leaf + 1, path.siblings, path.directions)
    elif tamper == "sibling":
        path = MerklePath(path.leaf, (path.siblings[0], path.siblings[1] + 1, path.siblings[2]), path.directions)
    else:
        path = MerklePath(path.leaf, path.siblings, (1 - path.directions[0], *path.directions[1:]))
    cs = ConstraintSystem(curve.Fr)
    synthesize_merkle(cs, params, path, root)
    error = unsatisfied(cs)
    assert error.index == cs.num_constraints - 1 and "(root)" in str(error)


def test_merkle_refuses_a_non_boolean_direction(rng: random.Random) -> None:
    params = MiMC.for_field(TOY)
    path, root = random_merkle_path(params, 2, rng)
    cs = ConstraintSystem(TOY)
    synthesize_merkle(cs, params, MerklePath(path.leaf, path.siblings, (2, path.directions[1])), root)
    error = unsatisfied(cs)
    assert error.index == 0 and "level 0/direction boolean" in str(error)


# --- the registry ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(CIRCUITS))
def test_family_sizes_hit_the_target(curve: Curve, name: str) -> None:
    circuit = family(name)
    for target in (2**10, 2**12) if name in ("cubic", "mimc") else (2**10,):
        size = circuit.size_for_constraints(target, curve.Fr)
        cs = build(name, curve.Fr, size=size)
        assert cs.num_constraints == circuit.num_constraints(size, curve.Fr)
        assert 0.75 * target <= cs.num_constraints <= 1.25 * target
        assert cs.num_inputs == 2 and cs.is_satisfied()


@pytest.mark.parametrize("name", list(CIRCUITS))
def test_family_counts_on_the_toy_field(name: str) -> None:
    circuit = family(name)
    for size in (1, 2, 5):
        cs = build(name, TOY, size=size)
        assert cs.num_constraints == circuit.num_constraints(size, TOY)
    size = circuit.size_for_constraints(2**10, TOY)
    assert 0.75 * 2**10 <= circuit.num_constraints(size, TOY) <= 1.25 * 2**10


def test_expected_constraint_counts(curve: Curve) -> None:
    counts = {name: [c.num_constraints(s, curve.Fr) for s in (1, 2)] for name, c in CIRCUITS.items()}
    assert counts == {"cubic": [4, 8], "bits": [66, 131], "mimc": [331, 661], "merkle": [333, 665]}


@pytest.mark.parametrize("name", list(CIRCUITS))
def test_synthesis_is_deterministic_given_the_seed(name: str) -> None:
    first = build(name, TOY, size=3, seed=7)
    again = build(name, TOY, size=3, seed=7)
    other = build(name, TOY, size=3, seed=8)
    assert first.full_assignment() == again.full_assignment() != other.full_assignment()
    assert first.matrices() == again.matrices()
    assert [c[3] for c in first.constraints] == [c[3] for c in again.constraints]


def test_build_arguments_are_checked() -> None:
    with pytest.raises(CuzkError, match="known circuits: cubic, bits, mimc, merkle"):
        build("sha256", TOY, size=1)
    with pytest.raises(CuzkError, match="exactly one"):
        build("cubic", TOY)
    with pytest.raises(CuzkError, match="exactly one"):
        build("cubic", TOY, size=1, target_constraints=4)
    with pytest.raises(CuzkError, match="at least 1"):
        build("cubic", TOY, size=0)
    assert build("cubic", TOY, target_constraints=1).num_constraints == 4


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CIRCUITS))
def test_synthesis_of_2_16_constraints_takes_seconds(curve: Curve, name: str) -> None:
    start = time.perf_counter()
    cs = build(name, curve.Fr, target_constraints=2**16, check=False)
    elapsed = time.perf_counter() - start
    assert 0.75 * 2**16 <= cs.num_constraints <= 1.25 * 2**16
    assert elapsed < 30, f"{name}: {cs.num_constraints} constraints took {elapsed:.1f} s"
    cs.check_satisfied()
