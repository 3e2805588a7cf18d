"""The optimal ate pairing e: G1 × G2 → GT ⊂ Fq12* of a BLS12 or BN curve.

    e(P, Q) = f_{T,Q}(P) ^ ((q¹² − 1) / r)

f_{T,Q} is the Miller function of the loop parameter T (Vercauteren, "Optimal pairings", 2010): T = x for BLS12,
T = 6u + 2 for BN (plus two Frobenius-twisted lines). It is built by Miller's algorithm: walk the bits of T,
doubling a point of the twist E'(Fq2) and multiplying f by the line through the points, evaluated at P.

Lines are computed on the twist, where arithmetic is in Fq2, and mapped into Fq12 by the untwisting isomorphism
ψ: E' → E. With w ∈ Fq12, w⁶ = ξ (see :mod:`cuzk.reference.fields.tower`):

    D-type twist (BN254),     ψ(x, y) = (x·w², y·w³):   l(P) = y_P − λ·x_P·w + (λ·x_T − y_T)·w³
    M-type twist (BLS12-381), ψ(x, y) = (x/w², y/w³):   l(P)·w³ = (λ·x_T − y_T) − λ·x_P·w² + y_P·w³

where λ is the slope of the line on the twist. Multiplying a line by w³ (an element of the proper subfield Fq4)
and dropping vertical lines (elements of Fq6) changes f only by factors the final exponentiation sends to 1,
because (q¹² − 1)/r is a multiple of q⁶ − 1 and of q⁴ − 1.

The final exponentiation splits (q¹² − 1)/r = (q⁶ − 1)(q² + 1) · (q⁴ − q² + 1)/r: the "easy part" costs a
conjugation, an inversion and a Frobenius; the "hard part" is an exponentiation, done here with the exponent
written in base q so that Frobenius maps replace three quarters of the squarings. :func:`final_exponentiation_naive`
is the one-line definition the fast path is tested against.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cuzk.reference.errors import GroupMismatchError

if TYPE_CHECKING:
    from cuzk.reference.curves.curve import Curve
    from cuzk.reference.curves.group import Point
    from cuzk.reference.fields import Fq12Element


def ate_loop_count(curve: Curve) -> int:
    """|T|, the parameter whose bits Miller's loop walks: |x| for BLS12, 6u + 2 for BN."""
    return abs(curve.x) if curve.family == "bls12" else 6 * curve.x + 2


def line_at(curve: Curve, slope: Any, x_t: Any, y_t: Any, x_p: Any, y_p: Any) -> Fq12Element:
    """The line of slope λ through T = (x_T, y_T) ∈ E'(Fq2), evaluated at P = (x_P, y_P) ∈ E(Fq), in Fq12.

    The formulas are those of the module docstring; the result is given by its six coefficients on 1, w, …, w⁵.
    """
    fq2 = curve.Fq2
    zero = fq2.zero()
    constant = slope * x_t - y_t
    if curve.twist == "D":
        g = [fq2.from_base(y_p), -(slope * x_p), zero, constant, zero, zero]
    else:
        g = [constant, zero, -(slope * x_p), fq2.from_base(y_p), zero, zero]
    return curve.Fq12.from_w_coefficients(g)


def twist_frobenius(curve: Curve, x: Any, y: Any) -> tuple[Any, Any]:
    """π(Q) = ψ⁻¹(Frob(ψ(Q))) on the twist: (x^q · ξ^((q−1)/3), y^q · ξ^((q−1)/2)) for a D-type twist
    (the inverse constants for an M-type twist). The constants are the tower's γ₂ and γ₃ = ξ^(i(q−1)/6)."""
    gammas = curve.Fq12.FROBENIUS_GAMMAS  # type: ignore[attr-defined]
    gx, gy = gammas[2], gammas[3]
    if curve.twist == "M":
        gx, gy = gx.inverse(), gy.inverse()
    return x.conjugate() * gx, y.conjugate() * gy


def _step(
    curve: Curve, t: tuple[Any, Any] | None, q: tuple[Any, Any] | None, p: tuple[Any, Any]
) -> tuple[tuple[Any, Any] | None, Fq12Element]:
    """One Miller step: (T + Q, l_{T,Q}(P)) — with Q = None meaning the tangent at T, i.e. (2T, l_{T,T}(P)).

    A vertical line (T = −Q, or a tangent at a 2-torsion point) is replaced by 1 and T + Q by the identity (None);
    neither happens inside the loop for points of order r, but the function stays total.
    """
    one = curve.Fq12.one()
    if t is None:
        return q, one
    x_t, y_t = t
    if q is None:
        if y_t.is_zero():
            return None, one
        slope = (x_t.square() * 3) / y_t.double()
        x_q = x_t
    else:
        x_q, y_q = q
        if x_q == x_t:
            if y_q == y_t:
                return _step(curve, t, None, p)
            return None, one
        slope = (y_q - y_t) / (x_q - x_t)
    x_r = slope.square() - x_t - x_q
    y_r = slope * (x_t - x_r) - y_t
    return (x_r, y_r), line_at(curve, slope, x_t, y_t, p[0], p[1])


def miller_loop(curve: Curve, p: Point, q: Point) -> Fq12Element:
    """f_{T,Q}(P) (for BN times the two extra lines through π(Q) and −π²(Q)); 1 when P or Q is the identity."""
    if p.group is not curve.g1 or q.group is not curve.g2:
        raise GroupMismatchError(
            f"the {curve.name} pairing takes a point of {curve.g1.name} and one of "
            f"{curve.g2.name}, not {p.group.name} and {q.group.name}"
        )
    p_affine, q_affine = p.to_affine(), q.to_affine()
    if p_affine is None or q_affine is None:
        return curve.Fq12.one()
    f = curve.Fq12.one()
    t: tuple[Any, Any] | None = q_affine
    for bit in bin(ate_loop_count(curve))[3:]:
        t, line = _step(curve, t, None, p_affine)
        f = f.square() * line
        if bit == "1":
            t, line = _step(curve, t, q_affine, p_affine)
            f = f * line
    if curve.family == "bls12" and curve.x < 0:
        f = f.conjugate()  # f_{−|x|} = 1/f_{|x|} up to factors killed by the final exponentiation
    if curve.family == "bn":
        q1 = twist_frobenius(curve, *q_affine)
        q2x, q2y = twist_frobenius(curve, *q1)
        t, line = _step(curve, t, q1, p_affine)
        f = f * line
        _, line = _step(curve, t, (q2x, -q2y), p_affine)
        f = f * line
    return f


def final_exponentiation_naive(curve: Curve, f: Fq12Element) -> Fq12Element:
    """f^((q¹² − 1)/r): the definition, by one plain exponentiation (the oracle of the fast version)."""
    return f ** ((curve.q**12 - 1) // curve.r)


def final_exponentiation(curve: Curve, f: Fq12Element) -> Fq12Element:
    """f^((q¹² − 1)/r) = ((f^(q⁶−1))^(q²+1))^((q⁴−q²+1)/r).

    Easy part: f^(q⁶ − 1) = conj(f)/f, then ·^(q² + 1) with one Frobenius. The result g lies in the cyclotomic
    subgroup. Hard part: the exponent e = (q⁴ − q² + 1)/r is written in base q, e = Σ e_i qⁱ, and
    g^e = Π (g^(qⁱ))^(e_i) is computed with one shared square-and-multiply over the digits (Straus' trick).
    """
    g = f.conjugate() * f.inverse()
    g = g.frobenius(2) * g
    e = (curve.q**4 - curve.q**2 + 1) // curve.r
    digits, powers = [], []
    i = 0
    while e:
        e, digit = divmod(e, curve.q)
        digits.append(digit)
        powers.append(g.frobenius(i))
        i += 1
    result = curve.Fq12.one()
    for bit in reversed(range(max(d.bit_length() for d in digits))):
        result = result.square()
        for digit, power in zip(digits, powers, strict=True):
            if digit >> bit & 1:
                result = result * power
    return result


def pairing(curve: Curve, p: Point, q: Point) -> Fq12Element:
    """e(P, Q), P ∈ G1, Q ∈ G2. Bilinear: e(aP, bQ) = e(P, Q)^(ab); e(P, Q) = 1 when either is the identity."""
    return final_exponentiation(curve, miller_loop(curve, p, q))


def pairing_check(curve: Curve, pairs: list[tuple[Point, Point]]) -> bool:
    """Whether Π e(P_i, Q_i) = 1, with the Miller loops multiplied first and one final exponentiation."""
    f = curve.Fq12.one()
    for p, q in pairs:
        f = f * miller_loop(curve, p, q)
    return final_exponentiation(curve, f) == curve.Fq12.one()
