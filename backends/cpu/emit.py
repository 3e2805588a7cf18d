"""LLVM IR for limb arithmetic: what the intrinsics of :mod:`.field` emit. Limb lists in, limb lists out.

Products are ``mul i128`` of zero-extended limbs (``mulx`` on x86-64; numba has no 128-bit integer); carries are
``llvm.uadd/usub.with.overflow`` chains, which LLVM fuses into ``adc``/``sbb``. The Montgomery multiplication is
CIOS row by row. Additions and subtractions are emitted in place; a multiplication becomes a call to one function
per (operation, N) and module, marked noinline (:func:`outlined`). Each choice was measured against the
alternatives (docs/performance.md):

- CIOS row by row with overflow-intrinsic carry chains was at least as fast as gnark's interleaved "no-carry" CIOS
  and as product scanning, and hand-written MULX/ADCX/ADOX inline assembly gained too little to be worth it;
- ``mul i128`` products are several times faster than products of 32-bit halves;
- unrolled tuples of limbs (N known when compiling) are about twice as fast as a loop over limbs in arrays;
- inlining every multiplication made compiling the kernels about three times slower and the kernels no faster
  (register pressure slowed the NTT's butterflies), so multiplications are calls.

Every result is fully reduced (< p). Additions rely on the spare top bit of p (a + b < 2^(64·N)), which
:func:`~cuzk.backends.cpu.params.field_params` checks. Fq2 = Fq[u]/(u² + 1): Karatsuba multiplication
(3 products), squaring as (a0 + a1)(a0 − a1) and 2·a0·a1 (2 products).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir

I1, I64, I128 = ir.IntType(1), ir.IntType(64), ir.IntType(128)
ZERO, FALSE, SHIFT = ir.Constant(I64, 0), ir.Constant(I1, 0), ir.Constant(I128, 64)
Limbs = list[ir.Value]

# --- IR emitters: limb lists in, limb lists out ---------------------------------------------------------------


def _overflow_op(b: ir.IRBuilder, op: str, x: ir.Value, y: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(x op y mod 2^64, overflow as i1) by ``llvm.{op}.with.overflow.i64`` (op: uadd or usub)."""
    fnty = ir.FunctionType(ir.LiteralStructType([I64, I1]), [I64, I64])
    result = b.call(b.module.declare_intrinsic(f"llvm.{op}.with.overflow.i64", fnty=fnty), [x, y])
    return b.extract_value(result, 0), b.extract_value(result, 1)


def _adc(b: ir.IRBuilder, x: ir.Value, y: ir.Value, carry: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(x + y + carry mod 2^64, carry out); carries are i1. LLVM fuses the chain into ``adc`` instructions."""
    s, c1 = _overflow_op(b, "uadd", x, y)
    s, c2 = _overflow_op(b, "uadd", s, b.zext(carry, I64))
    return s, b.or_(c1, c2)


def _sbb(b: ir.IRBuilder, x: ir.Value, y: ir.Value, borrow: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(x − y − borrow mod 2^64, borrow out); borrows are i1 (``sbb`` chains)."""
    d, c1 = _overflow_op(b, "usub", x, y)
    d, c2 = _overflow_op(b, "usub", d, b.zext(borrow, I64))
    return d, b.or_(c1, c2)


def _mul_wide(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(lo, hi) of the 128-bit product x·y: ``mul i128`` of zero-extended operands (``mulx`` on x86-64)."""
    w = b.mul(b.zext(x, I128), b.zext(y, I128))
    return b.trunc(w, I64), b.trunc(b.lshr(w, SHIFT), I64)


def _add_limbs(b: ir.IRBuilder, x: Limbs, y: Limbs) -> tuple[Limbs, ir.Value]:
    """x + y as limbs and the carry out (i1)."""
    out, carry = [], FALSE
    for xi, yi in zip(x, y, strict=True):
        lo, carry = _adc(b, xi, yi, carry)
        out.append(lo)
    return out, carry


def _sub_limbs(b: ir.IRBuilder, x: Limbs, y: Limbs) -> tuple[Limbs, ir.Value]:
    """x − y mod 2^(64·N) as limbs and whether it borrowed (i1)."""
    out, borrow = [], FALSE
    for xi, yi in zip(x, y, strict=True):
        lo, borrow = _sbb(b, xi, yi, borrow)
        out.append(lo)
    return out, borrow


def _accumulate(b: ir.IRBuilder, t: Limbs, terms: Limbs, offset: int) -> None:
    """t[offset + j] += terms[j] for all j, one carry chain into the top word of t (which cannot overflow)."""
    carry = FALSE
    for j, term in enumerate(terms):
        t[offset + j], carry = _adc(b, t[offset + j], term, carry)
    for k in range(offset + len(terms), len(t)):
        t[k], carry = _adc(b, t[k], ZERO, carry)


def _select(b: ir.IRBuilder, cond: ir.Value, x: Limbs, y: Limbs) -> Limbs:
    return [b.select(cond, xi, yi) for xi, yi in zip(x, y, strict=True)]


def _reduce_once(b: ir.IRBuilder, t: Limbs, p: Limbs) -> Limbs:
    """t mod p for t < 2p."""
    d, borrow = _sub_limbs(b, t, p)
    return _select(b, borrow, t, d)


def fp_mul(b: ir.IRBuilder, x: Limbs, y: Limbs, p: Limbs, pinv: ir.Value) -> Limbs:
    """x·y·R⁻¹ mod p, CIOS Montgomery multiplication row by row (Koç, Acar, Kaliski 1996).

    Row i: t += x·y_i as two carry chains (the low halves of the products into t_0 …, the high halves into
    t_1 …), then t += m·p with m = t_0·(−p⁻¹) mod 2^64, which zeroes t_0, and t shifts down one word. t has N + 1
    words and stays below 2p, so the top word never overflows and one subtraction of p finishes.
    """
    n = len(p)
    t = [ZERO] * (n + 1)
    for i in range(n):
        for factor, row in ((y[i], x), (None, p)):
            if factor is None:
                factor = b.mul(t[0], pinv)
            products = [_mul_wide(b, xj, factor) for xj in row]
            _accumulate(b, t, [lo for lo, _ in products], 0)
            _accumulate(b, t, [hi for _, hi in products], 1)
        t = [*t[1:], ZERO]
    return _reduce_once(b, t[:n], p)


def fp_add(b: ir.IRBuilder, x: Limbs, y: Limbs, p: Limbs) -> Limbs:
    s, _ = _add_limbs(b, x, y)  # < 2p < 2^(64·N): no carry out, thanks to the spare bit
    return _reduce_once(b, s, p)


def fp_sub(b: ir.IRBuilder, x: Limbs, y: Limbs, p: Limbs) -> Limbs:
    d, borrow = _sub_limbs(b, x, y)
    fixed, _ = _add_limbs(b, d, p)
    return _select(b, borrow, fixed, d)


def fp_is_zero(b: ir.IRBuilder, x: Limbs) -> ir.Value:
    acc = x[0]
    for xi in x[1:]:
        acc = b.or_(acc, xi)
    return b.icmp_unsigned("==", acc, ZERO)


# Fq2 = Fq[u]/(u² + 1): elements are [c0, c1] of limb lists.


def fq2_mul(b: ir.IRBuilder, x: list[Limbs], y: list[Limbs], p: Limbs, pinv: ir.Value) -> list[Limbs]:
    v0, v1 = fp_mul(b, x[0], y[0], p, pinv), fp_mul(b, x[1], y[1], p, pinv)
    s = fp_mul(b, fp_add(b, x[0], x[1], p), fp_add(b, y[0], y[1], p), p, pinv)
    return [fp_sub(b, v0, v1, p), fp_sub(b, fp_sub(b, s, v0, p), v1, p)]


def fq2_sqr(b: ir.IRBuilder, x: list[Limbs], p: Limbs, pinv: ir.Value) -> list[Limbs]:
    c0 = fp_mul(b, fp_add(b, x[0], x[1], p), fp_sub(b, x[0], x[1], p), p, pinv)
    c1 = fp_mul(b, x[0], x[1], p, pinv)
    return [c0, fp_add(b, c1, c1, p)]


# --- outlining: one LLVM function per (operation, N) and module, called from every use ---------------------------


def outlined(b: ir.IRBuilder, key: str, emit: Any, operands: list[Any], scalars: list[ir.Value]) -> Any:
    """``emit(builder, *operands, *scalars)`` as a call to a function defined once per module (linkonce_odr).

    Operands are limb lists or pairs of them (Fq2); scalars are i64. Inlining every multiplication made the
    kernels' LLVM functions so large that compiling the G2 MSM took minutes; a call costs a few cycles.
    """
    module = b.module
    shapes = [(1, len(o)) if isinstance(o[0], ir.Value) else (len(o), len(o[0])) for o in operands]
    lltypes = [ir.ArrayType(I64, n) if d == 1 else ir.ArrayType(ir.ArrayType(I64, n), d) for d, n in shapes]
    name = f"cuzk.cpu.{key}"
    try:
        fn = module.get_global(name)
    except KeyError:
        fnty = ir.FunctionType(lltypes[0], [*lltypes, *(I64 for _ in scalars)])
        fn = ir.Function(module, fnty, name)
        fn.linkage = "linkonce_odr"
        fn.attributes.add("noinline")
        fb = ir.IRBuilder(fn.append_basic_block("entry"))
        args = [unpack(fb, fn.args[k], *shapes[k]) for k in range(len(operands))]
        out = emit(fb, *args, *fn.args[len(operands) :])
        fb.ret(pack(fb, lltypes[0], out))
    result = b.call(fn, [*(pack(b, t, o) for t, o in zip(lltypes, operands, strict=True)), *scalars])
    return unpack(b, result, *shapes[0])


# --- numba types ↔ limb lists ---------------------------------------------------------------------------------


def unpack(b: ir.IRBuilder, value: ir.Value, degree: int, n: int) -> Any:
    if degree == 1:
        return [b.extract_value(value, i) for i in range(n)]
    return [unpack(b, b.extract_value(value, k), 1, n) for k in range(degree)]


def pack(b: ir.IRBuilder, llty: ir.Type, limbs: Any) -> ir.Value:
    value = ir.Constant(llty, ir.Undefined)
    for k, part in enumerate(limbs):
        inner = part if isinstance(part, ir.Value) else pack(b, llty.element, part)
        value = b.insert_value(value, inner, k)
    return value


__all__ = [
    "FALSE",
    "I64",
    "ZERO",
    "Limbs",
    "fp_add",
    "fp_is_zero",
    "fp_mul",
    "fp_sub",
    "fq2_mul",
    "fq2_sqr",
    "outlined",
    "pack",
    "unpack",
]
