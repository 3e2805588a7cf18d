"""``cuzk walkthrough``: Groth16 on x³ + x + 5 = 35 from circuit to pairing check, every intermediate printed.

First on the toy setting of :mod:`cuzk.reference.toy` (p = 64513, "group elements" are numbers, the pairing is
multiplication), where every value can be recomputed by hand; then on BN254 and BLS12-381, where the same steps
produce real curve points. ``cuzk walkthrough`` prints it; docs/walkthrough.md embeds the toy run verbatim.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from cuzk.cli.options import Subparsers
from cuzk.reference.curves import curve_by_name
from cuzk.reference.groth16 import (
    Proof,
    ProvingKey,
    ToxicWaste,
    create_proof,
    generate_parameters_with_toxic_waste,
    prepare_inputs,
)
from cuzk.reference.ntt import domain_root, ntt
from cuzk.reference.qap import Reduction, domain_size, evaluate_rows, qap_matrices, witness_map
from cuzk.reference.r1cs import ConstraintSystem, dense
from cuzk.reference.toy import TOY

# Fixed, public, and therefore insecure values: the walkthrough must print the same numbers on every run.
WALKTHROUGH_TOXIC = {"tau": 20, "alpha": 3, "beta": 5, "gamma": 7, "delta": 11}
WALKTHROUGH_R, WALKTHROUGH_S = 13, 17
CURVE_CHOICES = ["toy", "bn254", "bls12_381"]

Emit = Callable[[str], None]


def _num(x: Any) -> str:
    """A field element or int, in full when small, abbreviated (first and last hex digits) when large."""
    v = x.value if hasattr(x, "value") else int(x)
    if v < 10**6:
        return str(v)
    h = f"{v:x}"
    return f"0x{h[:6]}…{h[-4:]}"


def _point(p: Any) -> str:
    if hasattr(p, "to_affine"):
        affine = p.to_affine()
        if affine is None:
            return "O"
        x = affine[0]
        if hasattr(x, "c0"):
            return f"(x = {_num(x.c0)} + {_num(x.c1)}·u, …)"
        return f"(x = {_num(x)}, y = {_num(affine[1])})"
    return repr(p)


def _poly(coefficients: list[Any]) -> str:
    terms = []
    for i, c in enumerate(coefficients):
        if c.value == 0:
            continue
        monomial = "" if i == 0 else ("X" if i == 1 else f"X^{i}")
        terms.append(f"{_num(c)}{'·' if monomial else ''}{monomial}")
    return " + ".join(terms) or "0"


def poly_mul(a: list[Any], b: list[Any]) -> list[Any]:
    """Schoolbook product of two coefficient lists (used only to show A·B − C = H·Z, term by term)."""
    zero = type(a[0]).zero()
    out = [zero] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] = out[i + j] + x * y
    return out


def _table(emit: Emit, title: str, rows: list[list[int]], names: list[str]) -> None:
    emit(f"{title}  (columns: {', '.join(names)})")
    for row in rows:
        emit("    [" + ", ".join(f"{_num(v):>6}" for v in row) + "]")


def show_circuit(emit: Emit, fr: Any) -> ConstraintSystem:
    """Steps 1 and 2: the circuit with x = 3, its assignment z and its R1CS rows, each checked on z."""
    # imported here: the circuits package is not loaded by every command (the CLI imports this module to parse)
    from cuzk.reference.circuits.cubic import synthesize_cubic

    emit("1. The circuit: prove knowledge of x with x³ + x + 5 = 35, without revealing x (x = 3).")
    cs = ConstraintSystem(fr)
    synthesize_cubic(cs, x=3)
    names = cs.input_names + cs.aux_names
    z = cs.full_assignment()
    emit(f"   z = ({', '.join(names)}) = ({', '.join(_num(v) for v in z)})")
    emit("")
    emit("2. The R1CS: one row per constraint, ⟨A_k,z⟩·⟨B_k,z⟩ = ⟨C_k,z⟩.")
    a, b, c = cs.matrices()
    for label, m in (("A", a), ("B", b), ("C", c)):
        _table(emit, f"   {label}", dense(m, len(z)), names)
    for k, (_, _, _, name) in enumerate(cs.constraints):
        va, vb, vc = (sum((z[j] * coeff for j, coeff in m[k]), fr.zero()) for m in (a, b, c))
        emit(f"   row {k} ({name}): {_num(va)} · {_num(vb)} = {_num(vc)}")
    emit("")
    return cs


def show_qap(emit: Emit, cs: ConstraintSystem) -> list[Any]:
    """Step 3: the QAP's polynomials u_j, v_j, w_j, then A, B, C and H of this z; returns H's coefficients."""
    fr = cs.field
    names = cs.input_names + cs.aux_names
    z = cs.full_assignment()
    a, b, c = cs.matrices()
    n = domain_size(len(a), cs.num_inputs)
    omega = domain_root(fr, n)
    qa, qb, qc = qap_matrices(a, b, c, cs.num_inputs)
    emit(f"3. The QAP: {len(a)} constraints + {cs.num_inputs} input rows → a domain of n = {n} points ω^k,")
    emit(f"   ω = {_num(omega)} (a primitive {n}-th root of unity). Z(X) = X^{n} − 1 vanishes on all of them.")
    emit("   Column j of A, B, C interpolated over the domain gives u_j(X), v_j(X), w_j(X):")
    for j, name in enumerate(names):
        unit = [fr.one() if i == j else fr.zero() for i in range(len(z))]
        polys = [_poly(ntt(evaluate_rows(m, unit, n), inverse=True)) for m in (qa, qb, qc)]
        emit(f"   {name:>6}: u = {polys[0]}")
        emit(f"   {'':>6}  v = {polys[1]}")
        emit(f"   {'':>6}  w = {polys[2]}")
    ea, eb, ec = (evaluate_rows(m, z, n) for m in (qa, qb, qc))
    pa, pb, pc = (ntt(v, inverse=True) for v in (ea, eb, ec))
    emit(f"   A(X) = Σ z_j·u_j(X) = {_poly(pa)}")
    emit(f"   B(X) = {_poly(pb)}")
    emit(f"   C(X) = {_poly(pc)}")
    h = witness_map(ea, eb, ec, Reduction.LIBSNARK)
    emit(f"   H(X) = (A·B − C)/Z = {_poly(h)}")
    lhs = poly_mul(pa, pb)
    lhs = [x - (pc[i] if i < len(pc) else fr.zero()) for i, x in enumerate(lhs)]
    z_poly = [fr(-1)] + [fr.zero()] * (n - 1) + [fr.one()]
    rhs = poly_mul(h, z_poly)
    rhs = rhs + [fr.zero()] * (len(lhs) - len(rhs))
    emit(f"   check A·B − C = H·Z coefficient by coefficient: {lhs == rhs[: len(lhs)]}")
    emit("")
    return h


def show_setup(emit: Emit, cs: ConstraintSystem, curve: Any) -> ProvingKey:
    """Step 4: the setup with the fixed toxic waste, every query of the proving key; returns the key."""
    fr = curve.Fr
    toxic = ToxicWaste(**{k: fr(v) for k, v in WALKTHROUGH_TOXIC.items()})
    emit("4. The setup. Toxic waste (fixed here, so INSECURE; a real setup forgets it):")
    emit("   " + ", ".join(f"{k} = {v}" for k, v in WALKTHROUGH_TOXIC.items()))
    pk = generate_parameters_with_toxic_waste(cs, curve, toxic, reduction=Reduction.LIBSNARK)
    for label, points in (
        ("a_query    = [u_j(τ)]₁", pk.a_query),
        ("b_g1_query = [v_j(τ)]₁", pk.b_g1_query),
        ("b_g2_query = [v_j(τ)]₂", pk.b_g2_query),
        ("h_query    = [τ^i·Z(τ)/δ]₁", pk.h_query),
        ("l_query    = [(β·u_j + α·v_j + w_j)/δ]₁ (aux j)", pk.l_query),
        ("gamma_abc  = [(β·u_i + α·v_i + w_i)/γ]₁ (public i)", pk.vk.gamma_abc_g1),
    ):
        emit(f"   {label}:")
        emit("      " + ", ".join(_point(p) for p in points))
    emit("")
    return pk


def show_proof(emit: Emit, pk: ProvingKey, cs: ConstraintSystem, h: list[Any]) -> Proof:
    """Step 5: the proof with the fixed blinding r, s, each element with the sum it is; returns the proof."""
    emit(f"5. The proof, with blinding r = {WALKTHROUGH_R}, s = {WALKTHROUGH_S}:")
    proof = create_proof(pk, cs, r=WALKTHROUGH_R, s=WALKTHROUGH_S)
    emit(f"   H's scalars (its coefficients) = ({', '.join(_num(x) for x in h)})")
    emit(f"   [A]₁ = [α]₁ + Σ z_j·a_query[j] + r·[δ]₁ = {_point(proof.a)}")
    emit(f"   [B]₂ = [β]₂ + Σ z_j·b_g2_query[j] + s·[δ]₂ = {_point(proof.b)}")
    emit(f"   [C]₁ = Σ z_aux·l_query + Σ h_i·h_query[i] + s·[A]₁ + r·[B]₁ − r·s·[δ]₁ = {_point(proof.c)}")
    if pk.curve is not TOY:
        emit(f"   proof bytes (compressed A‖B‖C) = {proof.to_bytes().hex()}")
    emit("")
    return proof


def show_verification(emit: Emit, pk: ProvingKey, cs: ConstraintSystem, proof: Proof) -> bool:
    """Step 6: the pairing check with the public input (term by term in the toy); returns the verdict."""
    curve, vk, fr = pk.curve, pk.vk, cs.field
    public = cs.input_assignment[1:]
    acc = prepare_inputs(vk, public)
    emit(f"6. Verification with the public input ~out = {_num(public[0])}:")
    emit("   e(A, B) = e(α, β) · e(Σ x_i·gamma_abc_i, γ) · e(C, δ)")
    if curve is TOY:
        emit("   in the toy, e([x],[y]) = x·y and GT is written additively:")
        emit(f"   e(A,B) = {_num(proof.a.value)}·{_num(proof.b.value)} = {_num(proof.a.value * proof.b.value)}")
        terms = [vk.alpha_g1.value * vk.beta_g2.value, acc.value * vk.gamma_g2.value, proof.c.value * vk.delta_g2.value]
        emit(f"   e(α,β) + e(IC,γ) + e(C,δ) = {' + '.join(_num(t) for t in terms)} = {_num(sum(terms, fr.zero()))}")
    ok = curve.pairing_check(
        [(proof.a, proof.b), (-vk.alpha_g1, vk.beta_g2), (-acc, vk.gamma_g2), (-proof.c, vk.delta_g2)]
    )
    emit(f"   pairing check: {'OK' if ok else 'FAILED'}")
    emit("")
    return bool(ok)


def run_walkthrough(curve_name: str, emit: Emit = print) -> bool:
    """Print the whole pipeline for one setting ("toy", "bn254" or "bls12_381"); return the verifier's verdict."""
    curve = TOY if curve_name == "toy" else curve_by_name(curve_name)
    emit(f"=== Groth16 on {curve.name}: scalars in F_r, r = {_num(curve.Fr.MODULUS)} ===")
    emit("")
    cs = show_circuit(emit, curve.Fr)
    h = show_qap(emit, cs)
    pk = show_setup(emit, cs, curve)
    proof = show_proof(emit, pk, cs, h)
    return show_verification(emit, pk, cs, proof)


def run_command(args: argparse.Namespace) -> int:
    names = CURVE_CHOICES if args.curve == "all" else [args.curve]
    return 0 if all([run_walkthrough(name) for name in names]) else 1


def add_parser(subparsers: Subparsers) -> None:
    walk = subparsers.add_parser("walkthrough", help="Groth16 on x³ + x + 5 = 35 with every intermediate value")
    walk.add_argument("--curve", default="all", choices=[*CURVE_CHOICES, "all"])
    walk.set_defaults(run=run_command)
