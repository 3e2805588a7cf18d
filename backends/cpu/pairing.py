"""The optimal ate pairing check Π e(P_i, Q_i) = 1 at compiled speed: the cpu backend's numba kernels, bit-exact
with :mod:`cuzk.reference.pairing` (the specification; read its docstring first).

Miller loop, one loop for all k pairs sharing the squarings of f (Scott, "Computing the Tate pairing", CT-RSA
2005; Granger, Smart, "On computing products of pairings", 2006):

- T runs on the twist E'(Fq2) in homogeneous projective coordinates (X : Y : Z), by the doubling and mixed
  addition formulas of Costello, Lange, Naehrig, "Faster pairing computations on curves with high-degree twists",
  PKC 2010, as written in Aranha, Karabina, Longa, Gebotys, López, "Faster explicit formulas for computing
  pairings over ordinary curves", Eurocrypt 2011, §4 (the doubling multiplied through by 4: no halving);
- each line is the reference's ``line_at`` times a factor in Fq2: three non-zero w-coefficients (ℓ0, ℓx·x_P,
  ℓy·y_P), placed for a D- or M-type twist, multiplied into f sparsely (13 Fq2 products instead of 18);
- the loop walks the non-adjacent form of the reference's ``ate_loop_count`` (−Q for a digit −1); BLS12 with
  x < 0 conjugates f; BN adds the lines through π(Q) and −π²(Q), π the twisted Frobenius.

This f differs from the reference's only by factors in Fq6 (vertical lines, the lines' scalings, w³), which the
final exponentiation sends to 1 ((q¹² − 1)/r is a multiple of q⁶ − 1, and w^(q⁶−1) = −1 meets the even q² + 1):
the pairing values are equal, which the tests check coefficient by coefficient.

Final exponentiation: the easy part f^((q⁶ − 1)(q² + 1)) with one Fq12 inversion; the hard part
e = (q⁴ − q² + 1)/r written as e = m·Σ_{i,j} c_ij·x^j·q^i + extra (x the curve parameter), so that g^e costs
exponentiations by x (cyclotomic squarings, :mod:`.tower`), a few Frobenius maps and small multi-exponentiations:

- BN: m = 1, extra = 0, Σ_j c_ij x^j = λ_i with λ3 = 1, λ2 = 6x² + 1, λ1 = −36x³ − 18x² − 12x + 1,
  λ0 = −36x³ − 30x² − 18x − 2 (Scott, Benger, Charlemagne, Dominguez Perez, Kachisa, "On the final exponentiation
  for calculating pairings on ordinary elliptic curves", Pairing 2009, the BN case);
- BLS12: 3e = (x − 1)²·(x + q)·(x² + q² − 1) + 3 (Hayashida, Hayasaka, Teruya, "Efficient final exponentiation
  via cyclotomic structure for pairings over families of elliptic curves", ePrint 2020/875), so
  e = ((x − 1)/3)·(x − 1)·[(x³ − x) + (x² − 1)q + x·q² + q³] + 1: m = ((x − 1)/3)·(x − 1), extra = 1.

Both decompositions are of e itself, not of a multiple, so the value equals the reference's;
:func:`~cuzk.backends.kernels.constants.hard_part_decomposition` (shared with the GPU kernels) checks the identity on
the curve's q, r and x at first use. Every constant comes from the reference curve object.

Code: the steps and the line product are intrinsics emitting LLVM IR (formulas on a :class:`~.tower.Ring`, one
noinline function each, like the tower's); the loops are numba, inlined into one cached kernel, :func:`_kernel`,
so that a curve compiles in seconds (about 6 s for BN254, 9 s for BLS12-381 on a 2-core machine).
"""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit
from numba.extending import intrinsic

from cuzk.backends import limbs
from cuzk.backends.cpu import tower as tw
from cuzk.backends.cpu.emit import fp_is_zero, unpack
from cuzk.backends.cpu.field import conjugate, fp_inv, from_mont, load, mul, neg, one, store, to_mont
from cuzk.backends.cpu.gls import psi_constants
from cuzk.backends.cpu.jit import JIT
from cuzk.backends.cpu.params import curve_params
from cuzk.backends.cpu.tower import FP, FQ2, FQ6, FQ12, Ring, TowerConsts, fq2_mont, typed
from cuzk.backends.errors import InputShapeError
from cuzk.backends.kernels.constants import hard_part_programs, signed_digits
from cuzk.reference.curves import Curve
from cuzk.reference.pairing import ate_loop_count

INLINE = {**JIT, "inline": "always"}  # small helpers: inlined into their caller by numba, not compiled apart


class PairingConsts(NamedTuple):
    """What the pairing kernels of one curve need; Fq2 constants in Montgomery form, digits most significant first.
    The tower comes first (:func:`~cuzk.backends.cpu.tower.typed`'s rule); the intrinsics below read b3, d_type."""

    tower: TowerConsts
    b3: tuple  # 3·b' (b' of the twist y² = x³ + b'), the doubling's constant
    d_type: bool  # the twist: D (BN254) or M (BLS12-381)
    pi_x: tuple  # π(x, y) = (conj(x)·pi_x, conj(y)·pi_y): the reference's twist_frobenius
    pi_y: tuple
    loop: np.ndarray  # int8 signed digits of ate_loop_count
    conjugate: bool  # BLS12 with x < 0: f ← conj(f)
    bn: bool  # the two extra BN lines
    powers: np.ndarray  # (n_pre + 5, 4, D) int8: exponent digits per base (:func:`power_programs`)
    n_pre: int
    extra: int  # g^extra, 0 or 1


def power_programs(curve: Curve) -> tuple[np.ndarray, int, int]:
    """The hard part's exponentiations as (programs, n_pre, extra): the GPU kernels' programs
    (:func:`~cuzk.backends.kernels.constants.hard_part_programs`, the one decomposition of both), as an int8 array:
    program m is a (4, D) matrix whose row j holds the signed digits of base j's exponent."""
    programs, pre, extra = hard_part_programs(curve)
    return np.array(programs, dtype=np.int8), pre, extra


@cache
def pairing_consts(curve: Curve) -> PairingConsts:
    """The constants of the pairing kernels of ``curve``, computed from the reference's curve object."""
    fq = curve_params(curve).fq
    gx, gy = psi_constants(curve)  # γ₂ and γ₃ of the reference's twist_frobenius
    powers, n_pre, extra = power_programs(curve)
    return PairingConsts(
        tower=tw.tower_consts(curve),
        b3=fq2_mont(fq, curve.g2.b * 3),
        d_type=curve.twist == "D",
        pi_x=fq2_mont(fq, gx),
        pi_y=fq2_mont(fq, gy),
        loop=np.array(signed_digits(ate_loop_count(curve)), dtype=np.int8),
        conjugate=curve.family == "bls12" and curve.x < 0,
        bn=curve.family == "bn",
        powers=powers,
        n_pre=n_pre,
        extra=extra,
    )


# --- Miller steps as intrinsics (LLVM IR on a tower Ring) --------------------------------------------------------


def _doubling(r: Ring, t: Any, b3: Any) -> Any:
    """(2T, tangent line at T) as [X3, Y3, Z3, ℓ0, ℓx, ℓy]: with B = Y², E = 3b'Z², H = 2YZ (Aranha et al. 2011,
    §4, times 4): 2T = (2XY(B − 3E), (B + 3E)² − 12E², 4B·H); line (ℓ0, ℓx, ℓy) = (E − B, 3X², −H)."""
    X, Y, Z = t
    B, C = r.sqr(Y), r.sqr(Z)
    E = r.mul(b3, C)
    E3 = r.add(r.dbl(E), E)
    H = r.sub(r.sub(r.sqr(r.add(Y, Z)), B), C)
    EE, XX = r.sqr(E), r.sqr(X)
    Y3 = r.sub(r.sqr(r.add(B, E3)), r.dbl(r.dbl(r.add(r.dbl(EE), EE))))
    T3 = [r.dbl(r.mul(r.mul(X, Y), r.sub(B, E3))), Y3, r.dbl(r.dbl(r.mul(B, H)))]
    return [*T3, r.sub(E, B), r.add(r.dbl(XX), XX), r.neg(H)]


def _addition(r: Ring, t: Any, xq: Any, yq: Any, b3: Any) -> Any:
    """(T + Q, line through T and Q) for affine Q (Costello–Lange–Naehrig 2010): θ = Y − y_Q·Z, λ = X − x_Q·Z,
    line (ℓ0, ℓx, ℓy) = (θ·x_Q − λ·y_Q, −θ, λ). T = Q takes the tangent (the reference's rule); T = −Q gives λ = 0,
    θ times a vertical line, which the final exponentiation removes as the reference's dropping it does."""
    X, Y, Z = t
    theta, lam = r.sub(Y, r.mul(yq, Z)), r.sub(X, r.mul(xq, Z))

    def chord() -> Any:
        D = r.sqr(lam)
        E, G = r.mul(lam, D), r.mul(X, D)
        H = r.sub(r.add(E, r.mul(Z, r.sqr(theta))), r.dbl(G))
        T3 = [r.mul(lam, H), r.sub(r.mul(theta, r.sub(G, H)), r.mul(Y, E)), r.mul(Z, E)]
        return [*T3, r.sub(r.mul(theta, xq), r.mul(lam, yq)), r.neg(theta), lam]

    same = fp_is_zero(r.b, [limb for c in (*theta, *lam) for limb in c])
    return r.branch(same, lambda: r.call("doubling_step", _doubling, t, b3, out=(6, 2)), chord)


def _line_d(r: Ring, f: Any, l0: Any, lx: Any, ly: Any, xp: Any, yp: Any) -> Any:
    """f·ℓ for a D-type twist: ℓ = ly·y_P + lx·x_P·w + l0·w³, i.e. ℓ0 = (ly·y_P, 0, 0), ℓ1 = (lx·x_P, l0, 0);
    Karatsuba over Fq6 with the sparse factors, 13 Fq2 products."""
    a, c = r.scale(ly, yp), r.scale(lx, xp)
    t0 = [r.mul(f[0][k], a) for k in range(3)]
    t1 = r.call("fq6_mul_by_01", tw.fq6_mul_by_01_ir, f[1], c, l0)
    s = r.call("fq6_mul_by_01", tw.fq6_mul_by_01_ir, r.add6(f[0], f[1]), r.add(a, c), l0)
    return [r.add6(t0, r.mul_v(t1)), r.sub6(r.sub6(s, t0), t1)]


def _line_m(r: Ring, f: Any, l0: Any, lx: Any, ly: Any, xp: Any, yp: Any) -> Any:
    """f·ℓ for an M-type twist: ℓ = l0 + lx·x_P·w² + ly·y_P·w³, i.e. ℓ0 = (l0, lx·x_P, 0), ℓ1 = (0, ly·y_P, 0)."""
    b, c = r.scale(lx, xp), r.scale(ly, yp)
    t0 = r.call("fq6_mul_by_01", tw.fq6_mul_by_01_ir, f[0], l0, b)
    f1 = f[1]
    t1 = [r.mul_xi(r.mul(f1[2], c)), r.mul(f1[0], c), r.mul(f1[1], c)]  # f1·(c·v)
    s = r.call("fq6_mul_by_01", tw.fq6_mul_by_01_ir, r.add6(f[0], f[1]), l0, r.add(b, c))
    return [r.add6(t0, r.mul_v(t1)), r.sub6(r.sub6(s, t0), t1)]


def _field(r: Ring, name: str) -> Any:
    """A field of the PairingConsts in an intrinsic: the LLVM value, or its limb lists for an Fq2 constant."""
    value = r.b.extract_value(r.consts, PairingConsts._fields.index(name))
    return unpack(r.b, value, 2, r.n) if name == "b3" else value


@intrinsic
def doubling_step(typingctx: Any, t: Any, C: Any) -> Any:
    """(X3, Y3, Z3, ℓ0, ℓx, ℓy): 2T and the tangent's coefficients, for T = (X, Y, Z) on the twist."""
    return typed(lambda r, x: r.call("doubling_step", _doubling, x, _field(r, "b3"), out=(6, 2)), [FQ6], (t, C), (6, 2))


@intrinsic
def addition_step(typingctx: Any, t: Any, xq: Any, yq: Any, C: Any) -> Any:
    """(X3, Y3, Z3, ℓ0, ℓx, ℓy): T + Q and the chord's coefficients, for affine Q = (x_Q, y_Q)."""

    def emit(r: Ring, x: Any, u: Any, v: Any) -> Any:
        return r.call("addition_step", _addition, x, u, v, _field(r, "b3"), out=(6, 2))

    return typed(emit, [FQ6, FQ2, FQ2], (t, xq, yq, C), (6, 2))


@intrinsic
def mul_by_line(typingctx: Any, f: Any, s: Any, xp: Any, yp: Any, C: Any) -> Any:
    """f·ℓ(P) for the line (ℓ0, ℓx, ℓy) = s[3:6] of a step, at P = (x_P, y_P), placed for the curve's twist."""

    def emit(r: Ring, g: Any, u: Any, x: Any, y: Any) -> Any:
        flag = _field(r, "d_type")
        d_type = r.b.icmp_unsigned("!=", flag, ir.Constant(flag.type, 0))
        line_d = lambda: r.call("line_d", _line_d, g, u[3], u[4], u[5], x, y)  # noqa: E731
        return r.branch(d_type, line_d, lambda: r.call("line_m", _line_m, g, u[3], u[4], u[5], x, y))

    return typed(emit, [FQ12, (6, 2), FP, FP], (f, s, xp, yp, C))


# --- the kernels ------------------------------------------------------------------------------------------------


@njit(**INLINE)
def _step(f: Any, state: np.ndarray, i: int, P: np.ndarray, xq: Any, yq: Any, tangent: bool, C: Any) -> Any:
    """One Miller step of pair i: T_i (Fq2 rows 3i … 3i + 2 of ``state``) doubled, or plus (x_Q, y_Q); f times the
    line at P_i."""
    like = (C.tower.F.one, C.tower.F.one)
    t = (load(state, 3 * i, like), load(state, 3 * i + 1, like), load(state, 3 * i + 2, like))
    s = doubling_step(t, C) if tangent else addition_step(t, xq, yq, C)
    for k in range(3):
        store(state, 3 * i + k, s[k])
    return mul_by_line(f, s, load(P, 2 * i, like[0]), load(P, 2 * i + 1, like[0]), C)


@njit(**INLINE)
def _twist_frobenius(x: Any, y: Any, C: Any) -> Any:
    """π(x, y) = (conj(x)·pi_x, conj(y)·pi_y)."""
    F = C.tower.F
    return mul(conjugate(x, F), C.pi_x, F), mul(conjugate(y, F), C.pi_y, F)


@njit(**INLINE)
def miller_loop(P: np.ndarray, Q: np.ndarray, C: Any) -> Any:
    """Π_i f_i(P_i) over the k pairs, none at infinity (P: (2k, N) Montgomery G1 coordinates, Q: (4k, N) G2)."""
    F, K = C.tower.F, C.tower
    like = (F.one, F.one)
    k = P.shape[0] // 2
    state = np.empty((6 * k, P.shape[1]), np.uint64)  # T_i = (X, Y, Z), from (x_Q, y_Q, 1)
    for i in range(k):
        store(state, 3 * i, load(Q, 2 * i, like))
        store(state, 3 * i + 1, load(Q, 2 * i + 1, like))
        store(state, 3 * i + 2, one(like, F))
    f = tw.fq12_one(K)
    for n in range(1, C.loop.shape[0]):
        if n > 1:
            f = tw.fq12_sqr(f, K)
        for i in range(k):
            f = _step(f, state, i, P, like, like, True, C)
        d = C.loop[n]
        for i in range(k if d != 0 else 0):
            yq = load(Q, 2 * i + 1, like)
            f = _step(f, state, i, P, load(Q, 2 * i, like), yq if d > 0 else neg(yq, F), False, C)
    if C.conjugate:
        f = tw.fq12_conj(f, K)
    for i in range(k if C.bn else 0):
        x1, y1 = _twist_frobenius(load(Q, 2 * i, like), load(Q, 2 * i + 1, like), C)
        x2, y2 = _twist_frobenius(x1, y1, C)
        f = _step(f, state, i, P, x1, y1, False, C)
        f = _step(f, state, i, P, x2, neg(y2, F), False, C)
    return f


@njit(**INLINE)
def _power_product(bases: Any, digits: np.ndarray, K: Any) -> Any:
    """Π_j b_j^(e_j) for cyclotomic b_j, the e_j by their signed digits (row j of ``digits``, most significant
    first): one shared square-and-multiply (Straus), cyclotomic squarings, b⁻¹ = conj(b) for a digit −1."""
    acc = tw.fq12_one(K)
    started = False
    for col in range(digits.shape[1]):
        if started:
            acc = tw.fq12_cyclotomic_sqr(acc, K)
        for j in range(4):
            d = digits[j, col]
            if d != 0:
                b = bases[j] if d > 0 else tw.fq12_conj(bases[j], K)
                acc = tw.fq12_mul(acc, b, K) if started else b
                started = True
    return acc


@njit(**INLINE)
def final_exponentiation(f: Any, C: Any) -> Any:
    """f^((q¹² − 1)/r): the easy part, then g^e = Π_i (Π_j (h^(x^j))^(c_ij))^(q^i) · g^extra with h = g^m, the
    powers of q by Horner's rule with the Frobenius map (module text; the programs of :func:`power_programs`)."""
    K = C.tower
    g = tw.fq12_mul(tw.fq12_conj(f, K), tw.fq12_inv_with(f, fp_inv(tw.fq12_norm(f, K), K.F), K), K)  # f^(q⁶ − 1)
    g = tw.fq12_mul(tw.fq12_frobenius(tw.fq12_frobenius(g, K), K), g, K)  # ·^(q² + 1): in the cyclotomic subgroup now
    h0 = g
    for m in range(C.n_pre):
        h0 = _power_product((h0, h0, h0, h0), C.powers[m], K)
    x = C.powers[C.n_pre]
    h1 = _power_product((h0, h0, h0, h0), x, K)
    h2 = _power_product((h1, h1, h1, h1), x, K)
    bases = (h0, h1, h2, _power_product((h2, h2, h2, h2), x, K))
    result = _power_product(bases, C.powers[C.n_pre + 4], K)
    for i in range(2, -1, -1):
        result = tw.fq12_mul(tw.fq12_frobenius(result, K), _power_product(bases, C.powers[C.n_pre + 1 + i], K), K)
    return tw.fq12_mul(result, g, K) if C.extra else result


@njit(**JIT)
def _kernel(g1: np.ndarray, g2: np.ndarray, C: Any, out: np.ndarray) -> bool:
    """Π e(P_i, Q_i) for canonical coordinate rows (g1: (2k, N), g2: (4k, N)): its 12 Fq coefficients, canonical,
    into out (12, N) in the reference's order; returns whether it is 1."""
    F = C.tower.F
    P, Q = np.empty_like(g1), np.empty_like(g2)
    for r in range(g1.shape[0]):
        store(P, r, to_mont(load(g1, r, F.one), F))
    for r in range(g2.shape[0]):
        store(Q, r, to_mont(load(g2, r, F.one), F))
    v = final_exponentiation(miller_loop(P, Q, C), C)
    for h in range(2):
        for m in range(3):
            for c in range(2):
                store(out, 6 * h + 2 * m + c, from_mont(v[h][m][c], F))
    return tw.fq12_is_one(v, C.tower)


def _live_rows(curve: Curve, g1: Any, g2: Any) -> tuple[np.ndarray, np.ndarray]:
    """The (2k', L) and (4k', L) coordinate rows of the pairs with neither point at infinity (all-zero limbs)."""
    L = limbs.fq_limbs(curve)
    a, b = np.ascontiguousarray(g1, dtype=np.uint64), np.ascontiguousarray(g2, dtype=np.uint64)
    if a.ndim != 3 or a.shape[1:] != (2, L) or b.shape != (len(a), 2, 2, L):
        raise InputShapeError(
            f"expected (k, 2, {L}) and (k, 2, 2, {L}) limbs, got {a.shape} and {b.shape}", array="pairs"
        )
    live = a.reshape(len(a), 2 * L).any(axis=1) & b.reshape(len(b), 4 * L).any(axis=1)
    return a[live].reshape(-1, L), b[live].reshape(-1, L)


def _run(curve: Curve, g1: Any, g2: Any) -> tuple[bool, np.ndarray | None]:
    P, Q = _live_rows(curve, g1, g2)
    if len(P) == 0:
        return True, None
    out = np.empty((12, P.shape[1]), np.uint64)
    return bool(_kernel(P, Q, pairing_consts(curve), out)), out


def pairing_check(curve: Curve, g1: np.ndarray, g2: np.ndarray) -> bool:
    """Whether Π e(g1[i], g2[i]) = 1, as ``cuzk.reference.pairing.pairing_check`` answers.

    g1: (k, 2, L) and g2: (k, 2, 2, L) canonical affine limbs (:mod:`cuzk.backends.limbs`), points trusted to be
    on the curve and in the order-r subgroup; a pair with a point at infinity contributes 1, k = 0 gives True.
    """
    return _run(curve, g1, g2)[0]


def pairing_value(curve: Curve, p: np.ndarray, q: np.ndarray) -> list[int]:
    """e(p, q) as 12 canonical integers in the reference's coefficient order (c0.c0.c0, c0.c0.c1, c0.c1.c0, …,
    c1.c2.c1); p: (2, L), q: (2, 2, L) limbs. (1, 0, …, 0) when either point is at infinity."""
    _, out = _run(curve, np.asarray(p)[None], np.asarray(q)[None])
    return [1] + [0] * 11 if out is None else limbs.limbs_to_ints(out)


__all__ = [
    "PairingConsts",
    "final_exponentiation",
    "miller_loop",
    "pairing_check",
    "pairing_consts",
    "pairing_value",
    "power_programs",
]
