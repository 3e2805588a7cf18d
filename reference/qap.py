"""From R1CS to a Quadratic Arithmetic Program (Gennaro, Gentry, Parno, Raykova, "Quadratic Span Programs and
Succinct NIZKs without PCPs", 2013), and the quotient polynomial H the prover commits to.

An R1CS with rows A_k, B_k, C_k (k < m) is satisfied by z = (1, inputs…, aux…) when ⟨A_k,z⟩·⟨B_k,z⟩ = ⟨C_k,z⟩ for
every k. Put the rows on the points ω^k of a multiplicative subgroup H = {ω^k} of size n (a power of two ≥ m, so the
NTT applies): column j of A becomes the polynomial u_j with u_j(ω^k) = A_kj, likewise v_j, w_j. Then

    A(X)·B(X) − C(X) = H(X)·Z(X),  A(X) = Σ z_j u_j(X), …,  Z(X) = Π (X − ω^k) = Xⁿ − 1,

holds exactly when every constraint is satisfied, since it says A·B − C vanishes on all of H.

As arkworks and snarkjs do, one extra row per public input (input i, including the constant 1, gets A = z_i,
B = C = 0) is appended: it makes the u_j of the public inputs linearly independent, which Groth16's soundness needs.

Two ways to compute H from the evaluations of A, B, C on H, both giving proofs that verify (:class:`Reduction`):

- ``libsnark`` (libsnark, arkworks): interpolate, evaluate on the coset g·H where Z = gⁿ − 1 is a non-zero
  constant, divide, interpolate back: the n − 1 coefficients of H. The key holds [τⁱ·Z(τ)/δ]₁.
- ``circom`` (snarkjs, rapidsnark): evaluate A·B − C on the n odd 2n-th roots of unity ω₂ₙ^(2i+1) and stop: no
  division. Since A·B − C has degree < 2n and vanishes on the even 2n-th roots (those are H), it equals
  Σ_i (A·B − C)(ω₂ₙ^(2i+1))·L_(2i+1)(X) over the 2n-point Lagrange basis, so the key holds [L_(2i+1)(τ)/δ]₁.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from cuzk.reference.errors import (
    DomainTooLargeError,
    ParameterError,
    SizeMismatchError,
    UnsatisfiedConstraintError,
)
from cuzk.reference.ntt import domain_root, ntt

Matrix = list[list[tuple[int, Any]]]  # rows of (column in z, coefficient)
NttFunction = Callable[..., list[Any]]  # ntt(values, *, inverse=False, coset=False), as cuzk.reference.ntt.ntt


class Reduction(str, Enum):
    """How H is computed and what the proving key's h_query holds (see the module docstring)."""

    LIBSNARK = "libsnark"
    CIRCOM = "circom"


def domain_size(num_constraints: int, num_inputs: int) -> int:
    """n: the smallest power of two ≥ m + number of inputs (the R1CS rows plus one row per public input)."""
    rows = num_constraints + num_inputs
    return 1 << max(0, (rows - 1).bit_length())


def check_domain(field: Any, n: int, reduction: Reduction) -> None:
    """The field must have an n-th (for circom a 2n-th) root of unity."""
    needed = 2 * n if reduction is Reduction.CIRCOM else n
    if needed > 1 << field.TWO_ADICITY:
        raise DomainTooLargeError(
            f"the {reduction.value} reduction of {n} rows needs a domain of {needed} points, "
            f"but {field.NAME} has roots of unity only up to 2^{field.TWO_ADICITY}"
        )


def qap_matrices(a: Matrix, b: Matrix, c: Matrix, num_inputs: int) -> tuple[Matrix, Matrix, Matrix]:
    """The R1CS matrices extended by one row per public input: A gets (i, 1), B and C get nothing."""
    if not len(a) == len(b) == len(c):
        raise SizeMismatchError(f"A, B, C have {len(a)}, {len(b)}, {len(c)} rows; they must have the same number")
    return (
        a + [[(i, 1)] for i in range(num_inputs)],
        b + [[] for _ in range(num_inputs)],
        c + [[] for _ in range(num_inputs)],
    )


def evaluate_rows(matrix: Matrix, z: list[Any], n: int) -> list[Any]:
    """⟨M_k, z⟩ for every row k, padded with zeros to n: the values of Σ z_j u_j on the domain H."""
    field = type(z[0])
    values = [sum((z[column] * coeff for column, coeff in row), field.zero()) for row in matrix]
    return values + [field.zero()] * (n - len(values))


def batch_inverse(values: list[int], p: int) -> list[int]:
    """1/v mod p for every integer v (none zero mod p) with one inversion: Montgomery's trick ("Speeding the Pollard
    and elliptic curve methods of factorization", 1987). With the prefix products P_k = v_0·…·v_k, 1/v_k =
    P_(k−1)·(1/P_k), and walking back 1/P_(k−1) = v_k·(1/P_k): 3 products per value instead of an inversion each."""
    if not values:
        return []
    prefix = [values[0] % p]
    for v in values[1:]:
        prefix.append(prefix[-1] * v % p)
    inverse, out = pow(prefix[-1], -1, p), list(values)
    for k in range(len(values) - 1, 0, -1):
        out[k] = inverse * prefix[k - 1] % p  # 1/v_k = P_(k−1)·(1/P_k)
        inverse = inverse * values[k] % p  # 1/P_(k−1)
    out[0] = inverse
    return out


def domain_generator(field: Any, n: int, root_of_unity: Any = None) -> Any:
    """ω, the generator of the n-point domain H = {ω^k}: :func:`~cuzk.reference.ntt.domain_root`, or, when a primitive
    2^S-th root of unity is given, its 2^S/n-th power. Both enumerate the same n points; a different root numbers
    them differently (snarkjs's .zkey files use ffjavascript's root: see :mod:`cuzk.formats.domain`)."""
    omega = domain_root(field, n)  # checks n
    return omega if root_of_unity is None else root_of_unity ** ((1 << field.TWO_ADICITY) // n)


def powers(base: int, count: int, p: int, first: int = 1) -> list[int]:
    """first·base^k mod p for k = 0 … count − 1, as running products."""
    out, x = [], first % p
    for _ in range(count):
        out.append(x)
        x = x * base % p
    return out


def lagrange_values(points: list[int], tau: int, size: int, p: int) -> list[int]:
    """L_x(τ) = x·(τ^size − 1) / (size·(τ − x)) mod p for each point x of the size-point domain {x : x^size = 1}:
    the Lagrange basis polynomial of x over that domain, at τ (not in the domain). The field's arithmetic on the
    elements' integers (one object per result, not per product); the divisions share one inversion
    (:func:`batch_inverse`)."""
    z_tau = (pow(tau, size, p) - 1) % p
    if z_tau == 0:
        raise ParameterError("τ lies in the evaluation domain; the QAP cannot be evaluated there")
    scale = z_tau * pow(size, -1, p) % p
    inverses = batch_inverse([(tau - x) % p for x in points], p)
    return [x * scale % p * inverse % p for x, inverse in zip(points, inverses, strict=True)]


def lagrange_basis_at(field: Any, n: int, tau: Any, *, root_of_unity: Any = None) -> list[Any]:
    """L_k(τ) for the n-point domain H = {ω^k}: L_k(τ) = ω^k·(τⁿ − 1) / (n·(τ − ω^k)), τ not in H, ω as
    :func:`domain_generator` says (:func:`lagrange_values` over the points ω^k)."""
    omega = domain_generator(field, n, root_of_unity).value
    p = field.MODULUS
    return [field(v) for v in lagrange_values(powers(omega, n, p), field(tau).value, n, p)]


def column_sums(matrix: Matrix, num_variables: int, basis: list[int], p: int) -> list[int]:
    """Σ_k M_kj·basis[k] mod p for every column j, on integers (coefficients ints or field elements)."""
    sums = [0] * num_variables
    for row, value in zip(matrix, basis, strict=False):
        for column, coeff in row:
            sums[column] += value * int(coeff)
    return [x % p for x in sums]


def qap_at(matrix: Matrix, num_variables: int, basis: list[Any]) -> list[Any]:
    """u_j(τ) = Σ_k M_kj·L_k(τ) for every column j (:func:`column_sums` of the basis's values)."""
    field = type(basis[0])
    return [field(x) for x in column_sums(matrix, num_variables, [b.value for b in basis], field.MODULUS)]


def h_query_values(field: Any, n: int, tau: int, reduction: Reduction, *, root_of_unity: Any = None) -> list[int]:
    """:func:`h_query_scalars` as integers mod r: libsnark, τⁱ·Z(τ) for i < n − 1 (running powers of τ); circom,
    the Lagrange basis of the odd points ω₂ₙ^(2i+1) = ω₂ₙ·ωₙ^i of the 2n-point domain, i < n (ωₙ = ω₂ₙ²)."""
    p = field.MODULUS
    if reduction is Reduction.LIBSNARK:
        return powers(tau, n - 1, p, first=pow(tau, n, p) - 1)
    omega_2n = domain_generator(field, 2 * n, root_of_unity).value
    return lagrange_values(powers(omega_2n * omega_2n % p, n, p, first=omega_2n), tau, 2 * n, p)


def h_query_scalars(field: Any, n: int, tau: Any, reduction: Reduction, *, root_of_unity: Any = None) -> list[Any]:
    """The field elements behind h_query, before division by δ and multiplication by the generator.

    libsnark: τⁱ·Z(τ) for i < n − 1 (H has degree ≤ n − 2). circom: L_(2i+1)(τ) over the 2n-point domain, i < n
    (numbered by ``root_of_unity`` as :func:`domain_generator` says). See :func:`h_query_values`.
    """
    return [field(v) for v in h_query_values(field, n, field(tau).value, reduction, root_of_unity=root_of_unity)]


def witness_map(a: list[Any], b: list[Any], c: list[Any], reduction: Reduction, *, ntt: NttFunction = ntt) -> list[Any]:
    """The scalars the prover multiplies h_query by, from the evaluations a, b, c of A, B, C on H (length n).

    libsnark: the coefficients h_0 … h_(n−2) of H = (A·B − C)/Z, computed on the coset g·H.
    circom: (A·B − C)(ω₂ₙ^(2i+1)) for i < n.
    ``ntt`` is the transform to use (the engine passes a backend's); it must equal the reference's.
    """
    if not len(a) == len(b) == len(c):
        raise SizeMismatchError(f"evaluation vectors of lengths {len(a)}, {len(b)}, {len(c)} must agree")
    n = len(a)
    field = type(a[0])
    if reduction is Reduction.LIBSNARK:
        a_g, b_g, c_g = (ntt(ntt(v, inverse=True), coset=True) for v in (a, b, c))
        z_on_coset_inv = (field.GENERATOR**n - 1).inverse()
        h_g = [(x * y - w) * z_on_coset_inv for x, y, w in zip(a_g, b_g, c_g, strict=True)]
        h = ntt(h_g, inverse=True, coset=True)
        if not h[n - 1].is_zero():
            raise UnsatisfiedConstraintError(
                "A·B − C is not divisible by Z: the witness does not satisfy the constraints"
            )
        return h[: n - 1]
    odd = [odd_root_evaluations(v, ntt=ntt) for v in (a, b, c)]
    return [x * y - w for x, y, w in zip(*odd, strict=True)]


def odd_root_evaluations(values: list[Any], *, ntt: NttFunction = ntt) -> list[Any]:
    """Values on H → values on the odd 2n-th roots ω₂ₙ·ωⁱ: interpolate, scale coefficient j by ω₂ₙ^j, evaluate."""
    n = len(values)
    field = type(values[0])
    shift = domain_root(field, 2 * n)
    coefficients = ntt(values, inverse=True)
    power, shifted = field.one(), []
    for coefficient in coefficients:
        shifted.append(coefficient * power)
        power = power * shift
    return ntt(shifted)
