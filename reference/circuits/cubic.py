"""The textbook circuit: x³ + x + 5 = out (Buterin, "Quadratic Arithmetic Programs: from Zero to Hero", 2016).

Flattened into one operation per line, with the article's intermediate variables,

    sym_1 = x · x
    y     = sym_1 · x
    sym_2 = y + x
    ~out  = sym_2 + 5

it is four constraints a·b = c (an addition is written (left) · 1 = result):

    x · x           = sym_1
    sym_1 · x       = y
    (x + y) · 1     = sym_2
    (sym_2 + 5) · 1 = ~out

The article orders z as (~one, x, ~out, sym_1, y, sym_2); Groth16 puts the public ~out before the private x, so here
z = (one, ~out, x, sym_1, y, sym_2): the same matrices with columns 1 and 2 exchanged. With x = 3, ~out = 35.
"""

from __future__ import annotations

from contextlib import nullcontext

from cuzk.reference.errors import ParameterError
from cuzk.reference.r1cs import ConstraintSystem, LinearCombination, Variable


def cubic(x: int) -> int:
    """x³ + x + 5 as a plain integer (read modulo r by the field)."""
    return x**3 + x + 5


def cubic_gadget(cs: ConstraintSystem, x: Variable | LinearCombination, out: Variable | None = None) -> Variable:
    """Enforce out = x³ + x + 5 with the article's four constraints; allocates ``out`` (aux) unless given."""
    xv = cs.evaluate(x)
    sym_1 = cs.alloc(xv * xv, "sym_1")
    cs.enforce(x, x, sym_1, "x*x=sym_1")
    y = cs.alloc(cs.value(sym_1) * xv, "y")
    cs.enforce(sym_1, x, y, "sym_1*x=y")
    sym_2 = cs.alloc(cs.value(y) + xv, "sym_2")
    cs.enforce(cs.lc(x, y), cs.one, sym_2, "(x+y)*1=sym_2")
    if out is None:
        out = cs.alloc(cs.value(sym_2) + 5, "out")
    cs.enforce(cs.lc(sym_2, 5), cs.one, out, "(sym_2+5)*1=out")
    return out


def synthesize_cubic(cs: ConstraintSystem, x: int = 3, steps: int = 1, out: int | None = None) -> Variable:
    """Public ~out = f^steps(x) for f(x) = x³ + x + 5, private x: 4·steps constraints, 1 public input.

    ``steps = 1`` is exactly the article's circuit. ``out`` claims a public output (default: the true one); a
    wrong claim leaves the system unsatisfied at its last constraint, as a cheating prover's would be.
    """
    if steps < 1:
        raise ParameterError(f"steps must be at least 1, got {steps}")
    value = cs.field(x)
    for _ in range(steps):
        value = value * value * value + value + 5
    public = cs.alloc_input(value if out is None else out, "~out")
    current = cs.alloc(x, "x")
    for step in range(steps):
        with cs.namespace(f"step {step}") if steps > 1 else nullcontext():
            current = cubic_gadget(cs, current, public if step == steps - 1 else None)
    return public
