"""Fq6 and Fq12 for the pairing kernels (:mod:`.pairing`): the tower of :mod:`cuzk.reference.fields.tower` as
numba intrinsics that emit LLVM IR, on the limb arithmetic of :mod:`.emit`.

    Fq6  = Fq2[v] / (v³ − ξ)      (a0, a1, a2) of Fq2 elements:  a0 + a1·v + a2·v²
    Fq12 = Fq6[w] / (w² − v)      (c0, c1) of Fq6 elements:      c0 + c1·w

In a kernel an Fq12 element is the nested tuple ((a0, a1, a2), (b0, b1, b2)) of Fq2 pairs (:mod:`.field`), in
Montgomery form; on the w-basis a = Σ g_i·w^i with (g0, …, g5) = (a0, b0, a1, b1, a2, b2). ``K`` is the
:class:`TowerConsts` of one curve. Why intrinsics: written as numba functions calling numba functions, the tower
took 25–45 s to compile per curve (numba links and re-optimizes every callee into each caller, and caches each);
here each operation is one LLVM function per module, noinline (:func:`~cuzk.backends.cpu.emit.outlined`'s trick
one level up), emitted from formulas that read like the reference's, on the Fq2 arithmetic of a :class:`Ring`.

- Fq6 products: Karatsuba for a cubic extension, 6 Fq2 products (Devegili, Ó hÉigeartaigh, Scott, Dahab,
  "Multiplication and squaring on pairing-friendly fields", 2006, §4); by (b0, b1, 0), as a line needs: 5. A
  product by ξ is an Fq2 product by the constant (additions specialised to ξ = u + 9, u + 1 gained under 5 %).
- Fq12: Karatsuba product (3 Fq6 products), complex squaring (2; same paper, §3); the inverse through the norms
  to Fq2 and Fq (Scott, "Implementing cryptographic pairings", 2007, §4), Fq's by the caller (Fermat).
- Frobenius: (g·w^i)^q = conj(g)·γ_i·w^i with γ_i = ξ^(i(q−1)/6), computed here from q and ξ.
- Cyclotomic squaring (Granger, Scott, "Faster squaring in the cyclotomic subgroup of sixth degree extensions",
  PKC 2010): for a with a^(q⁴ − q² + 1) = 1, a² costs 3 squarings in Fq4 = Fq2[s]/(s² − ξ), s = w³.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from cuzk.backends.cpu.emit import I64, ZERO, fp_add, fp_is_zero, fp_mul, fp_sub, fq2_mul, fq2_sqr, outlined
from cuzk.backends.cpu.params import FieldConsts, curve_params
from cuzk.reference.curves import Curve

FP, FQ2, FQ6, FQ12 = (), (2,), (3, 2), (2, 3, 2)  # the nesting of each element above its N limbs


class TowerConsts(NamedTuple):
    """What the tower's intrinsics need of one curve; Fq2 constants in Montgomery form."""

    F: FieldConsts  # of Fq
    xi: tuple  # ξ, the non-residue of Fq6 = Fq2[v]/(v³ − ξ)
    frob: tuple  # γ_i = ξ^(i(q − 1)/6), i = 0 … 5


def fq2_mont(fq: Any, e: Any) -> tuple:
    """A reference Fq2 element as a Montgomery-form Fq2 tuple."""
    return (fq.mont_tuple(e.c0.value), fq.mont_tuple(e.c1.value))


def tower_consts(curve: Curve) -> TowerConsts:
    """The constants of ``curve``'s tower, computed from its q and ξ (the reference's ``Fq2.XI``)."""
    fq = curve_params(curve).fq
    xi = curve.Fq2(*(c.value for c in curve.Fq2.XI))  # type: ignore[attr-defined]
    gammas = tuple(fq2_mont(fq, xi ** (i * (curve.q - 1) // 6)) for i in range(6))
    return TowerConsts(F=fq.consts, xi=fq2_mont(fq, xi), frob=gammas)


# --- nested limb lists ↔ LLVM values ----------------------------------------------------------------------------


def _dims(x: Any) -> list[int]:
    return [] if isinstance(x, ir.Value) else [len(x), *_dims(x[0])]


def _lltype(dims: list[int]) -> ir.Type:
    t: ir.Type = I64
    for d in reversed(dims):
        t = ir.ArrayType(t, d)
    return t


def _pack(b: ir.IRBuilder, x: Any) -> ir.Value:
    if isinstance(x, ir.Value):
        return x
    parts = [_pack(b, part) for part in x]
    value = ir.Constant(ir.ArrayType(parts[0].type, len(parts)), ir.Undefined)
    for k, part in enumerate(parts):
        value = b.insert_value(value, part, k)
    return value


def _unpack(b: ir.IRBuilder, value: ir.Value, dims: list[int]) -> Any:
    return value if not dims else [_unpack(b, b.extract_value(value, k), dims[1:]) for k in range(dims[0])]


class Ring:
    """Fq2 arithmetic (and Fq6 coefficient-wise) on IR limb lists inside one LLVM function; p, p⁻¹ and ξ are IR
    values too, so that :meth:`call` can hand them to the functions it defines."""

    def __init__(self, b: ir.IRBuilder, p: list, pinv: ir.Value, xi: list) -> None:
        self.b, self.p, self.pinv, self.xi, self.n = b, p, pinv, xi, len(p)
        self.consts: Any = None  # in an intrinsic's codegen (:func:`typed`): K, and the TowerConsts in it
        self.tower: Any = None

    def add(self, x: Any, y: Any) -> Any:
        return [fp_add(self.b, x[k], y[k], self.p) for k in range(2)]

    def sub(self, x: Any, y: Any) -> Any:
        return [fp_sub(self.b, x[k], y[k], self.p) for k in range(2)]

    def neg(self, x: Any) -> Any:
        return [fp_sub(self.b, [ZERO] * self.n, x[k], self.p) for k in range(2)]

    def dbl(self, x: Any) -> Any:
        return self.add(x, x)

    def conj(self, x: Any) -> Any:
        return [x[0], fp_sub(self.b, [ZERO] * self.n, x[1], self.p)]

    def mul(self, x: Any, y: Any) -> Any:
        return outlined(self.b, f"fq2_mul.{self.n}", fq2_mul, [x, y, self.p], [self.pinv])

    def sqr(self, x: Any) -> Any:
        return outlined(self.b, f"fq2_sqr.{self.n}", fq2_sqr, [x, self.p], [self.pinv])

    def scale(self, x: Any, s: list) -> Any:
        """x·s for s in Fq."""
        return [outlined(self.b, f"fp_mul.{self.n}", fp_mul, [x[k], s, self.p], [self.pinv]) for k in range(2)]

    def mul_xi(self, x: Any) -> Any:
        return self.mul(x, self.xi)

    def add6(self, x: Any, y: Any) -> Any:
        return [self.add(x[k], y[k]) for k in range(3)]

    def sub6(self, x: Any, y: Any) -> Any:
        return [self.sub(x[k], y[k]) for k in range(3)]

    def mul_v(self, x: Any) -> Any:
        """x·v = (ξ·x2, x0, x1) in Fq6."""
        return [self.mul_xi(x[2]), x[0], x[1]]

    def branch(self, cond: ir.Value, then: Any, otherwise: Any) -> Any:
        """then() if the i1 ``cond`` else otherwise(), as LLVM branches joined by a phi (results nested alike)."""
        b = self.b
        with b.if_else(cond) as (yes, no):
            with yes:
                x = then()
                v1, block1 = _pack(b, x), b.block
            with no:
                v2, block2 = _pack(b, otherwise()), b.block
        phi = b.phi(v1.type)
        phi.add_incoming(v1, block1)
        phi.add_incoming(v2, block2)
        return _unpack(b, phi, _dims(x))

    def call(self, key: str, emit: Any, *operands: Any, out: tuple | None = None) -> Any:
        """``emit(ring, *operands)`` as a call to a function defined once per module (noinline, linkonce_odr);
        the result has the nesting ``out`` (default: that of the first operand)."""
        b, n = self.b, self.n
        dims = [_dims(o) for o in operands]
        out_dims = dims[0] if out is None else [*out, n]
        name = f"cuzk.cpu.tower.{key}.{n}"
        try:
            fn = b.module.get_global(name)
        except KeyError:
            fnty = ir.FunctionType(_lltype(out_dims), [*map(_lltype, dims), _lltype([n]), I64, _lltype([2, n])])
            fn = ir.Function(b.module, fnty, name)
            fn.linkage = "linkonce_odr"
            fn.attributes.add("noinline")
            fb = ir.IRBuilder(fn.append_basic_block("entry"))
            k = len(operands)
            inner = Ring(fb, _unpack(fb, fn.args[k], [n]), fn.args[k + 1], _unpack(fb, fn.args[k + 2], [2, n]))
            fb.ret(_pack(fb, emit(inner, *(_unpack(fb, fn.args[i], dims[i]) for i in range(k)))))
        result = b.call(fn, [*(_pack(b, o) for o in operands), _pack(b, self.p), self.pinv, _pack(b, self.xi)])
        return _unpack(b, result, out_dims)


# --- the formulas -----------------------------------------------------------------------------------------------


def _fq6_mul(r: Ring, a: Any, b: Any) -> Any:
    """Karatsuba for a cubic extension (Devegili et al. 2006, §4), the reference's Fq6Element.__mul__."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    v0, v1, v2 = r.mul(a0, b0), r.mul(a1, b1), r.mul(a2, b2)
    c0 = r.add(r.mul_xi(r.sub(r.sub(r.mul(r.add(a1, a2), r.add(b1, b2)), v1), v2)), v0)
    c1 = r.add(r.sub(r.sub(r.mul(r.add(a0, a1), r.add(b0, b1)), v0), v1), r.mul_xi(v2))
    c2 = r.add(r.sub(r.sub(r.mul(r.add(a0, a2), r.add(b0, b2)), v0), v2), v1)
    return [c0, c1, c2]


def fq6_mul_by_01_ir(r: Ring, a: Any, b0: Any, b1: Any) -> Any:
    """a·(b0 + b1·v): the Karatsuba formulas with b2 = 0."""
    a0, a1, a2 = a
    v0, v1 = r.mul(a0, b0), r.mul(a1, b1)
    c1 = r.sub(r.sub(r.mul(r.add(a0, a1), r.add(b0, b1)), v0), v1)
    return [r.add(r.mul_xi(r.mul(a2, b1)), v0), c1, r.add(r.mul(a2, b0), v1)]


def _fq12_mul(r: Ring, a: Any, b: Any) -> Any:
    """Karatsuba over Fq6, the reference's Fq12Element.__mul__."""
    v0, v1 = r.call("fq6_mul", _fq6_mul, a[0], b[0]), r.call("fq6_mul", _fq6_mul, a[1], b[1])
    s = r.call("fq6_mul", _fq6_mul, r.add6(a[0], a[1]), r.add6(b[0], b[1]))
    return [r.add6(v0, r.mul_v(v1)), r.sub6(r.sub6(s, v0), v1)]


def _fq12_sqr(r: Ring, a: Any) -> Any:
    """Complex squaring, the reference's Fq12Element.square: (a0 + a1)(a0 + a1·v) − ab − ab·v, 2ab."""
    ab = r.call("fq6_mul", _fq6_mul, a[0], a[1])
    c0 = r.call("fq6_mul", _fq6_mul, r.add6(a[0], a[1]), r.add6(a[0], r.mul_v(a[1])))
    return [r.sub6(r.sub6(c0, ab), r.mul_v(ab)), r.add6(ab, ab)]


def _fq12_cyclotomic_sqr(r: Ring, a: Any) -> Any:
    """Granger–Scott 2010: with A = g0 + g3·s, B = g1 + g4·s, C = g2 + g5·s in Fq4, a² = A' + B'·w + C'·w²
    where A' = 3A² − 2·conj(A), B' = 3s·C² + 2·conj(B), C' = 3B² − 2·conj(C) (conj(x + y·s) = x − y·s)."""

    def fq4_sqr(x: Any, y: Any) -> Any:  # (x + y·s)² = (x² + ξ·y²) + ((x + y)² − x² − y²)·s
        t0, t1 = r.sqr(x), r.sqr(y)
        return r.add(r.mul_xi(t1), t0), r.sub(r.sub(r.sqr(r.add(x, y)), t0), t1)

    def three_minus_two(t: Any, z: Any) -> Any:  # 3t − 2z
        return r.add(r.add(r.sub(t, z), r.sub(t, z)), t)

    def three_plus_two(t: Any, z: Any) -> Any:  # 3t + 2z
        return r.add(r.add(r.add(t, z), r.add(t, z)), t)

    (g0, g2, g4), (g1, g3, g5) = a
    sa, sb, sc = fq4_sqr(g0, g3), fq4_sqr(g1, g4), fq4_sqr(g2, g5)
    h0, h3 = three_minus_two(sa[0], g0), three_plus_two(sa[1], g3)
    h2, h5 = three_minus_two(sb[0], g2), three_plus_two(sb[1], g5)
    h1, h4 = three_plus_two(r.mul_xi(sc[1]), g1), three_minus_two(sc[0], g4)
    return [[h0, h2, h4], [h1, h3, h5]]


def _fq12_frobenius(r: Ring, a: Any, g: Any) -> Any:
    """a^q: w-coefficient i becomes conj(g_i)·γ_i (γ_0 = 1)."""
    (g0, g2, g4), (g1, g3, g5) = a
    c0 = [r.conj(g0), r.mul(r.conj(g2), g[2]), r.mul(r.conj(g4), g[4])]
    return [c0, [r.mul(r.conj(g1), g[1]), r.mul(r.conj(g3), g[3]), r.mul(r.conj(g5), g[5])]]


def _norms(r: Ring, a: Any) -> tuple[Any, Any, Any, Any]:
    """The reference's inverses unrolled: d6 = a0² − a1²·v ∈ Fq6 (Fq12Element.inverse), (t0, t1, t2) and
    d2 = d6_0·t0 + ξ(d6_2·t1 + d6_1·t2) ∈ Fq2 (Fq6Element.inverse), n = d2_0² + d2_1² ∈ Fq (Fq2Element.inverse)."""
    d6 = r.sub6(r.call("fq6_mul", _fq6_mul, a[0], a[0]), r.mul_v(r.call("fq6_mul", _fq6_mul, a[1], a[1])))
    d0, d1, d2 = d6
    t = [r.sub(r.sqr(d0), r.mul_xi(r.mul(d1, d2))), r.sub(r.mul_xi(r.sqr(d2)), r.mul(d0, d1))]
    t.append(r.sub(r.sqr(d1), r.mul(d0, d2)))
    den = r.add(r.mul(d0, t[0]), r.mul_xi(r.add(r.mul(d2, t[1]), r.mul(d1, t[2]))))
    n = fp_add(r.b, *(outlined(r.b, f"fp_mul.{r.n}", fp_mul, [c, c, r.p], [r.pinv]) for c in den), r.p)
    return d6, t, den, n


def _fq12_inv_with(r: Ring, a: Any, n_inv: Any) -> Any:
    """a⁻¹ from (the norm of a to Fq)⁻¹: back up the tower, each inverse = conjugate-like part × inverse below."""
    _, t, den, _ = _norms(r, a)
    i2 = r.scale(r.conj(den), n_inv)
    i6 = [r.mul(tk, i2) for tk in t]
    c1 = r.call("fq6_mul", _fq6_mul, a[1], i6)
    return [r.call("fq6_mul", _fq6_mul, a[0], i6), [r.neg(c) for c in c1]]


# --- the intrinsics ---------------------------------------------------------------------------------------------


def _type_dims(t: Any) -> list[int] | None:
    """The nesting of a numba type made of UniTuples around uint64 (N included), or None."""
    if t == types.uint64:
        return []
    if isinstance(t, types.UniTuple):
        inner = _type_dims(t.dtype)
        return None if inner is None else [t.count, *inner]
    return None


def _nested(dims: tuple, n: int) -> Any:
    t = types.UniTuple(types.uint64, n)
    for d in reversed(dims):
        t = types.UniTuple(t, d)
    return t


def typed(emit: Any, dims: list[tuple], args: tuple, out: Any = None) -> Any:
    """(signature, codegen) of an intrinsic on operands nested as ``dims``, then K: a TowerConsts, or a NamedTuple
    whose first field is one; None if the types do not fit. ``emit(ring, *operands)`` returns limb lists nested as
    ``out`` (default: as the first operand) or a value of the numba type ``out`` (an i1 for boolean). The ring's
    ``consts`` is K's LLVM value, ``tower`` the TowerConsts'."""
    *operands, K = args
    nested = isinstance(K, types.NamedTuple) and K.instance_class is not TowerConsts
    tower = K.types[0] if nested else K
    if not (isinstance(tower, types.NamedTuple) and tower.instance_class is TowerConsts):
        return None
    n = tower.types[0].types[0].count
    if len(operands) != len(dims) or any(_type_dims(t) != [*d, n] for t, d in zip(operands, dims, strict=True)):
        return None
    ret = out if isinstance(out, types.Type) else _nested(dims[0] if out is None else out, n)

    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, llargs: Any) -> ir.Value:
        k = llargs[-1]
        t = builder.extract_value(k, 0) if nested else k
        F = builder.extract_value(t, 0)
        p, pinv = _unpack(builder, builder.extract_value(F, 0), [n]), builder.extract_value(F, 1)
        r = Ring(builder, p, pinv, _unpack(builder, builder.extract_value(t, 1), [2, n]))
        r.consts, r.tower = k, t
        values = [_unpack(builder, v, [*d, n]) for v, d in zip(llargs[:-1], dims, strict=True)]
        return _pack(builder, emit(r, *values))

    return ret(*args), codegen


@intrinsic
def fq12_mul(typingctx: Any, a: Any, b: Any, K: Any) -> Any:
    """a·b: Karatsuba over Fq6 (3 Fq6 products)."""
    return typed(lambda r, x, y: r.call("fq12_mul", _fq12_mul, x, y), [FQ12, FQ12], (a, b, K))


@intrinsic
def fq12_sqr(typingctx: Any, a: Any, K: Any) -> Any:
    """a²: complex squaring (2 Fq6 products)."""
    return typed(lambda r, x: r.call("fq12_sqr", _fq12_sqr, x), [FQ12], (a, K))


@intrinsic
def fq12_cyclotomic_sqr(typingctx: Any, a: Any, K: Any) -> Any:
    """a² for a in the cyclotomic subgroup (Granger–Scott; 9 Fq2 squarings)."""
    return typed(lambda r, x: r.call("fq12_cyclotomic_sqr", _fq12_cyclotomic_sqr, x), [FQ12], (a, K))


@intrinsic
def fq12_conj(typingctx: Any, a: Any, K: Any) -> Any:
    """c0 − c1·w = a^(q⁶): the inverse of a in the cyclotomic subgroup."""
    return typed(lambda r, x: [x[0], [r.neg(c) for c in x[1]]], [FQ12], (a, K))


@intrinsic
def fq12_frobenius(typingctx: Any, a: Any, K: Any) -> Any:
    """a^q."""

    def emit(r: Ring, x: Any) -> Any:
        gammas = _unpack(r.b, r.b.extract_value(r.tower, 2), [6, 2, r.n])
        return r.call("fq12_frobenius", _fq12_frobenius, x, gammas)

    return typed(emit, [FQ12], (a, K))


@intrinsic
def fq12_norm(typingctx: Any, a: Any, K: Any) -> Any:
    """The norm of a down to Fq (0 only for a = 0): invert it (Fermat), then :func:`fq12_inv_with`."""
    return typed(lambda r, x: r.call("fq12_norm", lambda s, y: _norms(s, y)[3], x, out=FP), [FQ12], (a, K), FP)


@intrinsic
def fq12_inv_with(typingctx: Any, a: Any, n_inv: Any, K: Any) -> Any:
    """a⁻¹, given n_inv = fq12_norm(a)⁻¹ (0 for a = 0)."""
    return typed(lambda r, x, y: r.call("fq12_inv_with", _fq12_inv_with, x, y), [FQ12, FP], (a, n_inv, K))


@intrinsic
def fq12_one(typingctx: Any, K: Any) -> Any:
    """1 ∈ Fq12, in Montgomery form."""

    def emit(r: Ring) -> Any:
        unit = _unpack(r.b, r.b.extract_value(r.b.extract_value(r.tower, 0), 2), [r.n])
        zero2 = [[ZERO] * r.n] * 2
        return [[[unit, [ZERO] * r.n], zero2, zero2], [zero2] * 3]

    return typed(emit, [], (K,), FQ12)


@intrinsic
def fq12_is_one(typingctx: Any, a: Any, K: Any) -> Any:
    """a = 1 (limb equality: elements are fully reduced)."""

    def emit(r: Ring, x: Any) -> Any:
        unit = _unpack(r.b, r.b.extract_value(r.b.extract_value(r.tower, 0), 2), [r.n])
        flat = [limb for c in x for e in c for part in e for limb in part]
        target = unit + [ZERO] * (len(flat) - r.n)
        return fp_is_zero(r.b, [r.b.xor(u, v) for u, v in zip(flat, target, strict=True)])

    return typed(emit, [FQ12], (a, K), types.boolean)


__all__ = [
    "FP",
    "FQ2",
    "FQ6",
    "FQ12",
    "Ring",
    "TowerConsts",
    "fq2_mont",
    "fq6_mul_by_01_ir",
    "fq12_conj",
    "fq12_cyclotomic_sqr",
    "fq12_frobenius",
    "fq12_inv_with",
    "fq12_is_one",
    "fq12_mul",
    "fq12_norm",
    "fq12_one",
    "fq12_sqr",
    "tower_consts",
    "typed",
]
