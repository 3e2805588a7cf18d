"""Montgomery arithmetic for numba kernels: Fp of any limb count N, and Fq2 = Fq[u]/(u² + 1).

An element of Fp is a ``UniTuple(uint64, N)`` holding the limbs of a·R mod p (R = 2^(64·N)); an element of Fq2 is
a pair of those, (c0, c1) for c0 + c1·u. Tuples, not arrays: numba keeps them in registers and never allocates.
``F`` is always the :class:`~cuzk.backends.cpu.params.FieldConsts` of the base field (a numba namedtuple).

Every operation is a numba ``@intrinsic``: its typing reads N (and Fp or Fq2) from the tuple type, its codegen
emits the LLVM IR of :mod:`.emit` for that N, fully unrolled. So one kernel source serves Fr and Fq of both curves
and G1 and G2 (numba compiles one specialization per element type). Results are fully reduced (< p): equality is
limb equality, and the outputs are canonical after leaving Montgomery form. Inversion is Fermat's a^(p−2) (Fq2:
through the norm a0² + a1²); the kernels invert rarely (once per batch of additions).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from cuzk.backends.cpu.emit import (
    I64,
    ZERO,
    Limbs,
    fp_add,
    fp_is_zero,
    fp_mul,
    fp_sub,
    fq2_mul,
    fq2_sqr,
    outlined,
    pack,
    unpack,
)
from cuzk.backends.cpu.jit import JIT

# --- numba types ↔ limb lists ---------------------------------------------------------------------------------


def _shape(t: Any) -> tuple[int, int] | None:
    """(degree, N) for the numba type of an element: (1, N) for Fp = UniTuple(uint64, N), (2, N) for Fq2."""
    if isinstance(t, types.UniTuple) and t.dtype == types.uint64:
        return 1, t.count
    if isinstance(t, types.UniTuple) and t.count == 2:
        inner = _shape(t.dtype)
        if inner is not None and inner[0] == 1:
            return 2, inner[1]
    return None


class _Consts:
    """The limbs of a FieldConsts value inside a codegen: p, pinv, one (R) and r2 (R²), by field position."""

    def __init__(self, b: ir.IRBuilder, F: ir.Value, n: int) -> None:
        self.p: Limbs = unpack(b, b.extract_value(F, 0), 1, n)
        self.pinv: ir.Value = b.extract_value(F, 1)
        self.one: Limbs = unpack(b, b.extract_value(F, 2), 1, n)
        self.r2: Limbs = unpack(b, b.extract_value(F, 3), 1, n)


def _typed(arity: int, emit: Any, *, coefficientwise: bool) -> Any:
    """The typing half of an intrinsic on ``arity`` elements of one type and F: (signature, codegen) or None.

    ``emit(builder, *operands, consts, degree)`` gets limb lists (Fp) or pairs of them (Fq2); with
    ``coefficientwise`` it is called once per Fq2 coefficient, on Fp limb lists, instead.
    """

    def typer(*args: Any) -> Any:
        shape = _shape(args[0])
        if shape is None or any(a != args[0] for a in args[1:arity]):
            return None
        degree, n = shape

        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, llargs: Any) -> ir.Value:
            operands = [unpack(builder, v, degree, n) for v in llargs[:arity]]
            k = _Consts(builder, llargs[arity], n)
            if coefficientwise and degree == 2:
                out = [emit(builder, *(o[j] for o in operands), k, 1) for j in range(2)]
            else:
                out = emit(builder, *operands, k, degree)
            return pack(builder, context.get_value_type(sig.return_type), out)

        return args[0](*args), codegen

    return typer


@intrinsic
def add(typingctx: Any, a: Any, b: Any, F: Any) -> Any:
    """a + b (Fp or Fq2)."""
    return _typed(2, lambda bld, x, y, k, d: fp_add(bld, x, y, k.p), coefficientwise=True)(a, b, F)


@intrinsic
def sub(typingctx: Any, a: Any, b: Any, F: Any) -> Any:
    """a − b (Fp or Fq2)."""
    return _typed(2, lambda bld, x, y, k, d: fp_sub(bld, x, y, k.p), coefficientwise=True)(a, b, F)


@intrinsic
def neg(typingctx: Any, a: Any, F: Any) -> Any:
    """−a (Fp or Fq2)."""
    return _typed(1, lambda bld, x, k, d: fp_sub(bld, [ZERO] * len(x), x, k.p), coefficientwise=True)(a, F)


@intrinsic
def dbl(typingctx: Any, a: Any, F: Any) -> Any:
    """2a (Fp or Fq2)."""
    return _typed(1, lambda bld, x, k, d: fp_add(bld, x, x, k.p), coefficientwise=True)(a, F)


def _mul_emit(b: ir.IRBuilder, x: Any, y: Any, k: _Consts, degree: int) -> Any:
    n = len(k.p)
    if degree == 1:
        return outlined(b, f"fp_mul.{n}", fp_mul, [x, y, k.p], [k.pinv])
    return outlined(b, f"fq2_mul.{n}", fq2_mul, [x, y, k.p], [k.pinv])


def _sqr_emit(b: ir.IRBuilder, x: Any, k: _Consts, degree: int) -> Any:
    n = len(k.p)
    if degree == 1:
        return outlined(b, f"fp_mul.{n}", fp_mul, [x, x, k.p], [k.pinv])
    return outlined(b, f"fq2_sqr.{n}", fq2_sqr, [x, k.p], [k.pinv])


@intrinsic
def mul(typingctx: Any, a: Any, b: Any, F: Any) -> Any:
    """a·b (Fp or Fq2; in Montgomery form aR·bR·R⁻¹ = abR)."""
    return _typed(2, _mul_emit, coefficientwise=False)(a, b, F)


@intrinsic
def sqr(typingctx: Any, a: Any, F: Any) -> Any:
    """a² (Fp or Fq2)."""
    return _typed(1, _sqr_emit, coefficientwise=False)(a, F)


@intrinsic
def to_mont(typingctx: Any, a: Any, F: Any) -> Any:
    """a·R mod p: a canonical element (Fp or Fq2) into Montgomery form, as mont_mul(a, R²)."""
    return _typed(1, lambda bld, x, k, d: fp_mul(bld, x, k.r2, k.p, k.pinv), coefficientwise=True)(a, F)


@intrinsic
def from_mont(typingctx: Any, a: Any, F: Any) -> Any:
    """a·R⁻¹ mod p: a Montgomery-form element (Fp or Fq2) back to canonical, as mont_mul(a, 1)."""

    def emit(bld: ir.IRBuilder, x: Limbs, k: _Consts, degree: int) -> Limbs:
        return fp_mul(bld, x, [ir.Constant(I64, 1)] + [ZERO] * (len(x) - 1), k.p, k.pinv)

    return _typed(1, emit, coefficientwise=True)(a, F)


def _predicate(arity: int, emit: Any) -> Any:
    def typer(*args: Any) -> Any:
        shape = _shape(args[0])
        if shape is None or any(a != args[0] for a in args[1:]):
            return None
        degree, n = shape

        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, llargs: Any) -> ir.Value:
            operands = [unpack(builder, v, degree, n) for v in llargs]
            if degree == 2:
                both = [emit(builder, *(o[k] for o in operands)) for k in range(2)]
                return builder.and_(both[0], both[1])
            return emit(builder, *operands)

        return types.boolean(*args), codegen

    return typer


def _eq_emit(b: ir.IRBuilder, x: Limbs, y: Limbs) -> ir.Value:
    return fp_is_zero(b, [b.xor(xi, yi) for xi, yi in zip(x, y, strict=True)])


@intrinsic
def is_zero(typingctx: Any, a: Any) -> Any:
    """a = 0 (Fp or Fq2)."""
    return _predicate(1, fp_is_zero)(a)


@intrinsic
def is_eq(typingctx: Any, a: Any, b: Any) -> Any:
    """a = b (Fp or Fq2): limb equality, elements being fully reduced."""
    return _predicate(2, _eq_emit)(a, b)


@intrinsic
def zero(typingctx: Any, like: Any) -> Any:
    """The zero of the field of ``like`` (Fp or Fq2)."""
    if _shape(like) is None:
        return None

    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, llargs: Any) -> ir.Value:
        return ir.Constant(context.get_value_type(sig.return_type), None)

    return like(like), codegen


@intrinsic
def one(typingctx: Any, like: Any, F: Any) -> Any:
    """The one of the field of ``like`` (Fp or Fq2), in Montgomery form (F.one, field 2 of FieldConsts)."""
    shape = _shape(like)
    if shape is None:
        return None

    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, llargs: Any) -> ir.Value:
        unit = _Consts(builder, llargs[1], shape[1]).one
        parts = unit if shape[0] == 1 else [unit, [ZERO] * shape[1]]
        return pack(builder, context.get_value_type(sig.return_type), parts)

    return like(like, F), codegen


# --- loads and stores: element i of a (rows, N) uint64 array (Fq2: rows 2i and 2i + 1) -------------------------


def _row_pointers(context: Any, builder: ir.IRBuilder, arrty: Any, arr: ir.Value, row: ir.Value, n: int) -> list:
    ary = context.make_array(arrty)(context, builder, arr)
    return [
        cgutils.get_item_pointer(context, builder, arrty, ary, [row, context.get_constant(types.intp, k)])
        for k in range(n)
    ]


def _rows(context: Any, builder: ir.IRBuilder, ity: Any, i: ir.Value, degree: int) -> list[ir.Value]:
    index = context.cast(builder, i, ity, types.intp)
    if degree == 1:
        return [index]
    base = builder.mul(index, context.get_constant(types.intp, degree))
    return [builder.add(base, context.get_constant(types.intp, k)) for k in range(degree)]


def _is_limb_array(t: Any) -> bool:
    return isinstance(t, types.Array) and t.dtype == types.uint64 and t.ndim == 2


@intrinsic
def load(typingctx: Any, arr: Any, i: Any, like: Any) -> Any:
    """Element i, of the type of ``like`` (Fp or Fq2), of a (rows, N) uint64 array (unchecked bounds)."""
    shape = _shape(like)
    if shape is None or not _is_limb_array(arr) or not isinstance(i, types.Integer):
        return None
    degree, n = shape

    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, llargs: Any) -> ir.Value:
        arr_v, i_v, _ = llargs
        parts = [
            [builder.load(ptr) for ptr in _row_pointers(context, builder, arr, arr_v, row, n)]
            for row in _rows(context, builder, i, i_v, degree)
        ]
        return pack(builder, context.get_value_type(sig.return_type), parts[0] if degree == 1 else parts)

    return like(arr, i, like), codegen


@intrinsic
def store(typingctx: Any, arr: Any, i: Any, v: Any) -> Any:
    """Write v (Fp or Fq2) as element i of a (rows, N) uint64 array (the layout of :func:`load`)."""
    shape = _shape(v)
    if shape is None or not _is_limb_array(arr) or not isinstance(i, types.Integer):
        return None
    degree, n = shape

    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, llargs: Any) -> ir.Value:
        arr_v, i_v, v_v = llargs
        parts = unpack(builder, v_v, degree, n)
        for row, part in zip(_rows(context, builder, i, i_v, degree), [parts] if degree == 1 else parts, strict=True):
            for ptr, limb in zip(_row_pointers(context, builder, arr, arr_v, row, n), part, strict=True):
                builder.store(limb, ptr)
        return context.get_dummy_value()

    return types.none(arr, i, v), codegen


# --- inversion ------------------------------------------------------------------------------------------------


@njit(**JIT)
def fp_inv(a: Any, F: Any) -> Any:
    """a⁻¹ in Fp by Fermat, a^(p−2) (0 for a = 0); square-and-multiply from the top limb of p − 2 down."""
    acc = F.one
    one = np.uint64(1)
    for k in range(len(F.pm2) - 1, -1, -1):
        word = F.pm2[k]
        for bit in range(63, -1, -1):
            acc = sqr(acc, F)
            if (word >> np.uint64(bit)) & one:
                acc = mul(acc, a, F)
    return acc


def inv(a: Any, F: Any) -> Any:
    """a⁻¹ in Fp or Fq2 (0 for a = 0); numba only."""
    raise NotImplementedError("numba only")


# No annotations on overload implementations: numba compares their parameters with the typing function's.
def _fq2_inv(a, F):
    t = fp_inv(add(sqr(a[0], F), sqr(a[1], F), F), F)  # 1/(a0² + a1²), the inverse of the norm
    return (mul(a[0], t, F), neg(mul(a[1], t, F), F))


@overload(inv)
def _inv(a, F):
    shape = _shape(a)
    if shape is None:
        return None
    return (lambda a, F: fp_inv(a, F)) if shape[0] == 1 else _fq2_inv


def conjugate(a: Any, F: Any) -> Any:
    """The q-power Frobenius: a itself in Fp, (a0, −a1) in Fq2; numba only."""
    raise NotImplementedError("numba only")


@overload(conjugate)
def _conjugate(a, F):
    shape = _shape(a)
    if shape is None:
        return None
    return (lambda a, F: a) if shape[0] == 1 else (lambda a, F: (a[0], neg(a[1], F)))


__all__ = [
    "add",
    "conjugate",
    "dbl",
    "fp_inv",
    "inv",
    "is_eq",
    "is_zero",
    "load",
    "mul",
    "neg",
    "one",
    "sqr",
    "store",
    "sub",
    "zero",
]
