"""The R1CS layer: in-place linear combinations, allocation order, satisfaction checks that name the culprit."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import FieldMismatchError, SynthesisError, UnsatisfiedConstraintError
from cuzk.reference.fields import fft_field
from cuzk.reference.r1cs import AUX, INPUT, ONE, ConstraintSystem, LinearCombination, Variable, dense

TOY = fft_field("toy.Fr", 64513, generator=5)
FIELDS = [TOY, BN254.Fr, BLS12_381.Fr]


def toy_system() -> tuple[ConstraintSystem, Variable, Variable, Variable]:
    cs = ConstraintSystem(TOY)
    return cs, cs.alloc_input(7, "pub"), cs.alloc(10, "x"), cs.alloc(20, "y")


# --- LinearCombination ----------------------------------------------------------------------------------------------


def test_adding_a_variable_twice_merges_into_one_term() -> None:
    _, _, x, _ = toy_system()
    lc = LinearCombination(TOY)
    lc.add_term(x, 2)
    lc.add_term(x, 3)
    assert len(lc) == 1 and lc.terms[x] == 5 and list(lc) == [(x, TOY(5))]


def test_subtracting_to_zero_drops_the_term() -> None:
    _, _, x, y = toy_system()
    lc = LinearCombination(TOY, [x, (4, y)])
    lc -= x
    assert x not in lc.terms and list(lc) == [(y, TOY(4))]
    lc.sub_term(y, 4)
    assert len(lc) == 0 and y not in lc.terms
    lc.add_term(x, 0)  # a zero coefficient never enters
    lc.add_term(x, TOY.MODULUS)
    assert len(lc) == 0


def test_in_place_operators_keep_the_identity_of_the_combination() -> None:
    cs, _, x, y = toy_system()
    lc = cs.lc()
    before = lc
    lc += x
    lc += (3, y)
    lc += 5
    lc += TOY(2)
    lc -= cs.lc(y, 1)
    lc += lc  # adding itself doubles every term
    assert lc is before
    assert lc.terms == {x: TOY(2), y: TOY(4), ONE: TOY(12)}


def test_binary_operators_copy_and_leave_the_operands_alone() -> None:
    cs, _, x, y = toy_system()
    lc = cs.lc(x)
    total = lc + y
    difference = lc - (2, x)
    assert total is not lc and lc.terms == {x: TOY(1)}
    assert total.terms == {x: TOY(1), y: TOY(1)} and difference.terms == {x: TOY(-1)}


def test_evaluation_matches_a_hand_computation() -> None:
    cs, pub, x, y = toy_system()
    lc = cs.lc((3, x), (5, y), (-1, pub), -2)
    assert lc.evaluate(cs.value) == 3 * 10 + 5 * 20 - 7 - 2 == 121
    assert lc.evaluate({x: 10, y: 20, pub: 7}) == 121  # a mapping: ONE is 1 unless it says otherwise
    assert cs.evaluate(lc) == 121
    assert cs.lc((-1, x)).evaluate(cs.value) == TOY.MODULUS - 10
    assert repr(cs.lc((3, x), 2)) == "3·aux0 + 2·one"


def test_combinations_refuse_other_fields_and_non_terms() -> None:
    cs, _, x, _ = toy_system()
    lc = cs.lc(x)
    with pytest.raises(FieldMismatchError):
        lc.add_term(x, BN254.Fr(1))
    with pytest.raises(FieldMismatchError):
        lc.add_lc(LinearCombination(BN254.Fr))
    with pytest.raises(TypeError):
        lc.add_term(3, x)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        lc += "x"  # type: ignore[operator]


ops = st.lists(
    st.tuples(
        st.sampled_from(["term", "sub_term", "pair", "const", "var", "lc", "sub_lc", "-=var", "-=pair"]),
        st.integers(0, 3),
        st.integers(-(2**300), 2**300),
    ),
    max_size=40,
)


@pytest.mark.parametrize("field", FIELDS, ids=lambda f: f.NAME)
@given(ops=ops, values=st.lists(st.integers(0, 2**300), min_size=3, max_size=3))
def test_in_place_sequences_evaluate_like_integers_mod_r(field: type, ops: list, values: list[int]) -> None:
    cs = ConstraintSystem(field)
    variables = [cs.one] + [cs.alloc(v) for v in values]
    z = [1, *values]
    r = field.MODULUS
    lc, other, expected = cs.lc(), cs.lc((3, variables[1]), (5, variables[2]), 7), 0
    other_value = 3 * z[1] + 5 * z[2] + 7
    for op, i, k in ops:
        var, before = variables[i], lc
        if op == "term":
            lc.add_term(var, k)
            expected += k * z[i]
        elif op == "sub_term":
            lc.sub_term(var, k)
            expected -= k * z[i]
        elif op == "pair":
            lc += (k, var)
            expected += k * z[i]
        elif op == "-=pair":
            lc -= (k, var)
            expected -= k * z[i]
        elif op == "const":
            lc += k
            expected += k
        elif op == "var":
            lc += var
            expected += z[i]
        elif op == "-=var":
            lc -= var
            expected -= z[i]
        elif op == "lc":
            lc.add_lc(other, k)
            expected += k * other_value
        else:
            lc.sub_lc(other, k)
            expected -= k * other_value
        assert lc is before
        assert all(c.value != 0 for _, c in lc)
        assert len(lc) <= len(variables)
    assert lc.evaluate(cs.value) == expected % r
    assert cs.evaluate(lc).value == expected % r


# --- Variables and the ConstraintSystem ---------------------------------------------------------------------------


def test_allocation_order_and_full_assignment(curve: Curve) -> None:
    cs = ConstraintSystem(curve.Fr)
    a = cs.alloc(11, "a")
    p = cs.alloc_input(22, "p")
    b = cs.alloc(33, "b")
    q = cs.alloc_input(44, "q")
    assert (cs.num_inputs, cs.num_aux) == (3, 2)  # the constant one is input 0
    assert [v.value for v in cs.full_assignment()] == [1, 22, 44, 11, 33]
    assert [v.full_index(cs.num_inputs) for v in (ONE, p, q, a, b)] == [0, 1, 2, 3, 4]
    assert (p.kind, a.kind, ONE.kind) == (INPUT, AUX, INPUT) and cs.one is ONE
    assert cs.value(q) == 44 and cs.value(cs.one) == 1
    assert cs.name_of(b) == "b" and cs.input_names == ["one", "p", "q"]


def test_variables_are_frozen_and_hashable() -> None:
    cs, _, x, _ = toy_system()
    assert x == Variable(0, AUX, cs.owner) and hash(x) == hash(Variable(0, AUX, cs.owner))
    assert len({x, Variable(0, AUX, cs.owner), ONE, Variable(0, INPUT)}) == 2
    with pytest.raises(AttributeError):
        x.index = 1  # type: ignore[misc]


def test_foreign_and_out_of_range_variables_are_refused() -> None:
    cs, _, x, _ = toy_system()
    other = ConstraintSystem(TOY)
    other.alloc(1)
    for bad in (x, Variable(1, AUX), Variable(1, INPUT)):
        with pytest.raises(SynthesisError):
            other.enforce(bad, 1, 1)
        with pytest.raises(SynthesisError):
            other.value(bad)
    with pytest.raises(SynthesisError, match="another ConstraintSystem"):
        other.evaluate(cs.lc(x))
    other.enforce(Variable(0, AUX), ONE, Variable(0, AUX))  # hand-made and in range: fine


def test_values_are_coerced_and_other_fields_refused(curve: Curve) -> None:
    cs = ConstraintSystem(curve.Fr)
    assert cs.value(cs.alloc(-1)) == curve.r - 1
    with pytest.raises(FieldMismatchError):
        cs.alloc(curve.Fq(1))
    with pytest.raises(FieldMismatchError):
        cs.enforce(LinearCombination(TOY), 1, 0)
    with pytest.raises(TypeError):
        ConstraintSystem(int)  # type: ignore[arg-type]


def test_constants_and_satisfaction(curve: Curve) -> None:
    cs = ConstraintSystem(curve.Fr)
    x = cs.alloc(6)
    cs.enforce(5, 7, 35, "constants")
    cs.enforce(x, x, 36, "square")
    assert cs.is_satisfied() and cs.which_is_unsatisfied() is None
    cs.check_satisfied()
    cs.enforce((2, x), cs.lc(x, 1), 85, "bad")  # 12 · 7 = 84 ≠ 85
    assert not cs.is_satisfied() and cs.which_is_unsatisfied() == 2
    with pytest.raises(UnsatisfiedConstraintError) as info:
        cs.check_satisfied()
    assert info.value.index == 2
    message = str(info.value)
    for part in ("constraint 2", "(bad)", "⟨a,z⟩ = 12", "⟨b,z⟩ = 7", "⟨c,z⟩ = 85", "⟨a,z⟩·⟨b,z⟩ = 84"):
        assert part in message


def test_enforce_copies_its_operands() -> None:
    cs, _, x, y = toy_system()
    lc = cs.lc(x)
    cs.enforce(lc, 1, x)
    lc += y  # a later change to the caller's combination does not reach the stored constraint
    assert cs.constraints[0][0].terms == {x: TOY(1)} and cs.is_satisfied()


def test_namespaces_prefix_names() -> None:
    cs = ConstraintSystem(TOY)
    with cs.namespace("gadget"):
        with cs.namespace("inner"):
            v = cs.alloc(1, "v")
            cs.enforce(v, v, v, "idempotent")
        cs.enforce(v, 1, v)
    cs.enforce(v, 1, v)
    assert [c[3] for c in cs.constraints] == ["gadget/inner/idempotent", "gadget/#1", "#2"]
    assert cs.name_of(v) == "gadget/inner/v"


def test_matrices_in_full_assignment_column_order() -> None:
    cs, pub, x, y = toy_system()  # z = (1, pub, x, y)
    cs.enforce(cs.lc(x, (2, y)), cs.lc(pub, 3), cs.lc((4, y), Variable(0, AUX)), "c0")
    cs.enforce(y, 1, cs.lc((-1, x), (1, x)))  # c sums to zero: an empty row
    a, b, c = cs.matrices()
    assert a == [[(2, TOY(1)), (3, TOY(2))], [(3, TOY(1))]]
    assert b == [[(0, TOY(3)), (1, TOY(1))], [(0, TOY(1))]]
    assert c == [[(2, TOY(1)), (3, TOY(4))], []]  # the hand-made aux 0 is the column of x
    assert dense(a, 4) == [[0, 0, 1, 2], [0, 0, 0, 1]]
