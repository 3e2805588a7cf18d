"""Element-wise Fr and Fq arithmetic on canonical limbs (the FIELD_OPS capability, for the conformance vectors).

Inputs and outputs are canonical; addition, subtraction and negation work on canonical values directly (they
commute with the Montgomery map), a product takes one operand into Montgomery form (mont_mul(a, b·R) = a·b), and an
inverse goes in and out: (a·R)⁻¹ in Montgomery form is a⁻¹·R.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cuzk.backends.cpu.field import add, from_mont, inv, load, mul, neg, store, sub, to_mont
from cuzk.backends.cpu.jit import JIT

OPS = {"add": 0, "sub": 1, "mul": 2, "neg": 3, "square": 4, "inverse": 5}


@njit(**JIT)
def apply(code: int, a: np.ndarray, b: np.ndarray, out: np.ndarray, F: Any) -> None:
    """out[i] = op(a[i], b[i]) (b ignored by the unary operations) for the operation numbered ``code`` in OPS."""
    like = F.one
    for i in range(a.shape[0]):
        x = load(a, i, like)
        if code == 0:
            r = add(x, load(b, i, like), F)
        elif code == 1:
            r = sub(x, load(b, i, like), F)
        elif code == 2:
            r = mul(x, to_mont(load(b, i, like), F), F)
        elif code == 3:
            r = neg(x, F)
        elif code == 4:
            r = mul(x, to_mont(x, F), F)
        else:
            r = from_mont(inv(to_mont(x, F), F), F)
        store(out, i, r)


def field_op(F: Any, op: str, a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """``op`` row by row on (n, N) canonical limbs."""
    a = np.ascontiguousarray(a)
    out = np.empty_like(a)
    apply(OPS[op], a, a if b is None else np.ascontiguousarray(b), out, F)
    return out


__all__ = ["OPS", "field_op"]
