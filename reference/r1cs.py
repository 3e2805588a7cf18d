"""Rank-1 constraint systems: the form in which a circuit reaches Groth16.

An R1CS over F_r is a list of constraints, each ⟨a_i, z⟩ · ⟨b_i, z⟩ = ⟨c_i, z⟩, where z is the full assignment

    z = (1, x_1 … x_ℓ, w_1 … w_m)       (the constant one, the public inputs, then the private "aux" witness)

and a_i, b_i, c_i are sparse vectors: linear combinations of the variables. Groth16 (and snarkjs, bellman, arkworks)
number the columns in that order, inputs first, so the verifier's part of z is a prefix. Variables are allocated
with :meth:`ConstraintSystem.alloc` (aux) and :meth:`ConstraintSystem.alloc_input` (public); the names are bellman's.

Linear combinations grow in place. The seed engine (bellperson, synthesizing Filecoin PoRep) spent a large share of
its 55 s of synthesis building a temporary LinearCombination for every term a gadget added (``lc + (coeff, var)``
returns a new combination, copies the old terms and drops the old one); its ``add_to_lc``/``sub_from_lc`` methods
append to the target combination instead and were the biggest single win of that campaign. Here ``lc += term``,
:meth:`LinearCombination.add_term` and :meth:`LinearCombination.add_lc` mutate ``lc``: one dict update per term, equal
variables merged on the spot, no combination built per term. ``lc + term`` copies once and then adds in place.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import NamedTuple, Union

from cuzk.reference.errors import FieldMismatchError, SynthesisError, UnsatisfiedConstraintError
from cuzk.reference.fields.prime_field import PrimeFieldElement


class VariableKind(enum.Enum):
    INPUT = "input"  # public: a column of the verifier's prefix of z (input 0 is the constant one)
    AUX = "aux"  # private witness


INPUT, AUX = VariableKind.INPUT, VariableKind.AUX


@dataclass(frozen=True, slots=True, repr=False)
class Variable:
    """Column ``index`` of the inputs or of the aux; ``owner`` is the system that allocated it (None: any system)."""

    index: int
    kind: VariableKind
    owner: int | None = None
    _hash: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        # Hashed once: every term added to a combination hashes its variable.
        object.__setattr__(self, "_hash", hash((self.index, self.kind, self.owner)))

    def __hash__(self) -> int:
        return self._hash

    def full_index(self, num_inputs: int) -> int:
        """The column of this variable in z = (1, inputs…, aux…): inputs first, then aux after all inputs."""
        return self.index if self.kind is INPUT else num_inputs + self.index

    def __repr__(self) -> str:
        return "one" if self.kind is INPUT and self.index == 0 else f"{self.kind.value}{self.index}"


ONE = Variable(0, INPUT)
"""The constant-one variable, input 0 of every constraint system: a constant c in a combination is c·ONE."""

Term = Union[Variable, "LinearCombination", tuple[object, Variable], int, PrimeFieldElement]


def _coerce(F: type[PrimeFieldElement], value: object) -> PrimeFieldElement:
    """``value`` as an element of F: ints are read mod r; an element of another field is refused."""
    if type(value) is F:
        return value  # type: ignore[return-value]
    if isinstance(value, int):
        return F(value)
    if isinstance(value, PrimeFieldElement):
        raise FieldMismatchError(f"an element of {value.NAME} was used where {F.NAME} was expected")
    raise TypeError(f"expected an element of {F.NAME} or an int, got {type(value).__name__}")


def _times(F: type[PrimeFieldElement], k: object, coeff: object) -> PrimeFieldElement:
    """k·coeff in F, skipping the product when coeff is the default 1."""
    k = _coerce(F, k)
    return k if type(coeff) is int and coeff == 1 else k * _coerce(F, coeff)


class LinearCombination:
    """Σ coeff_j · var_j over F: ``terms`` maps each Variable to its non-zero coefficient, in insertion order.

    Iterating yields ``(var, coeff)`` pairs. Every ``add_*``/``sub_*`` method and ``+=``/``-=`` mutate ``self``
    (see the module docstring for why); they accept a Variable, a LinearCombination, a ``(coeff, Variable)`` pair or
    a constant c (meaning c·ONE). A coefficient that becomes zero after merging removes its term.
    """

    __slots__ = ("field", "terms")

    def __init__(self, field: type[PrimeFieldElement], items: Iterable[Term] = ()) -> None:
        self.field = field
        self.terms: dict[Variable, PrimeFieldElement] = {}
        for item in items:
            self.add(item)

    def add_term(self, var: Variable, coeff: object = 1) -> LinearCombination:
        """self ← self + coeff·var (the seed's add_to_lc)."""
        if type(var) is not Variable:
            raise TypeError(f"expected a Variable, got {type(var).__name__}")
        c = coeff if type(coeff) is self.field else _coerce(self.field, coeff)
        terms = self.terms
        old = terms.get(var)
        if old is not None:
            c = old + c
        if c.value:
            terms[var] = c
        elif old is not None:
            del terms[var]
        return self

    def sub_term(self, var: Variable, coeff: object = 1) -> LinearCombination:
        """self ← self − coeff·var (the seed's sub_from_lc)."""
        return self.add_term(var, -_coerce(self.field, coeff))

    def add_lc(self, other: LinearCombination, coeff: object = 1) -> LinearCombination:
        """self ← self + coeff·other, term by term into self."""
        if other.field is not self.field:
            raise FieldMismatchError(f"cannot add a combination over {other.field.NAME} to one over {self.field.NAME}")
        c = _coerce(self.field, coeff)
        items = list(other.terms.items()) if other is self else other.terms.items()
        for var, k in items:
            self.add_term(var, k if c.value == 1 else k * c)
        return self

    def sub_lc(self, other: LinearCombination, coeff: object = 1) -> LinearCombination:
        """self ← self − coeff·other."""
        return self.add_lc(other, -_coerce(self.field, coeff))

    def add(self, item: Term, coeff: object = 1) -> LinearCombination:
        """self ← self + coeff·item for any accepted kind of term."""
        if type(item) is Variable:
            return self.add_term(item, coeff)
        if isinstance(item, LinearCombination):
            return self.add_lc(item, coeff)
        if isinstance(item, tuple) and len(item) == 2:
            return self.add_term(item[1], _times(self.field, item[0], coeff))
        if isinstance(item, (int, PrimeFieldElement)):
            return self.add_term(ONE, _times(self.field, item, coeff))
        raise TypeError(f"cannot add a {type(item).__name__} to a LinearCombination")

    def sub(self, item: Term, coeff: object = 1) -> LinearCombination:
        """self ← self − coeff·item for any accepted kind of term."""
        return self.add(item, -_coerce(self.field, coeff))

    def __iadd__(self, item: Term) -> LinearCombination:
        return self.add(item)

    def __isub__(self, item: Term) -> LinearCombination:
        return self.sub(item)

    def copy(self) -> LinearCombination:
        lc = LinearCombination(self.field)
        lc.terms = dict(self.terms)
        return lc

    def __add__(self, item: Term) -> LinearCombination:
        return self.copy().add(item)

    def __sub__(self, item: Term) -> LinearCombination:
        return self.copy().sub(item)

    def __iter__(self) -> Iterator[tuple[Variable, PrimeFieldElement]]:
        return iter(self.terms.items())

    def __len__(self) -> int:
        return len(self.terms)

    def evaluate(self, assignment: Mapping[Variable, object] | Callable[[Variable], object]) -> PrimeFieldElement:
        """⟨self, z⟩ = Σ coeff_j · z[var_j], z given as a mapping (ONE defaults to 1) or a function of the variable."""
        if callable(assignment):
            lookup = assignment
        else:
            mapping = assignment
            lookup = lambda v: mapping[v] if v in mapping or v != ONE else 1  # noqa: E731
        total = 0
        for var, coeff in self.terms.items():
            total += coeff.value * _coerce(self.field, lookup(var)).value
        return self.field(total)

    def __repr__(self) -> str:
        return " + ".join(f"{c.value}·{v!r}" for v, c in self.terms.items()) or "0"


class Matrices(NamedTuple):
    """A, B, C of the R1CS: one sparse row per constraint, a row a list of (column of z, coefficient), sorted."""

    a: list[list[tuple[int, PrimeFieldElement]]]
    b: list[list[tuple[int, PrimeFieldElement]]]
    c: list[list[tuple[int, PrimeFieldElement]]]


def dense(matrix: list[list[tuple[int, PrimeFieldElement]]], num_columns: int) -> list[list[int]]:
    """A sparse matrix of :class:`Matrices` written out in full, as integers (for the walkthrough and tests)."""
    rows = []
    for row in matrix:
        full = [0] * num_columns
        for column, coeff in row:
            full[column] = coeff.value
        rows.append(full)
    return rows


_owners = itertools.count(1)


class ConstraintSystem:
    """Constraints a·b = c over ``field`` with their witness: ``input_assignment`` (first entry 1) and
    ``aux_assignment``; ``constraints`` holds (a, b, c, name) tuples of LinearCombinations."""

    def __init__(self, field: type[PrimeFieldElement]) -> None:
        if not (isinstance(field, type) and issubclass(field, PrimeFieldElement)):
            raise TypeError(f"a ConstraintSystem needs a prime field type, got {field!r}")
        self.field = field
        self.owner = next(_owners)
        self._one = field.one()  # shared: field elements are immutable
        self.input_assignment: list[PrimeFieldElement] = [self._one]
        self.aux_assignment: list[PrimeFieldElement] = []
        self.input_names: list[str] = ["one"]
        self.aux_names: list[str] = []
        self.constraints: list[tuple[LinearCombination, LinearCombination, LinearCombination, str]] = []
        self._prefix = ""

    one = ONE

    @property
    def num_inputs(self) -> int:
        """Public inputs, the constant one included."""
        return len(self.input_assignment)

    @property
    def num_aux(self) -> int:
        return len(self.aux_assignment)

    @property
    def num_constraints(self) -> int:
        return len(self.constraints)

    # --- synthesis ---------------------------------------------------------------------------------------------

    @contextmanager
    def namespace(self, name: str) -> Iterator[None]:
        """Prefix the names of the constraints and variables made inside with ``name/`` (bellman's namespaces)."""
        outer = self._prefix
        self._prefix = f"{outer}{name}/"
        try:
            yield
        finally:
            self._prefix = outer

    def alloc(self, value: object, name: str | None = None) -> Variable:
        """A new private (aux) variable holding ``value``."""
        self.aux_assignment.append(_coerce(self.field, value))
        self.aux_names.append(self._prefix + (name or f"aux{len(self.aux_names)}"))
        return Variable(len(self.aux_assignment) - 1, AUX, self.owner)

    def alloc_input(self, value: object, name: str | None = None) -> Variable:
        """A new public input holding ``value``."""
        self.input_assignment.append(_coerce(self.field, value))
        self.input_names.append(self._prefix + (name or f"input{len(self.input_names)}"))
        return Variable(len(self.input_assignment) - 1, INPUT, self.owner)

    def lc(self, *items: Term) -> LinearCombination:
        """A new combination over this system's field: ``cs.lc(x, (3, y), 5)`` is x + 3y + 5."""
        return LinearCombination(self.field, items)

    def _check(self, var: Variable) -> None:
        if var.owner is not None and var.owner != self.owner:
            raise SynthesisError(f"{var!r} was allocated by another ConstraintSystem")
        size = len(self.input_assignment) if var.kind is INPUT else len(self.aux_assignment)
        if not 0 <= var.index < size:
            raise SynthesisError(f"{var!r} is out of range: this system has {size} {var.kind.value} variables")

    def _to_lc(self, item: Term) -> LinearCombination:
        """A private copy of ``item`` as a combination, its variables checked against this system."""
        if type(item) is Variable:  # the common case, built directly
            self._check(item)
            lc = LinearCombination(self.field)
            lc.terms[item] = self._one
            return lc
        lc = item.copy() if isinstance(item, LinearCombination) else LinearCombination(self.field, (item,))
        if lc.field is not self.field:
            raise FieldMismatchError(f"a combination over {lc.field.NAME} in a system over {self.field.NAME}")
        for var in lc.terms:
            self._check(var)
        return lc

    def enforce(self, a: Term, b: Term, c: Term, name: str | None = None) -> None:
        """Add the constraint ⟨a, z⟩ · ⟨b, z⟩ = ⟨c, z⟩ (each side a combination, a variable or a constant)."""
        label = self._prefix + (name or f"#{len(self.constraints)}")
        self.constraints.append((self._to_lc(a), self._to_lc(b), self._to_lc(c), label))

    # --- the witness -------------------------------------------------------------------------------------------

    def full_assignment(self) -> list[PrimeFieldElement]:
        """z = (1, public inputs…, aux…)."""
        return self.input_assignment + self.aux_assignment

    def value(self, var: Variable) -> PrimeFieldElement:
        self._check(var)
        return self.input_assignment[var.index] if var.kind is INPUT else self.aux_assignment[var.index]

    def name_of(self, var: Variable) -> str:
        self._check(var)
        return self.input_names[var.index] if var.kind is INPUT else self.aux_names[var.index]

    def _evaluate(self, lc: LinearCombination) -> int:
        inputs, aux, total = self.input_assignment, self.aux_assignment, 0
        for var, coeff in lc.terms.items():
            total += coeff.value * (inputs[var.index] if var.kind is INPUT else aux[var.index]).value
        return total % self.field.MODULUS

    def evaluate(self, item: Term) -> PrimeFieldElement:
        """⟨item, z⟩ under this system's witness."""
        return self.field(self._evaluate(self._to_lc(item)))

    def which_is_unsatisfied(self) -> int | None:
        """The index of the first constraint with ⟨a,z⟩·⟨b,z⟩ ≠ ⟨c,z⟩, or None when all hold."""
        p = self.field.MODULUS
        for i, (a, b, c, _) in enumerate(self.constraints):
            if self._evaluate(a) * self._evaluate(b) % p != self._evaluate(c):
                return i
        return None

    def is_satisfied(self) -> bool:
        return self.which_is_unsatisfied() is None

    def check_satisfied(self) -> None:
        """Raise UnsatisfiedConstraintError naming the first failing constraint and its values."""
        i = self.which_is_unsatisfied()
        if i is None:
            return
        a, b, c, name = self.constraints[i]
        va, vb, vc = self._evaluate(a), self._evaluate(b), self._evaluate(c)
        raise UnsatisfiedConstraintError(
            f"constraint {i} ({name}) is not satisfied: ⟨a,z⟩ = {va}, ⟨b,z⟩ = {vb}, ⟨c,z⟩ = {vc}, "
            f"but ⟨a,z⟩·⟨b,z⟩ = {va * vb % self.field.MODULUS}; the witness is wrong where {name} is computed",
            i,
        )

    # --- the matrices ------------------------------------------------------------------------------------------

    def matrices(self) -> Matrices:
        """A, B, C with row i = a_i, b_i, c_i over the columns of z (inputs first), so that (Az)∘(Bz) = Cz."""
        n = self.num_inputs

        def row(lc: LinearCombination) -> list[tuple[int, PrimeFieldElement]]:
            merged: dict[int, PrimeFieldElement] = {}
            for var, coeff in lc.terms.items():  # a hand-made Variable and an allocated one may share a column
                column = var.full_index(n)
                merged[column] = merged[column] + coeff if column in merged else coeff
            return sorted((col, k) for col, k in merged.items() if k.value)

        rows = [(row(a), row(b), row(c)) for a, b, c, _ in self.constraints]
        return Matrices([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])

    def __repr__(self) -> str:
        return (
            f"ConstraintSystem({self.field.NAME}: {self.num_constraints} constraints, "
            f"{self.num_inputs} inputs, {self.num_aux} aux)"
        )
